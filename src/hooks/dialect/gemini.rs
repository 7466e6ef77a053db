//! Gemini CLI: Claude Code's hook JSON, with its own event names in the answer (the prompt's
//! context comes with `BeforeAgent`). Installed under its names (`BeforeAgent`, `AfterTool`,
//! `AfterAgent`), its hooks run the command-line names. It has no event after a compression
//! (its PreCompress fires before every compression check, compressed or not), so the block
//! does not come back after one; and a session resumed does not hold the context its first
//! SessionStart gave (measured with 0.61.0), so a resume gets the whole block again
//! ([`crate::model::host::Host::limits`]).

use super::claude::Kin;

pub(super) static GEMINI: Kin = Kin {
    prompt_event: "BeforeAgent",
    stop_reads_transcript: false,
};

#[cfg(test)]
mod tests {
    use super::GEMINI;
    use crate::hooks::Event;
    use crate::hooks::dialect::{Dialect, Said};

    #[test]
    fn the_prompts_context_comes_with_before_agent() {
        let a = |e, s| GEMINI.answer(e, s).unwrap();
        let start = a(Event::SessionStart, Said::Context("b".into()));
        assert!(
            start.contains(r#""hookEventName":"SessionStart""#),
            "{start}"
        );
        let prompt = a(Event::UserPromptSubmit, Said::Context("n".into()));
        assert!(
            prompt.contains(r#""hookEventName":"BeforeAgent""#),
            "{prompt}"
        );
        assert_eq!(a(Event::UserPromptSubmit, Said::Nothing), "");
        let codex =
            super::super::codex::CODEX.answer(Event::UserPromptSubmit, Said::Context("n".into()));
        assert!(
            codex
                .unwrap()
                .contains(r#""hookEventName":"UserPromptSubmit""#)
        );
    }
}
