//! `askuser schema` and `askuser check`: tool definitions, and checking a call.

use askuser_core::text::{for_display, for_display_line};
use askuser_dialects::definition;

use crate::args::{CheckArgs, SchemaArgs};
use crate::common::{EXIT_REJECTED, EXIT_RESULT, call_dialect, parse_call, print_out, read_text};
use crate::error::CliError;

/// `askuser schema [--dialect D] [--format anthropic|openai|mcp]`
pub(crate) fn schema(args: &SchemaArgs) -> Result<u8, CliError> {
    let text = serde_json::to_string_pretty(&definition(args.dialect, args.format))?;
    print_out(&format!("{text}\n"))?;
    Ok(EXIT_RESULT)
}

/// `askuser check [--dialect D] FILE|-`
pub(crate) fn check(args: &CheckArgs) -> Result<u8, CliError> {
    let text = read_text(&args.file)?;
    let dialect = call_dialect(args.dialect, &text)?;
    match parse_call(dialect, &text).1 {
        Ok(call) => {
            let ids: Vec<&str> = call
                .form()
                .questions()
                .iter()
                .map(|q| q.id.as_str())
                .collect();
            let count = ids.len();
            print_out(&format!(
                "ok: a valid {dialect} call of {count} question{} ({})\n",
                if count == 1 { "" } else { "s" },
                for_display_line(&ids.join(", "))
            ))?;
            Ok(EXIT_RESULT)
        }
        Err(rejection) => {
            print_out(&format!("{}\n", for_display(&rejection.tool_error_text())))?;
            Ok(EXIT_REJECTED)
        }
    }
}
