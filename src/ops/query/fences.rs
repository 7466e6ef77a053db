//! Unclosed code fences in the memory files, for `status` and `doctor`. What a file holds is
//! judged once per version of it: the answer is kept in `.trilogy/fences.json` under the hash
//! the store stamped the file with, and a file a stat shows to be that version (see
//! [`Workspace::stamped_sha1s`]) is not read again, so `status` costs the same at a million entries as at a thousand.
//! Reads the memory files; never writes them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::error::Result;
use crate::model::FileKind;
use crate::workspace::{Broken, Workspace};

/// Largest archive that `status` and `doctor` read to look for an unclosed fence (the live
/// files are always read).
const FENCE_SCAN_LIMIT: u64 = 4 << 20;

/// What was found in one version of a file: the line an unclosed fence opens on and why.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Found {
    sha1: String,
    unclosed: Unclosed,
}

/// The kept findings, by file name.
type Kept = BTreeMap<String, Found>;

/// An unclosed fence: the line it opens on, and why it is unclosed.
type Unclosed = Option<(usize, String)>;

/// Most bytes the kept findings may take (a larger file is not ours and is ignored).
const KEPT_BYTES: u64 = 64 << 10;

/// Unclosed fences in the memory files, with the line each opens on.
pub fn unclosed_fences(ws: &Workspace) -> Result<Vec<Broken>> {
    // a store that cannot be read is doctor's to report: the files are read whole then
    let known = (ws.read(|r| ws.stamped_sha1s(r)).map(|s| s.value)).unwrap_or_default();
    let kept_path = ws.state_dir().join("fences.json");
    let kept_path = ws.inside(&kept_path).ok();
    let mut kept: Kept = kept_path
        .as_deref()
        .and_then(|p| crate::base::fence::read_small_text(p, KEPT_BYTES))
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let before = serde_json::to_string(&kept).unwrap_or_default();
    let mut out = Vec::new();
    for (i, f) in FileKind::ALL.into_iter().enumerate() {
        let sha1 = known.get(i).cloned().flatten();
        if let Some((path, Some((line, reason)))) = judge(ws, f, sha1, &mut kept)? {
            out.push(Broken {
                file: f,
                path: path.display().to_string(),
                line,
                reason,
            });
        }
    }
    let now = serde_json::to_string(&kept).unwrap_or_default();
    if let Some(p) = kept_path
        && now != before
    {
        // losing the kept findings only costs the next status a read of the files
        let _ = crate::workspace::write_atomic(&p, now.as_bytes());
    }
    Ok(out)
}

/// What `f` holds: `None` when it is not read (missing, behind a link out, a FIFO, over the
/// cap: reported elsewhere), else its unclosed fence, if any; from the kept findings when the
/// file is known to be the version whose hash is `sha1`.
fn judge(
    ws: &Workspace,
    f: FileKind,
    sha1: Option<String>,
    kept: &mut Kept,
) -> Result<Option<(std::path::PathBuf, Unclosed)>> {
    let Ok(path) = ws.memory_file(f) else {
        return Ok(None);
    };
    let Ok(meta) = std::fs::metadata(&path) else {
        return Ok(None);
    };
    if !meta.is_file() || meta.len() > crate::workspace::MAX_FILE_BYTES {
        return Ok(None);
    }
    if f == FileKind::Archive && meta.len() > FENCE_SCAN_LIMIT {
        return Ok(None);
    }
    let name = f.file_name().to_string();
    if let Some(sha1) = &sha1
        && let Some(found) = kept.get(&name).filter(|k| &k.sha1 == sha1)
    {
        return Ok(Some((path, found.unclosed.clone())));
    }
    let Ok(Some(bytes)) = crate::workspace::read_file(&path, crate::workspace::MAX_FILE_BYTES)
    else {
        return Ok(None);
    };
    let strip = matches!(f, FileKind::Sessions | FileKind::Archive);
    let unclosed = crate::markdown::parse_bytes(&bytes, strip)
        .ok()
        .and_then(|p| p.unclosed)
        .map(|u| (u.line, u.to_string()));
    match sha1 {
        Some(sha1) => {
            let unclosed = unclosed.clone();
            kept.insert(name, Found { sha1, unclosed });
        }
        None => {
            kept.remove(&name);
        }
    }
    Ok(Some((path, unclosed)))
}
