//! `askuser web`: the web inbox on the log.

use askuser_web::{Inbox, Listen};

use crate::args::WebArgs;
use crate::common::{EXIT_RESULT, db_path, note};
use crate::error::CliError;

/// `askuser web [--listen ADDR] [--tls-cert PEM --tls-key PEM] [--allow-host
/// NAME]… [--insecure-http] [--notify URL] [--token-file FILE] [--db PATH]`: serves the inbox until the process is
/// stopped; its secret URL goes to standard output.
pub(crate) fn web(args: &WebArgs) -> Result<u8, CliError> {
    let db = db_path(args.db.db.as_deref())?;
    crate::common::warn_if_open_to_others(&db);
    let log = askuser_app::open_log(&db)?;
    let listen = Listen {
        addr: args.listen,
        tls: args.tls_cert.clone().zip(args.tls_key.clone()),
        insecure_http: args.insecure_http,
        names: args.allow_host.clone(),
        notify: args.notify.clone(),
        token_file: args.token_file.clone(),
    };
    if let Some(dir) = (args.token_file.as_deref())
        .and_then(std::path::Path::parent)
        .filter(|dir| !dir.as_os_str().is_empty())
    {
        // The person's own directory (askuser setup inbox names one in the
        // data directory): made theirs alone when missing.
        crate::common::private_dir_all(dir).map_err(|error| CliError::File {
            path: dir.to_owned(),
            error,
        })?;
    }
    let inbox = Inbox::bind(log, &listen)?;
    crate::common::print_out(&format!("{}\n", inbox.url()))?;
    if args.insecure_http {
        note(&insecure_http_warning(args.listen));
    }
    note(
        "askuser: the web inbox is open at the URL above (keep it secret: it holds the token); Ctrl+C stops it",
    );
    inbox.run()?;
    Ok(EXIT_RESULT)
}

/// What `--insecure-http` costs, said on every start: who can read the token.
fn insecure_http_warning(addr: std::net::SocketAddr) -> String {
    format!(
        "askuser: warning: --insecure-http serves the inbox as plain HTTP on {addr}: anyone on the network path between a browser and this host can read the token in the URL above and the cookie that carries it, and with them read and answer every question; serve HTTPS with --tls-cert and --tls-key instead"
    )
}
