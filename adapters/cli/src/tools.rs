//! `askuser schema` and `askuser check`: tool definitions, and checking a call.

use askuser_core::text::{for_display, for_display_line};
use askuser_llm::{Provider, definition};

use crate::args::parse;
use crate::common::{EXIT_REJECTED, EXIT_RESULT, call_dialect, dialect, parse_call, read_text};
use crate::error::CliError;

/// `askuser schema [--dialect D] [--format anthropic|openai|mcp]`
pub fn schema(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("schema", args, &["dialect", "format"], &[])?;
    parsed.expect_positionals("schema", &[], 0)?;
    let dialect = dialect(&parsed)?;
    let provider = match parsed.option("format") {
        None => Provider::Anthropic,
        Some(name) => Provider::from_name(name).ok_or_else(|| {
            CliError::Usage(format!(
                "--format {name} is unknown; use one of anthropic, openai, mcp"
            ))
        })?,
    };
    let text = serde_json::to_string_pretty(&definition(dialect, provider))
        .map_err(|e| CliError::Other(e.to_string()))?;
    println!("{text}");
    Ok(EXIT_RESULT)
}

/// `askuser check [--dialect D] FILE|-`
pub fn check(args: &[String]) -> Result<u8, CliError> {
    let parsed = parse("check", args, &["dialect"], &[])?;
    parsed.expect_positionals("check", &["file"], 0)?;
    dialect(&parsed)?; // an unknown --dialect is reported before the call is read
    let text = read_text(&parsed.positionals[0])?;
    let dialect = call_dialect(&parsed, &text)?;
    match parse_call(dialect, &text).1 {
        Ok(call) => {
            let ids: Vec<&str> = call
                .form()
                .questions()
                .iter()
                .map(|q| q.id.as_str())
                .collect();
            let count = ids.len();
            println!(
                "ok: a valid {dialect} call of {count} question{} ({})",
                if count == 1 { "" } else { "s" },
                for_display_line(&ids.join(", "))
            );
            Ok(EXIT_RESULT)
        }
        Err(rejection) => {
            println!("{}", for_display(&rejection.tool_error_text()));
            Ok(EXIT_REJECTED)
        }
    }
}
