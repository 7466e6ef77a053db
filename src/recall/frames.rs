//! DeepSeek Harness keeps a session's log as zstd frames appended one after another
//! (`session.jsonl.zstd`): the complete frames of a chunk, decompressed, and how many bytes
//! they took. A frame still being written waits for the next read.
//!
//! What a log decompresses to is bounded (a few kilobytes of zstd can say gigabytes of
//! nothing): a frame that says more than [`FRAME_MAX`] is skipped, as a line that long is in
//! the other hosts' transcripts, and a log whose frames together say more than [`FILE_MAX`] is
//! not read (it is marked unreadable).

use std::io::Read;

/// The most one frame may decompress to (one event of the log: a line, as a line of the other
/// hosts' transcripts is read up to 64 MiB).
pub const FRAME_MAX: u64 = 64 << 20;
/// The most one log may decompress to, all its frames together: far above a long session's.
pub const FILE_MAX: u64 = 1 << 30;

/// Why frames could not be read: a frame that is damaged (a frame over [`FRAME_MAX`] is not
/// an error: it is skipped).
#[derive(Debug)]
pub struct Bad {
    /// Offset of the frame in the bytes given.
    pub at: usize,
    pub why: String,
}

/// The length of the complete frame at the start of `bytes`; `None` when it is cut short (the
/// writer has not finished it).
fn frame_len(bytes: &[u8], at: usize) -> Result<Option<usize>, Bad> {
    match zstd::zstd_safe::find_frame_compressed_size(bytes) {
        Ok(n) if n == 0 || n > bytes.len() => Ok(None),
        Ok(n) => Ok(Some(n)),
        Err(code) if zstd::zstd_safe::get_error_name(code).contains("Src size") => Ok(None),
        Err(code) => {
            let name = zstd::zstd_safe::get_error_name(code);
            Err(Bad {
                at,
                why: format!("not a zstd frame ({name})"),
            })
        }
    }
}

/// Decompress the one frame `frame` into `out`, no further than one byte past
/// [`FRAME_MAX`]: the bytes it said (a count over [`FRAME_MAX`]: it says more, and what it
/// wrote into `out` is for the caller to take back).
fn inflate(frame: &[u8], at: usize, out: &mut impl std::io::Write) -> Result<u64, Bad> {
    let undecodable = |e: std::io::Error| Bad {
        at,
        why: format!("a zstd frame does not decompress: {e}"),
    };
    let dec = zstd::stream::read::Decoder::with_buffer(frame)
        .map_err(undecodable)?
        .single_frame();
    std::io::copy(&mut dec.take(FRAME_MAX + 1), out).map_err(undecodable)
}

/// The complete frames at the start of some bytes, decompressed.
#[derive(Debug, Default)]
pub struct Complete {
    /// Their text, a line feed after each frame; a frame over [`FRAME_MAX`] is one empty line.
    pub text: String,
    /// The bytes they took.
    pub used: usize,
    /// Frames skipped for saying more than [`FRAME_MAX`].
    pub skipped: u64,
    /// What they said in bytes (a skipped frame counts as [`FRAME_MAX`] and one).
    pub said: u64,
}

/// The complete frames at the start of `bytes`; an error when a complete frame does not
/// decompress. Frames are taken while their text stays under `budget` bytes (always at least
/// one), so what one call holds in memory is bounded whatever the frames say.
pub fn complete(bytes: &[u8], budget: u64) -> Result<Complete, Bad> {
    let mut c = Complete::default();
    let mut out = Vec::new();
    while c.used < bytes.len() && (c.used == 0 || (out.len() as u64) < budget) {
        let at = c.used;
        let Some(n) = frame_len(&bytes[at..], at)? else {
            break;
        };
        let before = out.len();
        let said = inflate(&bytes[at..at + n], at, &mut out)?;
        c.said += said;
        if said > FRAME_MAX {
            // one event that says more than any line is read: an empty line in its place,
            // and the frames after it read on
            out.truncate(before);
            c.skipped += 1;
            out.push(b'\n');
        } else if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        c.used += n;
    }
    c.text = String::from_utf8_lossy(&out).into_owned();
    Ok(c)
}

