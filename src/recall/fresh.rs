//! The freshness stamp beside the recall index: what lets a warm recall skip the manifest.
//!
//! A top-up that ends with every transcript unchanged since its last read (the check a warm
//! recall makes) writes a stamp: the index generation it checked, the manifest's size and
//! time, and a digest of every file found with its size and time. The next recall lists the
//! files again (a stat each, as before) and, when their digest, the index's generation and
//! the manifest are the stamp's, searches at once: the manifest (hundreds of KB at 1 GB of
//! transcripts, most of a warm recall's own work) is not read. Anything else — a file
//! appended, touched, added or gone, another process's commit or manifest — makes the stamp
//! not match, and the full check runs as it always did. The stamp is a cache of that check's
//! answer: written without a sync, a torn or missing one only costs the full check.

use std::path::{Path, PathBuf};

use sha1::{Digest, Sha1};

use super::sources::{Source, Stat};

const NAME: &str = "fresh";
const MAGIC: &str = "trilogy-recall-fresh";

/// What a top-up saw when everything was already indexed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    /// The index layout ([`super::index::VERSION`]).
    pub version: u64,
    /// The index commit checked.
    pub generation: u64,
    /// The manifest the check read (or wrote).
    pub manifest: Stat,
    /// [`digest`] of the files found.
    pub files: String,
    /// The [`key`]s of the files found that are another project's sessions (Codex and
    /// DeepSeek Harness keep every project's in one place): never read again, so their size
    /// and time are neither taken nor part of the digest.
    pub others: Vec<String>,
}

/// A short, fixed-length name for a file in a stamp (16 hex digits of the SHA-1 of its path).
pub fn key(path: &Path) -> String {
    crate::base::hex::sha1_prefix(path.as_os_str().as_encoded_bytes(), 8)
}

/// Every file found, in the order found, with its host, name, size and time (a file whose
/// stat failed counts as such; one of another project's, as such, without them).
pub fn digest(found: &[Source], is_other: &dyn Fn(&Source) -> bool) -> String {
    let mut h = Sha1::new();
    for src in found {
        h.update(src.host.as_str().as_bytes());
        h.update([0]);
        h.update(src.path.as_os_str().as_encoded_bytes());
        h.update([0]);
        match src.stat {
            _ if is_other(src) => h.update(b"o"),
            Some(s) => {
                h.update(s.size.to_le_bytes());
                h.update(s.mtime.to_le_bytes());
            }
            None => h.update(b"-"),
        }
    }
    format!("{:x}", h.finalize())
}

fn path(dir: &Path) -> PathBuf {
    dir.join(NAME)
}

/// The stamp beside the index, if there is a well-formed one.
pub fn read(dir: &Path) -> Option<Stamp> {
    let text = crate::base::fence::read_small_text(&path(dir), 1 << 20)?;
    let mut lines = text.lines();
    let mut words = lines.next()?.split_ascii_whitespace();
    if words.next()? != MAGIC {
        return None;
    }
    let mut number = || words.next()?.parse::<u64>().ok();
    let (version, generation, size, mtime) = (number()?, number()?, number()?, number()?);
    let files = words.next()?.to_string();
    let hex = |w: &str, n: usize| w.len() == n && w.bytes().all(|b| b.is_ascii_hexdigit());
    if !hex(&files, 40) || words.next().is_some() {
        return None;
    }
    // a stamp cut short is not one: its last line says it is whole
    let mut others = Vec::new();
    let mut whole = false;
    for l in lines {
        match l {
            "end" => whole = true,
            k if !whole && hex(k, 16) => others.push(k.to_string()),
            _ => return None,
        }
    }
    whole.then_some(Stamp {
        version,
        generation,
        manifest: Stat {
            size,
            mtime: i64::try_from(mtime).ok()?,
        },
        files,
        others,
    })
}

