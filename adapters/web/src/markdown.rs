//! Markdown from a model, shown safely: question text, context and option
//! descriptions are read as `CommonMark` ([`pulldown_cmark`], no extensions) and
//! built as [`maud`] markup, so every text node is escaped by construction and
//! passes through [`for_display`] first (control, bidi-control and invisible
//! characters shown as visible escapes).
//!
//! What a model may use: emphasis, strong, inline code, lists, block quotes,
//! rules, fenced and indented code (a `<pre><code>` block). What it cannot:
//! raw HTML, block or inline, is shown as the text it is; a heading is a bold
//! paragraph (a question has no `<h1>` of its own); an image is its alt text
//! and its target; a link shows its target as text beside its label, and is
//! an `<a>` only for an `http`/`https` target (`rel="noopener noreferrer"`),
//! never for `javascript:` or any other scheme.

use maud::{Markup, html};
use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use crate::pages::shown;

/// The most elements nested in one another that are drawn as such. A model may
/// nest quotes or lists without end (10,000 `>` is 10 KB); deeper elements are
/// shown flat, as their text inside the deepest one drawn, and a note says so
/// once. Every walk of the tree (to markup, to plain text, dropping it) is then
/// bounded by this depth, not by the input.
pub(crate) const MAX_DEPTH: usize = 16;

/// What a text nested deeper than [`MAX_DEPTH`] ends with, once.
pub(crate) const FLATTENED: &str =
    "(Nested more than 16 levels deep: the deeper levels are shown flat.)";

/// How much of Markdown a place takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Blocks: paragraphs, lists, code blocks (a question's context).
    Block,
    /// One line of phrasing content (a legend, a label, a term): blocks run
    /// together, a code block is inline code; links are `<a>` where allowed.
    Inline,
    /// As [`Flow::Inline`], inside a link (the inbox's lines): no `<a>` at all.
    InlineNoLinks,
}

/// One piece of the parsed text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    /// Text, as written.
    Text(String),
    /// Inline code.
    Code(String),
    /// A line break the writer asked for.
    Break,
    /// A rule between blocks.
    Rule,
    /// An element and what it holds.
    Element(Kind, Vec<Node>),
}

/// What an element is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Paragraph,
    Heading,
    Quote,
    /// A code block, its text whole.
    CodeBlock,
    /// Raw HTML, shown as text.
    Raw,
    List(Option<u64>),
    Item,
    Emphasis,
    Strong,
    Link(String),
    Image(String),
    /// Anything else `CommonMark` may give (never with no extensions): its text.
    Other,
}

/// `text` read as `CommonMark` and shown as `flow` says.
pub(crate) fn render(text: &str, flow: Flow) -> Markup {
    children(&parse(text), flow)
}

