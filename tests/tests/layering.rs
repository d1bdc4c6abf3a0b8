//! The crates' dependencies point inward only (surfaces → application layer →
//! store → core; dialects → core), read from `cargo metadata`: a new edge that
//! breaks the layering fails here, with the edge named. Also: the core depends
//! on no I/O crate, and only the backend crates (`askuser-sled`,
//! `askuser-postgres`) touch sled or PostgreSQL.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

use serde_json::Value;

/// Each workspace crate, and the workspace crates it may depend on (normal and
/// build dependencies; tests and benchmarks may use anything).
///
/// `askuser-app` is the one door every surface uses: it opens the durable logs
/// (`askuser-sled`, `askuser-postgres`, each a feature of it) and reads the
/// agents' calls through the dialects, which sit beside the store on the core
/// (`dialects/`, not among the surfaces: the application layer depends on them,
/// and nothing depends on a surface but the program). No surface (the terminal,
/// JSON lines, MCP, the web inbox) depends on another, on the store or on a
/// backend: each reaches the log only through the application layer. The
/// program (`askuser-cli`) puts the surfaces together. The terminal needs only
/// the core: its host hands it an engine. The backends' test programs use the
/// test kit (an optional dependency, feature `test-support`).
const ALLOWED: &[(&str, &[&str])] = &[
    ("askuser-core", &[]),
    ("askuser-dialects", &["askuser-core"]),
    ("askuser-store", &["askuser-core"]),
    (
        "askuser-sled",
        &["askuser-core", "askuser-store", "askuser-testkit"],
    ),
    (
        "askuser-postgres",
        &["askuser-core", "askuser-store", "askuser-testkit"],
    ),
    (
        "askuser-app",
        &[
            "askuser-core",
            "askuser-store",
            "askuser-sled",
            "askuser-postgres",
            "askuser-dialects",
        ],
    ),
    ("askuser-terminal", &["askuser-core"]),
    (
        "askuser-rpc",
        &["askuser-core", "askuser-dialects", "askuser-app"],
    ),
    (
        "askuser-mcp",
        &["askuser-core", "askuser-dialects", "askuser-app"],
    ),
    (
        "askuser-web",
        &["askuser-core", "askuser-dialects", "askuser-app"],
    ),
    (
        "askuser-cli",
        &[
            "askuser-core",
            "askuser-dialects",
            "askuser-app",
            "askuser-terminal",
            "askuser-rpc",
            "askuser-mcp",
            "askuser-web",
        ],
    ),
];

/// The surfaces: one crate per way a person or a host reaches the engine. None
/// depends on the store, a backend, or (but the program) another surface.
const SURFACES: &[&str] = &[
    "askuser-terminal",
    "askuser-rpc",
    "askuser-mcp",
    "askuser-web",
    "askuser-cli",
];

/// What the surfaces may not reach around the application layer.
const BELOW_THE_DOOR: &[&str] = &["askuser-store", "askuser-sled", "askuser-postgres"];

/// Crates that test or measure the others, and may use them all.
const TEST_CRATES: &[&str] = &["askuser-tests", "askuser-benches", "askuser-testkit"];

/// What the pure core may depend on: no clock, file, socket or random source
/// comes in through these (the `unicode-*` crates are Unicode's tables, for
/// validation's character classes, NFKC and confusable skeletons).
const CORE_DEPENDENCIES: &[&str] = &[
    "serde",
    "serde_json",
    "jsonschema",
    "thiserror",
    "proptest",
    "unicode-normalization",
    "unicode-properties",
    "unicode-security",
];

/// The crates of the databases, which only the backend crates may use.
const DATABASE_CRATES: &[&str] = &["sled", "postgres", "tokio-postgres"];

/// The crates of the durable logs: the only ones that touch a database.
const BACKEND_CRATES: &[&str] = &["askuser-sled", "askuser-postgres"];

/// Every workspace package: its name, and its normal and build dependencies'
/// names.
fn workspace() -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON");
    let mut packages = BTreeMap::new();
    for package in metadata["packages"].as_array().expect("packages") {
        let name = package["name"].as_str().expect("a name").to_owned();
        let dependencies = (package["dependencies"]
            .as_array()
            .expect("dependencies")
            .iter())
        .filter(|dependency| dependency["kind"].as_str() != Some("dev"))
        .map(|dependency| dependency["name"].as_str().expect("a name").to_owned())
        .collect();
        packages.insert(name, dependencies);
    }
    packages
}

