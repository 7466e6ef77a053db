//! Projection: a file's bytes rendered from the store, deterministic byte for byte, and the
//! archive splice that avoids re-rendering 100k entries when only new ones arrive.

use std::collections::HashSet;

use crate::error::Result;
use crate::markdown::{self, Block, Doc};
use crate::model::{self, EntryRecord, FileKind, Lang, State};
use crate::store::Reader;

use super::super::scaffold;
use super::Tx;

impl Tx<'_> {
    /// The archive with this transaction's new entries spliced on top of the file, when that
    /// is what rendering it whole would give: nothing else about the archive changed, the file
    /// is exactly the store's last rendering of it, and the new entries are its newest. At
    /// 100k entries this turns a full re-render into a copy. `None`: render it whole.
    pub(super) fn spliced_archive(
        &self,
        f: FileKind,
        now: Option<&(Vec<u8>, crate::model::FileStamp)>,
    ) -> Result<Option<String>> {
        if f != FileKind::Archive || self.archive_other || self.archive_added.is_empty() {
            return Ok(None);
        }
        let Some((bytes, disk)) = now else {
            return Ok(None);
        };
        if self.store.stamp(f)?.is_none_or(|s| s.sha1 != disk.sha1) {
            return Ok(None);
        }
        let Ok(old) = std::str::from_utf8(bytes) else {
            return Ok(None);
        };
        let k = self.archive_added.len();
        let top = self.store.file_entries(f, 0, k)?;
        let added: HashSet<&str> = self.archive_added.iter().map(String::as_str).collect();
        if top.len() != k || top.iter().any(|e| !added.contains(e.id.as_str())) {
            return Ok(None);
        }
        let preamble = match self.store.preamble(f)? {
            Some(p) => p,
            None => scaffold::template_preamble(f, self.lang()),
        };
        let head = markdown::render(
            &Doc {
                preamble: preamble.clone(),
                blocks: top.iter().map(|e| entry_block(e, self.lang())).collect(),
            },
            None,
        );
        let prefix = markdown::render(
            &Doc {
                preamble,
                blocks: Vec::new(),
            },
            None,
        );
        // the file is `prefix` alone (no entries yet), or the old entries after `prefix` (less
        // its newline) and a blank line; an empty preamble renders as "\n" and no prefix
        let rest = if old == prefix {
            None
        } else if prefix == "\n" {
            Some(old)
        } else {
            let p = prefix.strip_suffix('\n').unwrap_or(&prefix);
            match old.strip_prefix(p).and_then(|r| r.strip_prefix("\n\n")) {
                Some(r) => Some(r),
                None => return Ok(None),
            }
        };
        let text = match rest {
            None => head,
            Some(rest) => format!("{}\n\n{rest}", head.strip_suffix('\n').unwrap_or(&head)),
        };
        debug_assert_eq!(
            text,
            render_file(&self.store, f, self.lang())?,
            "the spliced archive equals the full rendering"
        );
        Ok(Some(text))
    }
}

/// The block of a stored entry as it appears in its file.
pub fn entry_block(rec: &EntryRecord, lang: Lang) -> Block {
    let mut body = rec.body.clone();
    if rec.state == State::Superseded {
        let by = rec.superseded_by.as_deref().unwrap_or("");
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(model::labels(lang).superseded);
        body.push_str(by);
        body.truncate(body.trim_end().len());
    }
    Block::new(rec.heading.clone(), body)
}

/// The pointer line left at the end of SESSIONS.md.
pub fn pointer_line(count: u64, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!(
            "{} {count} 条（见 `SESSIONS-archive.md`，不会自动注入，需要时用 `memory_read` 读取）。",
            markdown::POINTER_PREFIXES[0]
        ),
        Lang::En => format!(
            "{}: {count} in `SESSIONS-archive.md` (never injected automatically; read it with `memory_read`).",
            markdown::POINTER_PREFIXES[1]
        ),
    }
}

/// Render one file from the store: deterministic, byte for byte.
pub fn render_file(r: &dyn Reader, f: FileKind, lang: Lang) -> Result<String> {
    let preamble = match r.preamble(f)? {
        Some(p) => p,
        None => scaffold::template_preamble(f, lang),
    };
    let mut doc = Doc {
        preamble,
        blocks: Vec::new(),
    };
    let mut trailer = None;
    match f {
        FileKind::Project => {
            doc.blocks = r
                .sections()?
                .into_iter()
                .filter(|s| !s.removed)
                .map(|s| Block::new(s.heading, s.body))
                .collect();
        }
        _ => {
            doc.blocks = r
                .file_entries(f, 0, usize::MAX)?
                .iter()
                .map(|e| entry_block(e, lang))
                .collect();
            if f == FileKind::Sessions {
                let archived = r.file_count(FileKind::Archive)?;
                if archived > 0 {
                    trailer = Some(pointer_line(archived, lang));
                }
            }
        }
    }
    Ok(markdown::render(&doc, trailer.as_deref()))
}