/// `text`'s words without their Markdown marks, for where no markup goes (a
/// page's title, an `aria-label`): a link is its label and its target, as on
/// the page. Not yet safe to show: it goes through [`shown`] like any text.
pub(crate) fn plain(text: &str) -> String {
    let nodes = parse(text);
    let mut out = String::new();
    plain_into(&nodes, &mut out);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn plain_into(nodes: &[Node], out: &mut String) {
    for node in nodes {
        match node {
            Node::Text(text) | Node::Code(text) => out.push_str(text),
            Node::Break | Node::Rule => out.push(' '),
            Node::Element(Kind::Link(target) | Kind::Image(target), children) => {
                plain_into(children, out);
                if joined(children) != *target {
                    out.push_str(" (");
                    out.push_str(target);
                    out.push(')');
                }
            }
            Node::Element(_, children) => {
                plain_into(children, out);
                if is_block(node) {
                    out.push(' ');
                }
            }
        }
    }
}

/// The tree of `text`'s Markdown.
fn parse(text: &str) -> Vec<Node> {
    if is_plain(text) {
        return vec![Node::Element(
            Kind::Paragraph,
            vec![Node::Text(text.to_owned())],
        )];
    }
    let mut stack: Vec<(Kind, Vec<Node>)> = vec![(Kind::Other, Vec::new())];
    // Elements opened past MAX_DEPTH, not drawn; their ends come first, as
    // the parser's events nest.
    let mut flat = 0usize;
    let mut flattened = false;
    for event in Parser::new_ext(text, Options::empty()) {
        match event {
            Event::Start(_) if stack.len() > MAX_DEPTH => {
                flat += 1;
                flattened = true;
            }
            Event::End(_) if flat > 0 => flat -= 1,
            Event::Start(tag) => stack.push((kind_of(tag), Vec::new())),
            Event::End(end) => {
                if stack.len() > 1
                    && let Some((kind, children)) = stack.pop()
                {
                    let node = match (end, kind) {
                        (TagEnd::CodeBlock, Kind::CodeBlock) => {
                            Node::Element(Kind::CodeBlock, vec![Node::Text(joined(&children))])
                        }
                        (_, kind) => Node::Element(kind, children),
                    };
                    push(&mut stack, node);
                }
            }
            Event::Text(text) => push(&mut stack, Node::Text(text.into_string())),
            Event::Code(code) => push(&mut stack, Node::Code(code.into_string())),
            Event::Html(raw) | Event::InlineHtml(raw) => {
                push(&mut stack, Node::Text(raw.into_string()));
            }
            Event::SoftBreak => push(&mut stack, Node::Text("\n".to_owned())),
            Event::HardBreak => push(&mut stack, Node::Break),
            Event::Rule => push(&mut stack, Node::Rule),
            Event::InlineMath(math) | Event::DisplayMath(math) => {
                push(&mut stack, Node::Text(math.into_string()));
            }
            Event::FootnoteReference(name) => push(&mut stack, Node::Text(format!("[^{name}]"))),
            Event::TaskListMarker(done) => {
                push(
                    &mut stack,
                    Node::Text(if done { "[x] " } else { "[ ] " }.into()),
                );
            }
        }
    }
    // Unbalanced ends never happen with pulldown-cmark; fold any rest back.
    while stack.len() > 1 {
        if let Some((kind, children)) = stack.pop() {
            push(&mut stack, Node::Element(kind, children));
        }
    }
    let mut nodes = stack.pop().map(|(_, nodes)| nodes).unwrap_or_default();
    if flattened {
        nodes.push(Node::Element(
            Kind::Paragraph,
            vec![Node::Text(FLATTENED.to_owned())],
        ));
    }
    nodes
}

/// Whether `CommonMark` reads `text` as one paragraph of exactly itself: one
/// line that starts with a letter, of letters, digits, single spaces and
/// punctuation that marks nothing (no `*`, `_`, `` ` ``, `[`, `<`, `&`, `\`,
/// `#`, `!`, `~`, `|`). Such text is not handed to the parser: the inbox shows
/// a thousand question lines, and most are plain (a test checks both roads
/// agree).
fn is_plain(text: &str) -> bool {
    text.chars().next().is_some_and(char::is_alphabetic)
        && !text.ends_with(' ')
        && !text.contains("  ")
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || " ,.;:?'\"()/@%$^+=-".contains(c))
}

fn push(stack: &mut [(Kind, Vec<Node>)], node: Node) {
    if let Some((_, children)) = stack.last_mut() {
        children.push(node);
    }
}

fn kind_of(tag: Tag<'_>) -> Kind {
    match tag {
        Tag::Paragraph => Kind::Paragraph,
        Tag::Heading { .. } => Kind::Heading,
        Tag::BlockQuote(_) => Kind::Quote,
        Tag::CodeBlock(CodeBlockKind::Fenced(_) | CodeBlockKind::Indented) => Kind::CodeBlock,
        Tag::HtmlBlock => Kind::Raw,
        Tag::List(start) => Kind::List(start),
        Tag::Item => Kind::Item,
        Tag::Emphasis => Kind::Emphasis,
        Tag::Strong => Kind::Strong,
        Tag::Link { dest_url, .. } => Kind::Link(dest_url.into_string()),
        Tag::Image { dest_url, .. } => Kind::Image(dest_url.into_string()),
        _ => Kind::Other,
    }
}

/// The text of `nodes`, without their marks.
fn joined(nodes: &[Node]) -> String {
    let mut out = String::new();
    for node in nodes {
        match node {
            Node::Text(text) | Node::Code(text) => out.push_str(text),
            Node::Break => out.push('\n'),
            Node::Rule => {}
            Node::Element(_, children) => out.push_str(&joined(children)),
        }
    }
    out
}

/// Whether `target` may be a link a person clicks: `http` or `https`, and
/// nothing in it that [`for_display`](askuser_core::text::for_display) would
/// change.
fn clickable(target: &str) -> bool {
    let lower = target.to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && target
            .chars()
            .all(|c| c.is_ascii_graphic() && c != '"' && c != '<' && c != '>')
}

/// Whether `node` is a block, set apart by a space from the next in one line.
fn is_block(node: &Node) -> bool {
    matches!(
        node,
        Node::Rule
            | Node::Element(
                Kind::Paragraph
                    | Kind::Heading
                    | Kind::Quote
                    | Kind::CodeBlock
                    | Kind::Raw
                    | Kind::List(_)
                    | Kind::Item,
                _
            )
    )
}

