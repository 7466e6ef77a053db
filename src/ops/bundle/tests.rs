//! The bundle check and import, tested on bundles built in memory.
use super::*;
use serde_json::json;

#[test]
fn a_bundle_is_checked_whole() {
    assert!(check(&json!([])).is_err());
    let e = check(&json!({"kind": "other", "files": {}})).unwrap_err();
    assert!(e.to_string().contains("kind=\"other\""), "{e}");
    let e = check(&json!({"kind": BUNDLE_KIND, "version": 1, "files": {"x.md": "a"}})).unwrap_err();
    assert!(e.to_string().contains("only x.md"), "{e}");
    let e = check(&json!({"kind": BUNDLE_KIND, "version": 1, "files": {"SESSIONS.md": "# S\n\n## 2026-01-01\n<<<<<<< ours\nx\n"}}))
        .unwrap_err();
    assert!(e.to_string().contains("SESSIONS.md: line"), "{e}");
    let e = check(&json!({"kind": BUNDLE_KIND, "version": 1, "files": {"DECISIONS.md": "# D\n\n```\n## 2026-01-01 — a\n"}}))
        .unwrap_err();
    assert!(e.to_string().contains("DECISIONS.md: line 3"), "{e}");
    let two = json!({"kind": BUNDLE_KIND, "version": 1, "files": {"PROJECT.md": "# P\n", "notes.txt": "x"}});
    let ok = check(&two).unwrap();
    assert_eq!(ok.files.len(), 1);
    assert_eq!(ok.ignored, vec!["notes.txt".to_string()]);
}

#[test]
fn a_large_archive_is_checked_a_chunk_at_a_time_as_a_whole_parse_would() {
    // past two chunks of the chunked read
    let mut text = String::from("# SESSIONS ARCHIVE\n");
    for k in 0..200_000 {
        text.push_str(&format!("\n## 2025-01-01 · cli\n完成：entry {k}; tested\n"));
    }
    let bundle =
        |t: &str| json!({"kind": BUNDLE_KIND, "version": 1, "files": {"SESSIONS-archive.md": t}});
    assert!(text.len() > 2 * (4 << 20));
    assert!(
        crate::workspace::check_in_chunks(&text).is_some(),
        "read in chunks"
    );
    assert!(check(&bundle(&text)).is_ok());
    // a fence closed two chunks later is no error; one never closed, hiding headings, is,
    // on the line the whole parse names
    let closed = (text.replacen("entry 7;", "entry\n```\n", 1)).replacen(
        "完成：entry 199000;",
        "```\n完成：entry 199000;",
        1,
    );
    assert!(markdown::parse(&closed, true).unwrap().unclosed.is_none());
    let b = bundle(&closed);
    assert_eq!(check(&b).map(|_| ()).map_err(|e| e.to_string()), Ok(()));
    let open = text.replacen("entry 198000;", "entry\n```\n", 1);
    let whole = markdown::parse(&open, true).unwrap().unclosed.unwrap();
    assert!(whole.hidden > 0);
    let e = check(&bundle(&open)).unwrap_err().to_string();
    assert!(
        e.contains(&format!("SESSIONS-archive.md: line {}:", whole.line)),
        "{e}"
    );
}

#[test]
fn a_bundle_of_a_version_it_does_not_know_is_refused_naming_it() {
    let files = json!({"PROJECT.md": "# P\n"});
    for (version, named) in [
        (json!(99), "bundle version 99 "),
        (json!("banana"), "bundle version \"banana\" "),
        (json!(1.5), "bundle version 1.5 "),
        (json!("1"), "bundle version \"1\" "),
    ] {
        let e =
            check(&json!({"kind": BUNDLE_KIND, "version": version, "files": files})).unwrap_err();
        assert!(e.to_string().contains(named), "{e}");
        assert!(e.to_string().contains("reads \"version\": 1"), "{e}");
    }
    let e = check(&json!({"kind": BUNDLE_KIND, "files": files})).unwrap_err();
    assert!(e.to_string().contains("no \"version\""), "{e}");
    assert!(check(&json!({"kind": BUNDLE_KIND, "version": 1, "files": files})).is_ok());
}
