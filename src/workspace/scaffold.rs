//! Templates, scaffolding (never overwriting) and the boot block kept in `AGENTS.md`.
//!
//! The templates are built in, per language; a project may put its own in `templates_dir`,
//! file by file. Those are read through the workspace fence, like every file of the project.

use std::borrow::Cow;
use std::path::Path;

use crate::error::{Error, Result};
use crate::markdown;
use crate::model::{FileKind, Lang};

use super::{Workspace, fsio};

/// The file in `templates_dir` that replaces the built-in boot block body.
const BOOT_BLOCK_TEMPLATE: &str = "boot-block.md";

/// Start and end markers around our block in the boot block file.
pub const BOOT_START: &str = "<!-- trilogy:start -->";
pub const BOOT_END: &str = "<!-- trilogy:end -->";
/// Markers of the original plugin and its predecessor, alone on their line before the block.
const LEGACY_MARKERS: [&str; 2] = ["<!-- dsh-trilogy -->", "<!-- dsh-project-memory -->"];

/// The template of a memory file.
pub fn template(file: FileKind, lang: Lang) -> &'static str {
    match (lang, file) {
        (Lang::Zh, FileKind::Project) => include_str!("../../templates/zh/PROJECT.md"),
        (Lang::Zh, FileKind::Decisions) => include_str!("../../templates/zh/DECISIONS.md"),
        (Lang::Zh, FileKind::Sessions) => include_str!("../../templates/zh/SESSIONS.md"),
        (Lang::Zh, FileKind::Archive) => include_str!("../../templates/zh/SESSIONS-archive.md"),
        (Lang::En, FileKind::Project) => include_str!("../../templates/en/PROJECT.md"),
        (Lang::En, FileKind::Decisions) => include_str!("../../templates/en/DECISIONS.md"),
        (Lang::En, FileKind::Sessions) => include_str!("../../templates/en/SESSIONS.md"),
        (Lang::En, FileKind::Archive) => include_str!("../../templates/en/SESSIONS-archive.md"),
    }
}

/// The preamble a file gets when the store has none yet.
pub fn template_preamble(file: FileKind, lang: Lang) -> String {
    markdown::parse(template(file, lang), false)
        .map(|p| p.doc.preamble)
        .unwrap_or_default()
}

/// The boot block body for `memory_dir` in `lang`, between our markers.
pub fn boot_block(lang: Lang, memory_dir: &str) -> String {
    let body = match lang {
        Lang::Zh => include_str!("../../templates/zh/boot-block.md"),
        Lang::En => include_str!("../../templates/en/boot-block.md"),
    };
    wrap_boot_block(body, memory_dir)
}

fn wrap_boot_block(body: &str, memory_dir: &str) -> String {
    format!(
        "{BOOT_START}\n{}\n{BOOT_END}\n",
        body.replace("{dir}", memory_dir).trim_end()
    )
}

