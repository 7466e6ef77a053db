//! The memory-file parser never panics, and whatever it accepts renders to text that parses
//! back to the same document. Run with `RUSTC_BOOTSTRAP=1 cargo fuzz run parse` from
//! `tests/fuzz/` (or `cargo +nightly fuzz run parse`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use trilogy::markdown::{parse, parse_bytes, render};

fuzz_target!(|data: &[u8]| {
    for strip in [false, true] {
        if let Ok(p) = parse_bytes(data, strip) {
            let once = render(&p.doc, None);
            let again = parse(&once, strip).expect("rendered text parses");
            assert_eq!(render(&again.doc, None), once);
        }
    }
});
