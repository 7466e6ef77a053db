//! The code stays short enough to hold in one sitting: no `fn` in `src/` or `tests/` runs over
//! 150 lines, counted from the line of its `fn` keyword to the line of its closing brace, and
//! no `.rs` file there runs over 600 lines (a file that grows becomes a folder of modules).
//! The fuzz crate (`tests/fuzz/`) and installed packages (`node_modules`) are not ours to
//! measure. Files still over that another change is splitting are listed in `LONG_FILES`: a
//! new long file fails, and so does a listed one that is no longer long, so the list only
//! shrinks.
//!
//! A small scanner reads the sources (no Rust parser is a dependency): it skips comments and
//! string, byte-string, raw-string and character literals, tells lifetimes from characters, and
//! matches braces. It sees only what an author wrote, so it measures every `fn` item, nested
//! or in an `impl`, a trait or a test module; a function written by a macro is not seen.

use std::path::{Path, PathBuf};

/// The longest a function may be.
const LIMIT: usize = 150;

/// Test functions over [`LIMIT`] still to be cut into named steps: `file:name`.
const LONG_TEST_FNS: &[&str] = &[];

/// The longest a source file may be, in lines.
const FILE_LIMIT: usize = 600;

/// Files over [`FILE_LIMIT`] still to be split, relative to the crate.
const LONG_FILES: &[&str] = &[];

/// What a reader should aim for; longer functions are listed (not failed).
const AIM: usize = 80;

/// One function found: its name, the line of its `fn`, and its length in lines.
#[derive(Debug, PartialEq, Eq)]
struct Found {
    name: String,
    line: usize,
    lines: usize,
}

/// A token that matters for finding functions, with the line it starts on.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Word(String),
    Punct(char),
}

/// The words and punctuation of `src`, comments and literals left out.
fn tokens(src: &str) -> Vec<(Tok, usize)> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut line = 1;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i = skip_block_comment(&chars, i, &mut line);
        } else if c == '"' {
            i = skip_string(&chars, i + 1, &mut line);
        } else if c == '\'' {
            i = skip_quote(&chars, i);
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            match literal_after(&word, &chars, i) {
                Some(Prefix::Str) => i = skip_string(&chars, i + 1, &mut line),
                Some(Prefix::Raw(hashes)) => {
                    i = skip_raw(&chars, i + hashes + 1, hashes, &mut line)
                }
                Some(Prefix::Byte) => i = skip_quote(&chars, i),
                None => out.push((Tok::Word(word), line)),
            }
        } else {
            out.push((Tok::Punct(c), line));
            i += 1;
        }
    }
    out
}

/// The literal a word starts (`b"…"`, `r#"…"#`, `b'…'`), if it is a literal's prefix.
enum Prefix {
    Str,
    /// A raw string with this many `#`s.
    Raw(usize),
    Byte,
}

fn literal_after(word: &str, chars: &[char], at: usize) -> Option<Prefix> {
    let next = chars.get(at).copied();
    match word {
        "b" | "c" if next == Some('"') => Some(Prefix::Str),
        "b" if next == Some('\'') => Some(Prefix::Byte),
        "r" | "br" | "cr" => {
            let hashes = chars[at..].iter().take_while(|&&c| c == '#').count();
            (chars.get(at + hashes) == Some(&'"')).then_some(Prefix::Raw(hashes))
        }
        _ => None,
    }
}

/// Past a (nested) block comment starting at `i`.
fn skip_block_comment(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    let mut depth = 0;
    while i < chars.len() {
        match (chars[i], chars.get(i + 1)) {
            ('/', Some('*')) => {
                depth += 1;
                i += 2;
            }
            ('*', Some('/')) => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return i;
                }
            }
            (c, _) => {
                *line += usize::from(c == '\n');
                i += 1;
            }
        }
    }
    i
}

/// Past a string whose body starts at `i` (after its opening quote).
fn skip_string(chars: &[char], mut i: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        match chars[i] {
            '"' => return i + 1,
            '\\' => {
                // an escaped line break still ends a line of the file
                *line += usize::from(chars.get(i + 1) == Some(&'\n'));
                i += 2;
            }
            c => {
                *line += usize::from(c == '\n');
                i += 1;
            }
        }
    }
    i
}

/// Past a raw string whose body starts at `i`, closed by `"` and `hashes` `#`s.
fn skip_raw(chars: &[char], mut i: usize, hashes: usize, line: &mut usize) -> usize {
    while i < chars.len() {
        if chars[i] == '"'
            && chars[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == '#')
                .count()
                == hashes
        {
            return i + 1 + hashes;
        }
        *line += usize::from(chars[i] == '\n');
        i += 1;
    }
    i
}

