//! Where the chunked read takes the archive's text from, a piece at a time: text already in
//! memory (a bundle's), or the file itself, read a block at a time and never whole. A piece
//! ends before a `## ` heading that follows a blank line once [`CHUNK`] bytes are passed, so
//! every piece after the first starts at a heading. The file is checked, as it is read, to be
//! the version its pre-pass found (`scan`): a save made meanwhile fails the import, which then
//! changes nothing. Owns reading and cutting; parses nothing.

use std::io::Read;
use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use crate::error::{Error, Result};
use crate::model::FileStamp;

/// How much of the archive is parsed at once.
pub(super) const CHUNK: usize = 4 << 20;

/// How much of the file is read at once.
const BLOCK: usize = 1 << 20;

/// The archive's text, given a piece at a time.
pub(super) trait Pieces {
    /// The next piece; `None` once all were given.
    fn piece(&mut self) -> Result<Option<String>>;
    /// Whether every piece was given.
    fn done(&self) -> bool;
    /// Once every piece was given: an error when the text was not the version expected.
    fn finish(&mut self) -> Result<()>;
}

/// The piece size: [`CHUNK`], or what a test asks for.
fn chunk() -> usize {
    crate::base::fault::chunk_bytes(CHUNK)
}

/// Where a piece of `text` (which starts where the piece does) ends: before the first `## `
/// line after a blank line once [`chunk`] bytes are passed; `None` when `text` holds no such
/// line past that point.
fn cut_in(text: &str) -> Option<usize> {
    let mut at = chunk().min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    text[at..].find("\n\n## ").map(|i| at + i + 2)
}

/// Text in memory, cut into pieces.
pub(super) struct TextPieces<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> TextPieces<'a> {
    pub(super) fn new(text: &'a str) -> Self {
        TextPieces { text, at: 0 }
    }
}

