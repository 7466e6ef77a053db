//! Memory as MCP resources, for hosts that show a server's resources without a tool call: the
//! three files (`trilogy://memory/PROJECT.md`, …), each PROJECT section
//! (`trilogy://memory/PROJECT.md/<section>`, the name percent-encoded) and the user's memory
//! (`trilogy://user/USER.md`). A resource reads exactly as `memory_read` answers the same ask:
//! a whole file larger than the client takes comes as its first page (the page note says how
//! to read on), and USER.md is read with its credentials masked.
//!
//! Subscriptions: [`Watch`] keeps what each subscribed resource read last, and says which
//! changed once the store's change sequence moved (whoever wrote: this server, another
//! process, a person's edit absorbed by a read).
//!
//! Must not: write anything, or name a resource outside memory.

use std::collections::BTreeMap;

use percent_encoding::{NON_ALPHANUMERIC, percent_decode_str, utf8_percent_encode};
use rmcp::model::Resource;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::model::FileKind;
use crate::workspace::Workspace;

const MEMORY: &str = "trilogy://memory/";
const USER: &str = "trilogy://user/USER.md";

/// The memory files served whole, in the order listed.
const FILES: [FileKind; 3] = [FileKind::Project, FileKind::Decisions, FileKind::Sessions];

/// Every resource of `ws`: the files, PROJECT's sections, and USER.md when the user memory
/// exists.
pub(super) fn list(ws: &Workspace) -> Result<Vec<Resource>> {
    let mut out = Vec::new();
    for f in FILES {
        let name = f.file_name();
        out.push(
            Resource::new(format!("{MEMORY}{name}"), name)
                .with_description(match f {
                    FileKind::Project => "what the project is now",
                    FileKind::Decisions => "the decisions and why they were made",
                    _ => "what each session did, newest first",
                })
                .with_mime_type("text/markdown"),
        );
    }
    for heading in crate::ops::read::project_sections(ws)? {
        out.push(
            Resource::new(section_uri(&heading), format!("PROJECT.md § {heading}"))
                .with_mime_type("text/markdown"),
        );
    }
    if ws.user_scope().is_some_and(|u| u.has_memory()) {
        out.push(
            Resource::new(USER, "USER.md")
                .with_description("the person's own memory, across projects (credentials masked)")
                .with_mime_type("text/markdown"),
        );
    }
    Ok(out)
}

fn section_uri(heading: &str) -> String {
    format!(
        "{MEMORY}PROJECT.md/{}",
        utf8_percent_encode(heading, NON_ALPHANUMERIC)
    )
}

/// The `memory_read` arguments a resource stands for.
fn ask_of(uri: &str) -> Result<Map<String, Value>> {
    let unknown = || {
        Error::NotFound(format!(
            "no resource `{uri}`; resources/list names them (trilogy://memory/PROJECT.md, DECISIONS.md, SESSIONS.md, a PROJECT section, trilogy://user/USER.md)"
        ))
    };
    if uri == USER {
        return Ok(as_map(json!({"file": "USER.md"})));
    }
    let rest = uri.strip_prefix(MEMORY).ok_or_else(unknown)?;
    if let Some(section) = rest.strip_prefix("PROJECT.md/") {
        let name = percent_decode_str(section)
            .decode_utf8()
            .map_err(|_| unknown())?;
        return Ok(as_map(json!({"file": "PROJECT.md", "section": name})));
    }
    match FILES.iter().find(|f| f.file_name() == rest) {
        Some(f) => Ok(as_map(json!({"file": f.file_name()}))),
        None => Err(unknown()),
    }
}

fn as_map(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => Map::new(),
    }
}

/// What resource `uri` reads now, for the client named `client`.
pub(super) fn read(ws: &Workspace, client: Option<&str>, uri: &str) -> Result<String> {
    let ask = ask_of(uri)?;
    super::tools::read(ws, client, "memory_read", Some(ask)).map(|(_, text)| text)
}

/// The resources a client subscribed to, with a digest of what each read last.
#[derive(Debug, Default)]
pub(super) struct Watch {
    seen: BTreeMap<String, String>,
    /// The store's change sequence when they were last read.
    seq: u64,
    /// A task is polling them.
    pub(super) running: bool,
}

impl Watch {
    /// Start watching `uri` (it must name a resource) from what it reads now.
    pub(super) fn add(&mut self, ws: &Workspace, client: Option<&str>, uri: &str) -> Result<()> {
        let now = digest(&read(ws, client, uri)?);
        if self.seen.is_empty() {
            self.seq = crate::ops::read::change_seq(ws)?;
        }
        self.seen.insert(uri.to_string(), now);
        Ok(())
    }

    pub(super) fn remove(&mut self, uri: &str) {
        self.seen.remove(uri);
    }

    pub(super) fn is_empty(&self) -> bool {
        self.seen.is_empty()
    }

    /// The subscribed resources whose text changed since they were last read; nothing is read
    /// while the store's change sequence stands still.
    pub(super) fn changed(&mut self, ws: &Workspace, client: Option<&str>) -> Result<Vec<String>> {
        let seq = crate::ops::read::change_seq(ws)?;
        if seq == self.seq {
            return Ok(Vec::new());
        }
        self.seq = seq;
        let mut out = Vec::new();
        for (uri, last) in self.seen.iter_mut() {
            // a section removed since reads as an error: that too is a change to tell
            let now = digest(&read(ws, client, uri).unwrap_or_else(|e| e.to_string()));
            if *last != now {
                *last = now;
                out.push(uri.clone());
            }
        }
        Ok(out)
    }
}

fn digest(text: &str) -> String {
    crate::base::hex::sha1_prefix(text.as_bytes(), 12)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_name_files_sections_and_user_memory_and_nothing_else() {
        let ask = |u: &str| ask_of(u).map(Value::Object);
        assert_eq!(
            ask("trilogy://memory/DECISIONS.md").unwrap(),
            json!({"file": "DECISIONS.md"})
        );
        let uri = section_uri("怎么跑和怎么测");
        assert!(uri.is_ascii(), "{uri}");
        assert_eq!(
            ask(&uri).unwrap(),
            json!({"file": "PROJECT.md", "section": "怎么跑和怎么测"})
        );
        assert_eq!(
            ask("trilogy://user/USER.md").unwrap(),
            json!({"file": "USER.md"})
        );
        for bad in [
            "trilogy://memory/../../etc/passwd",
            "trilogy://memory/SESSIONS-archive.md",
            "file:///etc/passwd",
            "trilogy://memory/PROJECT.md/%FF",
        ] {
            let e = ask(bad).unwrap_err().to_string();
            assert!(e.contains("resources/list"), "{bad}: {e}");
        }
    }
}
