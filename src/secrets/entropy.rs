//! Whether a matched value is a real credential: not a placeholder (`<your-token>`, `xxx`,
//! `${TOKEN}`, `changeme`, `AKIA…EXAMPLE`), and, where a pattern alone is too loose, random
//! enough (Shannon entropy, a mix of letters and digits, not a run of words).

/// Words that mark a value as a stand-in for the real thing.
const PLACEHOLDER_WORDS: [&str; 14] = [
    "example",
    "placeholder",
    "your",
    "dummy",
    "redacted",
    "changeme",
    "change_me",
    "change-me",
    "sample",
    "fake",
    "xxxx",
    "****",
    "123456789",
    "abcdefgh",
];

/// Values that are only a placeholder when they are the whole value.
const PLACEHOLDER_VALUES: [&str; 9] = [
    "password", "passwd", "pwd", "secret", "token", "null", "none", "test", "todo",
];

/// True when `value` is a stand-in: a template (`<…>`, `${…}`, `{{…}}`, `%…%`, `$VAR`), a
/// placeholder word, or mostly one repeated character.
pub(super) fn is_placeholder(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    if value.is_empty()
        || value.starts_with(['$', '%', '<', '{', '[', '('])
        || value.contains("${")
        || value.contains("{{")
        || value.contains('<')
        || PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w))
    {
        return true;
    }
    // `xxx`, and `AKIAXXXXXXXXXXXXXXXX`: a run of six of one character
    let bytes = value.as_bytes();
    if bytes.iter().all(|b| *b == bytes[0]) {
        return true;
    }
    let mut run = 1;
    for w in bytes.windows(2) {
        run = if w[0] == w[1] { run + 1 } else { 1 };
        if run >= 6 {
            return true;
        }
    }
    false
}

/// True when a whole assigned value is a placeholder (`password=password`).
pub(super) fn is_placeholder_value(value: &str) -> bool {
    is_placeholder(value)
        || PLACEHOLDER_VALUES
            .iter()
            .any(|w| value.eq_ignore_ascii_case(w))
}

/// Shannon entropy of `s` in bits per character.
pub(super) fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut n = 0u32;
    for b in s.bytes() {
        counts[b as usize] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    counts
        .iter()
        .filter(|c| **c > 0)
        .map(|c| {
            let p = f64::from(*c) / n;
            -p * p.log2()
        })
        .sum()
}

/// Dash-, underscore- or dot-separated words and numbers: a name
/// (`sk-button-primary-large-rounded`, `release-2024-notes`, `DOT11_WPS_PASSWORD_ID`), not a key.
fn is_words(s: &str) -> bool {
    let parts: Vec<&str> = s.split(['-', '_', '.']).filter(|p| !p.is_empty()).collect();
    // a word is in one case and may end in a number (`v2`, `h264`, `DOT11`); letters after
    // digits, or mixed case inside a part, read as generated
    let word = |p: &str| {
        let letters = p.trim_end_matches(|c: char| c.is_ascii_digit());
        letters.bytes().all(|b| b.is_ascii_lowercase())
            || letters.bytes().all(|b| b.is_ascii_uppercase())
    };
    parts.len() >= 2 && parts.iter().all(|p| word(p))
}

/// True when most of `s` is in lowercase runs of three letters or more, each starting at a
/// letter after a non-lowercase character: a CamelCase or camelCase name
/// (`FwpmProviderContextSetSecurityInfoByKey0`, `InMemoryCredentialStore`). A random 40-character
/// base64 string reads like this about once in 500; lowercase-only text never counts.
pub(super) fn is_camel_name(s: &str) -> bool {
    let b = s.as_bytes();
    let mut covered = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() && (i == 0 || !b[i - 1].is_ascii_lowercase()) {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_lowercase() {
                j += 1;
            }
            if j - i >= 3 {
                covered += j - i;
                i = j;
                continue;
            }
        }
        i += 1;
    }
    // without a capital it is lowercase text with digits, as many generated keys are
    b.iter().any(u8::is_ascii_uppercase) && covered * 10 >= b.len() * 6
}

/// True when `value` is a path in code (`config.password`, `ed25519.Ed25519PrivateKey`,
/// `os.environ`): dot-separated parts that each start with a letter or `_`.
pub(super) fn is_code_path(value: &str) -> bool {
    let parts: Vec<&str> = value.split('.').collect();
    parts.len() >= 2
        && parts
            .iter()
            .all(|p| p.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// True when an assigned value names what it stands for (`m2m-access-token-12345`,
/// `secret%3Dpassword`): a sample, not a generated secret.
pub(super) fn names_itself(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    ["password", "passwd", "secret", "token"]
        .iter()
        .any(|w| lower.contains(w))
}

/// True when `s` looks generated: letters and digits mixed (or both cases, for long
/// letter-only tokens), entropy of at least `min_bits` per character, not a run of words.
pub(super) fn looks_random(s: &str, min_bits: f64) -> bool {
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    let lower = s.bytes().any(|b| b.is_ascii_lowercase());
    let upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let mixed = (digit && (lower || upper)) || (lower && upper && s.len() >= 20);
    mixed && !is_words(s) && entropy(s) >= min_bits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_recognised() {
        for p in [
            "<your-token>",
            "${TOKEN}",
            "$TOKEN",
            "{{ secrets.KEY }}",
            "xxx",
            "AKIAXXXXXXXXXXXXXXXX",
            "AKIAIOSFODNN7EXAMPLE",
            "changeme",
            "****************",
            "%API_KEY%",
        ] {
            assert!(is_placeholder_value(p), "{p}");
        }
        for real in ["Zq8vN2kLr5TtY7wP", "a8f5f167f44f4964e6c998dee827110c"] {
            assert!(!is_placeholder_value(real), "{real}");
        }
    }

    #[test]
    fn randomness_tells_keys_from_names() {
        assert!(looks_random("a8f5f167f44f4964e6c998dee827110c", 3.0));
        assert!(looks_random("Zq8vN2kLr5TtY7wPbX3m", 3.5));
        assert!(!looks_random("button-primary-large-rounded", 3.0));
        assert!(
            !looks_random("release-2024-notes-v2", 3.0),
            "words and numbers"
        );
        assert!(!looks_random("aaaaaaaa11111111", 3.0), "low entropy");
        assert!(!looks_random("onlylowercaseletters", 3.0));
        assert!(entropy("abab") < entropy("abcd"));
        for name in [
            "WHvPartitionPropertyCodeX64MsrExitBitmap",
            "FwpmProviderContextSetSecurityInfoByKey0",
            "totalInboundRatelimitDiscardedICMPv6Pkts",
            "InMemoryCredentialStore",
        ] {
            assert!(is_camel_name(name), "{name}");
        }
        assert!(!is_camel_name("Zq8vN2kLr5TtY7wPbX3mAb9dE6gH1jK4mN7pQ0sT"));
        assert!(
            !is_camel_name("45ghiukldjahdnhzdauz"),
            "lowercase keys are not names"
        );
        assert!(is_code_path("ed25519.Ed25519PrivateKey") && is_code_path("config.password"));
        assert!(!is_code_path("9fQ2.mZx81") && !is_code_path("plain"));
    }
}
