//! A proposal: what an agent's `checkpoint` would have written where `review_mode` says
//! `propose` — store-only, never rendered into the files, never injected as fact, kept whatever
//! a person decides (nothing is deleted).

use serde::{Deserialize, Serialize};

/// What a proposal would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProposalKind {
    Decision,
    Session,
    Project,
    /// A line of the user's memory (USER.md), kept in the user store.
    User,
}

impl ProposalKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalKind::Decision => "decision",
            ProposalKind::Session => "session",
            ProposalKind::Project => "project",
            ProposalKind::User => "user",
        }
    }
}

/// Where a proposal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProposalState {
    /// Waiting for a person.
    Pending,
    /// Synced, as a direct write would have written it.
    Accepted,
    /// Kept, never written; `why` says why.
    Rejected,
}

impl ProposalState {
    pub fn as_str(self) -> &'static str {
        match self {
            ProposalState::Pending => "pending",
            ProposalState::Accepted => "accepted",
            ProposalState::Rejected => "rejected",
        }
    }
}

/// One proposal, as the store keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    /// A hash of its kind and item: the same proposal made again has the same id.
    pub id: String,
    pub kind: ProposalKind,
    /// The checkpoint item (a session, decision or PROJECT edit) as JSON.
    pub item: String,
    /// What it would write, for a person to read.
    pub text: String,
    /// How many times it was proposed (a retry by the same session on the same day counts once).
    pub count: u32,
    /// RFC 3339 time of the first and the latest proposal.
    pub proposed_at: String,
    pub last_at: String,
    /// The date its entry takes when accepted (the day it was first proposed), `YYYY-MM-DD`.
    pub date: String,
    /// Who proposed it, each as `actor@YYYY-MM-DD`.
    pub proposers: Vec<String>,
    /// The agent session that first proposed it, and the branch it was on.
    pub session: Option<String>,
    pub branch: Option<String>,
    pub state: ProposalState,
    /// Why it was rejected.
    pub why: Option<String>,
    /// Why the last attempt to accept it failed (it stays pending).
    pub problem: Option<String>,
    /// When a person accepted or rejected it, and who.
    pub decided_at: Option<String>,
    pub decided_by: Option<String>,
    /// Ids of the entries accepting it wrote.
    pub entries: Vec<String>,
}
