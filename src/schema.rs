//! The JSON Schemas in `schema/`: tool inputs and the config, shipped inside the binary so the
//! MCP surface can hand them to hosts. Tests keep them in step with the Rust types.

/// Input schema of `memory_checkpoint` / `trilogy checkpoint`.
pub const CHECKPOINT_INPUT: &str = include_str!("../schema/checkpoint.input.json");
/// Input schema of `memory_read`.
pub const READ_INPUT: &str = include_str!("../schema/read.input.json");
/// Input schema of `memory_recall`.
pub const RECALL_INPUT: &str = include_str!("../schema/recall.input.json");
/// Input schema of `memory_search`.
pub const SEARCH_INPUT: &str = include_str!("../schema/search.input.json");
/// Input schema of `memory_review`.
pub const REVIEW_INPUT: &str = include_str!("../schema/review.input.json");
/// Input schema of `memory_status`.
pub const STATUS_INPUT: &str = include_str!("../schema/status.input.json");
/// Schema of `trilogy.toml` and the user config file.
pub const CONFIG: &str = include_str!("../schema/config.json");

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::config::{Config, KEYS};
    use crate::ops::{
        CheckpointInput, DecisionInput, MAX_FIELD_BYTES, MAX_SECTION_BYTES, ProjectInput,
        SessionInput,
    };

    fn props(v: &Value) -> Vec<String> {
        let mut k: Vec<String> = v["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    }

    fn fields<T: serde::Serialize>(full: &T) -> Vec<String> {
        let mut k: Vec<String> = serde_json::to_value(full)
            .unwrap()
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        k.sort();
        k
    }

    #[test]
    fn checkpoint_schema_matches_the_input_types() {
        let s: Value = serde_json::from_str(CHECKPOINT_INPUT).unwrap();
        let some = || Some(String::from("x"));
        let full = CheckpointInput {
            sessions: vec![SessionInput {
                done: "x".into(),
                area: some(),
                open: some(),
                next: some(),
            }],
            decisions: vec![DecisionInput {
                choice: "x".into(),
                over: some(),
                because: some(),
                area: some(),
                supersedes: some(),
                topic: some(),
                review: some(),
            }],
            project: vec![ProjectInput {
                section: "x".into(),
                text: some(),
                line: some(),
                replaces: some(),
                review: some(),
            }],
            user: vec![crate::model::user::UserLine {
                section: "x".into(),
                line: "x".into(),
                replaces: some(),
            }],
            notes: some(),
        };
        assert_eq!(props(&s), fields(&full));
        assert_eq!(
            props(&s["properties"]["user"]["items"]),
            fields(&full.user[0])
        );
        let p = &s["properties"];
        assert_eq!(props(&p["sessions"]["items"]), fields(&full.sessions[0]));
        assert_eq!(props(&p["decisions"]["items"]), fields(&full.decisions[0]));
        assert_eq!(props(&p["project"]["items"]), fields(&full.project[0]));
        assert_eq!(
            p["sessions"]["items"]["properties"]["done"]["maxLength"],
            MAX_FIELD_BYTES
        );
        assert_eq!(
            p["project"]["items"]["properties"]["text"]["maxLength"],
            MAX_SECTION_BYTES
        );
        assert_eq!(
            p["decisions"]["items"]["properties"]["topic"]["maxLength"],
            crate::model::MAX_TOPIC_CHARS
        );
        for list in ["sessions", "decisions"] {
            assert_eq!(
                p[list]["items"]["properties"]["area"]["maxLength"],
                crate::model::MAX_AREA_CHARS,
                "{list}"
            );
        }
    }

    /// Gemini CLI skips validating a tool's parameters when its schema carries an `$id`.
    #[test]
    fn tool_schemas_carry_no_id() {
        for (name, text) in [
            ("checkpoint", CHECKPOINT_INPUT),
            ("read", READ_INPUT),
            ("search", SEARCH_INPUT),
            ("status", STATUS_INPUT),
            ("recall", RECALL_INPUT),
            ("review", REVIEW_INPUT),
        ] {
            let v: Value = serde_json::from_str(text).unwrap();
            assert!(v.get("$id").is_none(), "{name}");
        }
    }

    #[test]
    fn config_schema_lists_every_key_with_its_default() {
        let s: Value = serde_json::from_str(CONFIG).unwrap();
        let mut keys: Vec<String> = KEYS.iter().map(|(k, _)| k.to_string()).collect();
        keys.sort();
        assert_eq!(props(&s), keys);
        let defaults = serde_json::to_value(Config::default()).unwrap();
        for k in keys {
            assert_eq!(
                s["properties"][&k]["default"], defaults[&k],
                "default of {k}"
            );
        }
    }
}
