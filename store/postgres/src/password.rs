//! A password kept out of the URL, found where `psql` finds it: the
//! `PGPASSWORD` variable, else the password file (`PGPASSFILE`, else
//! `~/.pgpass`), read only when no one but its owner may read it (as libpq).
//! So `askuser setup` never has to write a password into a host's
//! configuration.

use std::io::Read as _;
use std::path::{Path, PathBuf};

use postgres::Config;
use postgres::config::Host;

/// The largest password file read.
const MAX_PASSFILE_BYTES: u64 = 1 << 20;

/// Sets `config`'s password from the environment or the password file, when
/// its URL has none.
pub(super) fn fill(config: &mut Config) {
    if config.get_password().is_some() {
        return;
    }
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    if let Some(password) = env("PGPASSWORD") {
        config.password(password);
        return;
    }
    let file = env("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|home| Path::new(&home).join(".pgpass")));
    let Some(text) = file.as_deref().and_then(private_text) else {
        return;
    };
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(name)) => name.clone(),
        _ => "localhost".to_owned(),
    };
    let port = config
        .get_ports()
        .first()
        .copied()
        .unwrap_or(5432)
        .to_string();
    let user = config.get_user().unwrap_or_default().to_owned();
    let dbname = config.get_dbname().unwrap_or(&user).to_owned();
    if let Some(password) = lookup(&text, [&host, &port, &dbname, &user]) {
        config.password(password);
    }
}

/// The password file's text, when it is a regular file only its owner may
/// read (as libpq, which ignores it otherwise), within the cap.
fn private_text(path: &Path) -> Option<String> {
    let file = std::fs::File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        if meta.permissions().mode() & 0o077 != 0 {
            return None;
        }
    }
    if !meta.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_PASSFILE_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    Some(text)
}

/// The password of the first line of a password file whose host, port,
/// database and user match `wanted` (`*` matches anything; `\:` and `\\` are
/// a colon and a backslash).
fn lookup(text: &str, wanted: [&str; 4]) -> Option<String> {
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#'))
        .find_map(|line| {
            let fields = split(line);
            let [host, port, db, user, password] = fields.as_slice() else {
                return None;
            };
            let matches = [host, port, db, user]
                .iter()
                .zip(wanted)
                .all(|(field, wanted)| *field == "*" || field.as_str() == wanted);
            matches.then(|| password.clone())
        })
}

/// A line's fields, split at unescaped colons.
fn split(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let (Some(next), Some(field)) = (chars.next(), fields.last_mut()) {
                    field.push(next);
                }
            }
            ':' => fields.push(String::new()),
            c => {
                if let Some(field) = fields.last_mut() {
                    field.push(c);
                }
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::lookup;

    #[test]
    fn the_first_matching_line_gives_the_password() {
        let file = "# team\ndb.example:5432:askuser:askuser:s\\:ecret\n*:*:*:askuser:fallback\n";
        assert_eq!(
            lookup(file, ["db.example", "5432", "askuser", "askuser"]).as_deref(),
            Some("s:ecret")
        );
        assert_eq!(
            lookup(file, ["other", "5433", "x", "askuser"]).as_deref(),
            Some("fallback")
        );
        assert_eq!(lookup(file, ["other", "5433", "x", "me"]), None);
        assert_eq!(lookup("short:line", ["a", "b", "c", "d"]), None);
    }
}