impl Workspace {
    /// The text a new memory file `f` starts from: `templates_dir/<file>` when the project has
    /// one, else the built-in template.
    pub fn file_template(&self, f: FileKind) -> Result<Cow<'static, str>> {
        if self.is_user() {
            return Ok(Cow::Borrowed(super::user::template(self.lang())));
        }
        Ok(match self.own_template(f.file_name())? {
            Some(text) => Cow::Owned(text),
            None => Cow::Borrowed(template(f, self.lang())),
        })
    }

    /// The boot block, between our markers: its body from `templates_dir/boot-block.md` when
    /// the project has one (`{dir}` stands for the memory folder), else the built-in one.
    pub fn boot_block_text(&self) -> Result<String> {
        let dir = &self.config.memory_dir_name;
        let Some(body) = self.own_template(BOOT_BLOCK_TEMPLATE)? else {
            return Ok(boot_block(self.lang(), dir));
        };
        if let Some(marker) = [BOOT_START, BOOT_END]
            .into_iter()
            .find(|m| body.contains(m))
        {
            return Err(Error::bad_input(format!(
                "template {}: holds `{marker}`, which trilogy puts around the block itself; delete that line",
                self.template_path(BOOT_BLOCK_TEMPLATE).display()
            )));
        }
        Ok(wrap_boot_block(&body, dir))
    }

    fn template_path(&self, name: &str) -> std::path::PathBuf {
        let dir = self.config.templates_dir.as_deref().unwrap_or_default();
        self.root.join(dir).join(name)
    }

    /// `name` from `templates_dir`, or `None` when no such folder or file is configured or
    /// present. Read through the fence: a link leaving the project is refused.
    fn own_template(&self, name: &str) -> Result<Option<String>> {
        if self.config.templates_dir.is_none() {
            return Ok(None);
        }
        let shown = self.template_path(name);
        let path = self.inside(&shown)?;
        let bytes = match fsio::read_file(&path, fsio::MAX_FILE_BYTES) {
            Ok(Some(b)) => b,
            Ok(None) => return Ok(None),
            Err(e) => {
                return Err(Error::Io {
                    path: shown,
                    message: format!(
                        "cannot read this template ({e}); make it a readable file, or delete it to use the built-in one"
                    ),
                });
            }
        };
        let text = String::from_utf8(bytes).map_err(|e| {
            Error::bad_input(format!(
                "template {}: not UTF-8 text (invalid byte at offset {}); save it as UTF-8, or delete it to use the built-in one",
                shown.display(),
                e.utf8_error().valid_up_to()
            ))
        })?;
        if text.trim().is_empty() {
            return Err(Error::bad_input(format!(
                "template {}: empty; write the template into it, or delete it to use the built-in one",
                shown.display()
            )));
        }
        Ok(Some(text))
    }
}

/// What writing the boot block did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BootOutcome {
    Created,
    Appended,
    Updated,
    UpgradedLegacy,
    Unchanged,
}

impl BootOutcome {
    /// The outcome as a message says it, before the file's path (which is printed as written).
    pub fn word(self) -> &'static str {
        match self {
            BootOutcome::Created => "created",
            BootOutcome::Appended => "appended",
            BootOutcome::Updated => "updated",
            BootOutcome::UpgradedLegacy => "upgraded legacy",
            BootOutcome::Unchanged => "unchanged",
        }
    }
}

/// Write or refresh our block in `path`, keeping every other byte of the file.
/// A start marker without its end marker is an error, never a guess. A legacy block (the
/// original plugin's, see [`find_legacy`]) is replaced; the text it spanned is first copied into
/// `rescue_dir`, whose path is returned.
pub fn ensure_boot_block(
    path: &Path,
    block: &str,
    rescue_dir: &Path,
) -> Result<(BootOutcome, Option<std::path::PathBuf>)> {
    if let Some(text) = read_text(path)?
        && find_region(path, &text, BOOT_START, BOOT_END)?.is_none()
        && let Some((s, e)) = find_legacy(&text)
    {
        let rescued = rescue(rescue_dir, path, &text[s..e])?;
        let head = text[..s].trim_end();
        let tail = &text[e..];
        let sep = if head.is_empty() { "" } else { "\n\n" };
        let after = if tail.trim().is_empty() {
            String::new()
        } else {
            format!("\n{tail}")
        };
        fsio::write_atomic(path, format!("{head}{sep}{block}{after}").as_bytes())?;
        return Ok((BootOutcome::UpgradedLegacy, Some(rescued)));
    }
    Ok((ensure_region(path, BOOT_START, BOOT_END, block)?, None))
}

/// Byte range of a legacy block: its marker alone on a line, then (after blank lines) the
/// block's own `## ` heading, then its body up to the next `#`/`##` heading or the end of the
/// file. A marker anywhere else (inline in prose, in a code span) is not a block.
fn find_legacy(text: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if !LEGACY_MARKERS.contains(&line.trim_end()) {
            continue;
        }
        let mut pos = offset;
        let mut saw_heading = false;
        for l in text[offset..].split_inclusive('\n') {
            let body = l.trim_end();
            if !saw_heading {
                if body.is_empty() {
                    pos += l.len();
                    continue;
                }
                if !body.starts_with("## ") {
                    break;
                }
                saw_heading = true;
                pos += l.len();
                continue;
            }
            if body.starts_with("# ") || body.starts_with("## ") || LEGACY_MARKERS.contains(&body) {
                break;
            }
            pos += l.len();
        }
        if saw_heading {
            return Some((start, pos));
        }
    }
    None
}

