//! `check_db_path`: what a `--db` path may be, with the exact words for each refusal;
//! nothing is created or changed where a path is refused.

use std::path::Path;

use askuser_sled::{DbIntent, DbPathState, SledLog, check_db_path};

fn refusal(path: &Path, intent: DbIntent) -> String {
    check_db_path(path, intent).unwrap_err().to_string()
}

#[test]
fn each_kind_of_unusable_path_is_refused_in_words() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let shown = |name: &str| format!("{:?}", base.join(name));

    assert_eq!(
        refusal(Path::new(""), DbIntent::Create),
        "cannot use \"\" as an askuser log: the path is empty; give the directory of an askuser log"
    );

    std::fs::write(base.join("file"), "notes").unwrap();
    assert_eq!(
        refusal(&base.join("file"), DbIntent::Create),
        format!(
            "cannot use {} as an askuser log: it is a file, not a log directory; \
             give the directory that holds the log (or a new path)",
            shown("file")
        )
    );

    std::fs::create_dir(base.join("real")).unwrap();
    std::os::unix::fs::symlink(base.join("real"), base.join("link")).unwrap();
    assert_eq!(
        refusal(&base.join("link"), DbIntent::Create),
        format!(
            "cannot use {} as an askuser log: it is a symbolic link; \
             give the path of the log directory itself",
            shown("link")
        )
    );

    std::fs::create_dir(base.join("project")).unwrap();
    std::fs::write(base.join("project/Cargo.toml"), "[package]").unwrap();
    assert_eq!(
        refusal(&base.join("project"), DbIntent::Create),
        format!(
            "cannot use {} as an askuser log: the directory holds files that are not an \
             askuser log (such as \"Cargo.toml\"); choose a new path or an empty directory",
            shown("project")
        )
    );

    // Files named like sled's, but not sled's: never overwritten.
    std::fs::create_dir(base.join("lookalike")).unwrap();
    std::fs::write(base.join("lookalike/conf"), "x").unwrap();
    std::fs::write(base.join("lookalike/db"), "precious").unwrap();
    assert_eq!(
        refusal(&base.join("lookalike"), DbIntent::Create),
        format!(
            "cannot use {} as an askuser log: {:?} is not a sled settings file, so this \
             is not an askuser log; choose a new path or an empty directory",
            shown("lookalike"),
            base.join("lookalike/conf")
        )
    );
    assert!(SledLog::open(base.join("lookalike")).is_err());
    assert!(SledLog::open_read_only(base.join("lookalike")).is_err());
    assert_eq!(std::fs::read(base.join("lookalike/conf")).unwrap(), b"x");
    assert_eq!(
        std::fs::read(base.join("lookalike/db")).unwrap(),
        b"precious"
    );

    assert_eq!(
        refusal(&base.join("missing"), DbIntent::Existing),
        format!(
            "cannot use {} as an askuser log: there is no askuser log here \
             (nothing exists at this path)",
            shown("missing")
        )
    );
    assert!(!base.join("missing").exists());
    assert!(SledLog::open_read_only(base.join("missing")).is_err());
    assert!(
        !base.join("missing").exists(),
        "a read-only open created a log"
    );

    assert_eq!(
        refusal(&base.join("no/such/parent"), DbIntent::Create),
        format!(
            "cannot use {} as an askuser log: its parent directory {:?} cannot be used \
             (No such file or directory (os error 2)); create it first",
            shown("no/such/parent"),
            base.join("no/such")
        )
    );

    std::fs::create_dir(base.join("empty")).unwrap();
    assert_eq!(
        refusal(&base.join("empty"), DbIntent::Existing),
        format!(
            "cannot use {} as an askuser log: the directory is empty: there is no askuser log here",
            shown("empty")
        )
    );
    assert_eq!(
        std::fs::read_dir(base.join("empty")).unwrap().count(),
        0,
        "the check created something"
    );
}

#[test]
fn new_empty_and_existing_logs_are_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    assert_eq!(
        check_db_path(&base.join("new"), DbIntent::Create).unwrap(),
        DbPathState::New
    );
    std::fs::create_dir(base.join("empty")).unwrap();
    assert_eq!(
        check_db_path(&base.join("empty"), DbIntent::Create).unwrap(),
        DbPathState::Empty
    );
    drop(SledLog::open(base.join("new")).unwrap());
    for intent in [DbIntent::Create, DbIntent::Existing] {
        assert_eq!(
            check_db_path(&base.join("new"), intent).unwrap(),
            DbPathState::Log
        );
    }
}

#[test]
fn a_fifo_or_device_is_refused() {
    assert_eq!(
        refusal(Path::new("/dev/null"), DbIntent::Create),
        "cannot use \"/dev/null\" as an askuser log: it is not a directory (a device, FIFO or \
         socket); give a log directory or a new path"
    );
}

#[test]
fn an_unreadable_directory_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::write(locked.join("conf"), "x").unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
    let readable_anyway = std::fs::read_dir(&locked).is_ok(); // root reads everything
    let result = check_db_path(&locked, DbIntent::Existing);
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o700)).unwrap();
    if !readable_anyway {
        assert_eq!(
            result.unwrap_err().to_string(),
            format!(
                "cannot use {locked:?} as an askuser log: the directory cannot be read \
                 (Permission denied (os error 13)); check its permissions"
            )
        );
    }
}

/// Many openers of a log that does not exist yet: sled reads its settings file
/// before it takes its lock, so without askuser's lock on the directory one of
/// them could read the settings half written and call the new log damaged. Each
/// opener either has the log or is told another process holds it.
#[test]
fn openers_racing_to_create_a_log_each_get_it_or_are_told_it_is_locked() {
    for round in 0..24 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("log-{round}"));
        let barrier = std::sync::Barrier::new(6);
        let outcomes: Vec<String> = std::thread::scope(|scope| {
            let openers: Vec<_> = (0..6)
                .map(|_| {
                    scope.spawn(|| {
                        barrier.wait();
                        match SledLog::open(&path) {
                            Ok(log) => {
                                drop(log);
                                "opened".to_owned()
                            }
                            Err(error) => error.to_string(),
                        }
                    })
                })
                .collect();
            openers.into_iter().map(|o| o.join().unwrap()).collect()
        });
        for outcome in outcomes {
            assert!(
                outcome == "opened" || outcome.contains("lock"),
                "round {round}: {outcome}"
            );
        }
    }
}
