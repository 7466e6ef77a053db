//! Refuse content that looks like a credential: memory files are committed to git and injected
//! into every session, so a secret written there leaks twice.

use std::sync::OnceLock;

use regex::Regex;

/// A credential found in some input text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// What it looks like ("a private key block", "an AWS access key id", …).
    pub kind: &'static str,
    /// 1-based line and column (in characters) inside the text.
    pub line: usize,
    pub column: usize,
    /// The match with its middle masked, safe to print.
    pub masked: String,
}

fn patterns() -> &'static [(&'static str, Regex)] {
    static P: OnceLock<Vec<(&'static str, Regex)>> = OnceLock::new();
    P.get_or_init(|| {
        let raw: [(&str, &str); 11] = [
            (
                "a private key block",
                r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
            ),
            (
                "an AWS access key id",
                r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b",
            ),
            (
                "an AWS secret access key",
                r"(?i)aws_?secret_?(?:access_?)?key\W{0,4}[A-Za-z0-9/+=]{40}\b",
            ),
            (
                "a GitHub token",
                r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b",
            ),
            ("a GitLab token", r"\bglpat-[0-9A-Za-z_-]{20,}\b"),
            (
                "an API secret key (sk-…)",
                r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
            ),
            ("a Slack token", r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b"),
            ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}\b"),
            ("a Stripe live key", r"\b(?:sk|rk)_live_[0-9a-zA-Z]{20,}\b"),
            (
                "a Google service-account key",
                r#""private_key_id"\s*:\s*"[0-9a-f]{40}""#,
            ),
            (
                "a JSON web token",
                r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
            ),
        ];
        raw.iter()
            .map(|(k, r)| {
                (
                    *k,
                    Regex::new(r).expect("secret patterns are valid regexes"),
                )
            })
            .collect()
    })
}

fn mask(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    if chars.len() <= 8 {
        return "…".to_string();
    }
    let head: String = chars[..4].iter().collect();
    let tail: String = chars[chars.len() - 2..].iter().collect();
    format!("{head}…{tail}")
}

/// The first credential-looking match in `text`, if any.
pub fn find(text: &str) -> Option<Finding> {
    patterns()
        .iter()
        .filter_map(|(kind, re)| re.find(text).map(|m| (kind, m)))
        .min_by_key(|(_, m)| m.start())
        .map(|(kind, m)| {
            let before = &text[..m.start()];
            let line = before.matches('\n').count() + 1;
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let column = text[line_start..m.start()].chars().count() + 1;
            Finding {
                kind,
                line,
                column,
                masked: mask(m.as_str()),
            }
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_private_key_and_cloud_key_with_location() {
        let f = find("ok\nthen -----BEGIN OPENSSH PRIVATE KEY-----\nabc").unwrap();
        assert_eq!((f.kind, f.line, f.column), ("a private key block", 2, 6));
        let f = find("key AKIAIOSFODNN7EXAMPLE here").unwrap();
        assert_eq!(f.kind, "an AWS access key id");
        assert!(!f.masked.contains("IOSFODNN7"));
    }

    #[test]
    fn ordinary_text_passes() {
        assert_eq!(
            find("ran cargo test; sk-learn is a library; AKIA is a prefix"),
            None
        );
        assert_eq!(find("沙箱禁止命名管道"), None);
    }
}
