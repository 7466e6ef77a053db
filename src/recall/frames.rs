//! DeepSeek Harness keeps a session's log as zstd frames appended one after another
//! (`session.jsonl.zstd`): the complete frames of a chunk, decompressed, and how many bytes
//! they took. A frame still being written waits for the next read.
//!
//! What a log decompresses to is bounded: a frame that says more than [`FRAME_MAX`], or a log
//! whose frames together say more than [`FILE_MAX`], is not read (a few kilobytes of zstd can
//! say gigabytes of nothing), and the log is marked unreadable instead.

use std::io::Read;

/// The most one frame may decompress to (one event of the log: a line, as a line of the other
/// hosts' transcripts is read up to 64 MiB).
pub const FRAME_MAX: u64 = 64 << 20;
/// The most one log may decompress to, all its frames together: far above a long session's.
pub const FILE_MAX: u64 = 1 << 30;

/// Why frames could not be read.
#[derive(Debug)]
pub struct Bad {
    /// Offset of the frame in the bytes given ([`inflated`]: in the file).
    pub at: usize,
    pub why: String,
    /// The frame (or the log) says more than the caps allow: not a damaged frame.
    pub over_cap: bool,
}

impl Bad {
    fn damaged(at: usize, why: String) -> Bad {
        Bad {
            at,
            why,
            over_cap: false,
        }
    }
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
            Err(Bad::damaged(at, format!("not a zstd frame ({name})")))
        }
    }
}

/// Decompress the one frame `frame` into `out`, at most [`FRAME_MAX`] bytes of it.
fn inflate(frame: &[u8], at: usize, out: &mut impl std::io::Write) -> Result<u64, Bad> {
    let undecodable =
        |e: std::io::Error| Bad::damaged(at, format!("a zstd frame does not decompress: {e}"));
    let dec = zstd::stream::read::Decoder::with_buffer(frame)
        .map_err(undecodable)?
        .single_frame();
    let n = std::io::copy(&mut dec.take(FRAME_MAX + 1), out).map_err(undecodable)?;
    if n > FRAME_MAX {
        return Err(Bad {
            at,
            why: format!(
                "a zstd frame decompresses to more than {} MiB; trilogy does not read it",
                FRAME_MAX >> 20
            ),
            over_cap: true,
        });
    }
    Ok(n)
}

/// The text of the complete frames at the start of `bytes`, and the bytes they took; an error
/// when a complete frame does not decompress or says more than [`FRAME_MAX`]. Frames are
/// taken while their text stays under `budget` bytes (always at least one), so what one call
/// holds in memory is bounded whatever the frames say.
pub fn complete(bytes: &[u8], budget: u64) -> Result<(String, usize), Bad> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < bytes.len() && (at == 0 || (out.len() as u64) < budget) {
        let Some(n) = frame_len(&bytes[at..], at)? else {
            break;
        };
        inflate(&bytes[at..at + n], at, &mut out)?;
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        at += n;
    }
    Ok((String::from_utf8_lossy(&out).into_owned(), at))
}

/// How many bytes the complete frames of `file` from `from` to `size` decompress to, counted
/// without keeping them, and no further than past `limit`; a frame that cannot be read ends
/// the count (the read that follows says why).
pub fn inflated(file: &mut std::fs::File, from: u64, size: u64, limit: u64) -> Result<u64, Bad> {
    use std::io::{Seek, SeekFrom};
    let chunk = super::chunks::CHUNK;
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
                Err(b) if b.over_cap => {
                    let at = b.at + pos as usize;
                    return Err(Bad { at, ..b });
                }
                Err(_) => return Ok(total),
            }
            at += n;
        }
        if at == 0 {
            break;
        }
        pos += at as u64;
    }
    Ok(total)
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
        let (text, used) = complete(&all, FRAME_MAX).unwrap();
        assert_eq!(
            (text.as_str(), used),
            ("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n", all.len())
        );
        let cut = &all[..a.len() + b.len() / 2];
        let (text, used) = complete(cut, FRAME_MAX).unwrap();
        assert_eq!((text.as_str(), used), ("{\"a\":1}\n", a.len()));
        let mut damaged = all.clone();
        damaged[a.len()] ^= 0xff;
        let bad = complete(&damaged, FRAME_MAX).unwrap_err();
        assert!(
            bad.at == a.len() && bad.why.contains("not a zstd frame") && !bad.over_cap,
            "{bad:?}"
        );
        // a budget of one byte still takes one frame, and leaves the next for the next call
        let (text, used) = complete(&all, 1).unwrap();
        assert_eq!((text.as_str(), used), ("{\"a\":1}\n", a.len()));
    }

    #[test]
    fn a_frame_that_says_more_than_the_cap_is_refused_without_being_held() {
        let big = vec![b'\n'; FRAME_MAX as usize + 1];
        let bomb = zstd::stream::encode_all(&big[..], 3).unwrap();
        drop(big);
        assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
        let small = zstd::stream::encode_all(&b"{\"a\":1}\n"[..], 3).unwrap();
        let mut all = small.clone();
        all.extend_from_slice(&bomb);
        let bad = complete(&all, FRAME_MAX).unwrap_err();
        assert!(bad.over_cap && bad.at == small.len(), "{bad:?}");
        assert!(bad.why.contains("more than 64 MiB"), "{}", bad.why);

        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("session.jsonl.zstd");
        std::fs::write(&p, &all).unwrap();
        let mut f = std::fs::File::open(&p).unwrap();
        let len = all.len() as u64;
        assert!(inflated(&mut f, 0, len, FILE_MAX).unwrap_err().over_cap);
        assert_eq!(
            inflated(&mut f, 0, small.len() as u64, FILE_MAX).unwrap(),
            8
        );
    }
}