/// Writes `stamp` (best effort: a stamp that is not written costs the next recall the full
/// check, nothing else).
pub fn write(dir: &Path, stamp: &Stamp) {
    let mut text = format!(
        "{MAGIC} {} {} {} {} {}\n",
        stamp.version,
        stamp.generation,
        stamp.manifest.size,
        stamp.manifest.mtime.max(0),
        stamp.files
    );
    for k in &stamp.others {
        text.push_str(k);
        text.push('\n');
    }
    text.push_str("end\n");
    // best effort: a stamp not written costs the next search a look at the sources
    use crate::base::write::{Whole, write_whole};
    let _ = write_whole(&path(dir), text.as_bytes(), Whole::Private);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::host::Host;

    fn src(path: &str, stat: Option<Stat>) -> Source {
        Source {
            host: Host::Claude,
            path: path.into(),
            own: true,
            stat,
            known_other: false,
        }
    }

    #[test]
    fn a_stamp_reads_back_as_written_and_a_damaged_one_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let stamp = Stamp {
            version: 1,
            generation: 7,
            manifest: Stat {
                size: 280_000,
                mtime: 1_796_177_208_721_012_485,
            },
            files: digest(&[src("/a.jsonl", None)], &|_| false),
            others: vec![key(Path::new("/b.jsonl")), key(Path::new("/c.jsonl"))],
        };
        assert_eq!(read(dir.path()), None);
        write(dir.path(), &stamp);
        assert_eq!(read(dir.path()), Some(stamp.clone()));
        let full = std::fs::read_to_string(path(dir.path())).unwrap();
        for cut in [full.len() / 2, full.len() - 5, full.len() - 22] {
            std::fs::write(path(dir.path()), &full[..cut]).unwrap();
            assert_eq!(read(dir.path()), None, "a torn stamp is no stamp: {cut}");
        }
        std::fs::write(path(dir.path()), full.replace(MAGIC, "other")).unwrap();
        assert_eq!(read(dir.path()), None);
    }

    #[test]
    fn the_digest_changes_with_any_file_its_size_or_its_time() {
        let s = |size, mtime| Some(Stat { size, mtime });
        let none = |_: &Source| false;
        let base = digest(
            &[src("/a.jsonl", s(10, 5)), src("/b.jsonl", s(20, 6))],
            &none,
        );
        for other in [
            vec![src("/a.jsonl", s(11, 5)), src("/b.jsonl", s(20, 6))],
            vec![src("/a.jsonl", s(10, 7)), src("/b.jsonl", s(20, 6))],
            vec![src("/a.jsonl", s(10, 5))],
            vec![src("/a.jsonl", s(10, 5)), src("/c.jsonl", s(20, 6))],
            vec![src("/a.jsonl", s(10, 5)), src("/b.jsonl", None)],
            vec![
                src("/a.jsonl", s(10, 5)),
                src("/b.jsonl", s(20, 6)),
                src("/d.jsonl", s(1, 1)),
            ],
        ] {
            assert_ne!(digest(&other, &none), base, "{other:?}");
        }
        assert_eq!(
            digest(
                &[src("/a.jsonl", s(10, 5)), src("/b.jsonl", s(20, 6))],
                &none
            ),
            base
        );
        // another project's file: only its name counts, whatever its size and time
        let b_other = |x: &Source| x.path == Path::new("/b.jsonl");
        let with_other = digest(
            &[src("/a.jsonl", s(10, 5)), src("/b.jsonl", s(20, 6))],
            &b_other,
        );
        assert_ne!(with_other, base);
        for b in [s(99, 9), None] {
            let d = digest(&[src("/a.jsonl", s(10, 5)), src("/b.jsonl", b)], &b_other);
            assert_eq!(d, with_other);
        }
        assert_ne!(
            digest(
                &[src("/a.jsonl", s(10, 5)), src("/c.jsonl", s(20, 6))],
                &b_other
            ),
            with_other
        );
    }
}
