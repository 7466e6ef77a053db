//! One true positive and at least one near miss per family. Tokens are generated from a fixed
//! seed so no credential-shaped literal sits in the source.

use super::*;

mod cases;

use cases::{ALNUM, B64, cases, r};

#[test]
fn every_family_finds_its_token_and_passes_its_near_miss() {
    for c in cases() {
        for text in &c.found {
            let f = find(text).unwrap_or_else(|| panic!("{}: missed {text}", c.kind));
            assert_eq!(f.kind, c.kind, "{text}");
            assert!(
                f.masked.chars().count() <= 7,
                "{}: masked {} shows too much",
                c.kind,
                f.masked
            );
        }
        for text in &c.near {
            assert_eq!(find(text), None, "{}: near miss flagged: {text}", c.kind);
        }
    }
}

#[test]
fn findings_are_located_in_the_text_as_written() {
    let f = find("ok\nthen -----BEGIN OPENSSH PRIVATE KEY-----\nabc").unwrap();
    assert_eq!((f.kind, f.line, f.column), ("a private key block", 2, 6));
    let token = r(ALNUM, 36, 80);
    let f = find(&format!("第一行\n令牌是 ghp_{token}")).unwrap();
    assert_eq!((f.line, f.column), (2, 5));
    assert_eq!(f.masked, format!("ghp_…{}", &token[34..]));
}

#[test]
fn zero_width_and_full_width_disguises_are_seen_through() {
    let token = r(ALNUM, 36, 81);
    // a zero-width space inside the prefix, and one inside the token
    let hidden = format!(
        "x\nsee g\u{200b}hp_{}\u{200c}{}",
        &token[..10],
        &token[10..]
    );
    let f = find(&hidden).expect("zero-width characters do not hide a token");
    assert_eq!((f.kind, f.line, f.column), ("a GitHub token", 2, 5));
    // full-width letters and digits, as some input methods type them
    let wide: String = format!("ghp_{token}")
        .chars()
        .map(|c| match c {
            '!'..='~' => char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap(),
            c => c,
        })
        .collect();
    let f = find(&format!("密钥：{wide}")).expect("full-width forms do not hide a token");
    assert_eq!((f.kind, f.line, f.column), ("a GitHub token", 1, 4));
    assert!(f.masked.starts_with("ghp_"), "{}", f.masked);
}

#[test]
fn every_finding_is_reported_in_order() {
    let text = format!(
        "a ghp_{}\nb\nc sk_live_{} and xoxb-1-{}",
        r(ALNUM, 36, 82),
        r(ALNUM, 24, 83),
        r(ALNUM, 20, 84)
    );
    let all = find_all(&text);
    let got: Vec<(&str, usize, usize)> = all.iter().map(|f| (f.kind, f.line, f.column)).collect();
    assert_eq!(
        got,
        [
            ("a GitHub token", 1, 3),
            ("a Stripe key", 3, 3),
            ("a Slack token", 3, 40)
        ]
    );
}

#[test]
fn ordinary_text_passes() {
    for text in [
        "ran cargo test; sk-learn is a library; AKIA is a prefix",
        "沙箱禁止命名管道",
        "完成：重构了索引（全角括号）；验证：cargo test 通过",
        "commit 3f9a1c0e5b7d2468ace13579bdf02468ace13579 and uuid 123e4567-e89b-12d3-a456-426614174000",
        "fn absorb_keeps_hand_written_entry_when_the_file_changes_twice()",
        "the token: refresh flow now retries; password reset mails go out",
        "see https://docs.example.com/api/v2/authentication#bearer-tokens",
    ] {
        assert_eq!(find(text), None, "{text}");
    }
}

#[test]
fn masked_replaces_every_credential_and_keeps_the_rest() {
    let a = format!("ghp_{}", r(ALNUM, 36, 901));
    let b = format!("ghp_{}", r(ALNUM, 36, 902));
    let text = format!("第一个 {a} 然后\n第二行 key={b}");
    let out = masked(&text);
    assert!(!out.contains(&a) && !out.contains(&b), "{out}");
    assert!(
        out.starts_with("第一个 ghp_") && out.contains(" 然后\n第二行 key="),
        "{out}"
    );
    assert_eq!(
        masked("nothing secret here 这里"),
        "nothing secret here 这里"
    );
    // a credential at the very end is masked whole
    let end = format!("token {a}");
    assert!(!masked(&end).contains(&a[8..]), "{}", masked(&end));
}

/// A private key block of `lines` body lines, generated: its BEGIN line, body, END line.
fn key_block(kind: &str, lines: usize, seed: u64) -> (String, Vec<String>) {
    let body: Vec<String> = (0..lines).map(|i| r(B64, 70, seed + i as u64)).collect();
    let text = format!(
        "-----BEGIN {kind}PRIVATE KEY-----\n{}\n-----END {kind}PRIVATE KEY-----",
        body.join("\n")
    );
    (text, body)
}

#[test]
fn every_line_of_a_private_key_block_is_masked() {
    for kind in ["", "RSA ", "OPENSSH ", "ENCRYPTED "] {
        let (key, body) = key_block(kind, 6, 910);
        let text = format!("here it is:\n{key}\nand then run ssh-add");
        let out = masked(&text);
        for line in &body {
            assert!(!out.contains(line.as_str()), "{kind}: body shown: {out}");
        }
        assert!(!out.contains("-----END"), "{kind}: END line shown: {out}");
        assert!(
            out.starts_with("here it is:\n") && out.ends_with("\nand then run ssh-add"),
            "{kind}: the text around it is kept: {out}"
        );
        // one finding for the block, on its BEGIN line
        let all = find_all(&text);
        assert_eq!(all.len(), 1, "{all:?}");
        assert_eq!((all[0].kind, all[0].line), ("a private key block", 2));
    }
}

#[test]
fn a_key_block_cut_short_or_without_its_begin_line_is_masked_too() {
    let (key, body) = key_block("OPENSSH ", 5, 920);
    // no END line: the body lines after the BEGIN line
    let cut = &key[..key.find("-----END").unwrap()];
    let out = masked(&format!("{cut}Thanks, that is all of it"));
    assert!(body.iter().all(|l| !out.contains(l.as_str())), "{out}");
    assert!(out.ends_with("\nThanks, that is all of it"), "{out}");
    // no BEGIN line (a message holding the rest of a key): the body lines above its END
    let rest = &key[key.find('\n').unwrap() + 1..];
    let text = format!("the rest of the key:\n{rest}\nthat is it");
    let out = masked(&text);
    assert!(body.iter().all(|l| !out.contains(l.as_str())), "{out}");
    assert!(!out.contains("-----END"), "{out}");
    assert!(out.starts_with("the rest of the key:\n"), "{out}");
    assert!(out.ends_with("\nthat is it"), "{out}");
    let f = find(&text).expect("the rest of a key is a finding");
    assert_eq!((f.kind, f.line, f.column), ("a private key block", 2, 1));
}
