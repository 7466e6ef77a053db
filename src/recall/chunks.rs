//! Reading what a transcript holds past where the last read ended, bounded: chunk by chunk
//! (at most [`CHUNK`] bytes held at once), complete lines only (or complete frames). A line
//! longer than a chunk is skipped — counted as a line not understood — and what follows it is
//! read on, so one huge line never hides the rest of its file (a DeepSeek Harness frame that
//! says more than a line may is skipped the same way). A DeepSeek Harness log is read only
//! while what its frames say together stays under [`frames::FILE_MAX`].

use std::borrow::Cow;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::frames;
use super::parse::{self, Context, Said};
use super::sources::{Source, belongs};
use super::{CHUNK, Host};

/// How far one file has been read, and what it said about itself.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct FileState {
    pub host: String,
    pub size: u64,
    pub head: String,
    /// Bytes the head's fingerprint covers (less than 4 KiB for a smaller file).
    #[serde(default)]
    pub head_len: u64,
    /// A session of another project (its first line names another working directory): it is
    /// not read further.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub other: bool,
    /// Its modification time (nanoseconds) when read: size and time unchanged, it is not
    /// opened again.
    #[serde(default)]
    pub mtime: i64,
    /// Bytes read (complete lines, or complete frames).
    pub offset: u64,
    /// The fingerprint of the (up to 4 KiB) bytes just before `offset`: a file whose bytes
    /// there changed was rewritten, even with the same size and the same head.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tail: String,
    /// Lines read.
    pub lines: u64,
    pub ctx: Context,
    /// Messages of this workspace indexed from it.
    pub messages: u64,
    /// Lines not understood.
    pub skipped: u64,
    /// The last thing said in it, for the context of the next one.
    pub last: Option<String>,
    /// Why it could not be read (it stays pending).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unreadable: Option<String>,
    /// It says more than trilogy reads of one file (see `chunks::Stop::OverCap`): not read
    /// again while its size and time stay as they were.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub over_cap: bool,
    /// Bytes its zstd frames decompressed to up to `offset` (DeepSeek Harness logs).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub inflated: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// Why a read stopped short.
pub enum Stop {
    /// The file could not be read (it is tried again from where the last good read ended).
    Failed(String),
    /// The file says more than trilogy reads of one file: not read again until it changes.
    OverCap(String),
}

/// Read `file` (of `size` bytes) from `state.offset` to its last complete line (or frame),
/// advancing `state`; what was said in it, in order.
pub fn read(
    src: &Source,
    file: &mut std::fs::File,
    size: u64,
    root: &Path,
    state: &mut FileState,
) -> Result<Vec<Said>, Stop> {
    if src.host == Host::Dsh {
        check_inflated(file, size, state)?;
    }
    let mut said = Vec::new();
    loop {
        let from = state.offset;
        let want = size.saturating_sub(from).min(CHUNK);
        if want == 0 {
            break;
        }
        let mut bytes = Vec::with_capacity(want as usize);
        file.seek(SeekFrom::Start(from))
            .and_then(|_| (&mut *file).take(want).read_to_end(&mut bytes))
            .map_err(|e| Stop::Failed(e.to_string()))?;
        let (text, used): (Cow<[u8]>, usize) = match src.host {
            Host::Dsh => {
                let c = frames::complete(&bytes, CHUNK)
                    .map_err(|b| Stop::Failed(format!("byte {}: {}", from + b.at as u64, b.why)))?;
                state.inflated += c.said;
                state.skipped += c.skipped;
                (Cow::Owned(c.text.into_bytes()), c.used)
            }
            _ => {
                // the last line without its line feed is still being written
                let end = memchr::memrchr(b'\n', &bytes).map_or(0, |i| i + 1);
                (Cow::Borrowed(&bytes[..end]), end)
            }
        };
        if used == 0 {
            if want < CHUNK {
                break;
            }
            if src.host == Host::Dsh {
                return Err(Stop::OverCap(format!(
                    "byte {from}: a zstd frame longer than {} MiB; trilogy does not read it",
                    CHUNK >> 20
                )));
            }
            drop(bytes);
            // a line longer than a chunk: skipped, and read on after it once it has ended
            let Some(end) = line_end(file, from + CHUNK, size) else {
                break;
            };
            state.offset = end;
            state.lines += 1;
            state.skipped += 1;
            continue;
        }
        let read = parse::lines(src.host, &text, state.lines + 1, &mut state.ctx);
        state.lines += read.lines;
        state.offset = from + used as u64;
        state.skipped += read.skipped;
        said.extend(read.said);
        // a session another project started is not read further
        if matches!(src.host, Host::Codex | Host::Dsh)
            && let Some(start) = &state.ctx.start
            && !belongs(root, Path::new(start))
        {
            state.other = true;
            break;
        }
    }
    Ok(said)
}

/// Refuse a log whose frames, from where the last read ended, would take what it decompresses
/// to past [`frames::FILE_MAX`]: counted before anything is parsed or held.
fn check_inflated(file: &mut std::fs::File, size: u64, state: &FileState) -> Result<(), Stop> {
    let left = frames::FILE_MAX.saturating_sub(state.inflated);
    let said = frames::inflated(file, state.offset, size, left);
    if said > left {
        return Err(Stop::OverCap(format!(
            "its zstd frames decompress to more than {} MiB; trilogy does not read it",
            frames::FILE_MAX >> 20
        )));
    }
    Ok(())
}

/// The offset just past the first line feed at or after `at` (before `size`); `None` when
/// there is none yet. Read a block at a time, never holding the line.
fn line_end(file: &mut std::fs::File, at: u64, size: u64) -> Option<u64> {
    let mut buf = vec![0u8; 1 << 20];
    let mut pos = at;
    file.seek(SeekFrom::Start(at)).ok()?;
    while pos < size {
        let want = (size - pos).min(buf.len() as u64) as usize;
        let n = file.read(&mut buf[..want]).ok()?;
        if n == 0 {
            return None;
        }
        if let Some(i) = memchr::memchr(b'\n', &buf[..n]) {
            return Some(pos + i as u64 + 1);
        }
        pos += n as u64;
    }
    None
}
