//! What the log records (`askuser_core::Event`) is built in the core (which
//! decides it), the application layer (which records what a surface's action was
//! decided to be) and the test kit (the builders every test uses) only. A surface
//! hands the application layer an `Input`; it never writes an event itself, so no
//! surface can record what the engine did not decide.
//!
//! Likewise a refusal (`askuser_core::Refusal`) is built only in the core, which
//! decides it: a surface renders the refusal it is handed, and never pre-judges
//! an action the engine decides (test programs may build one to compare with).
//!
//! The variant lists are read from the core's own source (`enum Event` in
//! `core/src/event.rs`, `enum Refusal` in `core/src/error.rs`), so a new variant
//! is guarded the day it is added.
//!
//! And nothing outside the core and the store hands the engine an event to
//! decide or appends one to a log: the one road in is `State::decide` with an
//! `Input`, and the one writer a host holds is a store `Session`. The names are
//! read from source too: every `decide…`/`reduce…` function of the core that
//! takes an `Event`, and every `append…` method of the store's `Backend` trait.
//! Test programs may judge events through the core's strategies (for tests of
//! the engine itself); only the test kit fills a log with events
//! (`askuser_testkit::record`).
//!
//! The scan parses every Rust file of the workspace (with `syn`, including the
//! arguments of macros such as `vec!` and `assert_eq!`, and the code blocks of doc
//! comments) and lists each place an `Event::…` value is *built* (a struct or tuple
//! variant expression); matching on an event is reading, and is allowed anywhere.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Expr, Macro, Token};

/// Where building an event belongs: the crates that decide, record or build
/// events for tests.
const ALLOWED_CRATES: &[&str] = &["core/", "app/", "testkit/"];

/// Files outside those crates that build events on purpose, each with why.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        "store/src/block.rs",
        "the block decoder builds the Requested it reads (its form shared by reference)",
    ),
    (
        "store/src/block/fast.rs",
        "the fast decoding path builds the Answered it reads, field by field",
    ),
    (
        "store/src/block/tests.rs",
        "codec fixtures: every variant with every field set, to round-trip byte for byte",
    ),
    (
        "store/src/block/fast/tests.rs",
        "the fast decoder's property test builds arbitrary Answered events field by field",
    ),
    (
        "store/sled/tests/log_v2_fixture.rs",
        "writes the committed v2 log fixture field by field, as that format recorded it",
    ),
];

/// This file: its self-test's source text builds events on purpose.
const SELF: &str = "tests/tests/event_literals.rs";

