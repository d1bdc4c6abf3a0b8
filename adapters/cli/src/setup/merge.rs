//! Merging askuser's server entry into a host's configuration file, keeping
//! the rest of it (other servers, other settings, comments, layout): JSON and
//! JSON with comments through a concrete syntax tree (`jsonc-parser`), TOML
//! through `toml_edit`. A file that does not parse is refused, never rewritten.

use std::collections::HashMap;

use askuser_mcp::clients::Format;
use jsonc_parser::ast;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use jsonc_parser::{CollectOptions, ParseOptions};
use serde_json::Value;

/// The server's name in every host's table of servers.
pub(crate) const SERVER: &str = "askuser";

/// What the merge did to askuser's entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Change {
    /// There was none: it was added.
    Added,
    /// There was one, and some of its keys were set.
    Updated,
    /// The entry already held every key as askuser would write it.
    Unchanged,
}

/// Why a file cannot be merged into; nothing is written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Refusal {
    /// It does not parse.
    #[error("line {line}, column {column}: {reason}")]
    Malformed {
        /// 1-based.
        line: usize,
        /// 1-based, in characters.
        column: usize,
        /// The parser's words.
        reason: String,
    },
    /// A key on the way to askuser's entry holds something else than an
    /// object (a table).
    #[error("{0} is not {1}")]
    Shape(String, &'static str),
    /// One object holds a key twice. A host reads the last one (as
    /// `JSON.parse` does), the merge would read the first: setup could say the
    /// entry is askuser's while the host runs the other one.
    #[error(
        "line {line}, column {column}: \"{key}\" is written twice in one object (first on line {first_line}); the host would read this one and askuser setup the first: keep one"
    )]
    Duplicate {
        /// The key, as written.
        key: String,
        /// Where the second one is, 1-based.
        line: usize,
        /// 1-based, in characters.
        column: usize,
        /// The line of the first one.
        first_line: usize,
    },
}

/// The entry askuser writes: each key and its value, in order; a key whose
/// value is null is taken out of an entry that has it.
pub(crate) type Entry = [(String, Value)];

/// `text` (JSON, with comments and trailing commas when `jsonc`) with
/// askuser's entry set under the keys `servers`; `None` for a new file.
pub(crate) fn json(
    text: Option<&str>,
    jsonc: bool,
    servers: &[&str],
    entry: &Entry,
) -> Result<(String, Change), Refusal> {
    let (root, options) = checked(text, jsonc)?;
    let mut container = root
        .object_value_or_create()
        .ok_or_else(|| Refusal::Shape("the file".into(), "a JSON object"))?;
    for key in servers {
        container = container
            .object_value_or_create(key)
            .ok_or_else(|| Refusal::Shape(format!("\"{key}\""), "an object"))?;
    }
    let change = set_json_entry(&container, entry, &options);
    let mut merged = root.to_string();
    // A new file ends with a line break; an old one as it did.
    if !merged.ends_with('\n') && text.is_none_or(|old| old.ends_with('\n')) {
        merged.push('\n');
    }
    Ok((merged, change))
}

