//! Writing files whole: a temporary file beside the target, then a rename, so a reader sees
//! the old bytes or the new ones and never a half. The renames that exchange two names or
//! refuse to replace one, and the directory syncs that make a rename survive a power cut.

use std::io::Write as _;
use std::path::Path;

/// How a whole-file write treats the disk and the file's mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Whole {
    /// A person's file: synced (the file, then its folder) before the call returns; a replaced
    /// file keeps its mode, a new one gets 0644.
    Durable,
    /// trilogy's own small record (a registry, a pin, a queued batch, a token): readable by
    /// this user only (0600) and not synced — a crash may lose the newest, never leave a half.
    Private,
}

/// The prefix and suffix of every temporary file a write leaves should it be killed midway
/// (`doctor` finds and deletes the old ones).
pub const TEMP_PREFIX: &str = ".trilogy-";
pub const TEMP_SUFFIX: &str = ".tmp";

fn folder_of(path: &Path) -> std::io::Result<&Path> {
    path.parent().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} has no parent folder", path.display()),
        )
    })
}

/// Replace `path` with `bytes` whole (see [`Whole`]); the folder must exist.
pub fn write_whole(path: &Path, bytes: &[u8], how: Whole) -> std::io::Result<()> {
    write_whole_with(path, how, |f| f.write_all(bytes))
}

/// [`write_whole`] with the new content written by `write` into the temporary file: a large
/// file is streamed into place. What `write` opens is closed before the rename (Windows may
/// refuse to replace a file still open).
pub fn write_whole_with(
    path: &Path,
    how: Whole,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = folder_of(path)?;
    let mut tmp = temp_in(dir)?;
    let mode = match how {
        Whole::Durable => mode_of(path).unwrap_or(0o644),
        Whole::Private => 0o600,
    };
    set_mode(tmp.path(), mode)?;
    write(tmp.as_file_mut())?;
    if how == Whole::Durable {
        tmp.as_file().sync_all()?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    if how == Whole::Durable {
        sync_dir(dir);
    }
    Ok(())
}

/// A new temporary file in `dir` (private until its mode is set), deleted when dropped.
pub fn temp_in(dir: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    tempfile::Builder::new()
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .tempfile_in(dir)
}

/// The permission bits of the file at `path`, when it exists ([`super::stat::mode`]).
pub fn mode_of(path: &Path) -> Option<u32> {
    std::fs::metadata(path).ok().map(|m| super::stat::mode(&m))
}

/// Let `builder`'s temporary file be made as any file the user makes: the umask decides its
/// mode (tempfile's own is private). Windows: as it is, files there have no mode.
pub fn as_user_makes<'a, 'b>(
    builder: &'b mut tempfile::Builder<'a, 'a>,
) -> &'b mut tempfile::Builder<'a, 'a> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666))
    }
    #[cfg(windows)]
    {
        builder
    }
}

/// Set the permission bits of the file at `path` (Windows: read-only when the owner may not
/// write, the one bit there is).
pub fn set_mode(path: &Path, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
    }
    #[cfg(windows)]
    {
        let meta = std::fs::metadata(path)?;
        let mut p = meta.permissions();
        let readonly = mode & 0o200 == 0;
        if p.readonly() == readonly || meta.is_dir() {
            return Ok(());
        }
        p.set_readonly(readonly);
        std::fs::set_permissions(path, p)
    }
}

/// Make the folder `dir` (and those above it) and leave it readable by its owner only (Windows:
/// made as any folder, under the user's profile, which is the user's alone).
pub fn private_dir(dir: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
        set_mode(dir, 0o700)
    }
    #[cfg(windows)]
    {
        std::fs::create_dir_all(dir)
    }
}

/// Make the renames in folder `dir` durable (best effort: some filesystems refuse it).
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

/// Put the file at `path` on the disk now. Opened for writing: Windows flushes a file only
/// through a handle that may write it.
pub fn sync_file(path: &Path) -> std::io::Result<()> {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)?
        .sync_all()
}

