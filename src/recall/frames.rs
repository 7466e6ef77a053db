//! DeepSeek Harness keeps a session's log as zstd frames appended one after another
//! (`session.jsonl.zstd`): the complete frames of a chunk, decompressed, and how many bytes
//! they took. A frame still being written waits for the next read. A frame's length is found
//! from its header and its blocks' headers; it is decompressed by `ruzstd`, a zstd decoder in
//! Rust (no C library to build on any system).
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

/// The largest window a frame may ask its decoder to keep: 128 MiB, the reference decoder's
/// default limit (a frame asking for more does not decompress).
const WINDOW_MAX: u64 = 1 << 27;
/// The magic number that opens a zstd frame, as it is on disk.
const MAGIC: [u8; 4] = 0xFD2F_B528u32.to_le_bytes();
/// The magic numbers of skippable frames: these 4 bytes with any value in the low 4 bits of
/// the first. Such a frame says nothing.
const SKIPPABLE: [u8; 4] = 0x184D_2A50u32.to_le_bytes();

/// Whether `head` (up to 4 bytes) starts a skippable frame's magic number.
fn skippable(head: &[u8]) -> bool {
    head.iter()
        .zip(SKIPPABLE)
        .enumerate()
        .all(|(i, (&b, m))| if i == 0 { b & 0xF0 == m } else { b == m })
}

/// The length of the complete frame at the start of `bytes` (offset `at` in what the caller
/// read), found from its header and its blocks' headers without decompressing anything;
/// `None` when it is cut short (the writer has not finished it).
fn frame_len(bytes: &[u8], at: usize) -> Result<Option<usize>, Bad> {
    let bad = |name: &str| Bad {
        at,
        why: format!("not a zstd frame ({name})"),
    };
    let head = &bytes[..bytes.len().min(4)];
    if skippable(head) {
        // the magic number, a length, and that many bytes
        let Some(len) = bytes.get(4..8) else {
            return Ok(None);
        };
        let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
        return Ok(Some(len.saturating_add(8)).filter(|&n| n <= bytes.len()));
    }
    if head != &MAGIC[..head.len()] {
        return Err(bad("Unknown frame descriptor"));
    }
    let Some(&desc) = bytes.get(4) else {
        return Ok(None);
    };
    if desc & 0x08 != 0 {
        return Err(bad("Unsupported frame parameter"));
    }
    let single_segment = desc & 0x20 != 0;
    let content_size_bytes = match desc >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    let dictionary_bytes = [0, 1, 2, 4][usize::from(desc & 0x03)];
    let mut pos = 5 + usize::from(!single_segment) + dictionary_bytes + content_size_bytes;
    loop {
        let Some(h) = bytes.get(pos..pos + 3) else {
            return Ok(None);
        };
        let h = u32::from_le_bytes([h[0], h[1], h[2], 0]);
        let size = match (h >> 1) & 0x03 {
            // raw and compressed blocks carry their bytes, a run-length block one byte
            0 | 2 => (h >> 3) as usize,
            1 => 1,
            _ => return Err(bad("Corrupted block detected")),
        };
        pos += 3 + size;
        if h & 1 == 1 {
            break;
        }
    }
    if desc & 0x04 != 0 {
        // the content checksum
        pos += 4;
    }
    Ok(Some(pos).filter(|&n| n <= bytes.len()))
}