/// `text` (JSON, with comments and trailing commas when `jsonc`; `None` for
/// a new file) as the host reads it, refused where the host would refuse it or
/// read it otherwise than the merge; its syntax tree to edit, and the options
/// it was read with.
fn checked(text: Option<&str>, jsonc: bool) -> Result<(CstRootNode, ParseOptions), Refusal> {
    let options = ParseOptions {
        allow_comments: jsonc,
        allow_loose_object_property_names: false,
        allow_trailing_commas: jsonc,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let source = text.unwrap_or("");
    let malformed = |e: jsonc_parser::errors::ParseError| Refusal::Malformed {
        line: e.line_display(),
        column: e.column_display(),
        reason: e.kind().to_string(),
    };
    // The syntax tree keeps whatever it meets; the file is checked as the host
    // reads it first.
    jsonc_parser::parse_to_serde_value::<Value>(source, &options).map_err(malformed)?;
    // jsonc-parser takes a raw control character inside a string; the hosts'
    // readers (`JSON.parse`, VS Code's) refuse it, so setup would say it wrote
    // an entry the host cannot read.
    if let Some(at) = control_in_string(source, jsonc) {
        let (line, column) = line_column(source, at);
        return Err(Refusal::Malformed {
            line,
            column,
            reason: "a control character inside a string, which the host's JSON reader refuses (write it as \\uXXXX)".into(),
        });
    }
    // jsonc-parser also takes any Unicode space between tokens (a vertical
    // tab, a byte-order mark); `JSON.parse` takes only space, tab and line
    // breaks, so a strict JSON file with another is one the host refuses.
    if let Some((at, c)) = (!jsonc).then(|| foreign_space(source)).flatten() {
        let (line, column) = line_column(source, at);
        return Err(Refusal::Malformed {
            line,
            column,
            reason: format!(
                "U+{:04X} between values, which the host's JSON reader does not take as space: remove it",
                u32::from(c)
            ),
        });
    }
    let ast = jsonc_parser::parse_to_ast(source, &CollectOptions::default(), &options)
        .map_err(malformed)?;
    if let Some(value) = &ast.value {
        no_key_twice(source, value)?;
    }
    let root = CstRootNode::parse(source, &options).map_err(malformed)?;
    Ok((root, options))
}

/// `text` (JSON, with comments and trailing commas when `jsonc`; `None` for a
/// new file) with `rule` in the list under the keys `list` (Claude Code's
/// `permissions.allow`), added at its end where it is not there yet; and
/// whether it was added.
pub(crate) fn json_rule(
    text: Option<&str>,
    jsonc: bool,
    list: &[&str],
    rule: &str,
) -> Result<(String, bool), Refusal> {
    let (root, _) = checked(text, jsonc)?;
    let mut container = root
        .object_value_or_create()
        .ok_or_else(|| Refusal::Shape("the file".into(), "a JSON object"))?;
    let Some((name, path)) = list.split_last() else {
        return Ok((root.to_string(), false));
    };
    for key in path {
        container = container
            .object_value_or_create(key)
            .ok_or_else(|| Refusal::Shape(format!("\"{key}\""), "an object"))?;
    }
    let array = container
        .array_value_or_create(name)
        .ok_or_else(|| Refusal::Shape(format!("\"{name}\""), "a list"))?;
    let written = Value::from(rule).to_string();
    let there = array
        .elements()
        .iter()
        .any(|element| element.to_string().trim() == written);
    if !there {
        array.append(CstInputValue::String(rule.to_owned()));
    }
    let mut merged = root.to_string();
    if !merged.ends_with('\n') && text.is_none_or(|old| old.ends_with('\n')) {
        merged.push('\n');
    }
    Ok((merged, !there))
}

/// The keys of askuser's entry in `text` (as merged) other than the ones
/// askuser writes, each with its value as written: what the host also runs
/// askuser with (`env`, `cwd`, …).
pub(crate) fn kept(
    text: &str,
    format: Format,
    servers: &[&str],
    entry: &Entry,
) -> Vec<(String, String)> {
    let ours = |key: &str| entry.iter().any(|(k, _)| k == key);
    match format {
        Format::Json | Format::Jsonc => {
            let options = ParseOptions::default();
            let Ok(mut value) = jsonc_parser::parse_to_serde_value::<Value>(text, &options) else {
                return Vec::new();
            };
            for key in servers.iter().chain([&SERVER]) {
                value = value.get_mut(*key).map(Value::take).unwrap_or_default();
            }
            let Value::Object(map) = value else {
                return Vec::new();
            };
            map.into_iter()
                .filter(|(key, _)| !ours(key))
                .map(|(key, value)| (key, value.to_string()))
                .collect()
        }
        Format::Toml => {
            let Ok(doc) = text.parse::<toml_edit::DocumentMut>() else {
                return Vec::new();
            };
            let mut item: Option<&toml_edit::Item> = Some(doc.as_item());
            for key in servers.iter().chain([&SERVER]) {
                item = item.and_then(|item| item.get(*key));
            }
            let Some(table) = item.and_then(toml_edit::Item::as_table_like) else {
                return Vec::new();
            };
            table
                .iter()
                .filter(|(key, _)| !ours(key))
                .map(|(key, item)| (key.to_owned(), item.to_string().trim().to_owned()))
                .collect()
        }
    }
}

/// Refuses the first object, anywhere in `value`, that holds a key twice.
fn no_key_twice(source: &str, value: &ast::Value<'_>) -> Result<(), Refusal> {
    // Walked with a stack of our own (the parser allows 512 levels).
    let mut stack = vec![value];
    while let Some(value) = stack.pop() {
        match value {
            ast::Value::Object(object) => {
                let mut seen: HashMap<&str, usize> = HashMap::new();
                for prop in &object.properties {
                    let key = prop.name.as_str();
                    if let Some(&first) = seen.get(key) {
                        let (line, column) = line_column(source, prop.range.start);
                        let (first_line, _) = line_column(source, first);
                        return Err(Refusal::Duplicate {
                            key: key.to_owned(),
                            line,
                            column,
                            first_line,
                        });
                    }
                    seen.insert(key, prop.range.start);
                    stack.push(&prop.value);
                }
            }
            ast::Value::Array(array) => stack.extend(array.elements.iter()),
            _ => {}
        }
    }
    Ok(())
}

/// Sets askuser's entry in `servers`, key by key where it is an object already.
fn set_json_entry(servers: &CstObject, entry: &Entry, options: &ParseOptions) -> Change {
    let Some(prop) = servers.get(SERVER) else {
        servers.append(SERVER, object_input(entry));
        return Change::Added;
    };
    let Some(existing) = prop.object_value() else {
        prop.set_value(object_input(entry));
        return Change::Updated;
    };
    let mut change = Change::Unchanged;
    for (key, value) in entry {
        let old = existing.get(key);
        if value.is_null() {
            // A key of the other transport's entry (`command` for one over
            // HTTP, `url` for a command): taken out.
            if let Some(old) = old {
                old.remove();
                change = Change::Updated;
            }
            continue;
        }
        let Some(old) = old else {
            existing.append(key, input(value));
            change = Change::Updated;
            continue;
        };
        let text = old.value().map(|v| v.to_string()).unwrap_or_default();
        let same = jsonc_parser::parse_to_serde_value::<Value>(&text, options)
            .is_ok_and(|old| &old == value);
        if !same {
            old.set_value(input(value));
            change = Change::Updated;
        }
    }
    change
}

/// A new entry: its keys but those it takes out (null).
fn object_input(entry: &Entry) -> CstInputValue {
    CstInputValue::Object(
        (entry.iter())
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.clone(), input(v)))
            .collect(),
    )
}

fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(map) => {
            CstInputValue::Object(map.iter().map(|(k, v)| (k.clone(), input(v))).collect())
        }
    }
}

/// `text` (TOML) with askuser's entry set as the table `servers.askuser`;
/// `None` for a new file.
pub(crate) fn toml(
    text: Option<&str>,
    servers: &[&str],
    entry: &Entry,
) -> Result<(String, Change), Refusal> {
    let source = text.unwrap_or("");
    let mut doc: toml_edit::DocumentMut = source.parse().map_err(|e: toml_edit::TomlError| {
        let at = e.span().map_or(0, |span| span.start).min(source.len());
        let (line, column) = line_column(source, at);
        Refusal::Malformed {
            line,
            column,
            reason: e.message().trim_end().to_owned(),
        }
    })?;
    let mut table: &mut dyn toml_edit::TableLike = doc.as_table_mut();
    let mut path = String::new();
    for key in servers {
        path = if path.is_empty() {
            (*key).to_owned()
        } else {
            format!("{path}.{key}")
        };
        let item = table.entry(key).or_insert_with(|| {
            let mut new = toml_edit::Table::new();
            new.set_implicit(true);
            toml_edit::Item::Table(new)
        });
        table = item
            .as_table_like_mut()
            .ok_or_else(|| Refusal::Shape(format!("[{path}]"), "a table"))?;
    }
    let change = set_toml_entry(table, entry);
    Ok((doc.to_string(), change))
}

/// Sets askuser's table in `servers`, key by key where it is a table already.
fn set_toml_entry(servers: &mut dyn toml_edit::TableLike, entry: &Entry) -> Change {
    let existing = servers
        .get_mut(SERVER)
        .and_then(|item| item.as_table_like_mut());
    let Some(existing) = existing else {
        let change = if servers.contains_key(SERVER) {
            Change::Updated
        } else {
            Change::Added
        };
        let mut table = toml_edit::Table::new();
        for (key, value) in entry.iter().filter(|(_, v)| !v.is_null()) {
            table.insert(key, toml_edit::Item::Value(toml_value(value)));
        }
        servers.insert(SERVER, toml_edit::Item::Table(table));
        return change;
    };
    let mut change = Change::Unchanged;
    for (key, value) in entry {
        if value.is_null() {
            if existing.remove(key).is_some() {
                change = Change::Updated;
            }
            continue;
        }
        let same = existing
            .get(key)
            .and_then(toml_edit::Item::as_value)
            .and_then(json_value)
            .is_some_and(|old| &old == value);
        if !same {
            existing.insert(key, toml_edit::Item::Value(toml_value(value)));
            change = Change::Updated;
        }
    }
    change
}

