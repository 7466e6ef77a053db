//! A cheap first look that tells text which cannot hold a credential apart, before the
//! patterns are compiled (compiling them all costs a one-shot command or hook more than
//! everything else it does).
//!
//! It must never say "clean" of text a rule would flag. Every token rule matches inside one
//! run of at least 15 token characters holding the rule's literal part (`ghp_`, `AKIA`, `xox`,
//! …); the other rules need a URL with a password (`://` and `@`), an authorization header,
//! a private key's BEGIN or END line, or a secret-sounding name with a long value holding a
//! digit. Text with disguising characters (zero-width, full-width letters) always goes to the
//! patterns.

/// Literal parts of the token formats (see `rules`): a run holding none of them and too plain
/// to be an unlabelled key cannot match a token rule.
const NEEDLES: [&str; 73] = [
    "-----BEGIN",
    "AKIA",
    "ASIA",
    "ABIA",
    "ACCA",
    "A3T",
    "gh",
    "github_pat_",
    "gl",
    "GR1348941",
    "sk-",
    "xox",
    "xapp-",
    "hooks.slack.com",
    "discord",
    "webhook.office.com",
    "AIza",
    "GOCSPX-",
    "ya29.",
    "private_key_id",
    "sk_",
    "rk_",
    "whsec_",
    "npm_",
    "pypi-",
    "hf_",
    "api_org_",
    "SG.",
    "Q~",
    "do",
    "shp",
    "lin_api_",
    "PMAK-",
    "dp.",
    "dt0c01.",
    "NR",
    "hv",
    "atlasv1",
    "glsa_",
    "glc_",
    "dapi",
    "sntry",
    "ATATT3",
    "-us",
    "key-",
    "sq0",
    ":AA",
    "AGE-SECRET-KEY-1",
    "HRKU-AA",
    "pscale_",
    "pul-",
    "pnu_",
    "rubygems_",
    "CLOJARS_",
    "rdme_",
    "xkeysib-",
    "shippo_",
    "duffel_",
    "FLWSECK_TEST-",
    "EZ",
    "LTAI",
    "tfp_",
    "fio-u-",
    "ico-",
    "tk-us-",
    "fo1_",
    "v1.0-",
    "sha256~",
    "eyJ",
    "SK",
    "AC",
    "ccountKey=",
    "sig=",
];

/// Words in the names of secret assignments (`password=`, `api_key:`), lowercase.
const NAMES: [&str; 7] = [
    "pass",
    "pwd",
    "secret",
    "token",
    "key",
    "credential",
    "auth",
];

/// The shortest token a rule flags.
const MIN_TOKEN: usize = 15;

fn token_char(b: u8) -> bool {
    b.is_ascii_graphic() && !matches!(b, b'"' | b'\'' | b'`' | b',' | b';' | b'&' | b'<' | b'>')
}

/// True when a zero-width, format or full-width character could hide a token.
fn disguised(text: &str) -> bool {
    !text.is_ascii()
        && text.chars().any(|c| {
            matches!(c as u32,
                0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x180E | 0x200B..=0x200F
                | 0x202A..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
                | 0xFF0D | 0xFF10..=0xFF19 | 0xFF21..=0xFF3A | 0xFF3F | 0xFF41..=0xFF5A
                | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
                | 0x1D173..=0x1D17A | 0x1D400..=0x1D7FF | 0xE0001 | 0xE0020..=0xE007F)
        })
}

/// False when no rule can match `text`.
pub(super) fn may_hold(text: &str) -> bool {
    if disguised(text) {
        return true;
    }
    let lower = text.to_ascii_lowercase();
    if text.contains("-----BEGIN")
        || text.contains("-----END")
        || lower.contains("authoriz")
        || (text.contains("://") && text.contains('@'))
    {
        return true;
    }
    let named = NAMES.iter().any(|n| lower.contains(n));
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !token_char(bytes[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < bytes.len() && token_char(bytes[i]) {
            i += 1;
        }
        let run = &text[start..i];
        if run.len() < MIN_TOKEN {
            continue;
        }
        let has = |f: fn(&u8) -> bool| run.as_bytes().iter().any(f);
        let digit = has(u8::is_ascii_digit);
        if NEEDLES.iter().any(|n| run.contains(n))
            // an unlabelled key: long, both cases and digits
            || (run.len() >= 40 && digit && has(u8::is_ascii_uppercase) && has(u8::is_ascii_lowercase))
            // a value assigned to a secret-sounding name holds a digit
            || (named && digit)
        {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_notes_are_clean_without_the_patterns() {
        for text in [
            "完成：sync 拆成 apply、render、late 三个文件；cargo test 通过",
            "Done: split src/workspace/sync/mod.rs along its seams; tested with cargo nextest",
            "下一步：把 MemoryTokenizer::tokens 的性能测一下",
            "the token budget is 160000 bytes",
        ] {
            assert!(!may_hold(text), "{text}");
        }
    }
}
