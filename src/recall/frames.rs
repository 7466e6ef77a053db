//! DeepSeek Harness keeps a session's log as zstd frames appended one after another
//! (`session.jsonl.zstd`): the complete frames of a chunk, decompressed, and how many bytes
//! they took. A frame still being written waits for the next read.

/// The text of the complete frames at the start of `bytes`, and the bytes they took; an error
/// when a complete frame does not decompress.
pub fn complete(bytes: &[u8]) -> Result<(String, usize), (usize, String)> {
    let mut at = 0;
    let mut out = Vec::new();
    while at < bytes.len() {
        let n = match zstd::zstd_safe::find_frame_compressed_size(&bytes[at..]) {
            Ok(n) => n,
            // cut short: the writer has not finished this frame
            Err(code) if zstd::zstd_safe::get_error_name(code).contains("Src size") => break,
            Err(code) => {
                let name = zstd::zstd_safe::get_error_name(code);
                return Err((at, format!("not a zstd frame ({name})")));
            }
        };
        if n == 0 || at + n > bytes.len() {
            break;
        }
        let frame = zstd::stream::decode_all(&bytes[at..at + n])
            .map_err(|e| (at, format!("a zstd frame does not decompress: {e}")))?;
        out.extend_from_slice(&frame);
        if !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        at += n;
    }
    Ok((String::from_utf8_lossy(&out).into_owned(), at))
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
        let (text, used) = complete(&all).unwrap();
        assert_eq!(
            (text.as_str(), used),
            ("{\"a\":1}\n{\"b\":2}\n{\"c\":3}\n", all.len())
        );
        let cut = &all[..a.len() + b.len() / 2];
        let (text, used) = complete(cut).unwrap();
        assert_eq!((text.as_str(), used), ("{\"a\":1}\n", a.len()));
        let mut damaged = all.clone();
        damaged[a.len()] ^= 0xff;
        let (at, why) = complete(&damaged).unwrap_err();
        assert!(
            at == a.len() && why.contains("not a zstd frame"),
            "{at} {why}"
        );
    }
}