fn toml_value(value: &Value) -> toml_edit::Value {
    match value {
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match n.as_i64() {
            Some(i) => i.into(),
            None => n.as_f64().unwrap_or_default().into(),
        },
        Value::Array(items) => {
            toml_edit::Value::Array(items.iter().map(toml_value).collect::<toml_edit::Array>())
        }
        Value::String(s) => s.as_str().into(),
        // askuser's entries hold no null and no object.
        Value::Null | Value::Object(_) => "".into(),
    }
}

/// A TOML value as JSON, for the kinds askuser's entries hold.
fn json_value(value: &toml_edit::Value) -> Option<Value> {
    match value {
        toml_edit::Value::String(s) => Some(Value::from(s.value().as_str())),
        toml_edit::Value::Integer(i) => Some(Value::from(*i.value())),
        toml_edit::Value::Boolean(b) => Some(Value::from(*b.value())),
        toml_edit::Value::Array(items) => items.iter().map(json_value).collect(),
        _ => None,
    }
}

/// The byte offset of the first raw control character (below U+0020) inside a
/// string of a JSON (or, with `jsonc`, JSON with comments) text the parser took.
/// The byte offset and character of the first space outside a string that
/// strict JSON does not take (anything but space, tab, CR and LF: a vertical
/// tab, a form feed, a no-break space, a byte-order mark), if any.
fn foreign_space(source: &str) -> Option<(usize, char)> {
    let (mut in_string, mut escaped) = (false, false);
    for (at, c) in source.char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
        } else if c == '"' {
            in_string = true;
        } else if (c.is_whitespace() || c == '\u{feff}') && !matches!(c, ' ' | '\t' | '\n' | '\r') {
            return Some((at, c));
        }
    }
    None
}

