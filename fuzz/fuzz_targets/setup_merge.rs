//! `askuser setup`'s merges into a host's configuration file (JSON, JSON with
//! comments, TOML) against arbitrary text: never a panic; a merged file is read
//! by the host's own parser as holding exactly askuser's entry (no key twice,
//! so no other entry the host would run instead); merging again changes nothing;
//! the keys shown besides are never askuser's own.

#![no_main]

use askuser_mcp::clients::Format;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

// `askuser setup`'s own merge, compiled here as `setup` compiles it (the
// command-line crate keeps it private, and building that crate would bring
// clap and the rest of the program into the fuzz build for nothing).
#[path = "../../adapters/cli/src/setup/merge.rs"]
#[allow(dead_code)]
mod merge;

/// `text` merged as `askuser setup` merges it: the text and what changed.
fn merge(
    text: Option<&str>,
    format: Format,
    servers: &[&str],
    entry: &[(String, Value)],
) -> Result<(String, &'static str), String> {
    let merged = match format {
        Format::Json => merge::json(text, false, servers, entry),
        Format::Jsonc => merge::json(text, true, servers, entry),
        Format::Toml => merge::toml(text, servers, entry),
    };
    let (text, change) = merged.map_err(|refusal| refusal.to_string())?;
    let change = match change {
        merge::Change::Added => "added",
        merge::Change::Updated => "updated",
        merge::Change::Unchanged => "unchanged",
    };
    Ok((text, change))
}

/// The tables of servers hosts keep askuser's entry under.
const SERVERS: [&[&str]; 5] = [
    &["mcpServers"],
    &["servers"],
    &["mcp"],
    &["mcp_servers"],
    &["a", "b"],
];

fn entry() -> Vec<(String, Value)> {
    vec![
        ("type".into(), json!("stdio")),
        ("command".into(), json!("/bin/askuser")),
        ("args".into(), json!(["mcp", "--db", "/d/log \"db\".db"])),
    ]
}

/// A TOML value as JSON (what a host reads), for the entry's shapes.
fn toml_json(value: &toml_edit::Value) -> Option<Value> {
    Some(match value {
        toml_edit::Value::String(s) => Value::String(s.value().clone()),
        toml_edit::Value::Array(array) => {
            Value::Array(array.iter().map(toml_json).collect::<Option<_>>()?)
        }
        _ => return None,
    })
}

/// askuser's entry as the host reads `text`: each key of [`entry`] and its value.
/// `None` where the reader here gives up but a host would not (JSON nested more
/// than serde_json's 128 levels).
fn host_reads(
    text: &str,
    format: Format,
    servers: &[&str],
) -> Option<Vec<(String, Option<Value>)>> {
    let keys = entry().into_iter().map(|(k, _)| k);
    match format {
        Format::Json | Format::Jsonc => {
            let value: Value = if format == Format::Json {
                // Strict JSON with each key once: what `JSON.parse` reads is unambiguous.
                match askuser_app::from_str_unique(text) {
                    Ok(value) => value,
                    Err(error) if error.to_string().contains("recursion limit") => return None,
                    Err(error) => panic!("the merged file is not strict JSON: {error}: {text:?}"),
                }
            } else {
                let options = jsonc_parser::ParseOptions::default();
                jsonc_parser::parse_to_serde_value(text, &options).expect("the merged file reads")
            };
            let mut at = &value;
            for key in servers.iter().chain([&merge::SERVER]) {
                at = &at[*key];
            }
            Some(
                keys.map(|k| {
                    let v = at.get(&k).cloned();
                    (k, v)
                })
                .collect(),
            )
        }
        Format::Toml => {
            let doc: toml_edit::DocumentMut = text.parse().expect("the merged file is TOML");
            let mut at = Some(doc.as_item());
            for key in servers.iter().chain([&merge::SERVER]) {
                at = at.and_then(|item| item.get(*key));
            }
            Some(
                keys.map(|k| {
                    let v = at
                        .and_then(|t| t.get(&k))
                        .and_then(|i| i.as_value())
                        .and_then(toml_json);
                    (k, v)
                })
                .collect(),
            )
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let format = [Format::Json, Format::Jsonc, Format::Toml][usize::from(mode & 3) % 3];
    let servers = SERVERS[usize::from(mode >> 2) % SERVERS.len()];
    let old = (mode & 0x80 == 0).then_some(text);
    let entry = entry();
    let Ok((merged, change)) = merge(old, format, servers, &entry) else {
        return;
    };
    if change == "unchanged" {
        assert_eq!(
            Some(merged.as_str()),
            old,
            "an unchanged file was rewritten"
        );
    }
    let wanted: Vec<(String, Option<Value>)> = entry
        .iter()
        .map(|(k, v)| (k.clone(), Some(v.clone())))
        .collect();
    let read = host_reads(&merged, format, servers);
    assert!(
        read.is_none() || read == Some(wanted),
        "the host reads another entry than askuser's from {merged:?}"
    );
    let again = merge(Some(&merged), format, servers, &entry);
    assert_eq!(
        again,
        Ok((merged.clone(), "unchanged")),
        "merging twice changed {merged:?}"
    );
    for (key, _) in merge::kept(&merged, format, servers, &entry) {
        assert!(!entry.iter().any(|(k, _)| *k == key), "{key} shown as kept");
    }
});
