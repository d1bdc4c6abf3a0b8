//! Where a test's log lives: sled in the scratch directory, or a fresh
//! PostgreSQL database.

use super::Scratch;

/// Where the log of a test lives: a sled directory in the scratch directory, or a
/// fresh PostgreSQL database dropped at the end.
pub enum Place {
    Sled,
    Postgres {
        admin: String,
        name: String,
        url: String,
    },
}

impl Place {
    /// A fresh database on the test server (`ASKUSER_TEST_PG`), dropped at the end.
    pub fn postgres() -> Self {
        let admin = std::env::var("ASKUSER_TEST_PG").unwrap_or_else(|_| {
            panic!(
                "ASKUSER_TEST_PG is not set: run the tests with scripts/test, or export ASKUSER_TEST_PG=\"$(scripts/postgres.sh | tail -n 1)\""
            )
        });
        let name = format!(
            "askuser_cli_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
        );
        let mut client = postgres::Client::connect(&admin, postgres::NoTls).unwrap();
        client
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .unwrap();
        let base = admin
            .rsplit_once('/')
            .map_or(admin.as_str(), |(base, _)| base);
        let url = format!("{base}/{name}");
        Place::Postgres { admin, name, url }
    }

    /// The `--db` value.
    pub fn db(&self, scratch: &Scratch) -> String {
        match self {
            Place::Sled => scratch.db(),
            Place::Postgres { url, .. } => url.clone(),
        }
    }
}

static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

impl Drop for Place {
    fn drop(&mut self) {
        if let Place::Postgres { admin, name, .. } = self
            && let Ok(mut client) = postgres::Client::connect(admin, postgres::NoTls)
        {
            let _ =
                client.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"));
        }
    }
}