/// Keep `removed` (taken out of `path`) under `rescue_dir`; returns where it went.
fn rescue(rescue_dir: &Path, path: &Path, removed: &str) -> Result<std::path::PathBuf> {
    let to = fsio::rescue_path(rescue_dir, path, Some("legacy-block"))?;
    fsio::write_atomic(&to, removed.as_bytes())?;
    Ok(to)
}

/// The file's text through the fence ([`fsio::read_text_file`]: a FIFO or a device in its
/// place is refused, never waited on); `None` when it does not exist.
fn read_text(path: &Path) -> Result<Option<String>> {
    fsio::read_text_file(path, fsio::MAX_FILE_BYTES)
}

/// Byte range of the region `start`…`end` (with the newline after `end`), if present.
fn find_region(path: &Path, text: &str, start: &str, end: &str) -> Result<Option<(usize, usize)>> {
    let Some(s) = text.find(start) else {
        if let Some(e) = text.find(end) {
            return Err(Error::Unparseable {
                path: path.to_path_buf(),
                line: text[..e].matches('\n').count() + 1,
                reason: format!(
                    "`{end}` has no `{start}` before it; restore the start marker or delete the end marker"
                ),
            });
        }
        return Ok(None);
    };
    let Some(rel) = text[s..].find(end) else {
        return Err(Error::Unparseable {
            path: path.to_path_buf(),
            line: text[..s].matches('\n').count() + 1,
            reason: format!(
                "`{start}` has no matching `{end}`; add the end marker where the trilogy block ends, or delete the start marker"
            ),
        });
    };
    let mut e = s + rel + end.len();
    if text[e..].starts_with("\r\n") {
        e += 2;
    } else if text[e..].starts_with('\n') {
        e += 1;
    }
    Ok(Some((s, e)))
}

/// The line end a file uses: CRLF when every line ends so, else LF.
fn newline_of(text: &str) -> &'static str {
    if text.contains("\r\n") && !text.replace("\r\n", "").contains('\n') {
        "\r\n"
    } else {
        "\n"
    }
}

/// Keep `block` (which starts with `start` and ends with `end` and a newline) in `path`:
/// replaced in place when present, appended otherwise, with the file's own line ends. Written
/// only when the bytes change.
pub fn ensure_region(path: &Path, start: &str, end: &str, block: &str) -> Result<BootOutcome> {
    let text = read_text(path)?;
    let (new, outcome) = with_region(path, text.as_deref(), start, end, block)?;
    if outcome == BootOutcome::Unchanged {
        return Ok(outcome);
    }
    if text.is_none()
        && let Some(dir) = path.parent()
    {
        std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    }
    fsio::write_atomic(path, new.as_bytes())?;
    Ok(outcome)
}

/// [`ensure_region`] on text, writing nothing: the text of `path` (`None`: the file does not
/// exist) with `block` in it, and what that did.
pub fn with_region(
    path: &Path,
    text: Option<&str>,
    start: &str,
    end: &str,
    block: &str,
) -> Result<(String, BootOutcome)> {
    let Some(text) = text else {
        return Ok((block.to_string(), BootOutcome::Created));
    };
    let nl = newline_of(text);
    let block = block.replace("\r\n", "\n").replace('\n', nl);
    if let Some((s, e)) = find_region(path, text, start, end)? {
        if text[s..e] == block {
            return Ok((text.to_string(), BootOutcome::Unchanged));
        }
        let new = format!("{}{}{}", &text[..s], block, &text[e..]);
        return Ok((new, BootOutcome::Updated));
    }
    let head = text.trim_end();
    let sep = if head.is_empty() {
        String::new()
    } else {
        nl.repeat(2)
    };
    Ok((format!("{head}{sep}{block}"), BootOutcome::Appended))
}

/// Where the boot block stands in a file: whether the file exists, whether it holds a boot
/// block (ours or a legacy one), and whether that block is ours (the current markers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootPresence {
    pub file_exists: bool,
    pub exists: bool,
    pub current: bool,
}

