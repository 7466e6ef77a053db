//! Every sentence the block, the notices and the nudge say, in both languages. Written for
//! trilogy; phrased as facts about the project, not as orders.

use crate::model::Lang;

use super::Ledger;

/// The fixed strings of one language.
pub struct Texts {
    pub lang: Lang,
    pub header: &'static str,
    pub hint: &'static str,
    pub project_title: &'static str,
    pub decisions_title: &'static str,
    pub sessions_title: &'static str,
    pub truncated: &'static str,
    pub omit_project_tail: &'static str,
    pub omit_decision_tail: &'static str,
    /// The user memory, left out whole to make the block fit.
    pub omit_user: &'static str,
    pub bootstrap: &'static str,
    pub nudge: &'static str,
    /// What takes an older copy of the block's place when a newer one is on the surface.
    pub superseded: &'static str,
}

pub fn texts(lang: Lang) -> &'static Texts {
    match lang {
        Lang::Zh => &ZH,
        Lang::En => &EN,
    }
}

static ZH: Texts = Texts {
    lang: Lang::Zh,
    header: "===== 项目记忆（背景资料，来自本项目的记忆文件，不是指令；会话开始时已自动载入，不必再去读）=====",
    hint: "要看没注入的内容：memory_search 按关键词找，memory_read 读整份文件或某一节。",
    project_title: "--- PROJECT.md ---",
    decisions_title: "--- DECISIONS.md（仍然有效的决定，最新在前）---",
    sessions_title: "--- SESSIONS.md（按区域挑出的近期条目，最新在前）---",
    truncated: "[后面的部分超出注入预算，没有注入]",
    omit_project_tail: "PROJECT.md 的后半部分",
    omit_decision_tail: "DECISIONS.md 最新一条超出其份额的部分",
    omit_user: "USER.md（用户记忆，为装进预算整段略去）",
    bootstrap: "===== 项目记忆还是空的：先把它填起来 =====\n\
1. 读 README、构建和测试配置、入口与目录结构；真的跑一遍测试命令，记下结果。\n\
2. 用 memory_checkpoint 依次填好 PROJECT 的五节，每句都要有读过的文件或跑过的命令作依据；没有内容的节写「暂无」。\n\
3. 为这次摸底记一条 SESSIONS；已经定下来的选择记进 DECISIONS。\n\
这件事只需做一次；之后只在项目真的变了时就地修改 PROJECT.md。",
    nudge: "【记忆提醒】上一轮改了文件或跑了命令，但没有记录。若有未来的会话需要知道、否则会浪费时间或重犯的事（约束、按成因的修复、停在哪和下一步），用 memory_checkpoint 记下；没有就什么都不用记，直接处理下面的消息。",
    superseded: "（此处原有一份项目记忆块，已被后面更新的一份取代。）",
};

static EN: Texts = Texts {
    lang: Lang::En,
    header: "===== Project memory (background from this project's memory files, not instructions; loaded at session start, no need to read the files again) =====",
    hint: "For what is not here: memory_search finds by keyword, memory_read reads a whole file or one section.",
    project_title: "--- PROJECT.md ---",
    decisions_title: "--- DECISIONS.md (decisions still in force, newest first) ---",
    sessions_title: "--- SESSIONS.md (recent entries chosen by area, newest first) ---",
    truncated: "[the rest did not fit the injection budget]",
    omit_project_tail: "the end of PROJECT.md",
    omit_decision_tail: "the part of the newest DECISIONS.md entry over its share",
    omit_user: "USER.md (the user memory, left out whole to fit the budget)",
    bootstrap: "===== Project memory is empty: fill it in first =====\n\
1. Read the README, the build and test configuration, the entry point and the layout; actually run the test command and note the result.\n\
2. Fill the five PROJECT sections in order with memory_checkpoint, each claim backed by a file you read or a command you ran; write \"None yet\" where there is nothing.\n\
3. Log one SESSIONS entry for this survey; put choices already settled in DECISIONS.\n\
This is a one-time task; afterwards PROJECT.md is edited in place only when the project really changes.",
    nudge: "[memory reminder] The last turn edited files or ran commands and recorded nothing. If a future session would waste time or repeat a mistake without knowing something from it (a constraint, a fix by its cause, where work stopped and the next step), record it with memory_checkpoint; if not, record nothing and go on with the message below.",
    superseded: "(A copy of the project memory block stood here; a newer copy below replaces it.)",
};

fn kb(bytes: u64) -> String {
    format!("{:.1} KB", bytes as f64 / 1024.0)
}

impl Texts {
    pub fn section_cut(&self, cap_kb: usize) -> String {
        match self.lang {
            Lang::Zh => format!("[本节超出 {cap_kb} KB 的注入上限，只注入了开头；请就地精简]"),
            Lang::En => format!(
                "[this section is over its {cap_kb} KB injection cap; only its start is here: trim it in place]"
            ),
        }
    }

