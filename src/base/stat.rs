//! What a file's metadata says beyond std's portable part: its modification time to the
//! nanosecond, its identity (inode; Windows: volume and file index), the volume it is on, its
//! owner, its links and mode. Where Windows has no such notion the answer is the one that keeps
//! trilogy's checks meaningful, as each function says.

use std::path::Path;

/// A file's modification time in nanoseconds since the epoch (Windows keeps 100 ns steps).
pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    let Ok(t) = meta.modified() else { return 0 };
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    }
}

/// The identity of the file at `path`, whose metadata is `meta`: two names with the same one
/// are the same file (Unix: the inode; Windows: the volume serial and the file index, read
/// from `path`; 0 when they cannot be read, so a change is then told by time and size alone).
pub fn inode(path: &Path, meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        meta.ino()
    }
    #[cfg(windows)]
    {
        let _ = meta;
        windows_identity(path).unwrap_or(0)
    }
}

#[cfg(windows)]
fn windows_identity(path: &Path) -> Option<u64> {
    match file_id::get_low_res_file_id(path).ok()? {
        file_id::FileId::LowRes {
            volume_serial_number,
            file_index,
        } => Some(file_index ^ u64::from(volume_serial_number).rotate_left(48)),
        _ => None,
    }
}

/// True when `a` and `b` both exist on one filesystem (a rename between them can be atomic).
/// Windows: on one volume, told by the drive or share their full paths start with.
pub fn same_device(a: &Path, b: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::metadata(a), std::fs::metadata(b)) {
            (Ok(x), Ok(y)) => x.dev() == y.dev(),
            _ => false,
        }
    }
    #[cfg(windows)]
    {
        let root = |p: &Path| {
            let full = std::fs::canonicalize(p).ok()?;
            let first = full.components().next()?;
            Some(first.as_os_str().to_ascii_lowercase())
        };
        matches!((root(a), root(b)), (Some(x), Some(y)) if x == y)
    }
}

/// True when the file was made by (belongs to) the user this process runs as. Windows keeps
/// owners in access lists std does not read: a file this process can open counts as the
/// user's (the user profile, where trilogy's own files live, is the user's alone).
pub fn owned_by_me(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.uid() == rustix::process::geteuid().as_raw()
    }
    #[cfg(windows)]
    {
        let _ = meta;
        true
    }
}

/// How many names (hard links) the file has (Windows: 1, std does not tell there; a clone
/// brings no hard links, only a person on that machine makes them).
pub fn links(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.nlink()
    }
    #[cfg(windows)]
    {
        let _ = meta;
        1
    }
}

/// The permission bits (`0o7777` at most). Windows has one: read-only, so a file is `0o444`
/// or `0o666` there.
pub fn mode(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.permissions().mode() & 0o7777
    }
    #[cfg(windows)]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o666
        }
    }
}

/// True when its owner may write the file.
pub fn owner_may_write(meta: &std::fs::Metadata) -> bool {
    mode(meta) & 0o200 != 0
}

/// True when someone may run the file as a program (Windows: any file; whether it runs is told
/// by its name's extension, which the caller looks for).
pub fn executable(meta: &std::fs::Metadata) -> bool {
    cfg!(windows) || mode(meta) & 0o111 != 0
}

/// What something that is not a regular file is, in words: "a FIFO", "a socket", "a device",
/// "a folder", "a link", else "not a regular file".
pub fn special_kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        match () {
            _ if t.is_fifo() => return "a FIFO",
            _ if t.is_socket() => return "a socket",
            _ if t.is_char_device() || t.is_block_device() => return "a device",
            _ => {}
        }
    }
    match () {
        _ if t.is_dir() => "a folder",
        _ if t.is_symlink() => "a link",
        _ => "not a regular file",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_made_here_is_mine_on_this_device_with_its_own_inode() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, b"a").unwrap();
        std::fs::write(&b, b"b").unwrap();
        let (ma, mb) = (
            std::fs::metadata(&a).unwrap(),
            std::fs::metadata(&b).unwrap(),
        );
        assert!(owned_by_me(&ma));
        assert!(same_device(&a, &b));
        assert!(!same_device(&a, &dir.path().join("missing")));
        assert_ne!(inode(&a, &ma), inode(&b, &mb));
        let secs = ma
            .modified()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as i128;
        assert_eq!(mtime_ns(&ma), secs);
        assert_eq!(links(&ma), 1);
        std::fs::hard_link(&a, dir.path().join("c")).unwrap();
        assert_eq!(links(&std::fs::metadata(&a).unwrap()), 2);
        crate::base::write::set_mode(&a, 0o500).unwrap();
        let m = std::fs::metadata(&a).unwrap();
        assert_eq!(mode(&m), 0o500);
        assert!(executable(&m) && !owner_may_write(&m));
        assert_eq!(special_kind(ma.file_type()), "not a regular file");
        let d = std::fs::metadata(dir.path()).unwrap();
        assert_eq!(special_kind(d.file_type()), "a folder");
    }
}
