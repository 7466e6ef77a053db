//! File primitives of the sync protocol: atomic replace (temp file in the same directory,
//! fsync, rename, fsync the directory) and stat stamps; files are opened through the fence of
//! `open`.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::base::stat::{inode, mtime_ns, same_device};
use crate::base::write::{exchange, sync_parent};

use crate::base::hex;
use crate::error::{Error, Result};
use crate::model::FileStamp;

use crate::base::fence::open_regular;

pub use super::open::{
    MAX_FILE_BYTES, MAX_STREAMED_BYTES, open_lock_file, read_existing, read_file, read_text_file,
};
use super::open::{open_fenced, refuse_special};

/// Replace `path` with `bytes` atomically and durably.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    use crate::base::write::{Whole, write_whole};
    refuse_special(path)?;
    write_whole(path, bytes, Whole::Durable).map_err(|e| Error::io(path, e))
}

/// [`write_atomic`] of `head` followed by the file `src` from offset `from` to its end, copied
/// a block at a time: a file larger than is ever held in memory is replaced the same way.
/// `src` may be `path` itself.
pub fn write_atomic_spliced(path: &Path, head: &[u8], src: &Path, from: u64) -> Result<()> {
    use crate::base::write::{Whole, write_whole_with};
    refuse_special(path)?;
    let (mut from_file, _) =
        open_regular(src, MAX_STREAMED_BYTES).map_err(|e| Error::io(src, e))?;
    // the source moves into the write, so it is closed before the rename
    write_whole_with(path, Whole::Durable, move |out| {
        write_spliced(out, head, &mut from_file, from).map(drop)
    })
    .map_err(|e| Error::io(path, e))
}

fn stamp_from(path: &Path, meta: &std::fs::Metadata, sha1: String, taken_ms: u64) -> FileStamp {
    FileStamp {
        taken_ms,
        sha1,
        len: meta.len(),
        mtime_ns: mtime_ns(meta),
        ino: inode(path, meta),
    }
}

/// Read a file together with its stamp; `None` when it does not exist. The stat is taken on
/// the open file *before* reading, so a write that lands during the read changes the mtime
/// the stamp records and the next command reads the file again instead of trusting it.
pub fn read_stamped(path: &Path) -> Result<Option<(Vec<u8>, FileStamp)>> {
    use std::io::Read;
    let taken_ms = now_ms();
    let Some((mut f, meta)) = open_stat(path)? else {
        return Ok(None);
    };
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // a file that grows while it is read is read no further than the cap
    (&mut f)
        .take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    let stamp = stamp_from(path, &meta, hex::sha1(&bytes), taken_ms);
    Ok(Some((bytes, stamp)))
}

/// Open a memory file and stat the open file ([`open_regular`], at most [`MAX_FILE_BYTES`]);
/// `None` when it does not exist.
fn open_stat(path: &Path) -> Result<Option<(std::fs::File, std::fs::Metadata)>> {
    open_stat_up_to(path, MAX_FILE_BYTES)
}

/// [`open_stat`] of a file read a block at a time: at most [`MAX_STREAMED_BYTES`].
fn open_stat_up_to(path: &Path, max: u64) -> Result<Option<(std::fs::File, std::fs::Metadata)>> {
    open_fenced(
        path,
        max,
        "replace it with the memory file, or delete it and trilogy writes it again",
    )
}

/// Two writes to a file within this span may leave the same size and mtime (coarse or 2-second
/// filesystem timestamps), so a stat taken that close to a write proves nothing.
const RACY_WINDOW_NS: i128 = 2_000_000_000;

use crate::base::clock::wall_ms as now_ms;

fn now_ns() -> i128 {
    crate::base::clock::wall_ns() as i128
}

/// How long a file must have gone unwritten before its bytes are taken as a finished save:
/// programs that save in several `write()` calls (scripts, pipelines, some editors) leave gaps
/// of a few milliseconds between them.
pub const QUIET: std::time::Duration = std::time::Duration::from_millis(50);

