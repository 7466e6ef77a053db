//! Drafts left for a person: when a host session that did work and recorded nothing ends, is
//! about to be compacted, or has had every reminder, its SESSIONS entry is drafted from the
//! host's own transcript ([`crate::recall::draft`]) and proposed for a person to accept, edit
//! or reject (`trilogy review`), or recorded, as the user's `auto_draft` says.
//!
//! In two steps: [`due`] decides whether a draft is owed and makes it, reading only; [`leave`]
//! sends it through a checkpoint (the caller hands it the workspace whose settings propose
//! sessions, or record them) and notes it in the session's record, so the same work is never
//! drafted twice and a later draft of the same session takes the place of an earlier one still
//! waiting.
//!
//! Must not: read `auto_draft` from a repository's settings (config drops it there), make a
//! proposal live (only a person accepts), or draft for a session whose own writes came after
//! its last work.

use std::path::Path;

use serde::Serialize;

use crate::error::Result;
use crate::model::DraftMade;
use crate::model::host::Host;
use crate::ops::agent::with_session;
use crate::ops::{CheckpointInput, SessionInput, checkpoint};
use crate::recall::draft::{self, Draft, Outcome};
use crate::workspace::{Workspace, agents};

/// A draft owed, not yet left anywhere.
#[derive(Debug, Clone)]
pub struct Due {
    pub draft: Draft,
    digest: String,
}

/// What leaving a draft did.
#[derive(Debug, Clone, Serialize)]
pub struct Left {
    /// The proposal's id, or the entry's when it was recorded.
    pub id: String,
    pub recorded: bool,
    /// An earlier draft of the same session, still waiting, that this one replaced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced: Option<String>,
}

/// What a session owes, as its transcript and its record tell.
#[derive(Debug, Clone)]
pub enum Owed {
    /// A draft, not made before.
    Draft(Due),
    /// Nothing: no work, or drafted already as it stands.
    Nothing,
    /// Nothing, for the session recorded after its last work: a draft of it still waiting is
    /// to be withdrawn ([`withdraw`]).
    Recorded,
}

/// What session `id` of `host` owes, from its transcript at `transcript`: a draft when it
/// edited a file or ran a command and recorded nothing after (by the transcript, and by what
/// its tool hooks told), unless that very draft was made already.
pub fn due(ws: &Workspace, host: Host, id: &str, transcript: &Path) -> Result<Owed> {
    // a host that names no transcript yet, or a path that is no file (a FIFO, a folder): no
    // draft, and nothing wrong
    if !transcript.is_file() {
        return Ok(Owed::Nothing);
    }
    let known = ws
        .read(|r| agents::load(ws, r, id))?
        .value
        .unwrap_or_default();
    // the session's own hooks saw a write after its last work: it recorded
    if known.last_write_ms > 0 && known.last_write_ms >= known.last_work_ms {
        return Ok(Owed::Recorded);
    }
    let draft = match draft::draft_file(host, transcript, &ws.root, ws.clock.today(), ws.lang())? {
        Outcome::Drafted(d) => d,
        Outcome::Recorded => return Ok(Owed::Recorded),
        Outcome::NoWork => return Ok(Owed::Nothing),
    };
    let digest =
        crate::base::hex::sha1_prefix(format!("{}\n{}", draft.done, draft.body).as_bytes(), 12);
    if known.drafts.iter().any(|d| d.digest == digest) {
        return Ok(Owed::Nothing);
    }
    Ok(Owed::Draft(Due { draft, digest }))
}

/// The session recorded its work itself: a draft of it still waiting is rejected, saying so.
/// Returns the proposal withdrawn.
pub fn withdraw(ws: &Workspace, host: Host, id: &str) -> Result<Option<String>> {
    let waiting = with_session(ws, host.as_str(), id, |_, st| {
        let last = st.drafts.last_mut().filter(|d| !d.recorded && !d.settled);
        Ok(last.map(|d| {
            d.settled = true;
            d.id.clone()
        }))
    })?;
    let Some(old) = waiting else {
        return Ok(None);
    };
    let why = "the session recorded its work itself after this draft";
    // a person may have decided on it already: then it stays as they left it
    Ok(
        crate::ops::proposals::reject(ws, "trilogy", &old, Some(why))
            .is_ok()
            .then_some(old),
    )
}

/// Leave `due` for session `id` of `host` through `via` (the workspace whose settings propose
/// or record sessions), and note it in the session's record kept in `ws`. An earlier draft of
/// the session still pending is rejected, naming this one.
pub fn leave(ws: &Workspace, via: &Workspace, host: Host, id: &str, due: Due) -> Result<Left> {
    let input = CheckpointInput {
        sessions: vec![SessionInput {
            done: due.draft.done.clone(),
            next: due.draft.next.clone(),
            ..SessionInput::default()
        }],
        ..CheckpointInput::default()
    };
    let actor = crate::model::agent_actor(id);
    let out = checkpoint(via, &actor, &input)?.value;
    let (made, recorded) = match (out.proposed.first(), out.ids.first()) {
        (Some(p), _) => (p.clone(), false),
        (None, Some(e)) => (e.clone(), true),
        // the same entry was recorded already (a retry): nothing new to note
        (None, None) => {
            return Ok(Left {
                id: String::new(),
                recorded: true,
                replaced: None,
            });
        }
    };
    let earlier = with_session(ws, host.as_str(), id, |_, st| {
        let earlier = (st.drafts.last())
            .filter(|d| !d.recorded && !d.settled && d.id != made)
            .map(|d| d.id.clone());
        st.drafts.push(DraftMade {
            id: made.clone(),
            digest: due.digest.clone(),
            recorded,
            settled: false,
        });
        let excess = st.drafts.len().saturating_sub(16);
        st.drafts.drain(..excess);
        Ok(earlier)
    })?;
    let mut replaced = None;
    if let Some(old) = earlier {
        let why = format!("a later draft of the same session replaces it: {made}");
        // a person may have decided on it already: then it stays as they left it
        if crate::ops::proposals::reject(ws, "trilogy", &old, Some(&why)).is_ok() {
            replaced = Some(old);
        }
    }
    Ok(Left {
        id: made,
        recorded,
        replaced,
    })
}
