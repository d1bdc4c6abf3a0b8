//! The fuzz targets' door (built only with `--cfg fuzzing`, as `cargo fuzz`
//! builds): the Markdown renderer, exactly as the screens call it.

use crate::markdown::{inline_line, lines};

/// `markdown` as the rows of a screen `width` columns wide, each row as a plain
/// screen writes it and as a coloured one does; and `markdown` as one line
/// (plain and coloured).
#[must_use]
pub fn markdown(markdown: &str, width: usize) -> (Vec<(String, String)>, (String, String)) {
    let rows = lines(markdown, width)
        .iter()
        .map(|line| (line.text(), line.styled()))
        .collect();
    let line = inline_line(markdown);
    (rows, (line.text(), line.styled()))
}
