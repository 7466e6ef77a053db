//! Who writes, when, and for which agent session: what the entries, section revisions, reports
//! and event-log lines a write transaction records are stamped with. A transaction starts with
//! its command's author; a batch written on another's behalf (the group commit, an accepted
//! proposal) runs under its own through [`Tx::as_author`], which puts the first back after it.
//! It reads the clock once and never the store.

use chrono::NaiveDate;

use crate::model::{Origin, actor_session};

use super::super::Clock;
use super::Tx;

/// The author of the writes of a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Author {
    /// Who is writing: `cli`, `mcp`, `file-edit`, `hook:<session>`, `agent:<id>`.
    pub actor: String,
    /// RFC 3339 time of the write.
    pub now: String,
    /// Date stamped on new entries (local clock).
    pub today: NaiveDate,
    /// Extra store-only metadata for the entries written: the agent session and git branch.
    pub origin: Origin,
}

impl Author {
    /// `actor` writing now, by `clock`, on git branch `branch`.
    pub fn new(actor: &str, clock: &Clock, branch: Option<String>) -> Author {
        Author::at(actor, clock.now(), clock.today(), branch)
    }

    /// `actor` writing at `now` (dated `today`) on git branch `branch`: the agent session is
    /// the one the actor names (`agent:<id>`), if any.
    pub fn at(actor: &str, now: String, today: NaiveDate, branch: Option<String>) -> Author {
        Author {
            actor: actor.to_string(),
            now,
            today,
            origin: Origin {
                agent_session: actor_session(actor),
                branch,
            },
        }
    }

    /// The same author under another actor name (the session, time and branch kept).
    pub fn as_actor(&self, actor: &str) -> Author {
        Author {
            actor: actor.to_string(),
            ..self.clone()
        }
    }
}

impl Tx<'_> {
    /// Who writes what this transaction records now.
    pub fn author(&self) -> &Author {
        &self.author
    }

    /// Run `f` with `author` stamped on everything it records; the transaction's author before
    /// it is back afterwards, whatever `f` returns.
    pub fn as_author<R>(&mut self, author: Author, f: impl FnOnce(&mut Self) -> R) -> R {
        let before = std::mem::replace(&mut self.author, author);
        let out = f(self);
        self.author = before;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agent_actor_names_its_session_and_others_name_none() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        let a = Author::at("agent:s-1", "t".into(), day, Some("main".into()));
        assert_eq!(a.origin.agent_session.as_deref(), Some("s-1"));
        assert_eq!(a.origin.branch.as_deref(), Some("main"));
        let cli = Author::at("cli", "t".into(), day, None);
        assert_eq!(cli.origin.agent_session, None);
    }

    #[test]
    fn as_actor_keeps_time_session_and_branch() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 29).unwrap();
        let a = Author::at("agent:s-1", "t".into(), day, Some("main".into()));
        let b = a.as_actor("file-edit");
        assert_eq!(b.actor, "file-edit");
        assert_eq!((b.now, b.today, b.origin), (a.now, a.today, a.origin));
    }
}
