//! A host's hook payload from stdin, read with a bound on its size and on the wait: a host
//! that leaves stdin open must not hold the agent's turn.

use std::io::Read;

/// The most a host's hook payload may hold.
pub const MAX: usize = 16 << 20;

/// How long a hook waits for its host to finish writing the payload.
pub const WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The host's payload from `input`, read on a thread: everything up to the end of input, or,
/// when the input stays open past `wait`, what was read if it is one whole JSON document.
/// `None` for a payload over [`MAX`], or when nothing whole came in time.
pub fn read(
    input: impl std::io::Read + Send + 'static,
    wait: std::time::Duration,
) -> Option<Vec<u8>> {
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut input = input.take(MAX as u64 + 1);
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            match input.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(chunk[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let deadline = std::time::Instant::now() + wait;
    let mut got = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        match rx.recv_timeout(left) {
            Ok(c) => {
                got.extend_from_slice(&c);
                if got.len() > MAX {
                    return None;
                }
            }
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => return Some(got),
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                let whole = serde_json::from_slice::<serde_json::Value>(&got).is_ok();
                return whole.then_some(got);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::time::Duration;

    use super::read;

    #[test]
    fn a_payload_is_taken_whether_or_not_the_host_closes_stdin() {
        let wait = Duration::from_millis(300);
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(br#"{"session_id":"s1"}"#).unwrap();
        drop(w);
        assert_eq!(read(r, wait).unwrap(), br#"{"session_id":"s1"}"#);
        // held open after a whole document: taken once the wait is over
        let (r, mut w) = std::io::pipe().unwrap();
        w.write_all(br#"{"session_id":"s2"}"#).unwrap();
        assert_eq!(read(r, wait).unwrap(), br#"{"session_id":"s2"}"#);
        // held open and empty, or half a document: nothing
        let (r, _w_empty) = std::io::pipe().unwrap();
        assert_eq!(read(r, wait), None);
        let (r, mut w_half) = std::io::pipe().unwrap();
        w_half.write_all(br#"{"session_id":"#).unwrap();
        assert_eq!(read(r, wait), None);
        drop(w);
    }

    #[test]
    fn a_payload_over_the_cap_is_dropped() {
        let big = vec![b' '; super::MAX + 10];
        assert_eq!(
            read(std::io::Cursor::new(big), Duration::from_secs(30)),
            None
        );
    }
}