/// How many bytes the complete frames of `file` from `from` to `size` say, counted without
/// keeping them (a frame over [`FRAME_MAX`] as [`FRAME_MAX`] and one), and no further than
/// past `limit`; a frame that cannot be read ends the count (the read that follows says why).
pub fn inflated(file: &mut std::fs::File, from: u64, size: u64, limit: u64) -> u64 {
    use std::io::{Seek, SeekFrom};
    let chunk = super::CHUNK;
    let (mut pos, mut total) = (from, 0u64);
    while pos < size && total <= limit {
        let want = (size - pos).min(chunk);
        let mut bytes = Vec::with_capacity(want as usize);
        let read = file
            .seek(SeekFrom::Start(pos))
            .and_then(|_| (&mut *file).take(want).read_to_end(&mut bytes));
        if read.is_err() {
            break;
        }
        let mut at = 0;
        while at < bytes.len() && total <= limit {
            let Ok(Some(n)) = frame_len(&bytes[at..], at) else {
                break;
            };
            match inflate(&bytes[at..at + n], at, &mut std::io::sink()) {
                Ok(said) => total += said,
                Err(_) => return total,
            }
            at += n;
        }
        if at == 0 {
            break;
        }
        pos += at as u64;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_frames_are_read_and_a_cut_one_waits() {
        let a = zstd::stream::encode_all(&b"{\"a\":1}\n"[..], 3).unwrap();
        let b = zstd::stream::encode_all(&b"{\"b\":2}\n{\"c\":3}\n"[..], 3).unwrap();
        let mut all = a.clone();
        all.extend_from_slice(&b);
        let c = complete(&all, FRAME_MAX).unwrap();
        assert_eq!(
            (c.text.as_str(), c.used, c.skipped),
            ("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n", all.len(), 0)
        );
        let cut = &all[..a.len() + b.len() / 2];
        let c = complete(cut, FRAME_MAX).unwrap();
        assert_eq!((c.text.as_str(), c.used), ("{\"a\":1}\n", a.len()));
        let mut damaged = all.clone();
        damaged[a.len()] ^= 0xff;
        let bad = complete(&damaged, FRAME_MAX).unwrap_err();
        assert!(
            bad.at == a.len() && bad.why.contains("not a zstd frame"),
            "{bad:?}"
        );
        // a budget of one byte still takes one frame, and leaves the next for the next call
        let c = complete(&all, 1).unwrap();
        assert_eq!((c.text.as_str(), c.used), ("{\"a\":1}\n", a.len()));
    }

    #[test]
    fn a_frame_that_says_more_than_the_cap_is_skipped_without_being_held() {
        let big = vec![b'\n'; FRAME_MAX as usize + 1];
        let bomb = zstd::stream::encode_all(&big[..], 3).unwrap();
        drop(big);
        assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
        let small = zstd::stream::encode_all(&b"{\"a\":1}\n"[..], 3).unwrap();
        let mut all = small.clone();
        all.extend_from_slice(&bomb);
        all.extend_from_slice(&small);
        let c = complete(&all, FRAME_MAX).unwrap();
        // the skipped frame is one empty line between the two others
        assert_eq!(c.text, "{\"a\":1}\n\n{\"a\":1}\n");
        assert_eq!(
            (c.used, c.skipped, c.said),
            (all.len(), 1, 8 + FRAME_MAX + 1 + 8)
        );

        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("session.jsonl.zstd");
        std::fs::write(&p, &all).unwrap();
        let mut f = std::fs::File::open(&p).unwrap();
        let len = all.len() as u64;
        assert_eq!(inflated(&mut f, 0, len, u64::MAX), c.said);
        // the count stops once past the limit
        assert_eq!(inflated(&mut f, 0, len, 4), 8);
    }
}