fn control_in_string(source: &str, jsonc: bool) -> Option<usize> {
    let bytes = source.as_bytes();
    let (mut at, mut in_string, mut escaped) = (0, false, false);
    while at < bytes.len() {
        let b = bytes[at];
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                0..0x20 => return Some(at),
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        } else if jsonc && b == b'/' && bytes.get(at + 1) == Some(&b'/') {
            at += bytes[at..]
                .iter()
                .position(|&c| c == b'\n')
                .unwrap_or(bytes.len() - at);
            continue;
        } else if jsonc && b == b'/' && bytes.get(at + 1) == Some(&b'*') {
            let end = source[at + 2..]
                .find("*/")
                .map_or(bytes.len(), |e| at + 2 + e + 2);
            at = end;
            continue;
        }
        at += 1;
    }
    None
}

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (usize, usize) {
    let before = text.get(..at).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn entry() -> Vec<(String, Value)> {
        vec![
            ("command".into(), json!("/bin/askuser")),
            ("args".into(), json!(["mcp", "--db", "/d/log.db"])),
        ]
    }

    #[test]
    fn a_jsonc_file_keeps_its_comments_and_other_servers() {
        let text = "{\n  // mine\n  \"servers\": {\n    \"other\": {\"command\": \"x\"}, // keep\n  },\n}\n";
        let (merged, change) = json(Some(text), true, &["servers"], &entry()).unwrap();
        assert_eq!(change, Change::Added);
        assert_eq!(
            merged,
            "{\n  // mine\n  \"servers\": {\n    \"other\": {\"command\": \"x\"}, // keep\n    \"askuser\": {\n      \"command\": \"/bin/askuser\",\n      \"args\": [\"mcp\", \"--db\", \"/d/log.db\"],\n    },\n  },\n}\n"
        );
        let (again, change) = json(Some(&merged), true, &["servers"], &entry()).unwrap();
        assert_eq!(
            (again.as_str(), change),
            (merged.as_str(), Change::Unchanged)
        );
    }

    #[test]
    fn strict_json_refuses_a_comment_with_its_line() {
        let refused = json(Some("{\n  // no\n}"), false, &["mcpServers"], &entry());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "line 2, column 3: Comments are not allowed"
        );
        let refused = json(Some("[1]"), false, &["mcpServers"], &entry());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "the file is not a JSON object"
        );
    }

    #[test]
    fn a_control_character_inside_a_string_is_refused_as_the_host_refuses_it() {
        let text = "{\"mcpServers\": {},\n  \"note\": \"a\u{7}b\"}";
        let refused = json(Some(text), false, &["mcpServers"], &entry());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "line 2, column 13: a control character inside a string, which the host's JSON reader refuses (write it as \\uXXXX)"
        );
        // In a comment it is the comment's, and an escaped one is fine.
        let fine = "{\n  // a\u{7}b \"c\n  \"note\": \"a\\u0007b\"\n}";
        assert!(json(Some(fine), true, &["servers"], &entry()).is_ok());
    }

    /// Found by the address-sanitizer fuzz run: a file of one vertical tab
    /// was taken as empty, and the entry written after it, which `JSON.parse`
    /// refuses.
    #[test]
    fn a_space_strict_json_does_not_take_is_refused_where_the_host_refuses_it() {
        let refused = json(Some("\u{b}"), false, &["servers"], &entry());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "line 1, column 1: U+000B between values, which the host's JSON reader does not take as space: remove it"
        );
        // A form feed and a no-break space alike.
        let feed = "{\"servers\":\u{c}{}}";
        assert_eq!(
            json(Some(feed), false, &["servers"], &entry())
                .unwrap_err()
                .to_string(),
            "line 1, column 12: U+000C between values, which the host's JSON reader does not take as space: remove it"
        );
        // Inside a string it is the string's; JSONC readers take it as space.
        assert!(json(Some("{\"a\": \"x\u{a0}y\"}"), false, &["servers"], &entry()).is_ok());
        assert!(json(Some("\u{b}{}"), true, &["servers"], &entry()).is_ok());
    }

    #[test]
    fn a_key_written_twice_anywhere_is_refused_naming_both_lines() {
        let twice = "{\"mcpServers\": {\n  \"askuser\": {\"command\": \"/bin/askuser\", \"args\": [\"mcp\", \"--db\", \"/d/log.db\"]},\n  \"askuser\": {\"command\": \"/bin/sh\"}\n}}\n";
        assert_eq!(
            json(Some(twice), false, &["mcpServers"], &entry())
                .unwrap_err()
                .to_string(),
            "line 3, column 3: \"askuser\" is written twice in one object (first on line 2); the host would read this one and askuser setup the first: keep one"
        );
        let command = "{\"mcpServers\": {\"askuser\": {\"command\": \"/bin/askuser\",\n \"command\": \"/bin/sh\"}}}";
        assert_eq!(
            json(Some(command), true, &["mcpServers"], &entry())
                .unwrap_err()
                .to_string(),
            "line 2, column 2: \"command\" is written twice in one object (first on line 1); the host would read this one and askuser setup the first: keep one"
        );
        let servers =
            "{\"mcpServers\": {},\n\"other\": [{\"a\": 1}],\n\"mcpServers\": {\"x\": {}}}";
        assert_eq!(
            json(Some(servers), false, &["mcpServers"], &entry())
                .unwrap_err()
                .to_string(),
            "line 3, column 1: \"mcpServers\" is written twice in one object (first on line 1); the host would read this one and askuser setup the first: keep one"
        );
        let deep = "{\"a\": [{\"b\": 1, \"b\": 2}]}";
        assert_eq!(
            json(Some(deep), false, &["m"], &entry())
                .unwrap_err()
                .to_string(),
            "line 1, column 17: \"b\" is written twice in one object (first on line 1); the host would read this one and askuser setup the first: keep one"
        );
    }

    #[test]
    fn a_new_file_ends_with_a_line_break_and_an_old_one_as_it_did() {
        let (new, _) = json(None, false, &["mcpServers"], &entry()).unwrap();
        assert!(new.ends_with("}\n"));
        let (old, change) = json(Some("{\"a\": 1}"), false, &["m"], &entry()).unwrap();
        assert_eq!(change, Change::Added);
        assert!(old.ends_with('}'), "{old}");
    }

    #[test]
    fn toml_keeps_comments_and_sets_only_what_differs() {
        let text = "# top\nmodel = \"o3\"\n\n[mcp_servers.askuser]\ncommand = \"/bin/askuser\" # here\nargs = [\"mcp\"]\nenv = { A = \"1\" }\n";
        let (merged, change) = toml(Some(text), &["mcp_servers"], &entry()).unwrap();
        assert_eq!(change, Change::Updated);
        assert_eq!(
            merged,
            "# top\nmodel = \"o3\"\n\n[mcp_servers.askuser]\ncommand = \"/bin/askuser\" # here\nargs = [\"mcp\", \"--db\", \"/d/log.db\"]\nenv = { A = \"1\" }\n"
        );
        let refused = toml(Some("a = 1\nb = = 2\n"), &["mcp_servers"], &entry());
        assert_eq!(
            refused.unwrap_err().to_string(),
            "line 2, column 5: extra `=`, expected nothing"
        );
    }
}
