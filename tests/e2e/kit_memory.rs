//! What a kit's memory says after a host's session: who recorded what, and the drafts the
//! hooks left for a person.

use serde_json::Value;

use crate::harness::Kit;

impl Kit {
    /// What the session recorded through its MCP server names it and its host: `sessions show`
    /// lists the entry, and the entry's provenance names both.
    pub fn assert_recorded_by(&self, session: &str, host: &str) {
        let shown = self.session(session);
        let recorded = shown["recorded"].as_array().unwrap();
        assert_eq!(recorded.len(), 1, "{shown:#}");
        let id = recorded[0]["id"].as_str().unwrap();
        let read: Value = serde_json::from_str(
            &self.trilogy(&["read", "SESSIONS.md", "-n", "100", "--json"], None),
        )
        .unwrap();
        let entry = (read["entries"].as_array().unwrap().iter())
            .find(|e| e["id"] == id)
            .unwrap_or_else(|| panic!("no entry {id}: {read:#}"));
        let p = &entry["provenance"];
        assert_eq!(p["agent_session"], session, "{p}");
        assert_eq!(p["via"], "mcp", "{p}");
        assert_eq!(shown["host"], host, "{shown:#}");
    }

    /// The drafts the hooks left for a person (every state), each a proposal.
    pub fn drafts(&self) -> Vec<Value> {
        let v: Value =
            serde_json::from_str(&self.trilogy(&["review", "list", "--all", "--json"], None))
                .unwrap();
        (v["proposals"].as_array().unwrap().iter())
            .filter(|p| p["text"].as_str().unwrap_or_default().contains("（草稿"))
            .cloned()
            .collect()
    }

    /// The one draft waiting for a person, which must be session `session`'s and name `command`
    /// with how it ended.
    pub fn assert_one_draft_waits(&self, session: &str, command: &str) -> Value {
        let all = self.drafts();
        let waiting: Vec<&Value> = all.iter().filter(|p| p["state"] == "pending").collect();
        assert_eq!(waiting.len(), 1, "one draft waits: {all:#?}");
        let d = waiting[0].clone();
        assert_eq!(d["session"], session, "{d}");
        let text = d["text"].as_str().unwrap();
        assert!(
            text.contains(&format!("`{command}`（退出码 0）"))
                || text.contains(&format!("`{command}`（完成）")),
            "{text}"
        );
        assert!(text.contains("（未验证）"), "{text}");
        d
    }
}
