//! Showing a connection URL without its password, in messages and errors.

/// `url` with any password replaced by `***`: the user info of a URL
/// (`postgres://user:secret@host`), a `password=` query parameter, and a
/// `password=` pair of a `key=value` connection string.
pub(crate) fn redact(url: &str) -> String {
    let scheme_end = ["postgres://", "postgresql://"]
        .iter()
        .find(|scheme| url.starts_with(**scheme))
        .map(|scheme| scheme.len());
    let Some(scheme_end) = scheme_end else {
        return redact_pairs(url);
    };
    let (scheme, rest) = url.split_at(scheme_end);
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let authority = match authority.rfind('@') {
        Some(at) => {
            let (userinfo, host) = authority.split_at(at);
            match userinfo.find(':') {
                Some(colon) => format!("{}:***{host}", &userinfo[..colon]),
                None => authority.to_owned(),
            }
        }
        None => authority.to_owned(),
    };
    let tail = match tail.find('?') {
        Some(query) => {
            let (path, query) = tail.split_at(query + 1);
            let params: Vec<String> = query
                .split('&')
                .map(|param| match param.split_once('=') {
                    Some((key, _)) if key == "password" => format!("{key}=***"),
                    _ => param.to_owned(),
                })
                .collect();
            format!("{path}{}", params.join("&"))
        }
        None => tail.to_owned(),
    };
    format!("{scheme}{authority}{tail}")
}

/// A `key=value` connection string with the value of `password` replaced (quoted
/// values may hold spaces and escaped quotes).
fn redact_pairs(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = find_password_key(rest) {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        let eq = after.find('=').map_or(after.len(), |i| i + 1);
        out.push_str(&after[..eq]);
        out.push_str("***");
        let value = after[eq..].trim_start();
        rest = skip_value(value);
    }
    out.push_str(rest);
    out
}

/// Where a `password` key (followed by optional spaces and `=`) starts in `text`.
fn find_password_key(text: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = text[from..].find("password") {
        let at = from + found;
        let starts_word = text[..at].chars().last().is_none_or(char::is_whitespace);
        let after = text[at + "password".len()..].trim_start();
        if starts_word && after.starts_with('=') {
            return Some(at);
        }
        from = at + "password".len();
    }
    None
}

/// The text after one value of a `key=value` string.
fn skip_value(value: &str) -> &str {
    if let Some(quoted) = value.strip_prefix('\'') {
        let mut escaped = false;
        for (i, c) in quoted.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '\'' if !escaped => return &quoted[i + 1..],
                _ => escaped = false,
            }
        }
        ""
    } else {
        value
            .find(char::is_whitespace)
            .map_or("", |end| &value[end..])
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn passwords_are_never_shown() {
        for (url, shown) in [
            (
                "postgres://alice:s3cr@t@db.example:5432/askuser",
                "postgres://alice:***@db.example:5432/askuser",
            ),
            (
                "postgresql://alice@db/askuser?password=hunter2&sslmode=disable",
                "postgresql://alice@db/askuser?password=***&sslmode=disable",
            ),
            (
                "postgres://askuser@%2Ftmp%2Fpg/askuser",
                "postgres://askuser@%2Ftmp%2Fpg/askuser",
            ),
            (
                "host=db user=alice password='a b\\' c' dbname=x",
                "host=db user=alice password=*** dbname=x",
            ),
            ("password = plain user=a", "password =*** user=a"),
            ("mypassword=x", "mypassword=x"),
            ("postgres://a:b", "postgres://a:b"),
        ] {
            assert_eq!(redact(url), shown, "{url}");
        }
    }

    proptest::proptest! {
        #[test]
        fn no_password_survives(password in "[^/?#\\s']{1,40}") {
            let url = format!("postgres://user:{password}@db.example:5432/askuser");
            proptest::prop_assert_eq!(redact(&url), "postgres://user:***@db.example:5432/askuser");
            let pairs = format!("host=db password={password} dbname=askuser");
            proptest::prop_assert_eq!(redact(&pairs), "host=db password=*** dbname=askuser");
            let quoted = format!("host=db password='{password} x' dbname=askuser");
            proptest::prop_assert_eq!(redact(&quoted), "host=db password=*** dbname=askuser");
        }
    }
}
