//! The code paths an entry's text names: a backticked span that reads as a path
//! (`` `src/parse.rs` ``, `` `src/parse.rs:42` ``, `` `Cargo.toml` ``), or a plain
//! `dir/file.ext` word. Whether the path exists in the repository is the caller's to ask.

/// The paths `text` names, each once, in the order first named, with the line naming each.
pub fn named(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let mut add = |p: String| {
            if !out.iter().any(|(q, _)| *q == p) {
                out.push((p, line.to_string()));
            }
        };
        let mut ticks = line.split('`');
        // the pieces at odd places are inside backticks
        let mut inside = false;
        for piece in ticks.by_ref() {
            if inside {
                if let Some(p) = as_path(piece, false) {
                    add(p);
                }
            } else {
                for word in piece
                    .split(|c: char| c.is_whitespace() || "()[]{}<>\"'，。；：、（）".contains(c))
                {
                    if let Some(p) = as_path(word, true) {
                        add(p);
                    }
                }
            }
            inside = !inside;
        }
    }
    out
}

/// `token` as a relative path, when it reads as one: no spaces, no scheme, no `..`, a file
/// name with an extension (or, backticked, a known extensionless name); a plain word must also
/// hold a folder (`dir/file.ext`).
fn as_path(token: &str, plain: bool) -> Option<String> {
    let t = token
        .trim()
        .trim_end_matches(['.', ',', ';', ':', '!', '?']);
    // `src/parse.rs:42` or `src/parse.rs:42:7` names the file
    let t = strip_line_number(t);
    let t = t.strip_prefix("./").unwrap_or(t);
    if t.is_empty()
        || t.len() > 200
        || t.contains("://")
        || t.starts_with('/')
        || t.starts_with('-')
        || t.contains('\\')
        || t.chars()
            .any(|c| c.is_whitespace() || c.is_control() || "*?$|&=<>{}%#@!".contains(c))
        || t.split('/')
            .any(|part| part.is_empty() || part == ".." || part == ".")
    {
        return None;
    }
    let name = t.rsplit('/').next()?;
    let has_dir = t.contains('/');
    let (stem, ext) = name.rsplit_once('.')?;
    let ext_ok = !ext.is_empty()
        && ext.len() <= 8
        && ext.chars().all(|c| c.is_ascii_alphanumeric())
        && ext.chars().any(|c| c.is_ascii_alphabetic());
    if stem.is_empty() && !name.starts_with('.') || !ext_ok {
        return None;
    }
    // a plain word needs a folder: `v1.2` or `e.g.` are no files
    if plain && !has_dir {
        return None;
    }
    Some(t.to_string())
}

fn strip_line_number(t: &str) -> &str {
    let mut s = t;
    for _ in 0..2 {
        match s.rsplit_once(':') {
            Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => s = head,
            _ => break,
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<String> {
        named(text).into_iter().map(|(p, _)| p).collect()
    }

    #[test]
    fn backticked_and_plain_paths_are_named_once_and_others_are_not() {
        assert_eq!(
            paths("选了 `src/parse.rs:42` 的手写解析；见 docs/design.md 和 `Cargo.toml`。"),
            ["src/parse.rs", "docs/design.md", "Cargo.toml"]
        );
        assert_eq!(
            paths("Chose `./src/a.rs` over src/b.rs, since src/a.rs is faster (see src/b.rs)."),
            ["src/a.rs", "src/b.rs"]
        );
        for none in [
            "version 1.2.3 e.g. ok",
            "https://example.com/a/b.html",
            "`/etc/passwd` and ../up/x.rs and `a/../b.rs`",
            "`cargo test` and `--release` and `*.rs` and `$HOME/x.sh`",
            "plain.rs alone is not a path without a folder",
            "`src/` is a folder",
        ] {
            assert_eq!(paths(none), Vec::<String>::new(), "{none}");
        }
        let with_lines = named("Done: x\nBecause: `src/x.rs` is slow");
        assert_eq!(with_lines[0].1, "Because: `src/x.rs` is slow");
    }
}
