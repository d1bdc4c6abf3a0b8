//! A small command-line parser: options with values (`--db PATH`, `--db=PATH`),
//! flags (`--drop`), and positional arguments, checked against what each command
//! takes.

use std::collections::{BTreeMap, BTreeSet};

use crate::error::CliError;

/// The arguments of one command, parsed.
#[derive(Debug, Default)]
pub struct Parsed {
    /// The positional arguments, in order.
    pub positionals: Vec<String>,
    options: BTreeMap<&'static str, String>,
    flags: BTreeSet<&'static str>,
}

impl Parsed {
    /// The value of `--name`, if given.
    pub fn option(&self, name: &str) -> Option<&str> {
        self.options.get(name).map(String::as_str)
    }

    /// Whether `--name` was given.
    pub fn flag(&self, name: &str) -> bool {
        self.flags.contains(name)
    }

    /// Checks the number of positional arguments.
    pub fn expect_positionals(
        &self,
        command: &str,
        names: &[&str],
        optional: usize,
    ) -> Result<(), CliError> {
        let count = self.positionals.len();
        let required = names.len() - optional;
        if count < required {
            return Err(CliError::Usage(format!(
                "`askuser {command}` needs {}; see `askuser help`",
                names[count..required]
                    .iter()
                    .map(|n| n.to_uppercase())
                    .collect::<Vec<_>>()
                    .join(" and ")
            )));
        }
        if count > names.len() {
            return Err(CliError::Usage(format!(
                "`askuser {command}` takes {} argument{}, not \"{}\"; see `askuser help`",
                names.len(),
                if names.len() == 1 { "" } else { "s" },
                self.positionals[names.len()]
            )));
        }
        Ok(())
    }
}

/// Parses `args` for `command`, which takes the options `options` (each with a
/// value) and the flags `flags`.
pub fn parse(
    command: &str,
    args: &[String],
    options: &[&'static str],
    flags: &[&'static str],
) -> Result<Parsed, CliError> {
    let mut parsed = Parsed::default();
    let mut rest = args.iter();
    let mut only_positionals = false;
    while let Some(arg) = rest.next() {
        if only_positionals || arg == "-" || !arg.starts_with("--") {
            if !only_positionals && arg.starts_with('-') && arg != "-" {
                return Err(unknown(command, arg));
            }
            parsed.positionals.push(arg.clone());
            continue;
        }
        if arg == "--" {
            only_positionals = true;
            continue;
        }
        let (name, inline) = match arg[2..].split_once('=') {
            Some((name, value)) => (name, Some(value.to_owned())),
            None => (&arg[2..], None),
        };
        if let Some(&known) = options.iter().find(|o| **o == name) {
            let value = match inline {
                Some(value) => value,
                None => rest.next().cloned().ok_or_else(|| {
                    CliError::Usage(format!("--{name} needs a value; see `askuser help`"))
                })?,
            };
            parsed.options.insert(known, value);
        } else if let Some(&known) = flags.iter().find(|f| **f == name) {
            if inline.is_some() {
                return Err(CliError::Usage(format!("--{name} takes no value")));
            }
            parsed.flags.insert(known);
        } else {
            return Err(unknown(command, arg));
        }
    }
    Ok(parsed)
}

fn unknown(command: &str, arg: &str) -> CliError {
    CliError::Usage(format!(
        "`askuser {command}` has no option {arg}; see `askuser help`"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn options_flags_and_positionals() {
        let parsed = parse(
            "log",
            &args(&["fork", "s", "--at=3", "--into", "t", "--drop", "-"]),
            &["at", "into"],
            &["drop"],
        )
        .unwrap();
        assert_eq!(parsed.positionals, ["fork", "s", "-"]);
        assert_eq!(parsed.option("at"), Some("3"));
        assert_eq!(parsed.option("into"), Some("t"));
        assert!(parsed.flag("drop"));
    }

    #[test]
    fn mistakes_are_named() {
        let error = |list: &[&str]| {
            parse("ask", &args(list), &["db"], &[])
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            error(&["--dbx", "p"]),
            "`askuser ask` has no option --dbx; see `askuser help`"
        );
        assert_eq!(error(&["--db"]), "--db needs a value; see `askuser help`");
        assert_eq!(
            error(&["-x"]),
            "`askuser ask` has no option -x; see `askuser help`"
        );
    }
}
