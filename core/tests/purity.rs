//! The core stays pure: no I/O crate among its dependencies, and no clock, file,
//! socket, environment or random source in its code.

use std::path::Path;
use std::process::Command;

const FORBIDDEN_CRATES: [&str; 7] = [
    "sled",
    "inquire",
    "crossterm",
    "tokio",
    "reqwest",
    "hyper",
    "rand",
];

#[test]
fn the_core_depends_on_no_io_crate() {
    let output = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "askuser-core",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    let found: Vec<&str> = tree
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| FORBIDDEN_CRATES.contains(name))
        .collect();
    assert_eq!(
        found,
        Vec::<&str>::new(),
        "askuser-core must not depend on these"
    );
    assert!(
        tree.lines().count() > 5,
        "cargo tree printed the graph:\n{tree}"
    );
}

/// Paths and names through which code reaches the outside world.
const FORBIDDEN_APIS: [&str; 14] = [
    "std::time",
    "SystemTime",
    "Instant::",
    "std::fs",
    "std::net",
    "std::env",
    "std::io::stdin",
    "std::process",
    "std::thread",
    "HashMap",
    "HashSet",
    "RandomState",
    "getrandom",
    "thread_rng",
];

#[test]
fn the_core_reads_no_clock_file_socket_environment_or_random_source() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut offences = Vec::new();
    let mut files = 0;
    for entry in std::fs::read_dir(&src).expect("core/src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            files += 1;
            let text = std::fs::read_to_string(&path).expect("a source file is readable");
            for (number, line) in text.lines().enumerate() {
                for api in FORBIDDEN_APIS {
                    if line.contains(api) {
                        offences.push(format!("{}:{}: {api}", path.display(), number + 1));
                    }
                }
            }
        }
    }
    assert!(files >= 10, "scanned {files} files");
    assert_eq!(offences, Vec::<String>::new());
}