/// Past a character literal at the quote `i`, or past the quote of a lifetime or label.
fn skip_quote(chars: &[char], i: usize) -> usize {
    match chars.get(i + 1) {
        // `'\n'`, `'\''`, `'\u{7f}'`: the closing quote comes after the escaped character
        Some('\\') => {
            let mut j = i + 3;
            while j < chars.len() && chars[j] != '\'' {
                j += 1;
            }
            j + 1
        }
        Some(_) if chars.get(i + 2) == Some(&'\'') => i + 3,
        // `'a`, `'static`, `'outer:`
        _ => i + 1,
    }
}

/// Every function with a body in `src`.
fn functions(src: &str) -> Result<Vec<Found>, String> {
    let toks = tokens(src);
    let mut found = Vec::new();
    for (k, (tok, line)) in toks.iter().enumerate() {
        let (Tok::Word(kw), Some((Tok::Word(name), _))) = (tok, toks.get(k + 1)) else {
            continue;
        };
        if kw != "fn" {
            continue;
        }
        let Some(open) = body_start(&toks, k + 2) else {
            continue;
        };
        let close = matching_brace(&toks, open)
            .ok_or_else(|| format!("line {line}: the body of `fn {name}` never closes"))?;
        found.push(Found {
            name: name.clone(),
            line: *line,
            lines: toks[close].1 - line + 1,
        });
    }
    Ok(found)
}

/// The index of the `{` opening a function's body, scanning its signature from `from`; `None`
/// for a declaration without one (`fn f();` in a trait).
fn body_start(toks: &[(Tok, usize)], from: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (k, (tok, _)) in toks.iter().enumerate().skip(from) {
        match tok {
            Tok::Punct('(' | '[') => depth += 1,
            Tok::Punct(')' | ']') => depth -= 1,
            Tok::Punct(';') if depth == 0 => return None,
            Tok::Punct('{') if depth == 0 => return Some(k),
            _ => {}
        }
    }
    None
}

/// The index of the `}` closing the `{` at `open`.
fn matching_brace(toks: &[(Tok, usize)], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, (tok, _)) in toks.iter().enumerate().skip(open) {
        match tok {
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// Every `.rs` file under `dir`, sorted, leaving out what is not the crate's own code.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if !path.ends_with("node_modules") && !path.ends_with("tests/fuzz") {
                files.extend(rust_files(&path));
            }
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files.sort();
    files
}

/// Every `.rs` file of `folder` (`src` or `tests`) with its path relative to the crate.
fn sources(folder: &str) -> Vec<(String, String)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    rust_files(&root.join(folder))
        .into_iter()
        .map(|path| {
            let rel = path.strip_prefix(&root).unwrap().display().to_string();
            (rel, std::fs::read_to_string(&path).unwrap())
        })
        .collect()
}

/// Every function of `folder`'s sources, with the file it is in (relative to the crate).
fn functions_of(folder: &str) -> Vec<(String, Found)> {
    let mut all = Vec::new();
    for (rel, src) in sources(folder) {
        let found = functions(&src).unwrap_or_else(|e| panic!("{rel}: {e}"));
        all.extend(found.into_iter().map(|f| (rel.clone(), f)));
    }
    all
}

fn listing(fns: &[&(String, Found)]) -> String {
    fns.iter()
        .map(|(file, f)| format!("  {file}:{} `{}` {} lines\n", f.line, f.name, f.lines))
        .collect()
}

/// The functions of `all` over [`LIMIT`] lines, listing those over [`AIM`] on the way.
fn over_limit(all: &[(String, Found)]) -> Vec<&(String, Found)> {
    let mut long: Vec<_> = all.iter().filter(|(_, f)| f.lines > AIM).collect();
    long.sort_by_key(|(_, f)| std::cmp::Reverse(f.lines));
    if !long.is_empty() {
        eprintln!("functions over {AIM} lines:\n{}", listing(&long));
    }
    long.into_iter().filter(|(_, f)| f.lines > LIMIT).collect()
}

#[test]
fn no_function_is_over_150_lines() {
    let all = functions_of("src");
    assert!(
        all.len() > 1000,
        "the scan found only {} functions in src/",
        all.len()
    );
    let over = over_limit(&all);
    assert!(
        over.is_empty(),
        "functions over {LIMIT} lines (split them into named steps):\n{}",
        listing(&over)
    );
}

#[test]
fn no_test_function_is_over_150_lines() {
    let all = functions_of("tests");
    assert!(
        all.len() > 1000,
        "the scan found only {} functions in tests/",
        all.len()
    );
    let over = over_limit(&all);
    let named: Vec<String> = over
        .iter()
        .map(|(file, f)| format!("{file}:{}", f.name))
        .collect();
    let new: Vec<&&(String, Found)> = over
        .iter()
        .zip(&named)
        .filter(|(_, n)| !LONG_TEST_FNS.contains(&n.as_str()))
        .map(|(f, _)| f)
        .collect();
    let gone: Vec<&&str> = LONG_TEST_FNS
        .iter()
        .filter(|f| !named.iter().any(|n| n == **f))
        .collect();
    assert!(
        new.is_empty(),
        "test functions over {LIMIT} lines (split them into named steps):\n{}",
        listing(&new.into_iter().copied().collect::<Vec<_>>())
    );
    assert!(
        gone.is_empty(),
        "no longer over {LIMIT} lines, so remove from LONG_TEST_FNS: {gone:?}"
    );
}