/// Wait until nobody has written `path` for `quiet` (its mtime that far in the past), for at
/// most `limit`. True when the file is quiet (or gone), false when it kept changing.
pub fn wait_quiet(path: &Path, quiet: std::time::Duration, limit: std::time::Duration) -> bool {
    let started = std::time::Instant::now();
    loop {
        let Ok(m) = std::fs::metadata(path) else {
            return true;
        };
        let mtime = mtime_ns(&m);
        let age_ns = now_ns() - mtime;
        let quiet_ns = quiet.as_nanos() as i128;
        // an mtime in the future (clocks that disagree) counts as old: nothing to wait for
        if age_ns >= quiet_ns || age_ns < -RACY_WINDOW_NS {
            return true;
        }
        if started.elapsed() >= limit {
            return false;
        }
        let wait = ((quiet_ns - age_ns.max(0)) as u64).clamp(2_000_000, 100_000_000);
        std::thread::sleep(std::time::Duration::from_nanos(wait));
    }
}

/// How long a command that writes waits, before taking the lock, for a save in flight.
pub const SETTLE_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

/// True when the file at `path` looks like a save still under way: modified in the last two
/// seconds, and empty or ending in the middle of a line (every file trilogy writes, and most
/// editors' saves, end with a newline; a save cut inside a character ends mid-line too). A save
/// without a final newline costs a writing command a wait of at most two seconds.
pub fn in_flight(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(m) = std::fs::metadata(path) else {
        return false;
    };
    let mtime = mtime_ns(&m);
    if !m.is_file() || (now_ns() - mtime).abs() > RACY_WINDOW_NS {
        return false;
    }
    if m.len() == 0 {
        return true;
    }
    let mut last = [0u8; 1];
    let read = open_regular(path, MAX_STREAMED_BYTES).and_then(|(mut f, _)| {
        f.seek(SeekFrom::End(-1))?;
        f.read_exact(&mut last)
    });
    read.is_ok() && last[0] != b'\n'
}