impl Pieces for TextPieces<'_> {
    fn piece(&mut self) -> Result<Option<String>> {
        if self.done() {
            return Ok(None);
        }
        let rest = &self.text[self.at..];
        let end = cut_in(rest).unwrap_or(rest.len());
        self.at += end;
        Ok(Some(rest[..end].to_string()))
    }

    fn done(&self) -> bool {
        self.at >= self.text.len()
    }

    fn finish(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The archive file, read a block at a time; what was read and not yet given is held, at most
/// a piece and a block of it.
pub(super) struct FilePieces {
    path: PathBuf,
    file: std::fs::File,
    /// The version the file must be: its length and SHA-1.
    expect: FileStamp,
    /// Text read and not yet given.
    pending: String,
    /// Bytes read after `pending`: a character a block cut in two.
    raw: Vec<u8>,
    hasher: Sha1,
    read: u64,
    eof: bool,
}

impl FilePieces {
    pub(super) fn open(path: &Path, expect: FileStamp) -> Result<Self> {
        // through the fence, as the pre-pass was: a FIFO swapped in since is never opened
        let (file, _) =
            crate::base::fence::open_regular(path, super::super::super::fsio::MAX_STREAMED_BYTES)
                .map_err(|e| Error::io(path, e))?;
        Ok(FilePieces {
            path: path.to_path_buf(),
            file,
            expect,
            pending: String::new(),
            raw: Vec::new(),
            hasher: Sha1::new(),
            read: 0,
            eof: false,
        })
    }

    /// Read one more block into `pending`.
    fn fill(&mut self) -> Result<()> {
        let mut buf = vec![0u8; BLOCK];
        let n = (self.file.read(&mut buf)).map_err(|e| Error::io(&self.path, e))?;
        if n == 0 || self.read + n as u64 > self.expect.len {
            self.eof = true;
            self.read += n as u64;
            return match self.raw.is_empty() {
                true => Ok(()),
                false => Err(self.changed()),
            };
        }
        self.hasher.update(&buf[..n]);
        self.read += n as u64;
        self.raw.extend_from_slice(&buf[..n]);
        let valid = match std::str::from_utf8(&self.raw) {
            Ok(s) => s.len(),
            // a character cut by the block's end waits for the next block
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => return Err(self.changed()),
        };
        let rest = self.raw.split_off(valid);
        let text = std::mem::replace(&mut self.raw, rest);
        // checked just above to be UTF-8 up to `valid`
        self.pending
            .push_str(std::str::from_utf8(&text).map_err(|_| self.changed())?);
        Ok(())
    }

    fn changed(&self) -> Error {
        Error::Conflict(format!(
            "{}: the file changed while it was being read for the first time; nothing was imported: run the command again",
            self.path.display()
        ))
    }
}

impl Pieces for FilePieces {
    fn piece(&mut self) -> Result<Option<String>> {
        loop {
            if self.pending.len() > chunk()
                && let Some(end) = cut_in(&self.pending)
            {
                let rest = self.pending.split_off(end);
                return Ok(Some(std::mem::replace(&mut self.pending, rest)));
            }
            if self.eof {
                return Ok((!self.pending.is_empty()).then(|| std::mem::take(&mut self.pending)));
            }
            self.fill()?;
        }
    }

    fn done(&self) -> bool {
        self.eof && self.pending.is_empty()
    }

    fn finish(&mut self) -> Result<()> {
        while !self.eof {
            self.fill()?;
        }
        let sha1 = crate::base::hex::lower(&std::mem::take(&mut self.hasher).finalize());
        if self.read != self.expect.len || sha1 != self.expect.sha1 || !self.pending.is_empty() {
            return Err(self.changed());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(p: &mut dyn Pieces) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(piece) = p.piece().unwrap() {
            out.push(piece);
        }
        p.finish().unwrap();
        out
    }

    /// An archive of about 10 MB, with text in several scripts (characters a block may cut).
    fn archive() -> String {
        let mut s = String::from("# Archive\n");
        for k in 0..200_000 {
            s.push_str(&format!("\n## 2026-01-01 条目 {k}\n完成：同步 é {k}\n"));
        }
        s
    }

    #[test]
    fn the_file_is_cut_where_the_text_is() {
        let (text, dir, stamp) = written();
        let path = dir.path().join("a.md");
        let from_text = all(&mut TextPieces::new(&text));
        let from_file = all(&mut FilePieces::open(&path, stamp).unwrap());
        assert!(from_text.len() > 1, "{} pieces", from_text.len());
        assert_eq!(from_text, from_file);
        assert_eq!(from_file.concat(), text);
        assert!(from_file[1..].iter().all(|p| p.starts_with("## ")));
    }

    #[test]
    fn a_file_saved_again_since_its_pre_pass_fails_the_read() {
        let (text, dir, stamp) = written();
        let path = dir.path().join("a.md");
        // the same length, one entry's number changed
        std::fs::write(&path, text.replacen("条目 7\n", "条目 8\n", 1)).unwrap();
        let mut p = FilePieces::open(&path, stamp.clone()).unwrap();
        while p.piece().unwrap().is_some() {}
        let err = p.finish().unwrap_err().to_string();
        assert!(err.contains("changed while it was being read"), "{err}");
        // grown since: the same
        std::fs::write(&path, format!("{text}\n## 2026-01-02 more\n")).unwrap();
        let mut p = FilePieces::open(&path, stamp).unwrap();
        let read = (|| {
            while p.piece()?.is_some() {}
            p.finish()
        })();
        assert!(read.is_err());
    }

    /// [`archive`] written to `a.md` in a folder of its own, and its stamp.
    fn written() -> (String, tempfile::TempDir, FileStamp) {
        let text = archive();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.md");
        std::fs::write(&path, &text).unwrap();
        let stamp = fsio_stamp(&path);
        (text, dir, stamp)
    }

    fn fsio_stamp(path: &Path) -> FileStamp {
        super::super::super::super::fsio::hash_stamped(path)
            .unwrap()
            .unwrap()
    }
}
