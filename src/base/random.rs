//! Unpredictable bytes from the system's random source, for secrets such as the panel's
//! per-launch token.

/// `N` bytes from the system's random source.
pub fn bytes<const N: usize>() -> std::io::Result<[u8; N]> {
    use std::io::Read;
    let mut out = [0u8; N];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut out)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_draws_differ() {
        let (a, b) = (super::bytes::<16>().unwrap(), super::bytes::<16>().unwrap());
        assert_ne!(a, b);
    }
}