/// Look for the boot block in `path` (never writing).
pub fn boot_presence(path: &Path) -> Result<BootPresence> {
    let Some(text) = read_text(path)? else {
        return Ok(BootPresence {
            file_exists: false,
            exists: false,
            current: false,
        });
    };
    let current = find_region(path, &text, BOOT_START, BOOT_END)?.is_some();
    Ok(BootPresence {
        file_exists: true,
        exists: current || find_legacy(&text).is_some(),
        current,
    })
}

/// Take the boot block out of `path`: ours (between the current markers), else a legacy one
/// (its marker, heading and body); the rest of the file is kept, and the file is deleted when
/// nothing else is left in it. Returns whether a block was there.
pub fn remove_boot_block(path: &Path) -> Result<bool> {
    if remove_region(path, BOOT_START, BOOT_END)? {
        return Ok(true);
    }
    let Some(text) = read_text(path)? else {
        return Ok(false);
    };
    let Some((s, e)) = find_legacy(&text) else {
        return Ok(false);
    };
    let nl = newline_of(&text);
    let head = text[..s].trim_end();
    let tail = text[e..].trim();
    let rest = match (head.is_empty(), tail.is_empty()) {
        (true, true) => String::new(),
        (false, true) => head.to_string(),
        (true, false) => tail.to_string(),
        (false, false) => format!("{head}{nl}{nl}{tail}"),
    };
    if rest.is_empty() {
        std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
    } else {
        fsio::write_atomic(path, format!("{rest}{nl}").as_bytes())?;
    }
    Ok(true)
}

/// Take our region out of `path`; the file is deleted when nothing else is left in it.
pub fn remove_region(path: &Path, start: &str, end: &str) -> Result<bool> {
    let Some(text) = read_text(path)? else {
        return Ok(false);
    };
    let Some(rest) = without_region(path, &text, start, end, None)? else {
        return Ok(false);
    };
    if rest.is_empty() {
        std::fs::remove_file(path).map_err(|e| Error::io(path, e))?;
    } else {
        fsio::write_atomic(path, rest.as_bytes())?;
    }
    Ok(true)
}