/// Decompress the one frame `frame` into `out`, no further than one byte past
/// [`FRAME_MAX`]: the bytes it said (a count over [`FRAME_MAX`]: it says more, and what it
/// wrote into `out` is for the caller to take back). A frame read to its end whose content
/// checksum does not match what it said does not decompress.
fn inflate(frame: &[u8], at: usize, out: &mut impl std::io::Write) -> Result<u64, Bad> {
    if skippable(&frame[..frame.len().min(4)]) {
        return Ok(0);
    }
    let undecodable = |e: &dyn std::fmt::Display| Bad {
        at,
        why: format!("a zstd frame does not decompress: {e}"),
    };
    let mut dec = ruzstd::decoding::StreamingDecoder::new_with_max_window_size(frame, WINDOW_MAX)
        .map_err(|e| undecodable(&e))?;
    let said =
        std::io::copy(&mut (&mut dec).take(FRAME_MAX + 1), out).map_err(|e| undecodable(&e))?;
    if said <= FRAME_MAX
        && let Some(stored) = dec.decoder.get_checksum_from_data()
        && dec.decoder.get_calculated_checksum() != Some(stored)
    {
        return Err(undecodable(&"its content checksum does not match"));
    }
    Ok(said)
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
    use ruzstd::encoding::{CompressionLevel, compress_to_vec};

    /// `bytes` as one zstd frame, as a writer of logs makes it.
    fn squeeze(bytes: &[u8]) -> Vec<u8> {
        compress_to_vec(bytes, CompressionLevel::Fastest)
    }

    #[test]
    fn complete_frames_are_read_and_a_cut_one_waits() {
        let a = squeeze(b"{\"a\":1}\n");
        let b = squeeze(b"{\"b\":2}\n{\"c\":3}\n");
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
        let bomb = squeeze(&big);
        drop(big);
        assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
        let small = squeeze(b"{\"a\":1}\n");
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

    #[test]
    fn a_frame_cut_anywhere_waits_and_the_bytes_it_holds_are_not_taken() {
        let a = squeeze(b"{\"a\":1}\n");
        let b = squeeze(b"{\"b\":2}\n");
        for cut in 1..b.len() {
            let mut all = a.clone();
            all.extend_from_slice(&b[..cut]);
            let c = complete(&all, FRAME_MAX).unwrap();
            assert_eq!(
                (c.text.as_str(), c.used),
                ("{\"a\":1}\n", a.len()),
                "cut {cut}"
            );
        }
        // the start of something that is no frame is known from its first byte
        let mut all = a.clone();
        all.push(b'{');
        let bad = complete(&all, FRAME_MAX).unwrap_err();
        assert_eq!(bad.at, a.len());
        assert!(bad.why.contains("not a zstd frame"), "{bad:?}");
    }

    #[test]
    fn a_skippable_frame_says_nothing_and_the_frames_around_it_are_read() {
        let a = squeeze(b"{\"a\":1}\n");
        let mut skip = 0x184D_2A53u32.to_le_bytes().to_vec();
        skip.extend_from_slice(&3u32.to_le_bytes());
        skip.extend_from_slice(b"xyz");
        let mut all = a.clone();
        all.extend_from_slice(&skip);
        all.extend_from_slice(&a);
        let c = complete(&all, FRAME_MAX).unwrap();
        assert_eq!(
            (c.text.as_str(), c.used, c.said),
            ("{\"a\":1}\n{\"a\":1}\n", all.len(), 16)
        );
        // cut inside it: it waits
        let c = complete(&all[..a.len() + 9], FRAME_MAX).unwrap();
        assert_eq!(c.used, a.len());
    }

    #[test]
    fn a_damaged_frame_is_refused_not_read() {
        let text = b"{\"a\":1}\n";
        let good = compress_to_vec(&text[..], CompressionLevel::Uncompressed);
        // a byte of what it says changed: its content checksum no longer matches
        let at = good.windows(text.len()).position(|w| w == text).unwrap();
        let mut changed = good.clone();
        changed[at] = b'[';
        let bad = complete(&changed, FRAME_MAX).unwrap_err();
        assert!(bad.why.contains("does not decompress"), "{bad:?}");
        // a block of the reserved type
        let mut reserved = good.clone();
        let block = at - 3;
        reserved[block] |= 0x06;
        let bad = complete(&reserved, FRAME_MAX).unwrap_err();
        assert!(bad.why.contains("not a zstd frame"), "{bad:?}");
        // the reserved bit of the frame header set
        let mut flagged = good;
        flagged[4] |= 0x08;
        let bad = complete(&flagged, FRAME_MAX).unwrap_err();
        assert!(bad.why.contains("not a zstd frame"), "{bad:?}");
    }

    /// The fixture of frames written by the reference zstd (the C library, 1.5.4):
    /// `{"a":1}` at level 3 with a checksum; the numbers 1 to 3000, a line each, at level 19
    /// without one; 4000 lines of `{"seq":i % 7,"text":"the linker flag"}` at level 1 (two
    /// blocks).
    fn by_libzstd() -> Vec<u8> {
        let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/recall/libzstd-frames.zst");
        std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }

    #[test]
    fn frames_the_reference_zstd_wrote_are_read_whole() {
        let frames = by_libzstd();
        let mut want = String::from("{\"a\":1}\n");
        let numbers: String = (1..=3000).map(|i| format!("{i}\n")).collect();
        want.push_str(&numbers);
        let repeated: String = (1..=4000)
            .map(|i| format!("{{\"seq\":{},\"text\":\"the linker flag\"}}\n", i % 7))
            .collect();
        want.push_str(&repeated);
        let c = complete(&frames, FRAME_MAX).unwrap();
        assert_eq!(c.text, want);
        assert_eq!((c.used, c.skipped), (frames.len(), 0));
        assert_eq!(c.said, want.len() as u64);
        // the last frame cut short waits
        let c = complete(&frames[..frames.len() - 1], FRAME_MAX).unwrap();
        assert_eq!(c.text.len(), 8 + numbers.len());
    }
}
