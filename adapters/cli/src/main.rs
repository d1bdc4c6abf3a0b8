//! The `askuser` program: filled by a later issue.

fn main() {
    eprintln!("askuser: the command-line program is not built yet; see README.md");
    std::process::exit(1);
}