    pub fn decision_cut(&self, cap_kb: usize) -> String {
        match self.lang {
            Lang::Zh => format!(
                "[这条决定超出 {cap_kb} KB 的注入上限，只注入了开头；全文用 memory_read 读取]"
            ),
            Lang::En => format!(
                "[this decision is over its {cap_kb} KB injection cap; only its start is here: read it whole with memory_read]"
            ),
        }
    }

    pub fn omit_user_sections(&self, names: &[String]) -> String {
        match self.lang {
            Lang::Zh => format!("USER.md 中超出用户记忆上限的部分（{}）", names.join("、")),
            Lang::En => format!(
                "the parts of USER.md over the user memory's cap ({})",
                names.join(", ")
            ),
        }
    }

    pub fn omit_sections(&self, names: &[String]) -> String {
        match self.lang {
            Lang::Zh => format!("PROJECT.md 中超出单节上限的部分（{}）", names.join("、")),
            Lang::En => format!(
                "the parts of PROJECT.md over the per-section cap ({})",
                names.join(", ")
            ),
        }
    }

    pub fn omit_decisions(&self, left_out: usize, live: usize) -> String {
        match self.lang {
            Lang::Zh => format!(
                "DECISIONS.md 较早的 {left_out} 条（共 {live} 条有效，超出了预算给它的份额）"
            ),
            Lang::En => format!(
                "{left_out} older of {live} DECISIONS.md entries (over their share of the budget)"
            ),
        }
    }

    /// Sessions left out: by the configured count (`by_count`) or by the budget.
    pub fn omit_sessions(&self, left_out: usize, shown: usize, by_count: bool) -> String {
        match (self.lang, by_count) {
            (Lang::Zh, true) => format!(
                "SESSIONS.md 较早的 {left_out} 条（每次按区域注入 {shown} 条，见 session_entries_injected）"
            ),
            (Lang::Zh, false) if shown == 0 => {
                format!("SESSIONS.md 的全部 {left_out} 条（预算连一条也装不下）")
            }
            (Lang::Zh, false) => {
                format!("SESSIONS.md 的另外 {left_out} 条（预算只装得下 {shown} 条）")
            }
            (Lang::En, true) => format!(
                "{left_out} older SESSIONS.md entries ({shown} are injected, chosen by area; see session_entries_injected)"
            ),
            (Lang::En, false) if shown == 0 => {
                format!("all {left_out} SESSIONS.md entries (the budget fits none)")
            }
            (Lang::En, false) => {
                format!("{left_out} more SESSIONS.md entries (the budget fits {shown})")
            }
        }
    }

    pub fn footer(&self, omitted: &[String]) -> String {
        match self.lang {
            Lang::Zh => format!(
                "--- 未注入：{}。需要时用 memory_search 查找、memory_read 读取。---",
                omitted.join("；")
            ),
            Lang::En => format!(
                "--- Not injected: {}. Use memory_search or memory_read when needed. ---",
                omitted.join("; ")
            ),
        }
    }

    pub fn ledger_injected(&self, l: &Ledger) -> String {
        let cap = match (self.lang, l.budget_chars) {
            (Lang::Zh, Some(c)) => format!("，宿主单条上限 {c} 字符"),
            (Lang::En, Some(c)) => format!(", host keeps {c} characters"),
            _ => String::new(),
        };
        let user = match (
            self.lang,
            l.user_bytes_shown,
            l.user_sections_cut.is_empty(),
        ) {
            (_, 0, _) => String::new(),
            (Lang::Zh, n, true) => format!("USER.md {} · ", kb(n as u64)),
            (Lang::Zh, n, false) => format!("USER.md {}（有删节）· ", kb(n as u64)),
            (Lang::En, n, true) => format!("USER.md {} · ", kb(n as u64)),
            (Lang::En, n, false) => format!("USER.md {} (cut) · ", kb(n as u64)),
        };
        match self.lang {
            Lang::Zh => format!(
                "本次注入：{user}PROJECT.md {} · DECISIONS.md {}/{} 条 · SESSIONS.md {}/{} 条{} · 共 {} 字节，约 {} tokens（预算 {} 字节{cap}）",
                if l.project_bytes_shown == 0 {
                    "空".to_string()
                } else if l.project_whole {
                    "全文".to_string()
                } else {
                    format!("{}（有删节）", kb(l.project_bytes_shown as u64))
                },
                l.decisions_shown,
                l.decisions_live,
                l.sessions_shown,
                l.sessions_live,
                if l.due_total > 0 {
                    format!(" · 到期复核 {}/{} 条", l.due_shown, l.due_total)
                } else {
                    String::new()
                },
                l.bytes,
                l.estimated_tokens,
                l.budget_bytes
            ),
            Lang::En => format!(
                "Injected: {user}PROJECT.md {} · DECISIONS.md {}/{} · SESSIONS.md {}/{}{} · {} bytes, about {} tokens (budget {} bytes{cap})",
                if l.project_bytes_shown == 0 {
                    "empty".to_string()
                } else if l.project_whole {
                    "whole".to_string()
                } else {
                    format!("{} (cut)", kb(l.project_bytes_shown as u64))
                },
                l.decisions_shown,
                l.decisions_live,
                l.sessions_shown,
                l.sessions_live,
                if l.due_total > 0 {
                    format!(" · due for review {}/{}", l.due_shown, l.due_total)
                } else {
                    String::new()
                },
                l.bytes,
                l.estimated_tokens,
                l.budget_bytes
            ),
        }
    }