fn children(nodes: &[Node], flow: Flow) -> Markup {
    let apart = |n: usize| flow != Flow::Block && n > 0 && is_block(&nodes[n - 1]);
    html! {
        @for (n, node) in nodes.iter().enumerate() {
            @if apart(n) { " " }
            (node_markup(node, flow))
        }
    }
}

fn node_markup(node: &Node, flow: Flow) -> Markup {
    match node {
        Node::Text(text) => html! { (shown(text)) },
        Node::Code(code) => html! { code { (shown(code)) } },
        Node::Break => html! { br; },
        Node::Rule if flow == Flow::Block => html! { hr; },
        Node::Rule => html! {},
        Node::Element(kind, nodes) => element(kind, nodes, flow),
    }
}

fn element(kind: &Kind, nodes: &[Node], flow: Flow) -> Markup {
    let inner = children(nodes, flow);
    let block = flow == Flow::Block;
    match kind {
        Kind::Paragraph if block => html! { p { (inner) } },
        Kind::Heading if block => html! { p.heading { strong { (inner) } } },
        Kind::Heading => html! { strong { (inner) } },
        Kind::Quote if block => html! { blockquote { (inner) } },
        Kind::CodeBlock if block => html! { pre { code { (shown(&joined(nodes))) } } },
        Kind::CodeBlock => html! { code { (shown(joined(nodes).trim_end())) } },
        Kind::Raw if block => html! { p.raw { (shown(&joined(nodes))) } },
        Kind::List(Some(start)) if block => html! {
            @if *start == 1 { ol { (inner) } } @else { ol start=(start) { (inner) } }
        },
        Kind::List(None) if block => html! { ul { (inner) } },
        Kind::Item if block => html! { li { (inner) } },
        Kind::Item => html! { "• " (inner) },
        Kind::Emphasis => html! { em { (inner) } },
        Kind::Strong => html! { strong { (inner) } },
        Kind::Link(target) => link(target, nodes, &inner, flow),
        Kind::Image(target) => html! { (inner) " (" (shown(target)) ")" },
        Kind::Raw => html! { (shown(joined(nodes).trim_end())) },
        Kind::Paragraph | Kind::Quote | Kind::List(_) | Kind::Other => inner,
    }
}

/// A link: its label, then its target as text (once, when the label is the
/// target itself); an `<a>` only where [`clickable`] and `flow` allows one.
fn link(target: &str, nodes: &[Node], inner: &Markup, flow: Flow) -> Markup {
    let label = joined(nodes);
    let same = label == target || format!("mailto:{label}") == target;
    let anchor = clickable(target) && flow != Flow::InlineNoLinks;
    html! {
        @if anchor {
            a href=(target) rel="noopener noreferrer" { (inner) }
        } @else {
            (inner)
        }
        @if !same { " (" (shown(target)) ")" }
    }
}

#[cfg(test)]
mod tests {
    use super::{Flow, is_plain, render};

    fn block(text: &str) -> String {
        render(text, Flow::Block).into_string()
    }

    #[test]
    fn emphasis_code_and_lists_are_shown_as_html() {
        assert_eq!(
            block("Run **this** *now*: `cargo test`\n\n- one\n- two\n\n3. three"),
            "<p>Run <strong>this</strong> <em>now</em>: <code>cargo test</code></p>\
             <ul><li>one</li><li>two</li></ul><ol start=\"3\"><li>three</li></ol>"
        );
    }

    #[test]
    fn a_fenced_block_with_a_script_is_preformatted_text() {
        assert_eq!(
            block("Writes:\n\n```html\n<script>alert(1)</script>\n```\n"),
            "<p>Writes:</p><pre><code>&lt;script&gt;alert(1)&lt;/script&gt;\n</code></pre>"
        );
        assert_eq!(
            block("    indented <b>\n"),
            "<pre><code>indented &lt;b&gt;\n</code></pre>"
        );
    }

    #[test]
    fn raw_html_block_or_inline_is_shown_as_text() {
        assert_eq!(
            block("<script>alert(1)</script>\n\nand <img src=x onerror=alert(2)> here"),
            "<p class=\"raw\">&lt;script&gt;alert(1)&lt;/script&gt;\n</p>\
             <p>and &lt;img src=x onerror=alert(2)&gt; here</p>"
        );
    }

    #[test]
    fn bidi_and_escape_characters_are_shown_as_escapes() {
        assert_eq!(
            block("a\u{202e}b \u{1b}[2J `c\u{200f}`"),
            "<p>a\\u{202e}b \\u{1b}[2J <code>c\\u{200f}</code></p>"
        );
        assert_eq!(
            block("```\nx\u{202e}y\n```"),
            "<pre><code>x\\u{202e}y\n</code></pre>"
        );
    }

