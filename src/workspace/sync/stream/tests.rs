//! The chunked first import with its reader on a thread of its own: every entry written, in
//! the file's order, and an error on either side leaves nothing.

use super::*;
use crate::workspace::discover::scratch;

/// An archive of `n` entries, newest first, long enough to be cut into several chunks.
fn archive(n: usize) -> String {
    let mut s = String::from("# Archive\n");
    let filler = "同步 é 的记录，".repeat(12);
    for k in (0..n).rev() {
        // dated newest first, as the store renders it
        let day = 1 + k * 28 / n;
        s.push_str(&format!(
            "\n## 2025-01-{day:02} 条目 {k}\n完成：{filler}{k}\n"
        ));
    }
    s
}

#[test]
fn every_entry_of_every_chunk_is_written_in_the_file_order() {
    let n = 30_000;
    let text = archive(n);
    assert!(
        text.len() > 2 * pieces::CHUNK,
        "{} bytes: a few chunks",
        text.len()
    );
    let (_dir, ws) = scratch();
    let took = ws.write("cli", |tx| {
        let mut shapes = Vec::new();
        tx.stream_archive(Source::Text(&text), &mut Fresh::default(), &mut shapes)
    });
    assert!(took.unwrap().value);
    let headings = ws.read(|r| {
        let mut out = Vec::new();
        r.scan_file(FileKind::Archive, 0, &mut |e| {
            out.push(e.heading.clone());
            Ok(true)
        })?;
        Ok(out)
    });
    let headings = headings.unwrap().value;
    let expected: Vec<String> = (text.lines())
        .filter_map(|l| l.strip_prefix("## "))
        .map(String::from)
        .collect();
    assert_eq!(headings.len(), n);
    let differs = (headings.iter().zip(&expected)).position(|(a, b)| a != b);
    assert_eq!(differs, None, "the store's order differs from the file's");
}

#[test]
fn a_file_changed_since_its_pre_pass_imports_nothing() {
    let text = archive(30_000);
    let (dir, ws) = scratch();
    let path = dir.path().join("read.md");
    std::fs::write(&path, &text).unwrap();
    let file = scan(&path, None).unwrap().unwrap();
    // the same length, one entry's number changed after the pre-pass
    std::fs::write(&path, text.replacen("条目 7\n", "条目 8\n", 1)).unwrap();
    let err = ws.write("cli", |tx| {
        let mut shapes = Vec::new();
        tx.stream_archive(Source::File(&file), &mut Fresh::default(), &mut shapes)
    });
    let err = err.map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("changed while it was being read"), "{err}");
    let kept = ws.read(|r| r.file_count(FileKind::Archive)).unwrap().value;
    assert_eq!(kept, 0, "nothing of the import was kept");
}