/// [`sync_dir`] of the folder `path` is in.
pub fn sync_parent(path: &Path) {
    if let Some(dir) = path.parent() {
        sync_dir(dir);
    }
}

/// Swap the names `a` and `b` in one step (both must exist): Linux's `RENAME_EXCHANGE`,
/// macOS's `RENAME_SWAP`. `Unsupported` where the system or filesystem cannot (Windows), so the
/// caller can fall back to renames.
pub fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    #[cfg(any(target_os = "linux", target_vendor = "apple"))]
    {
        use rustix::fs::RenameFlags;
        if super::fault::without("exchange") {
            return Err(unsupported("exchange"));
        }
        rename_with(a, b, RenameFlags::EXCHANGE, "exchange")
    }
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    {
        let _ = (a, b);
        Err(unsupported("exchange"))
    }
}

/// Whether this system can [`exchange`] two names at all (a filesystem may still refuse).
pub fn can_exchange() -> bool {
    cfg!(any(target_os = "linux", target_vendor = "apple")) && !super::fault::without("exchange")
}

/// Rename `from` to `to` unless `to` exists (`AlreadyExists` then): Linux's `RENAME_NOREPLACE`,
/// macOS's `RENAME_EXCL`. `Unsupported` where the system or filesystem cannot refuse (Windows),
/// so the caller can fall back (to a hard link).
pub fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(any(target_os = "linux", target_vendor = "apple"))]
    {
        use rustix::fs::RenameFlags;
        if super::fault::without("no-replace") {
            return Err(unsupported("no-replace rename"));
        }
        rename_with(from, to, RenameFlags::NOREPLACE, "no-replace rename")
    }
    #[cfg(not(any(target_os = "linux", target_vendor = "apple")))]
    {
        let _ = (from, to);
        Err(unsupported("no-replace rename"))
    }
}

#[cfg(any(target_os = "linux", target_vendor = "apple"))]
fn rename_with(
    from: &Path,
    to: &Path,
    flags: rustix::fs::RenameFlags,
    what: &str,
) -> std::io::Result<()> {
    use rustix::fs::{CWD, renameat_with};
    use rustix::io::Errno;
    match renameat_with(CWD, from, CWD, to, flags) {
        Ok(()) => Ok(()),
        Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => Err(unsupported(what)),
        Err(e) => Err(e.into()),
    }
}

fn unsupported(what: &str) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        format!("this filesystem has no {what}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_durable_write_keeps_the_mode_and_a_new_file_is_world_readable() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("PROJECT.md");
        write_whole(&path, b"one\n", Whole::Durable).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\n");
        assert_eq!(mode_of(&path), Some(0o644));
        set_mode(&path, 0o640).unwrap();
        write_whole(&path, b"two\n", Whole::Durable).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two\n");
        assert_eq!(mode_of(&path), Some(0o640));
    }

    #[test]
    fn a_private_write_is_this_users_alone_even_over_a_public_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("registry.json");
        std::fs::write(&path, b"old").unwrap();
        set_mode(&path, 0o644).unwrap();
        write_whole(&path, b"new", Whole::Private).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        assert_eq!(mode_of(&path), Some(0o600));
        // no temporary file is left beside it
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().flatten().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_no_replace_rename_leaves_the_name_taken_alone() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"a").unwrap();
        std::fs::write(&b, b"b").unwrap();
        let e = rename_no_replace(&a, &b).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&b).unwrap(), b"b");
        exchange(&a, &b).unwrap();
        assert_eq!(std::fs::read(&a).unwrap(), b"b");
        assert_eq!(std::fs::read(&b).unwrap(), b"a");
    }

    #[test]
    fn a_private_folder_is_its_owners_alone_even_when_it_was_there() {
        let dir = tempfile::tempdir().unwrap();
        let made = dir.path().join("a/b");
        private_dir(&made).unwrap();
        assert_eq!(mode_of(&made), Some(0o700));
        set_mode(&made, 0o755).unwrap();
        private_dir(&made).unwrap();
        assert_eq!(mode_of(&made), Some(0o700));
    }
}