#[test]
fn dependencies_point_inward_only() {
    let packages = workspace();
    let allowed: BTreeMap<&str, &[&str]> = ALLOWED.iter().copied().collect();
    let mut wrong = Vec::new();
    for (name, dependencies) in &packages {
        if TEST_CRATES.contains(&name.as_str()) {
            continue;
        }
        let Some(may) = allowed.get(name.as_str()) else {
            wrong.push(format!(
                "{name} is not in ALLOWED: say which layer it is in"
            ));
            continue;
        };
        for dependency in dependencies {
            let inner = packages.contains_key(dependency);
            if inner && !may.contains(&dependency.as_str()) {
                wrong.push(format!("{name} → {dependency}"));
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new(), "edges against the layering");
}

#[test]
fn no_surface_reaches_around_the_application_layer_and_the_layers_below_depend_on_no_surface() {
    let packages = workspace();
    let mut wrong = Vec::new();
    for (name, dependencies) in &packages {
        for dependency in dependencies {
            let surface_below =
                SURFACES.contains(&name.as_str()) && BELOW_THE_DOOR.contains(&dependency.as_str());
            let upward = !SURFACES.contains(&name.as_str())
                && !TEST_CRATES.contains(&name.as_str())
                && SURFACES.contains(&dependency.as_str());
            if surface_below || upward {
                wrong.push(format!("{name} → {dependency}"));
            }
        }
    }
    assert_eq!(wrong, Vec::<String>::new(), "edges around the one door");
}

#[test]
fn the_core_depends_on_no_io_crate_and_only_the_backends_on_a_database() {
    let packages = workspace();
    let core: Vec<&String> = (packages["askuser-core"].iter())
        .filter(|dependency| !CORE_DEPENDENCIES.contains(&dependency.as_str()))
        .collect();
    assert_eq!(core, Vec::<&String>::new(), "the core's dependencies");
    let mut databases = Vec::new();
    for (name, dependencies) in &packages {
        if BACKEND_CRATES.contains(&name.as_str()) || TEST_CRATES.contains(&name.as_str()) {
            continue;
        }
        for dependency in dependencies {
            if DATABASE_CRATES.contains(&dependency.as_str()) {
                databases.push(format!("{name} → {dependency}"));
            }
        }
    }
    assert_eq!(
        databases,
        Vec::<String>::new(),
        "database crates outside the backend crates"
    );
}

/// The crates an embedder on the memory log should never build: the databases,
/// their drivers, TLS and the async runtime they bring.
const BACKEND_ONLY: &[&str] = &[
    "sled",
    "postgres",
    "tokio-postgres",
    "rustls",
    "tokio",
    "askuser-sled",
    "askuser-postgres",
];

/// The names of the crates `askuser-app` builds with `features` (normal
/// dependencies, read with `cargo tree`).
fn app_builds(features: &[&str]) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut arguments = vec![
        "tree",
        "-p",
        "askuser-app",
        "-e",
        "normal",
        "--prefix",
        "none",
        "--offline",
        "--no-default-features",
    ];
    let joined = features.join(",");
    if !features.is_empty() {
        arguments.extend(["--features", &joined]);
    }
    let output = Command::new(cargo)
        .args(&arguments)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    (String::from_utf8_lossy(&output.stdout).lines())
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_backends_are_features_of_the_application_layer() {
    let bare = app_builds(&[]);
    let built: Vec<&&str> = (BACKEND_ONLY.iter())
        .filter(|name| bare.contains(**name))
        .collect();
    assert_eq!(built, Vec::<&&str>::new(), "built without any backend");
    let sled = app_builds(&["sled"]);
    assert!(sled.contains("askuser-sled") && !sled.contains("askuser-postgres"));
    let postgres = app_builds(&["postgres"]);
    assert!(postgres.contains("askuser-postgres") && postgres.contains("rustls"));
    assert!(!postgres.contains("askuser-sled"));
}

/// What a surface's own code may not name: the store's unit of work, which
/// the application layer's `Desk` holds (one per stream, never handed out),
/// and the log's own leases. A surface that opens a session of its own
/// records beside the desk, whose read side and catch-up then never hear of
/// it; one that takes or ends a lease itself leaves the desk's presence
/// words behind.
const AROUND_THE_DESK: &[&str] = &[
    "Session::open",
    "Session::create",
    "PresenceGuard::start",
    "PresenceGuard::attached",
    "claim_new_stream(",
    "renew_lease(",
    "end_lease(",
];

/// The modules of `text` declared test-only (`#[cfg(test)] mod NAME;`).
fn test_modules(text: &str) -> Vec<String> {
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines
        .windows(2)
        .filter(|pair| pair[0] == "#[cfg(test)]")
        .filter_map(|pair| pair[1].strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_owned)
        .collect()
}

/// `text` up to its first test module declared inline (`#[cfg(test)] mod
/// NAME {`): the code that ships.
fn shipped(text: &str) -> &str {
    let mut at = 0;
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let inline_tests = line.trim() == "#[cfg(test)]"
            && lines
                .peek()
                .is_some_and(|next| next.trim_start().starts_with("mod ") && next.ends_with('{'));
        if inline_tests {
            return &text[..at];
        }
        at += line.len() + 1;
    }
    text
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &std::path::Path, into: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, into);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            into.push(path);
        }
    }
}

#[test]
fn no_surface_records_beside_the_desk() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut wrong = Vec::new();
    for surface in ["cli", "mcp", "rpc", "terminal", "web"] {
        let src = root.join("adapters").join(surface).join("src");
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        files.sort();
        assert!(!files.is_empty(), "no sources under {}", src.display());
        let sources: Vec<(std::path::PathBuf, String)> = (files.into_iter())
            .map(|path| {
                let text = std::fs::read_to_string(&path).unwrap();
                (path, text)
            })
            .collect();
        let test_only: BTreeSet<String> = sources
            .iter()
            .flat_map(|(_, text)| test_modules(text))
            .collect();
        for (path, text) in &sources {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            if test_only.contains(stem) {
                continue;
            }
            for (number, line) in shipped(text).lines().enumerate() {
                for named in AROUND_THE_DESK.iter().filter(|named| line.contains(*named)) {
                    let shown = path.strip_prefix(&root).unwrap_or(path).display();
                    wrong.push(format!("{shown}:{}: {named}", number + 1));
                }
            }
        }
    }
    assert_eq!(
        wrong,
        Vec::<String>::new(),
        "surfaces recording beside the desk"
    );
}
