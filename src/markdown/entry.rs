//! One entry as its file shows it: the heading, the body, and the line its state adds
//! (superseded, retired); and the pointer line SESSIONS.md ends with. Pure, like the rest of
//! this module: the store's renderer and the version prints both read entries through here.

use super::Block;
use crate::model::{self, EntryRecord, Lang, State};

/// The block of a stored entry as it appears in its file.
pub fn entry_block(rec: &EntryRecord, lang: Lang) -> Block {
    block_of(
        &rec.heading,
        &rec.body,
        rec.state,
        rec.superseded_by.as_deref(),
        lang,
    )
}

/// The block of an entry with this heading, body and state.
pub fn block_of(
    heading: &str,
    body: &str,
    state: State,
    superseded_by: Option<&str>,
    lang: Lang,
) -> Block {
    let mut body = body.to_string();
    let label = match state {
        State::Superseded => Some(model::labels(lang).superseded),
        State::Retired => Some(model::labels(lang).retired),
        _ => None,
    };
    if let Some(label) = label {
        let by = superseded_by.unwrap_or("");
        if !body.is_empty() {
            body.push('\n');
        }
        body.push_str(label);
        body.push_str(by);
        body.truncate(body.trim_end().len());
    }
    Block::new(heading.to_string(), body)
}

/// The pointer line left at the end of SESSIONS.md.
pub fn pointer_line(count: u64, lang: Lang) -> String {
    match lang {
        Lang::Zh => format!(
            "{} {count} 条（见 `SESSIONS-archive.md`，不会自动注入，需要时用 `memory_read` 读取）。",
            super::POINTER_PREFIXES[0]
        ),
        Lang::En => format!(
            "{}: {count} in `SESSIONS-archive.md` (never injected automatically; read it with `memory_read`).",
            super::POINTER_PREFIXES[1]
        ),
    }
}