/// The variants of the core's `enum NAME` in `file` (under `core/src/`), read
/// from the source.
fn variants_of(name: &str, file: &str) -> Vec<String> {
    let path = root().join("core/src").join(file);
    let source = std::fs::read_to_string(&path).expect("the core's source");
    let syntax = syn::parse_file(&source).expect("the core's source parses");
    let variants: Vec<String> = (syntax.items.iter())
        .find_map(|item| match item {
            syn::Item::Enum(item) if item.ident == name => Some(
                (item.variants.iter())
                    .map(|variant| variant.ident.to_string())
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no enum {name} in {}", path.display()));
    assert!(!variants.is_empty(), "enum {name} has variants");
    variants
}

/// A type whose values are built only in some places: its name as written
/// before `::`, and its variants.
struct Guarded {
    name: &'static str,
    variants: Vec<String>,
}

impl Guarded {
    fn event() -> Self {
        Guarded {
            name: "Event",
            variants: variants_of("Event", "event.rs"),
        }
    }

    fn refusal() -> Self {
        Guarded {
            name: "Refusal",
            variants: variants_of("Refusal", "error.rs"),
        }
    }

    /// Whether a path names one of the variants: `Event::Answered`, or
    /// `askuser_core::Event::Answered`.
    fn names(&self, path: &syn::Path) -> bool {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        match segments.as_slice() {
            [.., ty, variant] => ty == self.name && self.variants.contains(variant),
            _ => false,
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if path.is_dir() {
            if !matches!(name.as_ref(), "target" | ".git" | "node_modules" | ".venv") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

struct Builds<'g> {
    guarded: &'g Guarded,
    lines: Vec<usize>,
}

impl Builds<'_> {
    fn macro_arguments(&mut self, mac: &Macro) {
        // `matches!(value, Pattern)`: only the value is an expression.
        let only_first = mac.path.is_ident("matches");
        let parsed = mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated);
        if let Ok(arguments) = parsed {
            for argument in arguments
                .iter()
                .take(if only_first { 1 } else { usize::MAX })
            {
                self.visit_expr(argument);
            }
        } else if let Ok(arguments) =
            mac.parse_body_with(Punctuated::<Expr, Token![;]>::parse_terminated)
        {
            for argument in &arguments {
                self.visit_expr(argument);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Builds<'_> {
    fn visit_expr_struct(&mut self, node: &'ast syn::ExprStruct) {
        if self.guarded.names(&node.path) {
            self.lines
                .push(node.path.segments[0].ident.span().start().line);
        }
        syn::visit::visit_expr_struct(self, node);
    }

    fn visit_expr_call(&mut self, node: &'ast syn::ExprCall) {
        if let Expr::Path(path) = &*node.func
            && self.guarded.names(&path.path)
        {
            self.lines
                .push(path.path.segments[0].ident.span().start().line);
        }
        syn::visit::visit_expr_call(self, node);
    }

    fn visit_macro(&mut self, node: &'ast Macro) {
        self.macro_arguments(node);
        syn::visit::visit_macro(self, node);
    }
}

/// The lines of doc comments' code that build a guarded value (a doc test is
/// code too).
fn doc_builds(guarded: &Guarded, source: &str) -> Vec<usize> {
    let name = guarded.name;
    let mut lines = Vec::new();
    for (index, line) in source.lines().enumerate() {
        let trimmed = line.trim_start();
        let Some(doc) = trimmed
            .strip_prefix("//!")
            .or_else(|| trimmed.strip_prefix("///"))
        else {
            continue;
        };
        let code = doc.trim_start().trim_start_matches("# ");
        let Some(first) = (guarded.variants.iter())
            .flat_map(|variant| {
                [
                    format!("{name}::{variant} {{"),
                    format!("{name}::{variant}("),
                ]
            })
            .filter_map(|built| code.find(&built))
            .min()
        else {
            continue;
        };
        // A pattern reads: a match arm (`X { .. } =>`), the left of a `let`
        // (`let Step::Refused(X { .. }) = e else`), or inside `matches!`.
        let before = &code[..first];
        let in_let = ["let ", "if let ", "while let "]
            .iter()
            .any(|start| code.trim_start().starts_with(start))
            && !before.contains(" = ");
        let pattern = code.contains("=>") || in_let || before.contains("matches!(");
        if !pattern {
            lines.push(index + 1);
        }
    }
    lines
}

fn builds_in(guarded: &Guarded, file: &Path) -> Vec<usize> {
    let source = std::fs::read_to_string(file).expect("a readable source file");
    let syntax = syn::parse_file(&source)
        .unwrap_or_else(|error| panic!("{} does not parse: {error}", file.display()));
    let mut builds = Builds {
        guarded,
        lines: Vec::new(),
    };
    builds.visit_file(&syntax);
    builds.lines.extend(doc_builds(guarded, &source));
    builds.lines.sort_unstable();
    builds.lines.dedup();
    builds.lines
}

/// Every place a workspace file builds a `guarded` value, a line per file
/// (`path:line,line`), leaving out the files `allowed` (paths from the root).
fn builds_outside(guarded: &Guarded, allowed: impl Fn(&str) -> bool) -> String {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut wrong = String::new();
    for file in &files {
        let relative = file.strip_prefix(&root).expect("under the root");
        let relative = relative.to_string_lossy().replace('\\', "/");
        if relative == SELF || allowed(&relative) {
            continue;
        }
        let lines = builds_in(guarded, file);
        if !lines.is_empty() {
            let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
            let _ = writeln!(wrong, "{relative}:{}", lines.join(","));
        }
    }
    wrong
}

#[test]
fn events_are_built_only_where_they_are_decided_recorded_or_built_for_tests() {
    let wrong = builds_outside(&Guarded::event(), |relative| {
        ALLOWED_CRATES.iter().any(|dir| relative.starts_with(dir))
            || relative.starts_with("fuzz/")
            || EXCEPTIONS.iter().any(|(path, _)| *path == relative)
    });
    assert!(
        wrong.is_empty(),
        "these build an Event outside the core, the application layer and the test kit \
         (hand the application layer an Input, or build it with askuser-testkit):\n{wrong}"
    );
}

#[test]
fn the_scan_sees_events_built_in_code_macros_and_docs() {
    let source = r"
/// ```
/// let e = Event::Back { inquiry };
/// let Event::Requested(request) = e else { panic!() };
/// assert!(matches!(e, Event::Back { .. }));
/// let Step::Refused(Event::Back { .. }) = s else { panic!() };
/// ```
fn f() {
    let a = Event::TurnEnded { inquiry: id.clone() };
    let b = vec![Event::Requested(request), other];
    match e { Event::Back { .. } => {}, _ => {} }
    assert_eq!(x, askuser_core::Event::Submitted { inquiry });
    assert!(matches!(e, Event::Back { .. }));
}
";
    let guarded = Guarded::event();
    let syntax = syn::parse_file(source).expect("parses");
    let mut builds = Builds {
        guarded: &guarded,
        lines: Vec::new(),
    };
    builds.visit_file(&syntax);
    builds.lines.extend(doc_builds(&guarded, source));
    builds.lines.sort_unstable();
    assert_eq!(builds.lines, vec![3, 9, 10, 12]);
}

#[test]
fn the_variant_lists_are_the_cores_own() {
    let events = Guarded::event().variants;
    for variant in [
        "Requested",
        "Answered",
        "ChangeWanted",
        "ClientNoted",
        "Detached",
    ] {
        assert!(events.iter().any(|v| v == variant), "Event::{variant}");
    }
    let refusals = Guarded::refusal().variants;
    for variant in ["Stale", "InquiryFinished", "UnexpectedQuestion", "InReview"] {
        assert!(refusals.iter().any(|v| v == variant), "Refusal::{variant}");
    }
}

/// Whether `relative` is a test program's file (a crate's `tests/`, the
/// workspace's test crate, benchmarks, fuzz targets, the test kit), which may
/// build a refusal to compare with what it was handed.
fn is_test_program(relative: &str) -> bool {
    relative.contains("/tests/")
        || ["tests/", "benches/", "fuzz/", "testkit/"]
            .iter()
            .any(|dir| relative.starts_with(dir))
}

#[test]
fn refusals_are_built_only_in_the_core_which_decides_them() {
    let wrong = builds_outside(&Guarded::refusal(), |relative| {
        relative.starts_with("core/") || is_test_program(relative)
    });
    assert!(
        wrong.is_empty(),
        "these build a Refusal outside the core (hand the input to the engine and render \
         the refusal it gives back):\n{wrong}"
    );
}

/// A function or method a crate outside the core and the store may not call:
/// its name and how many arguments it takes (besides `self`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Call {
    name: String,
    arguments: usize,
}

/// Whether a type names `Event` (`&Event`, `&'a Event`, `&[Event]`).
fn mentions_event(ty: &syn::Type) -> bool {
    struct Names(bool);
    impl<'ast> Visit<'ast> for Names {
        fn visit_path_segment(&mut self, segment: &'ast syn::PathSegment) {
            self.0 |= segment.ident == "Event";
            syn::visit::visit_path_segment(self, segment);
        }
    }
    let mut names = Names(false);
    names.visit_type(ty);
    names.0
}

fn parameters(inputs: &Punctuated<syn::FnArg, Token![,]>) -> Vec<&syn::Type> {
    (inputs.iter())
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => Some(&*typed.ty),
            syn::FnArg::Receiver(_) => None,
        })
        .collect()
}

/// The core's functions and methods named `decide…` or `reduce…` that take an
/// `Event`, read from its source (`core/src`, its strategies included).
fn event_deciders() -> Vec<Call> {
    struct Fns(Vec<Call>);
    impl<'ast> Visit<'ast> for Fns {
        fn visit_signature(&mut self, sig: &'ast syn::Signature) {
            let name = sig.ident.to_string();
            let params = parameters(&sig.inputs);
            if (name.starts_with("decide") || name.starts_with("reduce"))
                && params.iter().any(|ty| mentions_event(ty))
            {
                let arguments = params.len();
                self.0.push(Call { name, arguments });
            }
        }
    }
    let mut files = Vec::new();
    rust_files(&root().join("core/src"), &mut files);
    let mut fns = Fns(Vec::new());
    for file in files {
        let source = std::fs::read_to_string(&file).expect("the core's source");
        fns.visit_file(&syn::parse_file(&source).expect("the core's source parses"));
    }
    fns.0.sort_by(|a, b| a.name.cmp(&b.name));
    fns.0.dedup();
    fns.0
}

/// The store's `Backend` methods named `append…`, read from its source.
fn appenders() -> Vec<Call> {
    let path = root().join("store/src/backend.rs");
    let source = std::fs::read_to_string(&path).expect("the store's source");
    let syntax = syn::parse_file(&source).expect("the store's source parses");
    let mut calls = Vec::new();
    for item in &syntax.items {
        if let syn::Item::Trait(item) = item
            && item.ident == "Backend"
        {
            for item in &item.items {
                if let syn::TraitItem::Fn(f) = item
                    && f.sig.ident.to_string().starts_with("append")
                {
                    calls.push(Call {
                        name: f.sig.ident.to_string(),
                        arguments: parameters(&f.sig.inputs).len(),
                    });
                }
            }
        }
    }
    calls
}

/// The lines of `source` that call one of `calls` (by name, with as many
/// arguments: `Vec::append(&mut other)` is not a log's append), as a method or
/// as a path (`State::decide_event(&state, e)`, `reduce_event(&mut s, e)`).
fn calls_in(calls: &[Call], source: &str) -> Vec<usize> {
    struct Calls<'c> {
        calls: &'c [Call],
        lines: Vec<usize>,
    }
    impl Calls<'_> {
        /// Notes `name`'s line when it is a guarded call with `arguments`
        /// (one more for a path call, which passes the receiver too).
        fn check(&mut self, name: &syn::Ident, arguments: usize, method: bool) {
            let hit = self.calls.iter().any(|call| {
                *name == call.name
                    && (call.arguments == arguments || (!method && call.arguments + 1 == arguments))
            });
            if hit {
                self.lines.push(name.span().start().line);
            }
        }
    }
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_method_call(&mut self, node: &'ast syn::ExprMethodCall) {
            self.check(&node.method, node.args.len(), true);
            syn::visit::visit_expr_method_call(self, node);
        }
        fn visit_expr_call(&mut self, node: &'ast syn::ExprCall) {
            if let Expr::Path(path) = &*node.func
                && let Some(last) = path.path.segments.last()
            {
                self.check(&last.ident, node.args.len(), false);
            }
            syn::visit::visit_expr_call(self, node);
        }
        fn visit_macro(&mut self, node: &'ast Macro) {
            if let Ok(arguments) =
                node.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            {
                for argument in &arguments {
                    self.visit_expr(argument);
                }
            }
            syn::visit::visit_macro(self, node);
        }
    }
    let Ok(syntax) = syn::parse_file(source) else {
        return Vec::new();
    };
    let mut found = Calls {
        calls,
        lines: Vec::new(),
    };
    found.visit_file(&syntax);
    // A doc test is code too: `.name(` in a doc comment's code.
    for (index, line) in source.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(doc) = trimmed
            .strip_prefix("//!")
            .or_else(|| trimmed.strip_prefix("///"))
            && calls.iter().any(|call| {
                doc.contains(&format!(".{}(", call.name))
                    || doc.contains(&format!("::{}(", call.name))
            })
        {
            found.lines.push(index + 1);
        }
    }
    found.lines.sort_unstable();
    found.lines.dedup();
    found.lines
}

