//! How much of a file one `memory_read` answer may give an agent: each known host's limit on one
//! MCP tool result, picked by the name the client gave in `initialize` (`clientInfo.name`),
//! turned into bytes. This decides sizes only; the paging itself is `ops`'s.
//!
//! The hosts' limits, per tool result:
//!
//! - **Claude Code** (`claude-code`): 25,000 tokens by default (its `MAX_MCP_OUTPUT_TOKENS`);
//!   larger results are refused or put in a file, and above 10,000 tokens it warns. Sources:
//!   the Claude Code MCP documentation (code.claude.com/docs/en/mcp), daintreehq/daintree#11526,
//!   the error text `MCP tool … response (N tokens) exceeds maximum allowed tokens (25000)` quoted
//!   in GuDaStudio/codexmcp#4 and developers.figma.com/docs/figma-mcp-server/mcp-clients-issues.
//!   When a result carries `structuredContent`, Claude Code hands the model that JSON, not the
//!   text (anthropics/claude-code#55677, #79944): pages are measured as JSON writes them.
//! - **Codex** (`codex-mcp-client`, `codex-…`): every tool result, MCP ones included, is cut to
//!   10 KiB or 256 lines since 0.56 (openai/codex#6544, #5913); newer models count 10,000 tokens
//!   at 4 bytes a token, some keep a 10,000-byte policy (openai/codex#7906): 10,000 bytes fits
//!   every one of them.
//! - **Gemini CLI** (`gemini-cli-mcp-client…`): cuts tool output only past 4,000,000 characters
//!   (`truncateToolOutputThreshold`, google-gemini/gemini-cli#17037, #12172): no limit that
//!   binds; it gets the default below, which keeps a page a modest share of a context.
//! - **Cursor** (`cursor-vscode`, `cursor…`): documents no limit on a tool result: the default.
//! - **Any other client**: the default, Claude Code's 25,000 tokens.
//!
//! Tokens to bytes: one byte per token. A byte-level tokenizer never makes more tokens than a
//! text has bytes, so a page of N bytes (as JSON writes it) is at most N tokens in any language:
//! English runs about 4 bytes a token and Chinese about 3 (a character is 3 bytes and about a
//! token), so a page uses a quarter to a third of the host's limit, under Claude Code's warning
//! too. The answer's other fields (path, note, cursor) get [`FIELDS_BYTES`] and the path's
//! length. The setting `mcp_read_bytes` (`TRILOGY_MCP_READ_BYTES`) replaces the host's limit.

/// The default for a client of unknown limit: Claude Code's 25,000 tokens.
pub(super) const DEFAULT_TOKENS: u64 = 25_000;

/// Bytes of an answer's text per token of a host's limit (see the module's header).
const BYTES_PER_TOKEN: u64 = 1;

/// Room in an answer for what is not the page: the JSON keys, the note with its cursor.
const FIELDS_BYTES: usize = 768;

/// The host the client `name` is, and its limit on one tool result in tokens.
pub(super) fn host_limit(name: Option<&str>) -> (&'static str, u64) {
    let name = name.unwrap_or_default().trim().to_ascii_lowercase();
    if name.starts_with("claude-code") {
        ("Claude Code", 25_000)
    } else if name.starts_with("codex") {
        ("Codex", 10_000)
    } else if name.starts_with("gemini-cli") {
        ("Gemini CLI", DEFAULT_TOKENS)
    } else if name.starts_with("cursor") {
        ("Cursor", DEFAULT_TOKENS)
    } else {
        ("an unknown client", DEFAULT_TOKENS)
    }
}

/// The bytes one answer may hold for the client `name`: `configured` (`mcp_read_bytes`) when
/// set, else the host's limit at [`BYTES_PER_TOKEN`].
pub(super) fn answer_bytes(name: Option<&str>, configured: Option<u64>) -> usize {
    let bytes = configured.unwrap_or_else(|| host_limit(name).1 * BYTES_PER_TOKEN);
    usize::try_from(bytes).unwrap_or(usize::MAX)
}

/// The bytes of file text a page may hold in an answer of `answer` bytes whose `path` field
/// is `path`.
pub(super) fn page_bytes(answer: usize, path: &str) -> usize {
    let fields = FIELDS_BYTES + crate::ops::json_len(path);
    answer
        .saturating_sub(fields)
        .max(crate::ops::MIN_PAGE_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_client_name_picks_the_hosts_limit() {
        for (name, host, bytes) in [
            ("claude-code", "Claude Code", 25_000),
            ("codex-mcp-client", "Codex", 10_000),
            ("Codex-VSCode", "Codex", 10_000),
            ("gemini-cli-mcp-client", "Gemini CLI", 25_000),
            ("gemini-cli-mcp-client-trilogy", "Gemini CLI", 25_000),
            ("cursor-vscode", "Cursor", 25_000),
            ("dsh", "an unknown client", 25_000),
            ("", "an unknown client", 25_000),
        ] {
            assert_eq!(host_limit(Some(name)).0, host, "{name}");
            assert_eq!(answer_bytes(Some(name), None), bytes, "{name}");
        }
        assert_eq!(answer_bytes(None, None), 25_000);
    }

    #[test]
    fn the_setting_replaces_the_hosts_limit() {
        assert_eq!(answer_bytes(Some("claude-code"), Some(4096)), 4096);
        assert_eq!(
            answer_bytes(Some("codex-mcp-client"), Some(100_000)),
            100_000
        );
    }

    #[test]
    fn a_page_leaves_room_for_the_other_fields_and_is_never_below_the_smallest() {
        assert_eq!(
            page_bytes(25_000, "/w/memory/DECISIONS.md"),
            25_000 - 768 - 22
        );
        assert_eq!(page_bytes(1500, "/p"), crate::ops::MIN_PAGE_BYTES);
        assert!(page_bytes(10_000, "/p") + 768 + 2 <= 10_000);
    }
}
