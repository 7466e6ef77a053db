//! The foundation every other room stands on: every touch point with the operating system
//! (the process environment and the user's folders, whole-file and durable writes, the
//! regular-file fence and bounded reads, lock files, file metadata, processes) and the small
//! ideas used across rooms (hex digests, fault points). Portability work happens here and
//! nowhere else.
//!
//! It imports nothing from the crate: only std and external crates. Its errors are
//! `std::io::Error`s (or plain messages) that the rooms above wrap with the file they name.

pub mod clock;
pub mod dirs;
pub mod env;
pub mod fault;
pub mod fence;
pub mod hex;
pub mod lock;
pub mod process;
pub mod random;
pub mod signal;
pub mod stat;
pub mod wake;
pub mod write;

#[cfg(test)]
mod tests {
    /// Every path into the crate a file of `base` names stays inside `base`.
    #[test]
    fn base_imports_nothing_from_the_rest_of_the_crate() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/base");
        // spelled in two halves, so this test does not find itself
        let (path_in, ours, up_two) = (
            concat!("crate", "::"),
            concat!("crate", "::base::"),
            concat!("super", "::super"),
        );
        let mut files = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            files += 1;
            for (n, line) in text.lines().enumerate() {
                let outside = line
                    .match_indices(path_in)
                    .any(|(at, _)| !line[at..].starts_with(ours))
                    || line.contains(up_two);
                assert!(!outside, "{}:{}: {line}", path.display(), n + 1);
            }
        }
        assert!(files >= 10, "read {files} files of {}", dir.display());
    }
}