    #[test]
    fn only_http_links_are_clickable_and_every_target_is_shown() {
        assert_eq!(
            block("[x](javascript:alert(1)) [docs](https://example.com/a?b=1&c=2) <https://e.org>"),
            "<p>x (javascript:alert(1)) \
             <a href=\"https://example.com/a?b=1&amp;c=2\" rel=\"noopener noreferrer\">docs</a> \
             (https://example.com/a?b=1&amp;c=2) \
             <a href=\"https://e.org\" rel=\"noopener noreferrer\">https://e.org</a></p>"
        );
        assert_eq!(
            block("[y](data:text/html,<b>) [z](HTTPS://x.org/\u{202e})"),
            "<p>y (data:text/html,&lt;b&gt;) z (HTTPS://x.org/\\u{202e})</p>"
        );
        assert_eq!(
            render("[docs](https://example.com)", Flow::InlineNoLinks).into_string(),
            "docs (https://example.com)"
        );
    }

    #[test]
    fn headings_are_bold_paragraphs_and_images_their_alt_text_and_target() {
        assert_eq!(
            block("# Deploy\n\n![a chart](https://x.org/c.png)"),
            "<p class=\"heading\"><strong>Deploy</strong></p><p>a chart (https://x.org/c.png)</p>"
        );
    }

    #[test]
    fn plain_text_drops_the_marks_and_keeps_link_targets() {
        assert_eq!(
            super::plain(
                "Write `config.json` with **these** [settings](https://x.org)?\n\n- a\n- b"
            ),
            "Write config.json with these settings (https://x.org)? a b"
        );
    }

    #[test]
    fn inline_flow_keeps_one_line_of_phrasing_content() {
        assert_eq!(
            render("Use **`main`**?\n\n```\nx\n```", Flow::Inline).into_string(),
            "Use <strong><code>main</code></strong>? <code>x</code>"
        );
        assert_eq!(render("- a\n- b", Flow::Inline).into_string(), "• a • b");
    }

    #[test]
    fn nesting_past_the_bound_is_shown_flat_and_said_once() {
        let quotes = ">".repeat(10_000) + " deep";
        let deepest = "<blockquote>".repeat(super::MAX_DEPTH);
        let closed = "</blockquote>".repeat(super::MAX_DEPTH);
        assert_eq!(
            block(&quotes),
            format!("{deepest}deep{closed}<p>{}</p>", super::FLATTENED)
        );
        let items = "- ".repeat(7_500) + "x";
        let html = block(&items);
        assert_eq!(html.matches("<ul>").count(), 8);
        assert!(html.ends_with(&format!("<p>{}</p>", super::FLATTENED)));
        assert_eq!(super::plain(&quotes), format!("deep {}", super::FLATTENED));
        assert_eq!(
            render(&quotes, Flow::InlineNoLinks).into_string(),
            format!("deep {}", super::FLATTENED)
        );
    }

    #[test]
    fn nesting_up_to_the_bound_is_drawn_whole() {
        let quotes = ">".repeat(super::MAX_DEPTH - 1) + " deep";
        assert_eq!(
            block(&quotes),
            format!(
                "{}<p>deep</p>{}",
                "<blockquote>".repeat(super::MAX_DEPTH - 1),
                "</blockquote>".repeat(super::MAX_DEPTH - 1)
            )
        );
    }

    proptest::proptest! {
        /// Plain text skips the parser: both roads give the same nodes.
        #[test]
        fn plain_text_reads_as_the_parser_reads_it(text in "[A-Za-zé][A-Za-z0-9é ,.;:?'\"()/@%$^+=-]{0,60}") {
            if is_plain(&text) {
                let mut parsed = Vec::new();
                let mut stack = vec![(super::Kind::Other, Vec::new())];
                for event in pulldown_cmark::Parser::new_ext(&text, pulldown_cmark::Options::empty()) {
                    match event {
                        pulldown_cmark::Event::Start(tag) => stack.push((super::kind_of(tag), Vec::new())),
                        pulldown_cmark::Event::End(_) => {
                            let (kind, children) = stack.pop().unwrap();
                            super::push(&mut stack, super::Node::Element(kind, children));
                        }
                        pulldown_cmark::Event::Text(t) => super::push(&mut stack, super::Node::Text(t.into_string())),
                        other => panic!("{other:?} in {text:?}"),
                    }
                }
                parsed.extend(stack.pop().unwrap().1);
                // The parser may hand one text in pieces: join them.
                let joined: Vec<super::Node> = parsed.into_iter().map(|node| match node {
                    super::Node::Element(kind, children) => super::Node::Element(kind, vec![super::Node::Text(super::joined(&children))]),
                    other => other,
                }).collect();
                proptest::prop_assert_eq!(super::parse(&text), joined);
            }
        }
    }
}
