//! A web inbox's presence on a log, for the end-to-end tests: `inbox DB LINK`
//! says on the shared sled log at `DB` that a web inbox runs at `LINK` (as
//! `askuser web` does while it serves, see `askuser_app::web_inbox`), prints
//! `ready`, and holds it until its standard input closes.

use std::io::{BufRead as _, Write as _};
use std::sync::Arc;

use askuser_app::web_inbox::InboxPresence;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(db), Some(link)) = (args.next(), args.next()) else {
        return Err("usage: inbox DB LINK".into());
    };
    let log = askuser_app::open_log(&db)?;
    let presence = InboxPresence::hold(Arc::clone(&log), &link)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "ready")?;
    out.flush()?;
    drop(out);
    // Held until the test closes standard input.
    for line in std::io::stdin().lock().lines() {
        line?;
    }
    drop(presence);
    Ok(())
}