/// Every place outside `allowed` files that calls one of `calls`, a line per
/// file (`path:line,line`).
fn calls_outside(calls: &[Call], allowed: impl Fn(&str) -> bool) -> String {
    let root = root();
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    files.sort();
    let mut wrong = String::new();
    for file in &files {
        let relative = file.strip_prefix(&root).expect("under the root");
        let relative = relative.to_string_lossy().replace('\\', "/");
        if relative == SELF || allowed(&relative) {
            continue;
        }
        let source = std::fs::read_to_string(file).expect("a readable source file");
        let lines = calls_in(calls, &source);
        if !lines.is_empty() {
            let lines: Vec<String> = lines.iter().map(ToString::to_string).collect();
            let _ = writeln!(wrong, "{relative}:{}", lines.join(","));
        }
    }
    wrong
}

#[test]
fn the_guarded_names_are_read_from_the_core_and_the_store() {
    let mut deciders: Vec<String> = event_deciders().into_iter().map(|call| call.name).collect();
    deciders.dedup();
    // The crate-private judging of the event an input stands for, its parts,
    // and the strategies' helpers for the engine's own tests.
    assert_eq!(
        deciders,
        [
            "decide_answer",
            "decide_event",
            "decide_request",
            "reduce_event"
        ]
    );
    let appenders = appenders();
    assert_eq!(
        appenders,
        [
            Call {
                name: "append_with".into(),
                arguments: 4
            },
            Call {
                name: "append".into(),
                arguments: 3
            }
        ]
    );
    let source = r#"
/// ```
/// log.append("s", 0, &events).unwrap();
/// ```
fn f() {
    items.append(&mut more);
    log.append_with("s", 0, &events, Durability::Flush).unwrap();
    table.append(KEY, value);
    let d = decide_event(&state, &event);
    assert!(reduce_event(&mut state, &event).is_ok());
    state.decide(&input).unwrap();
}
"#;
    let mut guarded = appenders;
    guarded.extend(event_deciders());
    assert_eq!(calls_in(&guarded, source), vec![3, 7, 9, 10]);
}

#[test]
fn nothing_outside_the_core_and_the_store_decides_an_event_or_appends_one() {
    let decided = calls_outside(&event_deciders(), |relative| {
        relative.starts_with("core/") || relative.starts_with("store/") || is_test_program(relative)
    });
    let appended = calls_outside(&appenders(), |relative| {
        relative.starts_with("core/")
            || relative.starts_with("store/")
            || relative.starts_with("testkit/")
    });
    assert!(
        decided.is_empty(),
        "these hand the engine an event to decide outside the core and the store \
         (decide an Input with State::decide, or record through a Session):\n{decided}"
    );
    assert!(
        appended.is_empty(),
        "these append to a log outside the store (hand a Session an Input; a test \
         or a benchmark fills a log with askuser_testkit::record):\n{appended}"
    );
}