/// [`remove_region`] on text, writing nothing: `None` when `text` holds no region, else the
/// text without it (empty when nothing else is left). A region that ends the file takes the
/// blank lines before it along, and the file ends as before the region was appended: with
/// `tail` (the whitespace it ended with then) when known, else one newline. Text after the
/// region stays as it is.
pub fn without_region(
    path: &Path,
    text: &str,
    start: &str,
    end: &str,
    tail: Option<&str>,
) -> Result<Option<String>> {
    let Some((s, e)) = find_region(path, text, start, end)? else {
        return Ok(None);
    };
    let after = &text[e..];
    if !after.trim().is_empty() {
        return Ok(Some(format!("{}{after}", &text[..s])));
    }
    let head = text[..s].trim_end();
    if head.is_empty() {
        return Ok(Some(String::new()));
    }
    Ok(Some(format!("{head}{}", tail.unwrap_or(newline_of(text)))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boot_block_is_idempotent_and_keeps_foreign_content() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("AGENTS.md");
        std::fs::write(&p, "# Agents\n\nBe kind.\n").unwrap();
        let block = boot_block(Lang::Zh, "memory");
        assert_eq!(
            ensure_boot_block(&p, &block, dir.path()).unwrap().0,
            BootOutcome::Appended
        );
        let once = std::fs::read_to_string(&p).unwrap();
        assert_eq!(
            ensure_boot_block(&p, &block, dir.path()).unwrap().0,
            BootOutcome::Unchanged
        );
        assert_eq!(std::fs::read_to_string(&p).unwrap(), once);
        assert!(once.starts_with("# Agents\n\nBe kind.\n\n<!-- trilogy:start -->"));
        assert_eq!(once.matches("## Memory").count(), 1);
        std::fs::write(&p, format!("{once}\nafter\n")).unwrap();
        let en = boot_block(Lang::En, "memory");
        assert_eq!(
            ensure_boot_block(&p, &en, dir.path()).unwrap().0,
            BootOutcome::Updated
        );
        let t = std::fs::read_to_string(&p).unwrap();
        assert!(t.ends_with("\nafter\n") && t.contains("record it with"));
    }

    #[test]
    fn start_marker_without_end_is_an_error_and_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("AGENTS.md");
        std::fs::write(&p, "x\n<!-- trilogy:start -->\nhalf\n").unwrap();
        let e = ensure_boot_block(&p, &boot_block(Lang::Zh, "memory"), dir.path()).unwrap_err();
        assert!(e.to_string().contains(":2:"), "{e}");
        assert_eq!(
            std::fs::read_to_string(&p).unwrap(),
            "x\n<!-- trilogy:start -->\nhalf\n"
        );
    }

    #[test]
    fn region_is_removed_and_an_emptied_file_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("CLAUDE.md");
        let block = boot_block(Lang::En, "memory");
        ensure_boot_block(&p, &block, dir.path()).unwrap();
        assert!(remove_region(&p, BOOT_START, BOOT_END).unwrap());
        assert!(!p.exists());
        std::fs::write(&p, "mine\n").unwrap();
        ensure_boot_block(&p, &block, dir.path()).unwrap();
        remove_region(&p, BOOT_START, BOOT_END).unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "mine\n");
        std::fs::write(&p, "x\n<!-- trilogy:end -->\n").unwrap();
        assert!(remove_region(&p, BOOT_START, BOOT_END).is_err());
    }

    #[test]
    fn legacy_block_is_replaced_to_end_of_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("AGENTS.md");
        std::fs::write(
            &p,
            "keep\n\n<!-- dsh-project-memory -->\n\n## Memory\nold\n",
        )
        .unwrap();
        let block = boot_block(Lang::Zh, "memory");
        let rescue = dir.path().join("rescued");
        let (outcome, rescued) = ensure_boot_block(&p, &block, &rescue).unwrap();
        assert_eq!(outcome, BootOutcome::UpgradedLegacy);
        let t = std::fs::read_to_string(&p).unwrap();
        assert!(t.starts_with("keep\n\n<!-- trilogy:start -->"));
        assert_eq!(t.matches("## Memory").count(), 1);
        assert_eq!(
            std::fs::read_to_string(rescued.unwrap()).unwrap(),
            "<!-- dsh-project-memory -->\n\n## Memory\nold\n"
        );
    }

    #[test]
    fn a_legacy_marker_mentioned_in_prose_is_not_a_block() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("AGENTS.md");
        let text = "# Agents\n\nThe old plugin wrote `<!-- dsh-trilogy -->` at the end.\n\n## Build\n\ncargo build\n\n```\n<!-- dsh-project-memory -->\nnot a block\n```\n\n## Test\n\ncargo test\n";
        std::fs::write(&p, text).unwrap();
        let block = boot_block(Lang::En, "memory");
        let (outcome, rescued) = ensure_boot_block(&p, &block, dir.path()).unwrap();
        assert_eq!(outcome, BootOutcome::Appended);
        assert!(rescued.is_none());
        let t = std::fs::read_to_string(&p).unwrap();
        assert!(t.starts_with(text.trim_end()), "{t}");
    }

    #[test]
    fn text_after_a_legacy_block_is_kept_and_the_block_rescued() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("AGENTS.md");
        std::fs::write(
            &p,
            "# Agents\n\n<!-- dsh-trilogy -->\n\n## Memory\n\n- old bullet\n\n## Deploy\n\nrun make deploy\n",
        )
        .unwrap();
        let rescue = dir.path().join("rescued");
        let (outcome, rescued) =
            ensure_boot_block(&p, &boot_block(Lang::En, "memory"), &rescue).unwrap();
        assert_eq!(outcome, BootOutcome::UpgradedLegacy);
        let t = std::fs::read_to_string(&p).unwrap();
        assert!(t.ends_with("## Deploy\n\nrun make deploy\n"), "{t}");
        assert!(
            !t.contains("old bullet") && !t.contains("dsh-trilogy"),
            "{t}"
        );
        let kept = std::fs::read_to_string(rescued.unwrap()).unwrap();
        assert!(kept.contains("old bullet"), "{kept}");
    }
}
