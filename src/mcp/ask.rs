//! `memory_review`: a proposal put to the person through the client's own prompt (MCP
//! elicitation). The agent names a proposal; the client asks the person; what the person
//! answers — accept, reject, leave it — is what is done, recorded as decided by
//! `elicit:<client>`. Without an id, the tool lists what waits.
//!
//! Must not: accept anything the person did not answer "accept" to; ask a client that declared
//! no elicitation, or one that runs where no person can answer (a CI job, Claude Code's print
//! mode or SDK): there the proposal stays pending and the answer says how a person reviews it.
//! No argument of the call can stand in for the answer.

use std::time::Duration;

use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{Peer, RoleServer};
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::error::{Error, Result};
use crate::model::{Proposal, ProposalState};
use crate::ops;
use crate::workspace::Workspace;

/// How long the person has to answer before the proposal is left pending.
const ASK_FOR: Duration = Duration::from_secs(600);
/// The most of a proposal's text shown in the prompt.
const SHOWN_CHARS: usize = 1500;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ReviewArgs {
    id: Option<String>,
}

/// What the person answered, from the form the prompt showed.
#[derive(Debug, Deserialize)]
struct Answer {
    decision: String,
    #[serde(default)]
    why: Option<String>,
}

/// Why this client must not be asked, when it must not: `env` is the server's environment,
/// `elicits` whether the client declared elicitation, `protocol` the version it speaks.
pub fn why_not_ask(env: &[(String, String)], elicits: bool, protocol: &str) -> Option<String> {
    let var = |k: &str| crate::base::env::var(env, k);
    if !elicits {
        return Some("this client declared no elicitation: it cannot ask the person".into());
    }
    // protocol 2026-07-28 forbids a server's requests to the client
    if protocol >= "2026-07-28" {
        return Some(format!(
            "this client speaks MCP {protocol}, where a server asks through an input request, which trilogy does not make yet"
        ));
    }
    if var("CI").is_some() {
        return Some("it runs in CI (`CI` is set): no person is there to answer".into());
    }
    if let Some(entry) = var("CLAUDE_CODE_ENTRYPOINT").filter(|e| e.starts_with("sdk")) {
        return Some(format!(
            "Claude Code runs headless here (CLAUDE_CODE_ENTRYPOINT={entry}): no person is there to answer"
        ));
    }
    None
}

/// The form the person fills in.
fn form() -> Result<ElicitationSchema> {
    serde_json::from_value(json!({
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "description": "accept: write it to memory; reject: keep it, marked rejected; leave: decide later",
                "enum": ["accept", "reject", "leave"]
            },
            "why": {
                "type": "string",
                "title": "Why (kept with a rejection)"
            }
        },
        "required": ["decision"]
    }))
    .map_err(|e| Error::Internal(format!("the review form: {e}")))
}

fn file_of(p: &Proposal) -> &'static str {
    match p.kind {
        crate::model::ProposalKind::Decision => "memory/DECISIONS.md",
        crate::model::ProposalKind::Session => "memory/SESSIONS.md",
        crate::model::ProposalKind::Project => "memory/PROJECT.md",
        crate::model::ProposalKind::User => "your USER.md",
    }
}

/// What the prompt says.
fn message(p: &Proposal) -> String {
    let mut text: String = p.text.chars().take(SHOWN_CHARS).collect();
    if p.text.chars().count() > SHOWN_CHARS {
        text.push_str("\n[…]");
    }
    let by = p.session.as_deref().unwrap_or("an agent");
    format!(
        "trilogy: an agent asks you to review this proposal for {} (proposal {}, from {by}, {}):\n\n{text}\n\n\
accept writes it as `trilogy review accept {}` would; reject keeps it, marked; leave keeps it pending.",
        file_of(p),
        p.id,
        p.date,
        p.id
    )
}

fn listing(ws: &Workspace) -> Result<(Value, String)> {
    let pending = ops::proposals::list(ws, false)?.proposals;
    let items: Vec<Value> = (pending.iter())
        .map(|p| {
            json!({"id": p.id, "kind": p.kind.as_str(), "date": p.date, "session": p.session,
                   "text": p.text.lines().next().unwrap_or_default(),
                   "draft": crate::recall::draft::is_draft(&p.text)})
        })
        .collect();
    let text = match items.len() {
        0 => "No proposal waits.".to_string(),
        n => format!(
            "{n} proposal(s) wait for a person: call memory_review with one's `id` to have your client ask them, or they run `trilogy review`."
        ),
    };
    Ok((json!({"pending": items}), text))
}

