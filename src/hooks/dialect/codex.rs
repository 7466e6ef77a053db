//! Codex: Claude Code's hook JSON as it is (its cap on a hook's context is the host's:
//! [`crate::model::host::Host::limits`]).

use super::claude::Kin;

pub(super) static CODEX: Kin = Kin {
    prompt_event: "UserPromptSubmit",
    stop_reads_transcript: false,
};
