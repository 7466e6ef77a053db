//! Digests as text: lowercase hex, the one spelling trilogy writes every hash in (file
//! stamps, entry ids, file names made from a digest, tokens).

use sha1::{Digest, Sha1};

/// `bytes` as lowercase hex, two characters a byte.
pub fn lower(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0xf) as usize] as char);
    }
    out
}

/// The SHA-1 of `bytes`, in lowercase hex.
pub fn sha1(bytes: &[u8]) -> String {
    lower(&Sha1::digest(bytes))
}

/// The first `n` bytes of the SHA-1 of `bytes`, in lowercase hex (`2 * n` characters): a
/// short name made from what it names.
pub fn sha1_prefix(bytes: &[u8], n: usize) -> String {
    let digest = Sha1::digest(bytes);
    lower(&digest[..n.min(digest.len())])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_is_lowercase_two_digits_a_byte() {
        assert_eq!(lower(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(lower(&[]), "");
    }

    #[test]
    fn sha1_is_the_known_digest_and_its_prefix_a_prefix() {
        let full = sha1(b"abc");
        assert_eq!(full, "a9993e364706816aba3e25717850c26c9cd0d89d");
        assert_eq!(sha1_prefix(b"abc", 10), full[..20]);
        assert_eq!(sha1_prefix(b"abc", 99), full);
    }
}
