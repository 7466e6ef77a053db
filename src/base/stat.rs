//! What a file's metadata says beyond std's portable part: its modification time to the
//! nanosecond, its inode, the device it is on, its owner.

use std::path::Path;

/// A file's modification time in nanoseconds since the epoch.
pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    use std::os::unix::fs::MetadataExt;
    meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128
}

/// A file's inode number: two names with the same one are the same file.
pub fn inode(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

/// True when `a` and `b` both exist on one filesystem (a rename between them can be atomic).
pub fn same_device(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev(),
        _ => false,
    }
}

/// True when the file was made by (belongs to) the user this process runs as.
pub fn owned_by_me(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw()
}

/// How many names (hard links) the file has.
pub fn links(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.nlink()
}

/// The permission bits (`0o7777` at most).
pub fn mode(meta: &std::fs::Metadata) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o7777
}

/// True when its owner may write the file.
pub fn owner_may_write(meta: &std::fs::Metadata) -> bool {
    mode(meta) & 0o200 != 0
}

/// True when someone may run the file as a program.
pub fn executable(meta: &std::fs::Metadata) -> bool {
    mode(meta) & 0o111 != 0
}

/// What something that is not a regular file is, in words: "a FIFO", "a socket", "a device",
/// "a folder", else "not a regular file".
pub fn special_kind(t: std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    match () {
        _ if t.is_fifo() => "a FIFO",
        _ if t.is_socket() => "a socket",
        _ if t.is_char_device() || t.is_block_device() => "a device",
        _ if t.is_dir() => "a folder",
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
        assert_ne!(inode(&ma), inode(&mb));
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