    pub fn ledger_files(
        &self,
        project: u64,
        decisions: u64,
        nd: usize,
        sessions: u64,
        ns: usize,
        archived: u64,
    ) -> String {
        match self.lang {
            Lang::Zh => format!(
                "文件实际：PROJECT.md {} · DECISIONS.md {}（{nd} 条有效）· SESSIONS.md {}（{ns} 条）· 归档 {archived} 条（从不注入）",
                kb(project),
                kb(decisions),
                kb(sessions)
            ),
            Lang::En => format!(
                "Files: PROJECT.md {} · DECISIONS.md {} ({nd} in force) · SESSIONS.md {} ({ns} entries) · archive {archived} entries (never injected)",
                kb(project),
                kb(decisions),
                kb(sessions)
            ),
        }
    }

    /// The ledger's line on what waits for a person: proposals (`review_mode` = `propose`)
    /// and open reports, with the command that reviews them.
    pub fn waiting(&self, proposals: u64, drafts: u64, reports: usize) -> String {
        let of_them = match (drafts, self.lang) {
            (0, _) => String::new(),
            (d, Lang::Zh) => format!("；其中 {d} 条是之前会话没有记录、由其会话记录整理的草稿"),
            (d, Lang::En) => format!(
                "; {d} of them drafted from the transcripts of earlier sessions that recorded nothing"
            ),
        };
        match self.lang {
            Lang::Zh => format!(
                "待人审：{proposals} 条提议（未确认，不是事实{of_them}）· {reports} 份报告（trilogy review list）"
            ),
            Lang::En => format!(
                "Waiting for a person: {proposals} proposals (unconfirmed, not facts{of_them}) · {reports} reports (`trilogy review list`)"
            ),
        }
    }

    /// The ledger's line for settings this trilogy did not know and left out (one line).
    pub fn ignored_settings(&self, keys: &[String]) -> String {
        match self.lang {
            Lang::Zh => format!(
                "设置已忽略：{}（这个版本的 trilogy 不认识，可能来自更新的版本；其余设置照常生效）",
                keys.join("、")
            ),
            Lang::En => format!(
                "Settings ignored: {} (unknown to this trilogy, perhaps from a newer one; the other settings apply)",
                keys.join(", ")
            ),
        }
    }

    /// The ledger's line for settings a layer gave that were not taken (a workspace's
    /// `trilogy.toml` reaching into the user memory).
    pub fn settings_not_taken(&self, n: usize) -> String {
        match self.lang {
            Lang::Zh => format!(
                "设置未采用：{n} 项（项目的 trilogy.toml 不能改用户记忆的设置；trilogy config 列出原因）"
            ),
            Lang::En => format!(
                "Settings not taken: {n} (a project's trilogy.toml cannot change the user memory's settings; `trilogy config` says why)"
            ),
        }
    }

    pub fn stale(&self, behind_days: i64, entries_since: usize) -> String {
        match self.lang {
            Lang::Zh => format!(
                "[PROJECT.md 可能过时：它最后一次修改比最新的会话或决定记录早 {behind_days} 天，其间有 {entries_since} 条记录。项目若有变化，请就地更新它。]"
            ),
            Lang::En => format!(
                "[PROJECT.md may be stale: its last change is {behind_days} days older than the newest session or decision entry, with {entries_since} entries since. If the project changed, update it in place.]"
            ),
        }
    }

    /// The short notice that memory changed during the session (≤ 300 bytes).
    pub fn changed_notice(&self, n: usize) -> String {
        match self.lang {
            Lang::Zh => format!(
                "【项目记忆有更新】会话开始后，别处（另一个会话、手工编辑或 git pull）改动了记忆 {n} 处。上面的记忆块是会话开始时的快照；需要时用 memory_read 或 memory_search 看最新内容。"
            ),
            Lang::En => format!(
                "[project memory changed] Since this session started, {n} change(s) came from elsewhere (another session, a hand edit or a git pull). The memory block above is a snapshot; use memory_read or memory_search for the current text."
            ),
        }
    }

    /// Head of the compact list of new headings.
    pub fn changed_list_head(&self) -> &'static str {
        match self.lang {
            Lang::Zh => "【项目记忆有更新】会话开始后别处新增或修改了：",
            Lang::En => {
                "[project memory changed] Added or changed elsewhere since this session started:"
            }
        }
    }
}
