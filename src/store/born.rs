//! How a store file comes to be: whole, or not at all.
//!
//! redb makes a new database in place in steps — the file is grown, its header written, and the
//! magic number last — so a process killed in between (a host's hook timeout on a fresh clone)
//! leaves a file at the store's name that no redb opens. Here a new store is made under a
//! private name beside its place, given its first commit (this trilogy's layout and the store's
//! identity), closed, made durable (file and folder), and only then published under the store's
//! name without replacing anything there: of two first commands racing, one publishes and the
//! other opens what the first published, so neither ever overwrites a store the other has
//! committed to. A process killed at any step leaves at most its private file, swept by the
//! next creation once its maker is gone.
//!
//! Fault points (`TRILOGY_CRASH_AT`), in order: `store-born-named` (the private file made,
//! empty), `store-born-created` (redb made its store in it), `store-born-committed` (the first
//! commit), `store-born-synced` (closed and durable; also a pause point, `TRILOGY_PAUSE_AT`),
//! `store-born-published`.

use std::path::Path;

use redb::{Builder, Database};

use super::{WriteTx, store_err};
use crate::base::fault::{crash_point, pause_point};
use crate::base::write::sync_dir;
use crate::error::{Error, Result};

/// How often a store that vanishes between being published and being opened is made again.
const ATTEMPTS: usize = 3;

/// How long a private file of a maker that may still run is left alone.
const STALE: std::time::Duration = std::time::Duration::from_secs(600);

/// Open the store at `path` for reading and writing, making it first when there is none.
pub(super) fn open_or_create(path: &Path, builder: &dyn Fn() -> Builder) -> Result<Database> {
    for _ in 0..ATTEMPTS {
        // the name itself: a link whose target is gone is there, and is not made again
        match std::fs::symlink_metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => publish_new(path, builder)?,
            Err(e) => return Err(Error::io(path, e)),
            // an empty file is no store yet (an older trilogy stopped before growing it): redb
            // makes the store in it, under its own lock
            Ok(_) if std::fs::metadata(path).is_ok_and(|m| m.len() == 0) => {
                return builder().create(path).map_err(|e| store_err(path, e));
            }
            Ok(_) => return builder().open(path).map_err(|e| store_err(path, e)),
        }
    }
    Err(Error::Io {
        path: path.to_path_buf(),
        message: "the store vanished each time it was made: another program deletes it".into(),
    })
}

/// The private names new stores for `path` are made under start with this.
fn private_prefix(path: &Path) -> String {
    let name = path
        .file_name()
        .map_or("store.redb".into(), |n| n.to_string_lossy().into_owned());
    format!(".{name}.born-")
}

const PRIVATE_SUFFIX: &str = ".new";

/// Make a whole store beside `path` and publish it there, unless a store is there first (then
/// that one is the store, and this one is thrown away).
fn publish_new(path: &Path, builder: &dyn Fn() -> Builder) -> Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::Internal(format!("{} has no parent", path.display())))?;
    sweep(dir, path);
    let prefix = format!("{}{}.", private_prefix(path), std::process::id());
    let private = {
        crate::base::write::as_user_makes(
            tempfile::Builder::new()
                .prefix(&prefix)
                .suffix(PRIVATE_SUFFIX),
        )
        .tempfile_in(dir)
        .map_err(|e| Error::io(dir, e))?
        // closed here, deleted when dropped: on every way out but a publish by link
        .into_temp_path()
    };
    crash_point("store-born-named");
    let db = builder()
        .create(&private)
        .map_err(|e| store_err(&private, e))?;
    crash_point("store-born-created");
    // the first commit gives it this trilogy's layout and its own identity
    let first = WriteTx {
        txn: db.begin_write().map_err(|e| store_err(&private, e))?,
        path: private.to_path_buf(),
        meta_cache: Default::default(),
        migrated: Default::default(),
        new_entries: Default::default(),
    };
    super::migrate::migrate(&first)?;
    first.commit()?;
    crash_point("store-born-committed");
    db.close().map_err(|e| store_err(&private, e))?;
    crate::base::write::sync_file(&private).map_err(|e| Error::io(&private, e))?;
    sync_dir(dir);
    crash_point("store-born-synced");
    pause_point("store-born-synced");
    publish(&private, path)?;
    // gone at once: after a publish by link, the store has a second name until then
    drop(private);
    sync_dir(dir);
    crash_point("store-born-published");
    Ok(())
}

