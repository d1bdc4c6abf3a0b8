//! Who may use the inbox: the checks every request passes before it reaches the
//! engine. Pure functions over the request's headers, so each rule is tested on
//! its own.
//!
//! - **Token**: the URL `askuser web` prints carries `?token=…` (32 random hex
//!   digits); the first visit turns it into a cookie (`HttpOnly`,
//!   `SameSite=Strict`, `Path=/`), and every later request must carry that cookie.
//! - **Host**: the `Host` header must be the address the server listens on (or
//!   `localhost` with its port), so a DNS-rebinding page cannot reach it.
//! - **Origin**: a POST whose `Origin` header is present must come from the
//!   server's own origin; `null` and any other site are refused.
//! - **Form token**: every form carries the server's form token, and a POST
//!   without it is refused (a second wall behind `SameSite` and `Origin`).

/// The name of the cookie that holds the token.
pub const COOKIE: &str = "askuser_token";

/// The `Host` values the server answers to when it listens on `port` of `ip`:
/// the address itself, and `localhost` for a loopback address.
pub fn allowed_hosts(ip: std::net::IpAddr, port: u16) -> Vec<String> {
    let mut hosts = vec![match ip {
        std::net::IpAddr::V4(v4) => format!("{v4}:{port}"),
        std::net::IpAddr::V6(v6) => format!("[{v6}]:{port}"),
    }];
    if ip.is_loopback() {
        hosts.push(format!("localhost:{port}"));
    }
    hosts
}

/// Whether `host` (the request's `Host` header) is one the server answers to.
pub fn host_allowed(host: Option<&str>, allowed: &[String]) -> bool {
    host.is_some_and(|host| allowed.iter().any(|a| a.eq_ignore_ascii_case(host)))
}

/// Whether a POST with `origin` (its `Origin` header, if any) to `host` is from
/// the server's own pages: no `Origin` (an old browser or a plain HTTP client,
/// held back by the cookie and the form token), or `SCHEME://HOST` exactly.
pub fn origin_allowed(origin: Option<&str>, scheme: &str, host: &str) -> bool {
    match origin {
        None => true,
        Some(origin) => origin.eq_ignore_ascii_case(&format!("{scheme}://{host}")),
    }
}

/// `name` split into its host and the port it names, if any (`host:8443`,
/// `[::1]:8443`).
fn split_port(name: &str) -> (&str, Option<u16>) {
    match name.rsplit_once(':') {
        Some((host, port)) if !host.contains(':') || host.ends_with(']') => {
            match port.parse::<u16>() {
                Ok(port) => (host, Some(port)),
                Err(_) => (name, None),
            }
        }
        _ => (name, None),
    }
}

/// Checks a name given with `--allow-host`: a DNS name, an IPv4 address or a
/// bracketed IPv6 address, with an optional `:PORT`.
///
/// # Errors
/// The reason it is not one, in words.
pub fn check_name(name: &str) -> Result<(), &'static str> {
    let (host, _) = split_port(name);
    let bracketed = host.len() > 2 && host.starts_with('[') && host.ends_with(']');
    let plain = !host.is_empty()
        && host.len() <= 253
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    let v6 = bracketed
        && host[1..host.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.');
    if plain || v6 {
        Ok(())
    } else {
        Err(
            "give a host name (letters, digits, dots, hyphens), an IPv4 address or a [bracketed] IPv6 address, with an optional :PORT",
        )
    }
}

/// `name` as a `Host` header value: as given when it names a port, else with
/// `port`.
pub fn with_port(name: &str, port: u16) -> String {
    match split_port(name) {
        (_, Some(_)) => name.to_owned(),
        (host, None) => format!("{host}:{port}"),
    }
}

/// The token in a `Cookie` header, if it holds one.
pub fn cookie_token(cookie: Option<&str>) -> Option<&str> {
    cookie?.split(';').find_map(|pair| {
        let (name, value) = pair.trim().split_once('=')?;
        (name == COOKIE).then_some(value)
    })
}

/// The `Set-Cookie` value that keeps `token` for the browser (`Secure` when
/// served over TLS, so it never travels in clear).
pub fn set_cookie(token: &str, secure: bool) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/{secure}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_servers_own_host_and_origin_pass() {
        let allowed = allowed_hosts("127.0.0.1".parse().unwrap(), 8080);
        assert_eq!(allowed, ["127.0.0.1:8080", "localhost:8080"]);
        assert!(host_allowed(Some("127.0.0.1:8080"), &allowed));
        assert!(host_allowed(Some("LOCALHOST:8080"), &allowed));
        assert!(!host_allowed(Some("evil.example:8080"), &allowed));
        assert!(!host_allowed(Some("127.0.0.1:8081"), &allowed));
        assert!(!host_allowed(None, &allowed));
        assert!(origin_allowed(None, "http", "127.0.0.1:8080"));
        assert!(origin_allowed(
            Some("http://127.0.0.1:8080"),
            "http",
            "127.0.0.1:8080"
        ));
        assert!(!origin_allowed(
            Some("http://127.0.0.1:8080"),
            "https",
            "127.0.0.1:8080"
        ));
        assert!(!origin_allowed(
            Some("http://evil.example"),
            "http",
            "127.0.0.1:8080"
        ));
        assert!(!origin_allowed(Some("null"), "http", "127.0.0.1:8080"));
    }

    #[test]
    fn allowed_names_are_host_names_with_an_optional_port() {
        assert_eq!(check_name("inbox.example"), Ok(()));
        assert_eq!(check_name("inbox.example:8443"), Ok(()));
        assert_eq!(check_name("[::1]:8443"), Ok(()));
        assert!(check_name("evil.example/path").is_err());
        assert!(check_name("").is_err());
        assert!(check_name("a b").is_err());
        assert_eq!(with_port("inbox.example", 8765), "inbox.example:8765");
        assert_eq!(with_port("inbox.example:443", 8765), "inbox.example:443");
        assert_eq!(with_port("[::1]", 8765), "[::1]:8765");
        assert_eq!(with_port("[::1]:9", 8765), "[::1]:9");
    }

    #[test]
    fn the_token_comes_from_the_cookie() {
        assert_eq!(
            cookie_token(Some("a=1; askuser_token=abc; b=2")),
            Some("abc")
        );
        assert_eq!(cookie_token(Some("askuser_tokenx=abc")), None);
        assert_eq!(cookie_token(None), None);
    }
}