/// Wait until none of `paths` is [`in_flight`], for at most `limit`; true when they settled.
pub fn wait_settled(paths: &[std::path::PathBuf], limit: std::time::Duration) -> bool {
    let started = std::time::Instant::now();
    loop {
        if !paths.iter().any(|p| in_flight(p)) {
            return true;
        }
        if started.elapsed() >= limit {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// True when the stamped file was modified within the racy window of now (either way, for
/// clocks that disagree): another program may still be in the middle of writing it.
pub fn is_fresh(stamp: &FileStamp) -> bool {
    modified_within(stamp, RACY_WINDOW_NS)
}

/// True when the stamped file was modified less than `ns` nanoseconds from now, either way.
pub fn modified_within(stamp: &FileStamp, ns: i128) -> bool {
    (now_ns() - stamp.mtime_ns).abs() <= ns
}

/// The racy window on a filesystem that keeps sub-second mtimes: Linux stamps files from a
/// clock that ticks every 1–10 ms, so a tenth of a second is a wide margin.
const FINE_RACY_WINDOW_NS: i128 = 100_000_000;

/// True when `stamp` was recorded too soon after the file's mtime to vouch for its content
/// (git's "racily clean" rule): a same-size write in the same tick would be invisible to stat.
/// `stamped_at_ms` is when the stamp was taken: a clock reading from before the read or write
/// that produced it (see [`FileStamp::taken_ms`]). An mtime with a sub-second part comes from
/// a filesystem with fine timestamps; one in whole seconds may come from a coarse one (FAT
/// keeps two seconds), which gets the wide window.
pub fn is_racy(stamp: &FileStamp, stamped_at_ms: u64) -> bool {
    let window = if stamp.mtime_ns % 1_000_000_000 != 0 {
        FINE_RACY_WINDOW_NS
    } else {
        RACY_WINDOW_NS
    };
    stamp.mtime_ns + window >= stamped_at_ms as i128 * 1_000_000
}

/// True when `stamp`, taken by a read, vouches for the file: the read began past the racy
/// window of the file's mtime, so any later write shows in the stat.
pub fn vouches(stamp: &FileStamp) -> bool {
    stamp.taken_ms > 0 && !is_racy(stamp, stamp.taken_ms)
}

/// True when the file's size, mtime and inode still match `stamp` and the stamp was recorded
/// long enough after that mtime to be trusted (no read needed).
pub fn stat_matches(path: &Path, stamp: &FileStamp, stamped_at_ms: u64) -> bool {
    !is_racy(stamp, stamped_at_ms) && stat_equal(path, stamp)
}

/// True when the file's size, mtime and inode equal `stamp`'s (whether or not the stamp can be
/// trusted to vouch for the content).
pub fn stat_equal(path: &Path, stamp: &FileStamp) -> bool {
    let Ok(m) = std::fs::metadata(path) else {
        return false;
    };
    let mtime = mtime_ns(&m);
    m.len() == stamp.len && inode(path, &m) == stamp.ino && mtime == stamp.mtime_ns
}

/// A file replaced by [`swap_in`]: the previous content waits in `previous` until the caller
/// keeps the new version ([`Swapped::keep`]) or puts the old one back ([`Swapped::undo`]).
pub struct Swapped {
    pub path: PathBuf,
    /// Where the previous content now is (`None`: the file did not exist).
    pub previous: Option<PathBuf>,
    /// Whether a file was at the path before the swap.
    pub existed: bool,
    /// Stamp of the version swapped in, taken from the new file itself before it was exposed.
    pub stamp: FileStamp,
}

/// What [`Swapped::undo`] had to do besides putting the previous content back.
#[derive(Debug, PartialEq, Eq)]
pub enum Undone {
    /// The previous content is back; the version swapped in is gone.
    Restored,
    /// Someone saved into the version swapped in after it appeared: that save is newer than
    /// anything else, so it stays in the file (the next command absorbs it).
    KeptTheirSave,
    /// Both the displaced content and the version swapped in were changed by others: the save
    /// stays in the file and the displaced bytes were moved to this path, never dropped.
    Rescued(PathBuf),
}

impl Swapped {
    /// True when the inode displaced is the one `stamp` describes, unchanged (same inode, size
    /// and mtime): what a caller that trusted the stat of a large file checks instead of
    /// reading it back.
    pub fn displaced_matches(&self, stamp: &FileStamp) -> bool {
        self.previous
            .as_deref()
            .is_some_and(|p| stat_equal(p, stamp))
    }

    /// The bytes that were in the file just before the swap, with the stat of that inode
    /// taken before reading them (a later write into it changes what the stat shows).
    pub fn previous_stamped(&self) -> Result<Option<(Vec<u8>, FileStamp)>> {
        match &self.previous {
            Some(p) => read_stamped(p),
            None => Ok(None),
        }
    }

    /// Keep the new content; the previous inode is moved to `to` (on the same filesystem)
    /// instead of being deleted, so a program still writing into it does not write into nothing.
    /// The caller syncs the directories ([`crate::base::write::sync_dir`]), once for every file it swapped.
    pub fn keep_previous_at(self, to: &Path) -> Result<()> {
        if let Some(p) = &self.previous {
            std::fs::rename(p, to).map_err(|e| Error::io(to, e))?;
        }
        Ok(())
    }

    /// Keep the new content; the previous one is deleted. The caller syncs the directory
    /// ([`crate::base::write::sync_dir`]), once for every file it swapped.
    pub fn keep(self) -> Result<()> {
        if let Some(p) = &self.previous {
            std::fs::remove_file(p).map_err(|e| Error::io(p, e))?;
        }
        Ok(())
    }

    /// Put the previous content back, dropping the new one, unless somebody saved into the new
    /// one in the meantime (an editor writing in place): then that save is kept. `expected` is
    /// the hash the displaced bytes had when absorbed; displaced bytes that differ from it and
    /// cannot stay in the file are moved into `rescue_dir`.
    pub fn undo(self, expected: Option<&str>, rescue_dir: &Path) -> Result<Undone> {
        let ours = self.stamp.sha1.as_str();
        let Some(prev) = &self.previous else {
            if self.existed {
                // no way to get the previous inode back here: the new version stays and the
                // next command absorbs it (entry ids make the retried write idempotent)
                return Ok(Undone::KeptTheirSave);
            }
            // the file did not exist before: remove ours unless it was saved into
            let untouched = match read_file(&self.path, MAX_FILE_BYTES) {
                Ok(Some(b)) => hex::sha1(&b) == ours,
                Ok(None) => true,
                Err(_) => false,
            };
            if !untouched {
                return Ok(Undone::KeptTheirSave);
            }
            match std::fs::remove_file(&self.path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(&self.path, e)),
            }
            sync_parent(&self.path);
            return Ok(Undone::Restored);
        };
        exchange(prev, &self.path).map_err(|e| Error::io(&self.path, e))?;
        let new_bytes = read_existing(prev, MAX_FILE_BYTES)?;
        if hex::sha1(&new_bytes) == ours {
            std::fs::remove_file(prev).map_err(|e| Error::io(prev, e))?;
            sync_parent(&self.path);
            return Ok(Undone::Restored);
        }
        // a save landed in our version after the swap: it is the newest content, keep it
        exchange(prev, &self.path).map_err(|e| Error::io(&self.path, e))?;
        let displaced = read_existing(prev, MAX_FILE_BYTES)?;
        let outcome = if Some(hex::sha1(&displaced).as_str()) == expected {
            std::fs::remove_file(prev).map_err(|e| Error::io(prev, e))?;
            Undone::KeptTheirSave
        } else {
            let to = rescue_path(rescue_dir, &self.path, None)?;
            std::fs::rename(prev, &to).map_err(|e| Error::io(&to, e))?;
            Undone::Rescued(to)
        };
        sync_parent(&self.path);
        Ok(outcome)
    }
}

/// A new path under `rescue_dir` (created if needed) for keeping a version of `file` that was
/// taken out of it: `<name>[.<why>].<UTC time>`.
pub fn rescue_path(rescue_dir: &Path, file: &Path, why: Option<&str>) -> Result<PathBuf> {
    std::fs::create_dir_all(rescue_dir).map_err(|e| Error::io(rescue_dir, e))?;
    let name = file
        .file_name()
        .map_or("file".into(), |n| n.to_string_lossy().into_owned());
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%S%.6fZ");
    let why = why.map(|w| format!(".{w}")).unwrap_or_default();
    Ok(rescue_dir.join(format!("{name}{why}.{stamp}")))
}

/// Replace `path` with `bytes` by atomically exchanging a durable temp file with it, so the
/// bytes that were there at that instant are kept and can be checked: a write that landed after
/// the caller last read the file is never silently overwritten.
///
/// The temp file is made in `tmp_dir` (under `.trilogy/`, ignored by git) when that is on the
/// same filesystem, so `git add -A` at the wrong moment never picks one up from `memory/`.
pub fn swap_in(path: &Path, bytes: &[u8], tmp_dir: &Path) -> Result<Swapped> {
    swap_in_with(path, tmp_dir, |file| {
        file.write_all(bytes)?;
        Ok(hex::sha1(bytes))
    })
}

/// [`swap_in`] with the new content written by `write`, which returns its SHA-1 (hex): a large
/// file can be streamed into place without ever being held in memory whole.
pub fn swap_in_with(
    path: &Path,
    tmp_dir: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<String>,
) -> Result<Swapped> {
    let dir = path
        .parent()
        .ok_or_else(|| Error::Internal(format!("{} has no parent", path.display())))?;
    let mode = crate::base::write::mode_of(path).unwrap_or(0o644);
    let _ = std::fs::create_dir(tmp_dir);
    let tmp_in = if same_device(tmp_dir, dir) {
        tmp_dir
    } else {
        dir
    };
    let tmp = crate::base::write::temp_in(tmp_in).map_err(|e| Error::io(tmp_in, e))?;
    crate::base::write::set_mode(tmp.path(), mode).map_err(|e| Error::io(tmp.path(), e))?;
    let (mut file, tmp_path) = tmp.keep().map_err(|e| Error::io(dir, e.error))?;
    // before the write: the file's mtime is at or after this, so the stamp starts out racy and
    // is vouched for only by a later read
    let taken_ms = now_ms();
    let written = write(&mut file).and_then(|sha1| file.sync_all().map(|()| sha1));
    let sha1 = match written {
        Ok(h) => h,
        Err(e) => {
            let _ = std::fs::remove_file(&tmp_path);
            return Err(Error::io(&tmp_path, e));
        }
    };
    let meta = file.metadata().map_err(|e| Error::io(&tmp_path, e))?;
    let stamp = FileStamp {
        taken_ms,
        sha1,
        len: meta.len(),
        mtime_ns: mtime_ns(&meta),
        ino: inode(&tmp_path, &meta),
    };
    drop(file);
    let existed = path.exists();
    if existed && exchange(&tmp_path, path).is_ok() {
        return Ok(Swapped {
            path: path.to_path_buf(),
            previous: Some(tmp_path),
            existed,
            stamp,
        });
    }
    // no file yet, or a filesystem without exchange: a plain atomic rename (the caller's
    // re-read just before is then the only check against a concurrent save)
    let previous = None;
    std::fs::rename(&tmp_path, path).map_err(|e| Error::io(path, e))?;
    Ok(Swapped {
        path: path.to_path_buf(),
        previous,
        existed,
        stamp,
    })
}

/// True when the file at `path` holds `want` at offset `at` (false when it is shorter).
pub fn bytes_at(path: &Path, at: u64, want: &[u8]) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let Some((mut f, meta)) = open_stat_up_to(path, MAX_STREAMED_BYTES)? else {
        return Ok(false);
    };
    if meta.len() < at + want.len() as u64 {
        return Ok(false);
    }
    let mut got = vec![0u8; want.len()];
    f.seek(SeekFrom::Start(at))
        .and_then(|_| f.read_exact(&mut got))
        .map_err(|e| Error::io(path, e))?;
    Ok(got == want)
}

/// The stamp of a file, its hash computed a block at a time (the file is never held in memory
/// whole); `None` when it does not exist. The stat is taken on the open file before reading,
/// as [`read_stamped`] does.
pub fn hash_stamped(path: &Path) -> Result<Option<FileStamp>> {
    hash_stamped_with(path, |_, _| {})
}

/// [`hash_stamped`], each block read also handed to `visit` with its offset in the file.
pub fn hash_stamped_with(
    path: &Path,
    mut visit: impl FnMut(u64, &[u8]),
) -> Result<Option<FileStamp>> {
    use sha1::{Digest, Sha1};
    use std::io::Read;
    let taken_ms = now_ms();
    let Some((mut f, meta)) = open_stat_up_to(path, MAX_STREAMED_BYTES)? else {
        return Ok(None);
    };
    let mut hasher = Sha1::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        let n = f.read(&mut buf).map_err(|e| Error::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        visit(at, &buf[..n]);
        at += n as u64;
    }
    Ok(Some(stamp_from(
        path,
        &meta,
        crate::base::hex::lower(&hasher.finalize()),
        taken_ms,
    )))
}

/// Write `head`, then the bytes of `src` from offset `from` to its end, into `out`, a block at
/// a time; returns the SHA-1 (hex) of everything written.
pub fn write_spliced(
    out: &mut std::fs::File,
    head: &[u8],
    src: &mut std::fs::File,
    from: u64,
) -> std::io::Result<String> {
    use std::io::{Read, Seek, SeekFrom};
    let mut w = HashingWriter::new(out);
    w.write_all(head)?;
    src.seek(SeekFrom::Start(from))?;
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = src.read(&mut buf)?;
        if n == 0 {
            break;
        }
        w.write_all(&buf[..n])?;
    }
    w.finish()
}