/// Give the store at `private` the name `path` unless `path` exists (then the store there is the
/// one: `Ok` too). A rename that refuses to replace; a hard link where the filesystem has none.
/// A private file swept meanwhile (its maker looked gone from another process's view) is `Ok`
/// as well: nothing is published, and the caller makes another.
fn publish(private: &Path, path: &Path) -> Result<()> {
    use std::io::ErrorKind::{AlreadyExists, NotFound, Unsupported};
    match crate::base::write::rename_no_replace(private, path) {
        Ok(()) => Ok(()),
        Err(e) if matches!(e.kind(), AlreadyExists | NotFound) => Ok(()),
        Err(e) if e.kind() == Unsupported => match std::fs::hard_link(private, path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == AlreadyExists => Ok(()),
            Err(e) => Err(Error::io(path, e)),
        },
        Err(e) => Err(Error::io(path, e)),
    }
}

/// Delete the private files a killed maker of a store for `path` left in `dir`: those whose
/// maker is gone, and any older than [`STALE`].
fn sweep(dir: &Path, path: &Path) {
    let prefix = private_prefix(path);
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in rd.filter_map(|e| e.ok()) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name
            .strip_prefix(&prefix)
            .filter(|_| name.ends_with(PRIVATE_SUFFIX))
        else {
            continue;
        };
        let maker = rest.split('.').next().and_then(|p| p.parse::<i32>().ok());
        let old = (entry.metadata().ok())
            .and_then(|m| m.modified().ok())
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if old || maker.is_some_and(|pid| !crate::base::process::pid_alive(&pid.to_string())) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use redb::ReadableDatabase;

    fn builder() -> Builder {
        Database::builder()
    }

    #[test]
    fn a_new_store_is_published_whole_and_leaves_no_private_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let db = open_or_create(&path, &builder).unwrap();
        // born with this trilogy's layout
        let version = {
            let r = db.begin_read().unwrap();
            let t = r.open_table(super::super::tables::META).unwrap();
            t.get("schema_version").unwrap().unwrap().value()
        };
        assert_eq!(version, super::super::SCHEMA_VERSION);
        drop(db);
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["store.redb"]);
        let head = std::fs::read(&path).unwrap();
        assert_eq!(&head[..4], b"redb");
    }

    #[test]
    fn publishing_never_replaces_a_store_already_there() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        std::fs::write(&path, b"published first").unwrap();
        let private = dir.path().join("private");
        std::fs::write(&private, b"mine").unwrap();
        publish(&private, &path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"published first");
        // a private file swept meanwhile publishes nothing, and is no error
        let fresh = dir.path().join("fresh.redb");
        publish(&dir.path().join("swept"), &fresh).unwrap();
        assert!(!fresh.exists());
    }

    #[test]
    fn leftovers_of_a_gone_maker_are_swept_and_a_live_makers_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("store.redb");
        let prefix = private_prefix(&path);
        // no process has the largest id Linux hands out
        let dead = dir
            .path()
            .join(format!("{prefix}4194304.abc{PRIVATE_SUFFIX}"));
        let live = dir.path().join(format!(
            "{prefix}{}.abc{PRIVATE_SUFFIX}",
            std::process::id()
        ));
        let other = dir.path().join("store.redb.damaged-1");
        for p in [&dead, &live, &other] {
            std::fs::write(p, b"x").unwrap();
        }
        sweep(dir.path(), &path);
        assert!(!dead.exists());
        assert!(live.exists() && other.exists());
    }
}