#[test]
fn no_file_is_over_600_lines() {
    let mut all = sources("src");
    all.extend(sources("tests"));
    assert!(all.len() > 100, "the scan found only {} files", all.len());
    let long: Vec<(String, usize)> = all
        .into_iter()
        .map(|(rel, src)| {
            let lines = src.lines().count();
            (rel, lines)
        })
        .filter(|(_, lines)| *lines > FILE_LIMIT)
        .collect();
    let new: Vec<String> = long
        .iter()
        .filter(|(rel, _)| !LONG_FILES.contains(&rel.as_str()))
        .map(|(rel, lines)| format!("  {rel}: {lines} lines"))
        .collect();
    let gone: Vec<&&str> = LONG_FILES
        .iter()
        .filter(|f| !long.iter().any(|(rel, _)| rel == **f))
        .collect();
    assert!(
        new.is_empty(),
        "files over {FILE_LIMIT} lines (make each a folder of modules by concept):\n{}",
        new.join("\n")
    );
    assert!(
        gone.is_empty(),
        "no longer over {FILE_LIMIT} lines, so remove from LONG_FILES: {gone:?}"
    );
}

fn names_and_lengths(src: &str) -> Vec<(String, usize)> {
    functions(src)
        .unwrap()
        .into_iter()
        .map(|f| (f.name, f.lines))
        .collect()
}

#[test]
fn scanner_measures_from_fn_line_to_closing_brace() {
    let src = "/// doc\n#[inline]\npub fn one() {\n    let x = 1;\n}\n\nfn two() -> u8 { 2 }\n";
    let found = functions(src).unwrap();
    assert_eq!(
        found,
        vec![
            Found {
                name: "one".into(),
                line: 3,
                lines: 3
            },
            Found {
                name: "two".into(),
                line: 7,
                lines: 1
            },
        ]
    );
}

#[test]
fn scanner_ignores_braces_in_strings_and_chars() {
    let src = "fn f() {\n    let a = \"}}\\\"}\";\n    let b = '}';\n    let c = '\\'';\n    let d = b'{';\n    let e = '\\u{7d}';\n}\nfn g() {}\n";
    assert_eq!(names_and_lengths(src), [("f".into(), 7), ("g".into(), 1)]);
}

#[test]
fn scanner_ignores_braces_in_raw_strings() {
    let src = "fn f() {\n    let a = r#\"}\"\n\"}# \"#;\n    let b = br\"}\";\n    let c = r##\"\"# }\"##;\n}\n";
    assert_eq!(names_and_lengths(src), [("f".into(), 6)]);
}

#[test]
fn scanner_ignores_braces_and_fns_in_comments() {
    let src = "fn f() {\n    // } fn g() {\n    /* } /* nested } */ fn h() {} */\n    let x = 1; /* } */\n}\n";
    assert_eq!(names_and_lengths(src), [("f".into(), 5)]);
}

#[test]
fn scanner_tells_lifetimes_and_labels_from_chars() {
    let src = "fn f<'a>(x: &'a str) -> &'a str {\n    'outer: loop {\n        break 'outer;\n    }\n    x\n}\n";
    assert_eq!(names_and_lengths(src), [("f".into(), 6)]);
}

#[test]
fn scanner_measures_nested_fns_and_skips_closures_and_declarations() {
    let src = "trait T {\n    fn decl(&self) -> [u8; 2];\n    fn with_default(&self) {}\n}\nfn outer() {\n    let c = |x: u8| {\n        x\n    };\n    fn inner() {\n        let p: fn(u8) -> u8 = |y| y;\n    }\n}\n";
    assert_eq!(
        names_and_lengths(src),
        [
            ("with_default".into(), 1),
            ("outer".into(), 8),
            ("inner".into(), 3)
        ]
    );
}

#[test]
fn scanner_reads_signatures_over_lines_and_where_clauses() {
    let src = "fn f<T>(\n    a: [u8; 4],\n    b: T,\n) -> Vec<T>\nwhere\n    T: Clone,\n{\n    vec![b]\n}\n";
    assert_eq!(names_and_lengths(src), [("f".into(), 9)]);
}

#[test]
fn scanner_reports_a_body_that_never_closes() {
    let err = functions("fn f() {\n    let s = \"}\";\n").unwrap_err();
    assert!(err.contains("`fn f` never closes"), "{err}");
}