/// `memory_review`: list what waits, or put proposal `id` to the person through `peer`.
pub async fn review(
    ws: &Workspace,
    env: &[(String, String)],
    peer: &Peer<RoleServer>,
    a: Option<Map<String, Value>>,
) -> Result<(Value, String)> {
    let args: ReviewArgs = super::args("memory_review", a)?;
    let Some(id) = args.id else {
        return listing(ws);
    };
    let p = ops::proposals::show(ws, &id)?;
    let id = p.id.clone();
    if p.state != ProposalState::Pending {
        return Err(Error::bad_input(format!(
            "proposal {id} is {} already",
            p.state.as_str()
        )));
    }
    let info = peer.peer_info();
    let info = info.as_deref();
    let client = info.map_or("an MCP client".into(), |i| i.client_info.name.clone());
    let elicits = info.is_some_and(|i| i.capabilities.elicitation.is_some());
    let protocol = info
        .map(|i| i.protocol_version.to_string())
        .unwrap_or_default();
    if let Some(why) = why_not_ask(env, elicits, &protocol) {
        let text = format!(
            "Not asked: {why}. Proposal {id} stays pending; the person reviews it with `trilogy review` or in `trilogy panel`."
        );
        return Ok((json!({"id": id, "asked": false, "why": why}), text));
    }
    let params = ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: message(&p),
        requested_schema: form()?,
    };
    let answered = peer
        .create_elicitation_with_timeout(params, Some(ASK_FOR))
        .await;
    let result = answered.map_err(|e| {
        Error::Conflict(format!(
            "{client} did not answer the review prompt ({e}); proposal {id} stays pending"
        ))
    })?;
    let actor = format!("elicit:{client}");
    let answer = match result.action {
        ElicitationAction::Accept => result.content.map(serde_json::from_value::<Answer>),
        // declined or dismissed: nothing decided
        _ => None,
    };
    let decided = |d: &str, text: String, more: Value| {
        let mut v = json!({"id": id, "asked": true, "decision": d, "by": actor});
        if let (Value::Object(m), Value::Object(extra)) = (&mut v, more) {
            m.extend(extra);
        }
        Ok((v, text))
    };
    match answer {
        Some(Ok(Answer { decision, .. })) if decision == "accept" => {
            let done = ops::proposals::accept(ws, &actor, &id, None)?;
            let written = done.value.written.join("; ");
            decided(
                "accepted",
                format!("The person accepted proposal {id} through {client}: {written}."),
                json!({"written": done.value.written, "entries": done.value.entries}),
            )
        }
        Some(Ok(Answer { decision, why })) if decision == "reject" => {
            ops::proposals::reject(ws, &actor, &id, why.as_deref())?;
            decided(
                "rejected",
                format!("The person rejected proposal {id} through {client}; it is kept, marked."),
                json!({}),
            )
        }
        Some(Ok(_)) | None => decided(
            "left",
            format!("The person left proposal {id} pending."),
            json!({}),
        ),
        Some(Err(e)) => Err(Error::bad_input(format!(
            "{client} answered the review prompt with a form trilogy does not read ({e}); proposal {id} stays pending"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::env::tests::env;

    #[test]
    fn a_person_is_asked_only_through_a_client_that_can_ask_and_where_one_can_answer() {
        assert_eq!(why_not_ask(&env(&[]), true, "2025-11-25"), None);
        assert_eq!(
            why_not_ask(
                &env(&[("CLAUDE_CODE_ENTRYPOINT", "cli")]),
                true,
                "2025-06-18"
            ),
            None
        );
        let no = |e: &[(&str, &str)], elicits: bool, protocol: &str| {
            why_not_ask(&env(e), elicits, protocol).unwrap()
        };
        assert!(no(&[], false, "2025-11-25").contains("declared no elicitation"));
        assert!(no(&[("CI", "true")], true, "2025-11-25").contains("CI"));
        assert!(
            no(&[("CLAUDE_CODE_ENTRYPOINT", "sdk-cli")], true, "2025-11-25").contains("headless")
        );
        assert!(no(&[], true, "2026-07-28").contains("input request"));
        // an empty CI is not a CI
        assert_eq!(why_not_ask(&env(&[("CI", "")]), true, "2025-11-25"), None);
    }

    #[test]
    fn the_form_is_one_the_protocol_takes() {
        let f = serde_json::to_value(form().unwrap()).unwrap();
        assert_eq!(f["required"], json!(["decision"]));
        assert_eq!(
            f["properties"]["decision"]["enum"],
            json!(["accept", "reject", "leave"])
        );
    }
}
