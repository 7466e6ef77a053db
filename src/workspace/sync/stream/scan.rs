//! The pre-pass over an archive file a first import reads a chunk at a time: one read of the
//! file, a block at a time, that takes its stamp and git's blob id and says whether reading it
//! chunk by chunk reads it as a whole read would (the rules of [`super::suits`], line by line),
//! and how many heading lines it has (the sequence numbers to reserve). Holds no more of the
//! file than its longest line; writes nothing.

use std::path::{Path, PathBuf};

use sha1::Digest;

use crate::error::Result;
use crate::markdown::POINTER_PREFIXES;
use crate::model::FileStamp;

use super::super::super::fsio;

/// An archive file the chunked read can take from disk.
pub(in crate::workspace::sync) struct ArchiveFile {
    pub(in crate::workspace::sync) path: PathBuf,
    /// The version read: the chunked read fails if the file is found otherwise.
    pub(in crate::workspace::sync) stamp: FileStamp,
    /// Git's id for a blob of these bytes (`None` outside a repository).
    pub(in crate::workspace::sync) blob: Option<String>,
    /// Lines that start with `## `.
    pub(super) headings: u64,
}

/// What the lines seen so far say.
#[derive(Default)]
struct Lines {
    headings: u64,
    /// A line was seen (the byte-order mark counts on the first only).
    any: bool,
    unsuited: bool,
}

impl Lines {
    fn line(&mut self, line: &[u8]) {
        if self.unsuited {
            return;
        }
        let first = !std::mem::replace(&mut self.any, true);
        let finder = |p: &str| memchr::memmem::find(line, p.as_bytes()).is_some();
        self.unsuited = (first && line.starts_with("\u{feff}".as_bytes()))
            || memchr::memchr(b'\r', line).is_some()
            || std::str::from_utf8(line).is_err()
            || line.starts_with(b"<<<<<<<")
            || line.starts_with(b">>>>>>>")
            || POINTER_PREFIXES.iter().any(|p| finder(p));
        self.headings += u64::from(line.starts_with(b"## "));
    }
}

/// Read the archive at `path` once: `None` when it is missing, empty, cut mid-line (a save
/// may be under way) or does not suit the chunked read (it is then read whole, as before).
/// `git` is the repository's root, for the blob id.
pub(in crate::workspace::sync) fn scan(
    path: &Path,
    git: Option<&Path>,
) -> Result<Option<ArchiveFile>> {
    if crate::base::fault::without("stream-archive") {
        return Ok(None);
    }
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(None);
    };
    let len = meta.len();
    let mut blob = super::super::gitop::blob_hasher_in(git, len);
    let mut lines = Lines::default();
    let mut carry: Vec<u8> = Vec::new();
    let stamp = fsio::hash_stamped_with(path, |_, block| {
        if let Some(h) = &mut blob {
            h.update(block);
        }
        let mut rest = block;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            match carry.is_empty() {
                true => lines.line(&rest[..i]),
                false => {
                    carry.extend_from_slice(&rest[..i]);
                    lines.line(&carry);
                    carry.clear();
                }
            }
            rest = &rest[i + 1..];
        }
        carry.extend_from_slice(rest);
    })?;
    let Some(stamp) = stamp else {
        return Ok(None);
    };
    // a file that ends mid-line is read as a save still under way would be (see `absorb`)
    if stamp.len != len || stamp.len == 0 || !carry.is_empty() {
        return Ok(None);
    }
    if lines.unsuited || lines.headings == 0 {
        return Ok(None);
    }
    Ok(Some(ArchiveFile {
        path: path.to_path_buf(),
        blob: blob.map(|h| crate::base::hex::lower(&h.finalize())),
        stamp,
        headings: lines.headings,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scanned(text: &str) -> Option<u64> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, text).unwrap();
        scan(&path, None).unwrap().map(|a| a.headings)
    }

    #[test]
    fn the_pre_pass_takes_what_the_text_rule_takes() {
        let good = "# Archive\n\n## 2026-01-02 two\nDone.\n\n## 2026-01-01 one\nDone.\n";
        assert_eq!(scanned(good), Some(2));
        assert!(super::super::suits(good));
        for bad in [
            "\u{feff}# A\n\n## 2026-01-01 x\n",
            "# A\r\n\n## 2026-01-01 x\n",
            "# A\n\n## 2026-01-01 x\n<<<<<<< ours\n",
            "# A\n\n## 2026-01-01 x\n>>>>>>> theirs\n",
            "# A\n\n## 2026-01-01 x\n\n> Older session entries archived: 3\n",
            "# A\n\nno entry at all\n",
            "# A\n\n## 2026-01-01 cut mid-line",
            "",
        ] {
            assert_eq!(scanned(bad), None, "{bad:?}");
        }
        // the text rule takes a file that ends mid-line: absorb reads it whole then
        assert!(!super::super::suits("\u{feff}# A\n\n## 2026-01-01 x\n"));
    }
}
