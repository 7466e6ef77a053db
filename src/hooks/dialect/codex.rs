//! Codex: Claude Code's hook JSON as it is (its cap on a hook's context is the host's:
//! [`crate::model::host::Host::limits`]).

use crate::error::Result;

use super::{Call, Dialect, Said, claude};
use crate::hooks::Event;

pub(super) struct Codex;

impl Dialect for Codex {
    fn event(&self, name: &str) -> Option<Event> {
        Event::parse(name)
    }

    fn events(&self) -> String {
        claude::hook_events()
    }

    fn read(
        &self,
        event: Event,
        stdin: &str,
        _env: &[(String, String)],
        overrides: &[String],
    ) -> Result<Call> {
        Ok(claude::read(event, stdin, overrides)?.1)
    }

    fn answer(&self, event: Event, said: Said) -> Result<String> {
        Ok(claude::answer(event, "UserPromptSubmit", said))
    }
}