/// A writer buffered a MiB at a time that also takes the SHA-1 of what goes through it: a file
/// streamed into place gets its stamp's hash without being read back.
pub struct HashingWriter<W: Write> {
    out: std::io::BufWriter<W>,
    hasher: sha1::Sha1,
}

impl<W: Write> HashingWriter<W> {
    pub fn new(out: W) -> Self {
        use sha1::Digest;
        HashingWriter {
            out: std::io::BufWriter::with_capacity(1 << 20, out),
            hasher: sha1::Sha1::new(),
        }
    }

    /// Flush, and the SHA-1 (hex) of everything written.
    pub fn finish(self) -> std::io::Result<String> {
        use sha1::Digest;
        let HashingWriter { mut out, hasher } = self;
        out.flush()?;
        Ok(hex::lower(&hasher.finalize()))
    }
}

impl<W: Write> Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        use sha1::Digest;
        let n = self.out.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stamp_recorded_late_still_distrusts_a_save_in_the_tick_of_its_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("SESSIONS.md");
        std::fs::write(&path, "old\n").unwrap();
        let sw = swap_in(&path, b"new\n", dir.path()).unwrap();
        sw.keep().unwrap();
        // the process is descheduled for longer than the racy window before it records the
        // stamp: the stamp must still not vouch for the file
        std::thread::sleep(std::time::Duration::from_millis(250));
        let (_, stamp) = read_stamped(&path).unwrap().unwrap();
        assert!(stamp.taken_ms > 0);
        let written = sw_stamp_of(&path, b"new\n");
        assert!(
            is_racy(&written, written.taken_ms),
            "taken before the write"
        );
        assert!(!stat_matches(&path, &written, written.taken_ms));
        // a read that began after the window vouches for what it read
        assert!(vouches(&stamp));
    }

    /// The stamp `swap_in` takes of the bytes it writes.
    fn sw_stamp_of(path: &Path, bytes: &[u8]) -> FileStamp {
        let dir = path.parent().unwrap();
        let sw = swap_in(path, bytes, dir).unwrap();
        let stamp = sw.stamp.clone();
        sw.keep().unwrap();
        crate::base::write::sync_dir(dir);
        stamp
    }
}
