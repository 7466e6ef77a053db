// The trilogy panel: the browser half of `trilogy serve`.
//
// A plain script with no build step and no dependency; the server compiles it into the binary
// and serves it at /trilogy/panel.js. Sections, top to bottom: texts (Chinese and English),
// the HTTP client, DOM helpers, page state, drafts and the address bar, loading, the status
// chip, the workspace list, the detail (title, attention strip, staleness banner, view tabs,
// the raw files), export/import, the instruction file, the danger row, the insight panes
// (search, changes, agent sessions, restorable entries, the weekly chart), rendering,
// following the store, and start-up. The views of one workspace's memory (what the agent
// sees, attention, PROJECT sections, entry cards and their forms) are in cards.js, loaded
// first and handed this file's state and helpers.
//
// Rules kept throughout:
// - every request is a relative /trilogy/... path; the browser sends the launch cookie and
//   its own Origin; every body is a JSON string with `content-type: application/json`;
// - memory text is written by people and agents, so it reaches the DOM only as text nodes
//   (textContent, createTextNode), never as markup;
// - long lists are asked for a page at a time and drawn a page at a time, so the page stays
//   small however large the store is;
// - every write to an entry or a section sends the version the page was shown; a stale one
//   is refused by the server (409) and the page shows what is there now.
"use strict";

(() => {
  // ---------------------------------------------------------------------------------------
  // Texts
  // ---------------------------------------------------------------------------------------

  const TEXTS = {
    zh: {
      title: "项目记忆",
      intro:
        "每个工作区一份 memory/：PROJECT.md 是项目现状，DECISIONS.md 是已定决策，SESSIONS.md 是会话日志，SESSIONS-archive.md 是搬出去的老日志。「智能体所见」是新会话开头注入的原文；记错的条目可以在卡片上直接改、删、退役或取代，每一步都能恢复。",
      refresh: "刷新",
      refreshing: "刷新中…",
      refreshed: "已刷新",
      workspaces: "工作区",
      filter: "按路径筛选…",
      loading: "读取中…",
      noWorkspaces: "还没有记录过任何工作区。在项目里运行 trilogy init，或开一个会话，这里就会出现它。",
      noMatch: "没有匹配的工作区。",
      pickOne: "左边选一个工作区。",
      badgeEmpty: "空",
      badgeRecorded: "已记录",
      badgeCleared: "已清除",
      forget: "忘记",
      forgotten: (root) => `已在面板里忘记 ${root} —— 磁盘上的文件一个字没动。`,
      lastActive: (ago) => `最近活跃 ${ago}`,
      tabAgent: "智能体所见",
      tabAttention: "待处理",
      tabProject: "现状",
      tabDecisions: "决策",
      tabSessions: "日志",
      tabArchive: "归档",
      reread: "重新读取",
      staleBadge: "PROJECT.md 可能过时",
      staleText: (days, entries) =>
        `它已经 ${days} 天没改过，而这期间日志里追加了 ${entries} 条 —— 先把它改写成现在的样子，再往下做。`,
      staleEdit: "现在改 PROJECT",
      archiveHint: "归档条目不会被注入；要让智能体再看到一条，先「恢复」它",
      archiveIntro: "归档条目不会被自动注入。点「恢复」把一条搬回日志，按日期排进去。",
      archiveEmpty: "（归档是空的）",
      restoredWhere: (file, position, of) =>
        typeof position === "number"
          ? `${file}，按日期排在第 ${position} 条${typeof of === "number" ? `（共 ${of} 条）` : ""}`
          : `${file}，按日期排进去`,
      fileEmpty: "（这个文件目前是空的）",
      fileMissing: "（这个文件不存在）",
      fileMeta: (file, bytes, ago) => `${file} · ${bytes} 字节${ago ? ` · 修改于 ${ago}` : ""}`,
      rawOn: "原文",
      rawOff: "卡片",
      rawTitle: "在卡片和文件原文之间切换",
      exportLabel: "导出",
      exporting: "导出中…",
      importLabel: "导入",
      importing: "导入中…",
      exported: (n) => `已导出 ${n} 个文件`,
      cannotDownload: "这个浏览器不允许下载文件，无法导出",
      imported: (entries, sections, present, kept) =>
        `已导入 ${entries} 条条目、${sections} 个 PROJECT 小节` +
        (present > 0 ? `；${present} 条本来就有，没再加` : "") +
        (kept > 0 ? `；${kept} 个小节保留了现在的文字，记忆包里的版本存为可恢复的修订` : ""),
      badJson: (message) => `导入的文件不是有效的 JSON：${message}`,
      instruction: "指令文件",
      bootWritten: "已写入",
      bootOld: "旧版本",
      bootMissing: "未写入",
      bootNoFile: "文件不存在",
      edit: "编辑整份文件",
      save: "保存",
      saving: "保存中…",
      cancel: "取消",
      rewrite: "重写 Memory 段",
      rewriting: "写入中…",
      remove: "移除 Memory 段",
      confirmRewrite: "确认重写 Memory 段",
      confirmRemoveBlock: "确认移除 Memory 段",
      rewriteWarn: "会用当前版本替换指令文件里的 Memory 段（段外的内容原样保留）。",
      removeWarn: "移除后，新会话不会再知道 memory/ 的存在（段外的内容原样保留）。",
      editHint: (name) => `${name} 整份可改，Memory 段也在里面`,
      bootPresentHint: "新会话开头会读到这一段，它告诉智能体 memory/ 在哪、怎么记录",
      bootAbsentHint: "没有它，新会话不会知道 memory/ 的存在",
      saved: (name) => `已保存 ${name}`,
      bootRemoved: "已从指令文件移除 Memory 段（其余内容原样保留）",
      bootRewritten: "已把 Memory 段写回指令文件",
      dropDraft: "有没保存的修改，离开会丢掉它。仍然离开？",
      danger: "危险操作",
      clear: "清除记忆文件",
      clearing: "清除中…",
      confirmClear: "确认清除",
      clearWarn: (name) =>
        `会清空 ${name} 的全部记忆文件（含归档 SESSIONS-archive.md），并移除指令文件里的 Memory 段。条目都留在存储里，之后可以恢复。再点一次「确认清除」才会执行。`,
      cleared: (n, boot, entries, sections) =>
        `已清除 ${n} 个文件${boot ? "（并移除了指令文件的 Memory 段）" : ""}。` +
        `${entries} 条条目、${sections} 个小节留在存储里，可以撤销。`,
      undoClear: "恢复这次清除的全部内容",
      undone: (entries, sections, left, boot) =>
        `已恢复这次清除的内容：${entries} 条条目、${sections} 个小节` +
        (left > 0 ? `；${left} 条没有恢复（见变更记录）` : "") +
        (boot ? "。指令文件的 Memory 段要用「重写 Memory 段」放回" : ""),
      searchPlaceholder: "搜索这个工作区的记忆：词、短语或代码名",
      search: "搜索",
      insightSearch: "搜索",
      insightEvents: "变更记录",
      insightSessions: "智能体会话",
      insightHistory: "可恢复",
      insightWeeks: "每周会话",
      searchPrompt: "输入关键词后回车：结果按 memory_search 的排序，显示整条条目。",
      noHits: "没有找到。",
      weakHit: "弱匹配",
      hitState: { live: "现行", archived: "已归档", superseded: "已被取代", removed: "已删除", replaced: "已替换", retired: "已退役" },
      noEvents: "还没有变更。",
      colWhen: "时间",
      colWho: "谁",
      colWhat: "做了什么",
      colDetail: "内容",
      more: "再显示一些",
      newer: "显示更新的",
      listCapped: (n) => `这里最多列 ${n} 条；更早的用 trilogy log --limit N 查看`,
      shownOf: (shown, total) => `显示 ${shown} / ${total}`,
      actor: (actor) => {
        if (actor === "cli") return "命令行";
        if (actor === "panel") return "面板";
        if (actor === "mcp") return "MCP";
        if (actor === "file-edit") return "手改文件";
        const session = /^(?:agent|hook):(.+)$/.exec(actor);
        if (session) return `会话 ${session[1]}`;
        const imported = /^import:(.+)$/.exec(actor);
        if (imported) return `导入 ${imported[1]}`;
        return actor;
      },
      op: {
        add: "新增",
        remove: "删除",
        replace: "替换",
        edit: "修改",
        archive: "归档",
        restore: "恢复",
        supersede: "取代",
        retire: "退役",
        section: "改写小节",
        "section-add": "新增小节",
        "section-remove": "删除小节",
        "edit-section": "修改小节",
        "rename-heading": "改标题",
        state: "改状态",
        preamble: "改文件开头",
        import: "导入",
        "import-section": "导入小节",
        "import-kept": "导入时保留现有小节",
        kept: "保留现有文字",
        elsewhere: "记在别处",
        clear: "清除",
        save: "保存",
        checkpoint: "检查点",
        propose: "提议",
        "propose-again": "再次提议",
        accept: "接受提议",
        reject: "拒绝提议",
        report: "报告",
        "report-closed": "关闭报告",
      },
      noSessions: "还没有智能体会话从这个工作区载入过记忆。",
      colSession: "会话",
      colInjected: "载入",
      colDropped: "被上限截掉的",
      injectedTimes: (n, source, at) => `${n} 次 · 最近 ${source || "-"} · ${at || "-"}`,
      entriesInjected: (n) => `${n} 条`,
      droppedNothing: "没有",
      droppedSections: (names) => `PROJECT 小节：${names}`,
      droppedDecisions: (n, from) => `决策 ${n} 条${from ? `（从 ${from} 往下）` : ""}`,
      droppedSessions: (n) => `日志 ${n} 条`,
      sessionEnded: "已结束",
      givenShow: "看它收到的原文",
      givenHide: "收起原文",
      givenBlock: (source) => `会话开头注入的原文${source ? `（${source}）` : ""}`,
      givenNotice: "追加在提示后的提醒",
      givenNone: "没有记下这个会话收到的原文（它早于这项记录）。",
      noHistory: "没有可恢复的条目：被删除、替换、取代、退役或归档的条目会出现在这里。",
      historyState: { archived: "已归档", removed: "已删除", replaced: "已替换", superseded: "已被取代", retired: "已退役" },
      restore: "恢复",
      restoredEntry: (heading) => `已恢复：${heading}`,
      noWeeks: "还没有会话记录。",
      weeksCaption: (weeks, last) => `到 ${last} 为止的 ${weeks} 周，每周的会话条目数（按领域分色，含归档）`,
      generalArea: "通用",
      // what the agent sees
      agentIntro: "新会话开头注入的就是下面这段原文，一字不差；下面的表说明每一条为什么在或不在。",
      host: "宿主",
      hostDefault: "默认",
      windowTokens: "窗口（token）",
      apply: "应用",
      injectedText: "注入原文",
      fileBars: "每个文件占了多少",
      barText: (shown, share, total) => `显示 ${shown} 字节 / 份额 ${share} · 文件共 ${total}`,
      budget: (bytes, chars) => `预算 ${bytes} 字节${chars ? ` · ${chars} 字符` : ""}`,
      colEntry: "条目",
      colFile: "文件",
      colShown: "这次",
      colUse: "注入情况",
      reason: {
        shown: "已注入",
        cut: "已注入（截到上限）",
        count_cap: "没注入：超出条数上限",
        byte_budget: "没注入：超出字节预算",
        area_quota: "没注入：超出领域配额",
        superseded: "没注入：已被取代",
        retired: "没注入：已退役",
        credential: "没注入：含凭据",
      },
      use: { inUse: "在用", silent: "沉默", never: "从未注入" },
      useDetail: (n, at) => `${n} 次${at ? ` · 最近 ${at}` : ""}`,
      sessionsCounted: (n) => `注入次数来自 ${n} 个智能体会话的记录；30 天内注入过算「在用」，更早的算「沉默」。`,
      entryFilter: { all: "全部", shown: "已注入", left: "没注入", never: "从未注入", silent: "沉默" },
      // attention
      attReports: (n) => `待处理报告 ${n}`,
      attProposals: (n) => `待定提议 ${n}`,
      attDue: (n) => `到期复查 ${n}`,
      attStale: (days) => `PROJECT 已 ${days} 天未更新`,
      attFresh: "PROJECT 是新的",
      attDoctor: (e, w) => `体检 ${e} 错 · ${w} 警告`,
      attDoctorPending: "体检中…",
      attRecall: (on, stale) => (on ? (stale > 0 ? `召回索引 ${stale} 个文件待索引` : "召回索引是新的") : "召回未开启"),
      recallIndexTitle: "点一下就开始索引这些文件",
      recallIndexNow: "现在索引",
      recallIndexing: (done, total) => (total > 0 ? `召回索引中 ${done}/${total} 个文件…` : "召回索引中…"),
      recallIndexed: (n) => (n > 0 ? `召回索引已更新，还有 ${n} 个文件没能索引` : "召回索引已更新"),
      recallIndexFailed: (message) => `召回索引失败：${message}`,
      proposals: "待定提议",
      reports: "报告",
      doctor: "体检",
      recall: "召回索引",
      recallText: (r) =>
        `${r.complete ? "索引完整" : "索引不完整"}，${r.pending_files ?? 0} 个文件待索引${r.last_build ? `，最近建索引于 ${stamp(String(r.last_build))}` : ""}`,
      noProposals: "没有待定提议。",
      noReports: "没有待处理的报告。",
      noFindings: "体检没有发现问题。",
      accept: "接受",
      reject: "拒绝",
      close: "关闭",
      accepted: (id) => `已接受提议 ${id}`,
      rejected: (id) => `已拒绝提议 ${id}`,
      closedReport: (n) => `已关闭报告 #${n}`,
      reportNames: "说的是",
      // cards
      groupBy: "分组",
      group: { area: "按领域", date: "按月份", kind: "按类型" },
      noDate: "无日期",
      kindName: { decision: "决策", session: "日志" },
      state: { live: "现行", archived: "已归档", superseded: "已被取代", removed: "已删除", replaced: "已替换", retired: "已退役" },
      topic: (t) => `主题 ${t}`,
      review: (d) => `复查 ${d}`,
      prov: { branch: "分支", session: "会话", host: "宿主", via: "经由" },
      cardEdit: "编辑",
      cardRemove: "移除",
      cardConfirmRemove: "确认移除",
      cardRetire: "退役",
      cardSupersede: "取代",
      cardRestore: "恢复",
      retireWhy: "为什么退役（必填）",
      supChoice: "新的选择",
      supBecause: "因为",
      supOver: "放弃了",
      entryDone: {
        edit: (h) => `已修改「${h}」，旧版本可以在「可恢复」里找回`,
        remove: (h) => `已移除「${h}」，可以在「可恢复」里恢复`,
        retire: (h) => `已退役「${h}」，它不会再被注入`,
        supersede: (h) => `已用新决策取代「${h}」`,
        restore: (h) => `已恢复「${h}」`,
      },
      conflict: "这条在你打开之后被改过了。下面是它现在的样子；你的草稿还在，确认后再保存。",
      conflictGone: "这条在你打开之后被改过了，现在已经不在原处。",
      changedReread: "它在你打开之后被改过了，没有写入；已重新读取，请看现在的内容再决定。",
      noEntries: "（这个文件里没有条目）",
      entriesTotal: (n, total) => `${n} / ${total} 条`,
      reportOn: (n) => `报告 #${n}`,
      proposalOn: (id) => `提议 ${id}`,
      // PROJECT sections
      sectionEdit: "编辑",
      revisions: "历史版本",
      revision: (n) => `第 ${n} 版`,
      restoreRevision: "恢复这一版",
      sectionSaved: (h) => `已保存小节「${h}」`,
      sectionRestored: (h, n) => `已把小节「${h}」恢复到第 ${n} 版`,
      noRevisions: "没有更早的版本。",
      sectionRemoved: "已删除",
      chip: {
        recording: "正在记录",
        none: "无记忆",
        updating: "正在更新",
        done: "更新完毕",
        idle: "已同步",
      },
      chipInit: "无记忆 · 点击创建",
      chipInitTitle: "点击为这个工作区创建 memory/ 三个文件",
      chipState: (label) => `状态：${label}`,
      chipSynced: (ago) => `最近同步：${ago}`,
      chipWorkspace: (root) => `工作区：${root}`,
      chipFile: (file) => `写入：${file}`,
      ago: {
        never: "尚未同步",
        now: "刚刚",
        seconds: (n) => `${n} 秒前`,
        minutes: (n) => `${n} 分钟前`,
        hours: (n) => `${n} 小时前`,
        days: (n) => `${n} 天前`,
      },
      unreachable: (message) => `读取失败：${message}`,
    },
    en: {
      title: "Project memory",
      intro:
        "One memory/ per workspace: PROJECT.md is what the project is now, DECISIONS.md the settled choices, SESSIONS.md the session log, SESSIONS-archive.md the older log moved out. “What the agent sees” is the text a new session starts with; a wrong entry can be edited, removed, retired or superseded on its card, and every step can be undone.",
      refresh: "Refresh",
      refreshing: "Refreshing…",
      refreshed: "Refreshed",
      workspaces: "Workspaces",
      filter: "Filter by path…",
      loading: "Loading…",
      noWorkspaces: "No workspace recorded yet. Run trilogy init in a project, or start a session there, and it shows up here.",
      noMatch: "No workspace matches.",
      pickOne: "Pick a workspace on the left.",
      badgeEmpty: "empty",
      badgeRecorded: "recorded",
      badgeCleared: "cleared",
      forget: "Forget",
      forgotten: (root) => `Forgot ${root} in the panel; no file on disk was touched.`,
      lastActive: (ago) => `active ${ago}`,
      tabAgent: "What the agent sees",
      tabAttention: "Attention",
      tabProject: "State",
      tabDecisions: "Decisions",
      tabSessions: "Log",
      tabArchive: "Archive",
      reread: "Re-read",
      staleBadge: "PROJECT.md may be stale",
      staleText: (days, entries) =>
        `It has not changed for ${days} days while the log gained ${entries} entries: bring it up to date before going on.`,
      staleEdit: "Edit PROJECT now",
      archiveHint: "Archived entries are never injected; restore one for agents to see it again",
      archiveIntro: "Archived entries are never injected. “Restore” moves one back into the log, in date order.",
      archiveEmpty: "(the archive is empty)",
      restoredWhere: (file, position, of) =>
        typeof position === "number"
          ? `${file}, number ${position}${typeof of === "number" ? ` of ${of}` : ""} in date order`
          : `${file}, in date order`,
      fileEmpty: "(this file is empty)",
      fileMissing: "(this file does not exist)",
      fileMeta: (file, bytes, ago) => `${file} · ${bytes} bytes${ago ? ` · modified ${ago}` : ""}`,
      rawOn: "Raw text",
      rawOff: "Cards",
      rawTitle: "Switch between the cards and the file's text",
      exportLabel: "Export",
      exporting: "Exporting…",
      importLabel: "Import",
      importing: "Importing…",
      exported: (n) => `Exported ${n} files`,
      cannotDownload: "This browser does not allow downloads; cannot export",
      imported: (entries, sections, present, kept) =>
        `Imported ${entries} entries and ${sections} PROJECT sections` +
        (present > 0 ? `; ${present} were here already and were not added again` : "") +
        (kept > 0 ? `; ${kept} sections kept their current text, the bundle's kept as a restorable revision` : ""),
      badJson: (message) => `The imported file is not valid JSON: ${message}`,
      instruction: "Instruction file",
      bootWritten: "written",
      bootOld: "old version",
      bootMissing: "not written",
      bootNoFile: "no such file",
      edit: "Edit whole file",
      save: "Save",
      saving: "Saving…",
      cancel: "Cancel",
      rewrite: "Rewrite Memory block",
      rewriting: "Writing…",
      remove: "Remove Memory block",
      confirmRewrite: "Confirm rewrite",
      confirmRemoveBlock: "Confirm remove",
      rewriteWarn: "This replaces the Memory block in the instruction file with the current one (the rest is untouched).",
      removeWarn: "Without the block new sessions do not know memory/ exists (the rest of the file is untouched).",
      editHint: (name) => `All of ${name} is editable, the Memory block included`,
      bootPresentHint: "New sessions read this block: it tells the agent where memory/ is and how to record",
      bootAbsentHint: "Without it, new sessions do not know memory/ exists",
      saved: (name) => `Saved ${name}`,
      bootRemoved: "Removed the Memory block from the instruction file (the rest is untouched)",
      bootRewritten: "Wrote the Memory block back into the instruction file",
      dropDraft: "There are unsaved changes; leaving drops them. Leave anyway?",
      danger: "Danger zone",
      clear: "Clear memory files",
      clearing: "Clearing…",
      confirmClear: "Confirm clear",
      clearWarn: (name) =>
        `This empties every memory file of ${name} (the archive SESSIONS-archive.md included) and removes the Memory block from the instruction file. The entries stay in the store and can be restored. Click “Confirm clear” to do it.`,
      cleared: (n, boot, entries, sections) =>
        `Cleared ${n} files${boot ? " (and removed the Memory block from the instruction file)" : ""}. ` +
        `${entries} entries and ${sections} sections stay in the store: this can be undone.`,
      undoClear: "Restore everything from this clear",
      undone: (entries, sections, left, boot) =>
        `Restored what the clear removed: ${entries} entries and ${sections} sections` +
        (left > 0 ? `; ${left} were not restored (see Changes)` : "") +
        (boot ? ". Put the Memory block back with “Rewrite Memory block”" : ""),
      searchPlaceholder: "Search this workspace's memory: words, a phrase or a code name",
      search: "Search",
      insightSearch: "Search",
      insightEvents: "Changes",
      insightSessions: "Agent sessions",
      insightHistory: "Restorable",
      insightWeeks: "Sessions per week",
      searchPrompt: "Type and press Enter: results in memory_search's order, whole entries shown.",
      noHits: "No match.",
      weakHit: "weak match",
      hitState: { live: "live", archived: "archived", superseded: "superseded", removed: "removed", replaced: "replaced", retired: "retired" },
      noEvents: "No change yet.",
      colWhen: "When",
      colWho: "Who",
      colWhat: "What",
      colDetail: "Detail",
      more: "Show more",
      newer: "Show newer",
      listCapped: (n) => `At most ${n} are listed here; trilogy log --limit N shows older ones`,
      shownOf: (shown, total) => `${shown} of ${total}`,
      actor: (actor) => {
        if (actor === "cli") return "CLI";
        if (actor === "panel") return "panel";
        if (actor === "mcp") return "MCP";
        if (actor === "file-edit") return "file edit";
        const session = /^(?:agent|hook):(.+)$/.exec(actor);
        if (session) return `session ${session[1]}`;
        const imported = /^import:(.+)$/.exec(actor);
        if (imported) return `import ${imported[1]}`;
        return actor;
      },
      op: {
        add: "added",
        remove: "removed",
        replace: "replaced",
        edit: "edited",
        archive: "archived",
        restore: "restored",
        supersede: "superseded",
        retire: "retired",
        section: "section rewritten",
        "section-add": "section added",
        "section-remove": "section removed",
        "edit-section": "section edited",
        "rename-heading": "heading renamed",
        state: "state changed",
        preamble: "file head changed",
        import: "imported",
        "import-section": "section imported",
        "import-kept": "section kept on import",
        kept: "current text kept",
        elsewhere: "recorded elsewhere",
        clear: "cleared",
        save: "saved",
        checkpoint: "checkpoint",
        propose: "proposed",
        "propose-again": "proposed again",
        accept: "proposal accepted",
        reject: "proposal rejected",
        report: "report",
        "report-closed": "report closed",
      },
      noSessions: "No agent session has loaded this workspace's memory yet.",
      colSession: "Session",
      colInjected: "Injected",
      colDropped: "Left out by the caps",
      injectedTimes: (n, source, at) => `${n}× · last ${source || "-"} · ${at || "-"}`,
      entriesInjected: (n) => `${n} entries`,
      droppedNothing: "nothing",
      droppedSections: (names) => `PROJECT sections: ${names}`,
      droppedDecisions: (n, from) => `${n} decisions${from ? ` (from ${from} down)` : ""}`,
      droppedSessions: (n) => `${n} log entries`,
      sessionEnded: "ended",
      givenShow: "Show what it was given",
      givenHide: "Hide what it was given",
      givenBlock: (source) => `Block injected${source ? ` (${source})` : ""}`,
      givenNotice: "Notice added to a prompt",
      givenNone: "What this session was given was not recorded (it predates the record).",
      noHistory: "Nothing to restore: removed, replaced, superseded, retired and archived entries show up here.",
      historyState: { archived: "archived", removed: "removed", replaced: "replaced", superseded: "superseded", retired: "retired" },
      restore: "Restore",
      restoredEntry: (heading) => `Restored: ${heading}`,
      noWeeks: "No session recorded yet.",
      weeksCaption: (weeks, last) => `Session entries per week, ${weeks} weeks up to ${last}, by area (archive included)`,
      generalArea: "general",
      agentIntro: "A new session starts with exactly the text below; the table says why each entry is in it or not.",
      host: "Host",
      hostDefault: "default",
      windowTokens: "Window (tokens)",
      apply: "Apply",
      injectedText: "Injected text",
      fileBars: "What each file takes",
      barText: (shown, share, total) => `${shown} bytes shown / share ${share} · file ${total}`,
      budget: (bytes, chars) => `budget ${bytes} bytes${chars ? ` · ${chars} characters` : ""}`,
      colEntry: "Entry",
      colFile: "File",
      colShown: "This time",
      colUse: "Injection",
      reason: {
        shown: "shown",
        cut: "shown, cut to the cap",
        count_cap: "left out: count cap",
        byte_budget: "left out: byte budget",
        area_quota: "left out: area quota",
        superseded: "left out: superseded",
        retired: "left out: retired",
        credential: "left out: holds a credential",
      },
      use: { inUse: "in use", silent: "silent", never: "never injected" },
      useDetail: (n, at) => `${n}×${at ? ` · last ${at}` : ""}`,
      sessionsCounted: (n) => `Counts come from ${n} agent session records; injected in the last 30 days is “in use”, earlier is “silent”.`,
      entryFilter: { all: "all", shown: "shown", left: "left out", never: "never injected", silent: "silent" },
      attReports: (n) => `${n} open reports`,
      attProposals: (n) => `${n} pending proposals`,
      attDue: (n) => `${n} reviews due`,
      attStale: (days) => `PROJECT unchanged for ${days} days`,
      attFresh: "PROJECT is current",
      attDoctor: (e, w) => `doctor: ${e} errors · ${w} warnings`,
      attDoctorPending: "doctor: checking…",
      attRecall: (on, stale) => (on ? (stale > 0 ? `recall: ${stale} files to index` : "recall index current") : "recall off"),
      recallIndexTitle: "Click to index these files now",
      recallIndexNow: "Index now",
      recallIndexing: (done, total) => (total > 0 ? `recall: indexing ${done}/${total} files…` : "recall: indexing…"),
      recallIndexed: (n) => (n > 0 ? `Recall index updated; ${n} files could not be indexed` : "Recall index updated"),
      recallIndexFailed: (message) => `Recall indexing failed: ${message}`,
      proposals: "Pending proposals",
      reports: "Reports",
      doctor: "Doctor",
      recall: "Recall index",
      recallText: (r) =>
        `${r.complete ? "index complete" : "index incomplete"}, ${r.pending_files ?? 0} files to index${r.last_build ? `, last built ${stamp(String(r.last_build))}` : ""}`,
      noProposals: "No pending proposal.",
      noReports: "No open report.",
      noFindings: "The doctor found nothing.",
      accept: "Accept",
      reject: "Reject",
      close: "Close",
      accepted: (id) => `Accepted proposal ${id}`,
      rejected: (id) => `Rejected proposal ${id}`,
      closedReport: (n) => `Closed report #${n}`,
      reportNames: "about",
      groupBy: "Group",
      group: { area: "by area", date: "by month", kind: "by kind" },
      noDate: "no date",
      kindName: { decision: "decision", session: "log" },
      state: { live: "live", archived: "archived", superseded: "superseded", removed: "removed", replaced: "replaced", retired: "retired" },
      topic: (t) => `topic ${t}`,
      review: (d) => `review ${d}`,
      prov: { branch: "branch", session: "session", host: "host", via: "via" },
      cardEdit: "Edit",
      cardRemove: "Remove",
      cardConfirmRemove: "Confirm remove",
      cardRetire: "Retire",
      cardSupersede: "Supersede",
      cardRestore: "Restore",
      retireWhy: "Why it is retired (required)",
      supChoice: "New choice",
      supBecause: "Because",
      supOver: "Over",
      entryDone: {
        edit: (h) => `Edited “${h}”; the old text is under Restorable`,
        remove: (h) => `Removed “${h}”; it can be restored under Restorable`,
        retire: (h) => `Retired “${h}”; it is no longer injected`,
        supersede: (h) => `Superseded “${h}” with the new decision`,
        restore: (h) => `Restored “${h}”`,
      },
      conflict: "This entry changed since you opened it. Below is what it says now; your draft is kept: save again once you are sure.",
      conflictGone: "This entry changed since you opened it and is no longer where it was.",
      changedReread: "It changed since you opened it, so nothing was written; it has been read again: look at what it says now.",
      noEntries: "(no entry in this file)",
      entriesTotal: (n, total) => `${n} of ${total} entries`,
      reportOn: (n) => `report #${n}`,
      proposalOn: (id) => `proposal ${id}`,
      sectionEdit: "Edit",
      revisions: "Revisions",
      revision: (n) => `revision ${n}`,
      restoreRevision: "Restore this revision",
      sectionSaved: (h) => `Saved section “${h}”`,
      sectionRestored: (h, n) => `Restored section “${h}” to revision ${n}`,
      noRevisions: "No earlier revision.",
      sectionRemoved: "removed",
      chip: {
        recording: "Recording",
        none: "No memory",
        updating: "Updating",
        done: "Updated",
        idle: "Synced",
      },
      chipInit: "No memory · click to create",
      chipInitTitle: "Click to create the three memory/ files for this workspace",
      chipState: (label) => `State: ${label}`,
      chipSynced: (ago) => `Last sync: ${ago}`,
      chipWorkspace: (root) => `Workspace: ${root}`,
      chipFile: (file) => `Wrote: ${file}`,
      ago: {
        never: "never synced",
        now: "just now",
        seconds: (n) => `${n} s ago`,
        minutes: (n) => `${n} min ago`,
        hours: (n) => `${n} h ago`,
        days: (n) => `${n} d ago`,
      },
      unreachable: (message) => `Could not read: ${message}`,
    },
  };
  let T = TEXTS.zh;

  /** How often the status chip asks `/status`, and how long "updated" lingers. */
  const CHIP_POLL_MS = 4000;
  const DONE_LINGER_MS = 8000;
  /** How often the open workspace's change counter is asked while the page is visible. */
  const CHANGE_POLL_MS = 1500;
  /** Entries, events and restorable items are asked for this many at a time. */
  const PAGE = 50;
  /** Rows of the injection table drawn at a time (the server sends them all). */
  const TABLE_PAGE = 100;
  /** Scrolling pages cards in by itself up to this many; past it only "more" does, so a long
   * scroll cannot grow the page without bound. */
  const AUTO_PAGE_LIMIT = 200;
  /** At most this many cards are drawn at once: "more" past it lets the newest page go (and
   * "newer" brings it back), so the page stays small however far one reads. */
  const CARD_WINDOW = 200;
  /** At most this many rows of the injection table are drawn at once, likewise. */
  const TABLE_WINDOW = 300;
  /** The change log and the restorable list grow by "more" up to this many rows, which keeps
   * the page under 5,000 elements with everything else on it. */
  const LIST_CAP = 400;
  /** While the server is still judging doctor's findings, the attention counts are asked
   * again after this long. */
  const DOCTOR_RETRY_MS = 1000;
  /** An entry injected within this many days is "in use". */
  const IN_USE_DAYS = 30;

  /** The detail's views, in tab order. `file` is the memory file a view shows; `entries`
   * names it for `/entries`. */
  const VIEWS = [
    { id: "agent", label: () => T.tabAgent },
    { id: "attention", label: () => T.tabAttention },
    { id: "project", file: "PROJECT.md", label: () => T.tabProject },
    { id: "decisions", file: "DECISIONS.md", entries: "DECISIONS.md", label: () => T.tabDecisions },
    { id: "sessions", file: "SESSIONS.md", entries: "SESSIONS.md", label: () => T.tabSessions },
    { id: "archive", file: "SESSIONS-archive.md", entries: "SESSIONS-archive.md", label: () => T.tabArchive },
  ];
  const viewOf = (id) => VIEWS.find((v) => v.id === id) || VIEWS[0];
  const ARCHIVE = "SESSIONS-archive.md";
  const HOSTS = ["", "claude", "codex", "gemini"];

  const INSIGHTS = [
    { id: "events", label: () => T.insightEvents },
    { id: "search", label: () => T.insightSearch },
    { id: "sessions", label: () => T.insightSessions },
    { id: "history", label: () => T.insightHistory },
    { id: "weeks", label: () => T.insightWeeks },
  ];

  // ---------------------------------------------------------------------------------------
  // HTTP
  // ---------------------------------------------------------------------------------------

  const API = "/trilogy";

  /**
   * One JSON request to the server. An object body is encoded here, once, so no call site
   * can hand `fetch` an object (which it would send as "[object Object]"). A failure is an
   * Error carrying the status and the answer's body (a 409 brings the current card).
   */
  async function call(path, options) {
    const init = { method: (options && options.method) || "GET", cache: "no-store", credentials: "same-origin" };
    if (options && options.body !== undefined) {
      init.body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
      init.headers = { "content-type": "application/json" };
    }
    const response = await fetch(API + path, init);
    const text = await response.text();
    let body;
    try {
      body = text.length === 0 ? {} : JSON.parse(text);
    } catch {
      throw Object.assign(new Error(`${response.status} ${response.statusText}: ${text.slice(0, 200)}`), { status: response.status });
    }
    if (!response.ok) {
      const message = body && typeof body.error === "string" ? body.error : `${response.status} ${response.statusText}`;
      throw Object.assign(new Error(message), { status: response.status, body });
    }
    return body;
  }

  /** `path?k=v&…`, each value percent-encoded; undefined, null and empty values are left out. */
  function withQuery(path, params) {
    const parts = Object.entries(params)
      .filter(([, value]) => value !== undefined && value !== null && value !== "")
      .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`);
    return parts.length === 0 ? path : `${path}?${parts.join("&")}`;
  }

  const get = (path, params) => call(params ? withQuery(path, params) : path);
  const post = (path, body) => call(path, { method: "POST", body });

  const messageOf = (error) => (error instanceof Error ? error.message : String(error));

  // ---------------------------------------------------------------------------------------
  // DOM helpers: every string goes in as text
  // ---------------------------------------------------------------------------------------

  const $ = (id) => document.getElementById(id);

  /** An element: `attrs` are attributes (`class`, `on<event>`, `data-*`, booleans), children
   * are nodes or strings (always inserted as text). */
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  const SVG_NS = "http://www.w3.org/2000/svg";

  /** An SVG element, same contract as [`h`]. */
  function s(tag, attrs, ...children) {
    const node = document.createElementNS(SVG_NS, tag);
    setAttrs(node, attrs);
    append(node, children);
    return node;
  }

  function setAttrs(node, attrs) {
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
      else if (key === "class") node.setAttribute("class", value);
      else if (key === "value") node.value = String(value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
  }

  function append(node, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
  }

  /** Replace a container's children. */
  function fill(container, ...children) {
    container.replaceChildren();
    append(container, children);
  }

  const button = (attrs, label) => h("button", { type: "button", class: "tp-btn", ...attrs }, label);

  /** The last path segment of a workspace root (its folder name). */
  function folderName(root) {
    const parts = String(root || "").split(/[\\/]/).filter(Boolean);
    return parts.length === 0 ? String(root || "") : parts[parts.length - 1];
  }

  /** "How long ago", from epoch milliseconds and the server's clock. */
  function agoText(at, now) {
    if (typeof at !== "number" || !Number.isFinite(at) || at <= 0) return T.ago.never;
    const seconds = Math.max(0, Math.round((now - at) / 1000));
    if (seconds < 10) return T.ago.now;
    if (seconds < 60) return T.ago.seconds(seconds);
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return T.ago.minutes(minutes);
    const hours = Math.round(minutes / 60);
    if (hours < 24) return T.ago.hours(hours);
    return T.ago.days(Math.round(hours / 24));
  }

  /** An RFC 3339 stamp as `YYYY-MM-DD HH:MM` (the server's own offset). */
  function stamp(at) {
    return typeof at === "string" ? at.replace("T", " ").slice(0, 16) : "";
  }

  const list = (value) => (Array.isArray(value) ? value : []);

  // ---------------------------------------------------------------------------------------
  // Page state
  // ---------------------------------------------------------------------------------------

  const state = {
    info: null,
    workspaces: null,
    selected: "",
    files: null, // the /files body of the selected workspace
    boot: null, // the /boot body of the selected workspace
    tab: "agent",
    busy: "",
    status: { kind: "", text: "" },
    error: "",
    filter: "",
    editing: false,
    draft: "",
    confirmClear: false,
    confirmBoot: "", // "remove" | "rewrite" while a block action waits for its second click
    lastClear: null, // { root, id } of the clear that can still be undone
    insight: "events",
    insightData: {}, // insight id → { root, data, error, more }
    query: "",
    // the views
    attention: null, // { root, data } | { root, error }
    review: null, // { root, data }
    injection: null, // { root, data } | { root, error }
    injectHost: "",
    injectWindow: "",
    injectFilter: "all",
    injectRows: TABLE_PAGE,
    injectStart: 0,
    cards: null, // { root, view, total, entries, start, error, loading }
    sections: null, // { root, data } | { root, error }
    revisions: {}, // section key → { data, error } while its list is open
    raw: new Set(), // the views showing the file's text instead of cards
    groupBy: "date",
    collapsed: new Set(), // group keys folded shut
    form: null, // the one open card or section form: { scope, id, kind, fields, base, conflict }
    armed: "", // the card id whose remove waits for its second click
    change: null, // the last change token read for the selected workspace
    viewStale: false, // the store changed while a form was open: its view is read on closing
    recallIndex: null, // { root, running, done, total, error } while recall's index is brought up to date
    given: null, // { root, id, data | error } of the agent session whose given text is open
  };

  const current = () => (state.workspaces || []).find((w) => w.root === state.selected) || null;
  const busy = () => state.busy !== "";

  /** The status line's message; any new one ends the offer to undo a clear, except the
   * clear's own. */
  function setStatus(kind, text, offersUndo) {
    state.status = { kind, text };
    if (!offersUndo) state.lastClear = null;
  }

  /** Run one user action: mark busy, report a failure in the status line, re-render. */
  async function act(name, work) {
    if (busy()) return;
    state.busy = name;
    render();
    try {
      await work();
    } catch (failure) {
      setStatus("err", messageOf(failure));
    }
    state.busy = "";
    render();
  }

  // ---------------------------------------------------------------------------------------
  // Drafts: nothing typed is dropped without asking
  // ---------------------------------------------------------------------------------------

  /** An open card or section form whose fields differ from what it opened with. */
  function formDirty() {
    const f = state.form;
    if (!f) return false;
    return Object.keys(f.fields).some((k) => f.fields[k] !== (f.base[k] || ""));
  }

  /** The instruction editor holds text that is not the file's. */
  function instructionDirty() {
    if (!state.editing) return false;
    const ins = instruction();
    return state.draft !== (ins && typeof ins.text === "string" ? ins.text : "");
  }

  /** Whether going on may drop a draft: asks when there is one. `withInstruction` when the
   * instruction editor goes too (another workspace); a tab switch keeps it open. */
  function mayDrop(withInstruction) {
    const dirty = formDirty() || (withInstruction && instructionDirty());
    return !dirty || window.confirm(T.dropDraft);
  }

  // ---------------------------------------------------------------------------------------
  // The address bar: ?root=…&tab=… so a reload or a link opens the same place
  // ---------------------------------------------------------------------------------------

  function readAddress() {
    const params = new URLSearchParams(location.search);
    return { root: params.get("root") || "", tab: params.get("tab") || "" };
  }

  function writeAddress() {
    const params = new URLSearchParams();
    if (state.selected) params.set("root", state.selected);
    if (state.selected && state.tab) params.set("tab", state.tab);
    const query = params.toString();
    const next = `${location.pathname}${query ? `?${query}` : ""}`;
    if (next !== `${location.pathname}${location.search}`) history.replaceState(null, "", next);
  }

  /** The address of a view of the selected workspace (for links that switch to it). */
  function addressOf(tab) {
    const params = new URLSearchParams({ root: state.selected, tab });
    return `${location.pathname}?${params}`;
  }

  /** The workspace to open first: the address bar's, else the one `serve` ran in (the server
   * locates it; an older server gives only its folder, matched against the roots), else the
   * first listed. */
  function firstRoot(listed, address, info) {
    const roots = listed.map((w) => w.root);
    if (address.root && roots.includes(address.root)) return address.root;
    if (info && typeof info.cwd_root === "string" && roots.includes(info.cwd_root)) return info.cwd_root;
    const cwd = info && typeof info.cwd === "string" ? info.cwd : "";
    const holding = roots
      .filter((root) => cwd === root || cwd.startsWith(root.endsWith("/") ? root : `${root}/`))
      .sort((a, b) => b.length - a.length);
    if (holding.length > 0) return holding[0];
    return roots.length > 0 ? roots[0] : "";
  }

  // ---------------------------------------------------------------------------------------
  // Loading
  // ---------------------------------------------------------------------------------------

  async function loadWorkspaces() {
    try {
      const body = await get("/workspaces");
      state.workspaces = list(body.workspaces);
      state.error = "";
    } catch (failure) {
      state.workspaces = state.workspaces || [];
      state.error = T.unreachable(messageOf(failure));
    }
    return state.workspaces;
  }

  /** The memory files' texts. The archive's text only when its raw view is open: it is the
   * largest file by far, and its cards come a page at a time from `/entries`. */
  async function loadFiles(root) {
    if (!root) return;
    try {
      const body = await get("/files", { root, archive: state.raw.has("archive") ? undefined : 0 });
      if (state.selected === root) state.files = body;
    } catch (failure) {
      if (state.selected === root) {
        state.files = null;
        setStatus("err", messageOf(failure));
      }
    }
  }

  async function loadBoot(root) {
    if (!root) return;
    try {
      const body = await get("/boot", { root });
      if (state.selected === root) state.boot = body;
    } catch {
      // a workspace that was never recorded has no boot block to report
      if (state.selected === root) state.boot = null;
    }
  }

  /** The attention strip's counts and the open reports and proposals (shown on the cards
   * they name too). */
  async function loadAttention(root) {
    if (!root) return;
    const [attention, review] = await Promise.all([
      get("/attention", { root, host: state.injectHost || undefined }).then((data) => ({ root, data }), (e) => ({ root, error: messageOf(e) })),
      get("/review", { root }).then((data) => ({ root, data }), (e) => ({ root, error: messageOf(e) })),
    ]);
    if (state.selected !== root) return;
    state.attention = attention;
    state.review = review;
    if (attention.data && attention.data.doctor && attention.data.doctor.pending) awaitDoctor(root);
  }

  /** Bring recall's index up to the transcripts (the server indexes on a thread of its own),
   * showing how many files are read, then read the attention counts again. */
  async function indexRecall() {
    const root = state.selected;
    if (!root || (state.recallIndex && state.recallIndex.running)) return;
    try {
      const started = await post("/recall-index", { root });
      state.recallIndex = { root, ...started.indexing };
      renderAround();
      for (;;) {
        const now = await get("/recall-index", { root });
        if (state.selected !== root) return;
        state.recallIndex = { root, ...now.indexing };
        if (!now.indexing.running) break;
        renderAround();
        await new Promise((done) => setTimeout(done, 300));
      }
      await loadAttention(root);
      const left = state.attention && state.attention.data && state.attention.data.recall;
      if (state.recallIndex.error) setStatus("err", T.recallIndexFailed(state.recallIndex.error));
      else setStatus("ok", T.recallIndexed((left && left.pending_files) || 0));
    } catch (failure) {
      state.recallIndex = null;
      setStatus("err", T.recallIndexFailed(messageOf(failure)));
    }
    state.recallIndex = state.recallIndex && { ...state.recallIndex, running: false };
    render();
  }

  /** Doctor's findings are judged in the background at the server: ask again shortly, and
   * draw them when they come (the attention view in full, elsewhere only the strip). */
  let doctorTimer = 0;
  function awaitDoctor(root) {
    clearTimeout(doctorTimer);
    doctorTimer = setTimeout(async () => {
      if (root !== state.selected) return;
      await loadAttention(root);
      if (root !== state.selected || busy()) return;
      if (state.tab === "attention" && state.form === null && !typingInView()) render();
      else renderAround();
    }, DOCTOR_RETRY_MS);
  }

  async function loadInjection(root) {
    if (!root) return;
    const params = { root, host: state.injectHost || undefined, window: state.injectWindow || undefined };
    // an answer for a workspace, host or window no longer chosen is not shown
    const stillAsked = () =>
      state.selected === root && (state.injectHost || undefined) === params.host && (state.injectWindow || undefined) === params.window;
    try {
      const data = await get("/injection", params);
      if (stillAsked()) state.injection = { root, data };
    } catch (failure) {
      if (stillAsked()) state.injection = { root, error: messageOf(failure) };
    }
  }

  async function loadSections(root) {
    if (!root) return;
    try {
      const data = await get("/sections", { root });
      if (state.selected === root) state.sections = { root, data };
    } catch (failure) {
      if (state.selected === root) state.sections = { root, error: messageOf(failure) };
    }
  }

  /** Card reads run one after another: a re-read and a further page each start from what
   * the one before left, so neither undoes the other. */
  let cardsQueue = Promise.resolve();
  function loadCards(root, fresh, newer) {
    const next = cardsQueue.then(() => loadCardsNow(root, fresh, newer));
    cardsQueue = next.catch(() => {});
    return next;
  }

  /** Load cards into the window: `fresh` again from where it starts (a change, a new view),
   * else the next page after it, or (`newer`) the page before it. The window holds at most
   * CARD_WINDOW cards; what falls out of it is asked for again when scrolled back to. */
  async function loadCardsNow(root, fresh, newer) {
    const view = viewOf(state.tab);
    if (!root || !view.entries) return;
    const had = state.cards && state.cards.root === root && state.cards.view === view.id ? state.cards : null;
    const start = had ? had.start || 0 : 0;
    let offset = 0;
    let limit = PAGE;
    if (had && newer) {
      offset = Math.max(0, start - PAGE);
      limit = Math.max(1, start - offset);
    } else if (had && fresh) {
      offset = start;
      limit = Math.max(PAGE, Math.min(had.entries.length, CARD_WINDOW));
    } else if (had) {
      offset = start + had.entries.length;
    }
    if (had) had.loading = true;
    try {
      let data = await get("/entries", { root, file: view.entries, offset, limit });
      // the file shrank past where the window started: start again from its top
      if (offset > 0 && list(data.entries).length === 0 && fresh) {
        offset = 0;
        data = await get("/entries", { root, file: view.entries, offset, limit });
      }
      if (state.selected !== root || state.tab !== view.id) return;
      const got = list(data.entries);
      let entries = got;
      let first = offset;
      if (had && newer) {
        entries = got.concat(had.entries).slice(0, CARD_WINDOW);
      } else if (had && !fresh) {
        entries = had.entries.concat(got);
        first = start;
        if (entries.length > CARD_WINDOW) {
          const drop = entries.length - CARD_WINDOW;
          entries = entries.slice(drop);
          first += drop;
        }
      }
      state.cards = {
        root,
        view: view.id,
        total: typeof data.total === "number" ? data.total : entries.length,
        entries,
        start: first,
        loading: false,
      };
    } catch (failure) {
      if (state.selected === root && state.tab === view.id) {
        state.cards = { root, view: view.id, entries: [], start: 0, total: 0, error: messageOf(failure), loading: false };
      }
    }
  }

  /** What the open view shows. */
  function loadView(root) {
    const view = viewOf(state.tab);
    if (view.id === "agent") return loadInjection(root);
    if (view.id === "attention") return Promise.resolve();
    if (view.id === "project") return loadSections(root);
    return loadCards(root, true);
  }

  /** The data of the open insight pane (search runs only with a query). */
  async function loadInsight(root, more) {
    if (!root) return;
    const id = state.insight;
    const asked = state.query.trim();
    const had = state.insightData[id];
    let request;
    if (id === "events") {
      const offset = more && had && had.data ? list(had.data.events).length : 0;
      request = get("/events", { root, limit: PAGE, offset: offset || undefined });
    } else if (id === "sessions") request = get("/sessions", { root });
    else if (id === "history") {
      const offset = more && had && had.data ? list(had.data.entries).length : 0;
      request = get("/history", { root, offset, limit: PAGE });
    } else if (id === "weeks") request = get("/weeks", { root });
    else if (id === "search") {
      const q = state.query.trim();
      if (q === "") {
        state.insightData.search = null;
        return;
      }
      request = get("/search", { root, q, limit: 20 });
    } else return;
    try {
      const data = await request;
      if (state.selected !== root || state.insight !== id) return;
      if (id === "search" && state.query.trim() !== asked) return;
      state.insightData[id] = { root, data: more && had && had.data ? mergePage(id, had.data, data) : data, error: "" };
    } catch (failure) {
      if (state.selected === root) state.insightData[id] = { root, data: null, error: messageOf(failure) };
    }
  }

  /** A further page of events or restorable entries joined to what is shown; an answer that
   * brings nothing new (a server that ignores `offset`) ends the paging. */
  function mergePage(id, had, page) {
    const key = id === "events" ? "events" : "entries";
    const seen = new Set(list(had[key]).map((x) => (id === "events" ? x.seq : x.id)));
    const fresh = list(page[key]).filter((x) => !seen.has(id === "events" ? x.seq : x.id));
    return { ...page, [key]: list(had[key]).concat(fresh), exhausted: fresh.length === 0 };
  }

  /** Point the detail at `root` (or at nothing), dropping what belonged to the last one. */
  function select(root) {
    state.selected = root;
    state.files = null;
    state.boot = null;
    state.editing = false;
    state.draft = "";
    state.confirmClear = false;
    state.confirmBoot = "";
    state.insightData = {};
    state.attention = null;
    state.review = null;
    state.injection = null;
    state.cards = null;
    state.sections = null;
    state.revisions = {};
    state.form = null;
    state.armed = "";
    state.change = null;
    state.viewStale = false;
    state.injectRows = TABLE_PAGE;
    state.injectStart = 0;
    state.recallIndex = null;
    state.given = null;
    writeAddress();
  }

  /** Everything the detail shows about the selected workspace; the change token first, so a
   * write landing while these are read is seen by the next poll. */
  const loadSelected = async () => {
    const root = state.selected;
    await syncChange(root);
    await Promise.all([loadFiles(root), loadBoot(root), loadAttention(root), loadView(root), loadInsight(root)]);
  };

  /** Show one workspace: its files, its boot block, the open view and insight pane. */
  async function pick(root) {
    // the open workspace clicked again: keep everything as it is (a draft included)
    if (root === state.selected) return;
    if (!mayDrop(true)) return;
    select(root);
    setStatus("", "");
    render();
    await loadSelected();
    render();
  }

  /** Open one of the detail's views. */
  async function openTab(id, focus) {
    if (id === state.tab) return;
    if (!mayDrop(false)) return;
    state.tab = viewOf(id).id;
    state.form = null;
    state.armed = "";
    state.cards = null;
    state.viewStale = false;
    state.injectRows = TABLE_PAGE;
    state.injectStart = 0;
    writeAddress();
    await showLoaded("tabs", () => loadView(state.selected), focus);
  }

  /** Draw the newly chosen pane, load it and draw it again; with `focus`, the selected tab of
   * `strip` keeps the keyboard focus through both redraws. */
  async function showLoaded(strip, load, focus) {
    const refocus = () => {
      const selected = focus && document.querySelector(`#${strip} [aria-selected="true"]`);
      if (selected) selected.focus();
    };
    render();
    refocus();
    await load();
    render();
    refocus();
  }
  // ---------------------------------------------------------------------------------------
  // Status chip: what trilogy is doing in the directory `trilogy serve` runs in
  // ---------------------------------------------------------------------------------------

  const chip = { cwd: "", snapshot: null, busy: false };

  function startChip(cwd) {
    chip.cwd = typeof cwd === "string" ? cwd : "";
    renderChip();
    if (chip.cwd === "") return;
    pollChip();
    setInterval(pollChip, CHIP_POLL_MS);
  }

  async function pollChip() {
    if (chip.cwd === "") return;
    try {
      chip.snapshot = await get("/status", { cwd: chip.cwd });
    } catch {
      // an unreachable server leaves the last reading on screen
    }
    renderChip();
  }

  async function chipInit() {
    if (chip.busy || chip.cwd === "") return;
    chip.busy = true;
    renderChip();
    try {
      await post("/init", { cwd: chip.cwd });
      await pollChip();
      await loadWorkspaces();
      if (state.selected === "" && state.workspaces.length > 0) await pick(state.workspaces[0].root);
    } catch (failure) {
      setStatus("err", messageOf(failure));
    }
    chip.busy = false;
    render();
  }

  function renderChip() {
    const node = chipNode(chip.cwd, chip.snapshot, chip.busy);
    if (node === null) $("chip").replaceChildren();
    else fill($("chip"), node);
  }

  /** The chip for a `/status` reading of `cwd`: nothing without a cwd or a reading, a button
   * when the folder has no memory (it creates it), else a plain status span. */
  function chipNode(cwd, snap, initBusy) {
    if (typeof cwd !== "string" || cwd === "" || snap === null || typeof snap !== "object") return null;
    const now = typeof snap.now === "number" ? snap.now : Date.now();
    const phase = typeof snap.phase === "string" ? snap.phase : "idle";
    // a finished write announces itself briefly, then settles
    const shown = phase === "done" && now - (snap.at || 0) > DONE_LINGER_MS ? "idle" : phase;
    const canInit = shown === "none";
    const label = canInit ? T.chipInit : T.chip[shown] || shown;
    const tone = shown === "recording" || shown === "updating" ? "busy" : shown === "done" ? "ok" : canInit ? "warn" : "idle";
    const synced = typeof snap.lastSyncAt === "number" && snap.lastSyncAt > 0;
    const title = [
      T.chipState(label),
      canInit ? T.chipInitTitle : null,
      T.chipSynced(agoText(snap.lastSyncAt, now)),
      snap.workspace ? T.chipWorkspace(snap.workspace) : null,
      snap.lastSyncFile ? T.chipFile(snap.lastSyncFile) : null,
    ]
      .filter(Boolean)
      .join("\n");
    const attrs = { class: "tp-chip", id: "status-chip", "data-tone": tone, "data-phase": shown, title, role: "status" };
    const parts = [
      h("span", { class: "tp-dot", "aria-hidden": "true" }),
      h("span", { class: "tp-chip-label" }, label),
      synced ? h("span", { class: "tp-chip-ago" }, `· ${agoText(snap.lastSyncAt, now)}`) : null,
    ];
    return canInit
      ? h("button", { ...attrs, type: "button", disabled: initBusy, onclick: chipInit }, parts)
      : h("span", attrs, parts);
  }

  // ---------------------------------------------------------------------------------------
  // Workspace list
  // ---------------------------------------------------------------------------------------

  function workspaceBadge(w) {
    if (!w.exists) return h("span", { class: "tp-badge", "data-tone": "off" }, T.badgeCleared);
    return w.empty
      ? h("span", { class: "tp-badge" }, T.badgeEmpty)
      : h("span", { class: "tp-badge", "data-tone": "ok" }, T.badgeRecorded);
  }

  async function forget(root) {
    await act("forget", async () => {
      await post("/forget", { root });
      const list = await loadWorkspaces();
      // the detail must not stay on a row the list no longer has
      if (root === state.selected && !list.some((w) => w.root === root)) {
        select(list.length > 0 ? list[0].root : "");
        await loadSelected();
      }
      setStatus("ok", T.forgotten(root));
    });
  }

  function renderList() {
    const list = state.workspaces;
    $("side-count").textContent = list === null ? "" : String(list.length);
    const container = $("side-list");
    if (list === null) return fill(container, h("p", { class: "tp-empty" }, T.loading));
    if (list.length === 0) return fill(container, h("p", { class: "tp-empty" }, T.noWorkspaces));
    const needle = state.filter.trim().toLowerCase();
    const shown = list.filter((w) => needle === "" || String(w.root).toLowerCase().includes(needle));
    if (shown.length === 0) return fill(container, h("p", { class: "tp-empty" }, T.noMatch));
    fill(
      container,
      shown.map((w) =>
        h(
          "div",
          { class: "tp-item", "data-root": w.root, "data-active": String(w.root === state.selected) },
          h(
            "div",
            { class: "tp-item-top" },
            h("button", { type: "button", class: "tp-item-pick", title: w.root, onclick: () => pick(w.root) }, folderName(w.root)),
            h(
              "span",
              { class: "tp-item-actions" },
              workspaceBadge(w),
              // only a workspace whose files are gone can be forgotten: a live one would come
              // straight back with its next session
              w.exists
                ? null
                : h(
                    "button",
                    { type: "button", class: "tp-btn tp-btn-mini tp-forget", disabled: busy(), onclick: () => forget(w.root) },
                    T.forget,
                  ),
            ),
          ),
          h("span", { class: "tp-path" }, w.root),
        ),
      ),
    );
  }

  // ---------------------------------------------------------------------------------------
  // Detail: title, attention strip, staleness banner, view tabs
  // ---------------------------------------------------------------------------------------

  function renderTitle(w) {
    const lastSeen = w.lastSeen ? Date.parse(w.lastSeen) : Number.NaN;
    fill(
      $("detail-title"),
      h(
        "div",
        { class: "tp-title-row" },
        h("span", { class: "tp-name" }, folderName(w.root)),
        workspaceBadge(w),
        Number.isFinite(lastSeen) ? h("span", { class: "tp-meta" }, T.lastActive(agoText(lastSeen, Date.now()))) : null,
      ),
      h("span", { class: "tp-path", id: "detail-root" }, w.root),
    );
  }

  function renderStatusLine() {
    const line = $("status");
    line.className = `tp-status ${state.status.kind === "err" ? "tp-err" : state.status.kind === "ok" ? "tp-ok" : ""}`;
    fill(
      line,
      state.status.text,
      // a clear can be undone for as long as its answer is on screen
      state.lastClear && state.lastClear.root === state.selected
        ? [" ", button({ class: "tp-btn tp-btn-mini", id: "clear-undo", disabled: busy(), onclick: undoClear }, T.undoClear)]
        : null,
    );
  }

  /** A link to one of the views: a real address (it can be opened in a new tab), followed
   * in place on a plain click. */
  function viewLink(tab, attrs, ...children) {
    return h(
      "a",
      {
        href: addressOf(tab),
        ...attrs,
        onclick: (event) => {
          if (event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
          event.preventDefault();
          openTab(tab);
        },
      },
      children,
    );
  }

  /** What the agents get first ("本次注入 …"), then what waits for a person: open reports,
   * pending proposals, reviews due, a stale PROJECT, doctor findings, the recall index. */
  function renderStrip() {
    const slot = state.attention && state.attention.root === state.selected ? state.attention : null;
    const data = slot && slot.data;
    // the block of the host picked in the agent view, with that host's limit: its account's
    // line once read, the attention answer's (asked for that host) before
    const shown = state.injection && state.injection.root === state.selected && state.injection.data;
    const ledger = (shown && shown.ledger_line) || (data && data.ledger_line) || "";
    $("ledger-line").textContent = ledger;
    $("ledger-line").dataset.host = (shown && shown.host) || state.injectHost || "cli";
    $("ledger-line").hidden = ledger === "";
    if (!data) return fill($("attention"));
    const doctor = data.doctor || {};
    const errors = doctor.errors || 0;
    const warnings = doctor.warnings || 0;
    const recall = data.recall;
    const items = [
      { key: "reports", n: data.reports_open || 0, text: T.attReports(data.reports_open || 0), tab: "attention" },
      { key: "proposals", n: data.proposals_pending || 0, text: T.attProposals(data.proposals_pending || 0), tab: "attention" },
      { key: "due", n: data.due || 0, text: T.attDue(data.due || 0), tab: "decisions" },
      data.stale
        ? { key: "stale", n: 1, text: T.attStale(data.stale.behind_days), tab: "project" }
        : { key: "stale", n: 0, text: T.attFresh, tab: "project" },
      doctor.pending
        ? { key: "doctor", n: 0, text: T.attDoctorPending, tab: "attention" }
        : { key: "doctor", n: errors + warnings, text: T.attDoctor(errors, warnings), tab: "attention", tone: errors > 0 ? "off" : "warn" },
      recallItem(recall),
    ].filter(Boolean);
    fill(
      $("attention"),
      items.map((item) =>
        item.act
          ? button({ class: "tp-att", id: "recall-index", title: T.recallIndexTitle, "data-att": item.key, "data-count": item.n, "data-tone": item.running ? "busy" : "warn", "aria-busy": item.running ? "true" : false, disabled: item.running, onclick: item.act }, item.text)
          : viewLink(
          item.tab,
          { class: "tp-att", "data-att": item.key, "data-count": item.n, "data-tone": item.n > 0 ? item.tone || "warn" : "ok" },
          item.text,
        ),
      ),
    );
  }

  /** The strip's recall item: files waiting to be indexed make it the button that indexes
   * them, and while that runs it says how far it got. */
  function recallItem(recall) {
    const run = state.recallIndex && state.recallIndex.root === state.selected && state.recallIndex.running ? state.recallIndex : null;
    if (run) return { key: "recall", n: 1, text: T.recallIndexing(run.done || 0, run.total || 0), act: indexRecall, running: true };
    if (!recall) return { key: "recall", n: 0, text: T.attRecall(false, 0), tab: "attention" };
    const pending = recall.pending_files || 0;
    if (pending > 0) return { key: "recall", n: 1, text: T.attRecall(true, pending), act: indexRecall };
    return { key: "recall", n: recall.complete ? 0 : 1, text: T.attRecall(true, 0), tab: "attention" };
  }

  /** The staleness reading: the attention answer's, else the one `/files` carries. */
  function staleness() {
    const att = state.attention && state.attention.data;
    if (att && "stale" in att) {
      return att.stale ? { days: att.stale.behind_days, entries: att.stale.entries_since } : null;
    }
    const st = state.files && state.files.staleness;
    return st && st.stale ? { days: st.behindDays, entries: st.entriesSince } : null;
  }

  function renderStale() {
    const st = staleness();
    if (!st) return fill($("stale"));
    fill(
      $("stale"),
      h(
        "div",
        { class: "tp-stale", id: "stale-banner", role: "status" },
        h("span", { class: "tp-badge" }, T.staleBadge),
        h("span", { class: "tp-stale-text" }, T.staleText(st.days, st.entries)),
        button({ class: "tp-btn tp-btn-mini tp-btn-primary", id: "stale-edit", onclick: editProjectNow }, T.staleEdit),
      ),
    );
  }

  /** The staleness banner's action: the PROJECT view with its first section's editor open. */
  async function editProjectNow() {
    await openTab("project");
    if (state.tab !== "project") return;
    const sections = state.sections && state.sections.data ? list(state.sections.data.sections).filter((x) => !x.removed) : [];
    if (sections.length > 0) views.openSectionForm(sections[0]);
    else {
      state.raw.add("project");
      render();
    }
    const field = document.querySelector("#content textarea");
    if (field) field.focus();
  }

  async function reread() {
    await act("reread", async () => {
      await Promise.all([loadFiles(state.selected), loadAttention(state.selected), loadView(state.selected), loadInsight(state.selected)]);
    });
  }

  /** ←/→/Home/End move between the tabs of a tablist (roving tabindex). */
  function tabKeys(event, ids, selected, go) {
    const at = ids.indexOf(selected);
    let next = -1;
    if (event.key === "ArrowRight") next = (at + 1) % ids.length;
    else if (event.key === "ArrowLeft") next = (at - 1 + ids.length) % ids.length;
    else if (event.key === "Home") next = 0;
    else if (event.key === "End") next = ids.length - 1;
    if (next < 0) return;
    event.preventDefault();
    go(ids[next]);
  }

  function tabButton(attrs, selected, label) {
    return h(
      "button",
      { type: "button", class: "tp-btn tp-tab", role: "tab", "aria-selected": String(selected), tabindex: selected ? "0" : "-1", ...attrs },
      label,
    );
  }

  function renderTabs() {
    fill(
      $("tabs"),
      VIEWS.map((view) =>
        tabButton(
          { "data-tab": view.id, "data-file": view.file, id: `tab-${view.id}`, "aria-controls": "content", onclick: () => openTab(view.id) },
          view.id === state.tab,
          view.label(),
        ),
      ),
    );
  }

  function fileEntry(name) {
    const files = state.files && state.files.files;
    return files ? files[name] || null : null;
  }

  /** The views that draw cards (PROJECT's sections, the entries) and can show the raw file
   * instead. */
  const hasCards = (view) => view.id === "project" || !!view.entries;

  const showsRaw = (view) => !!view.file && state.raw.has(view.id);

  function renderToolbar() {
    const view = viewOf(state.tab);
    const hint = $("archive-hint");
    hint.hidden = view.file !== ARCHIVE;
    hint.textContent = T.archiveHint;
    const exportButton = $("export");
    exportButton.textContent = state.busy === "export" ? T.exporting : T.exportLabel;
    exportButton.disabled = busy();
    const importButton = $("import");
    importButton.textContent = state.busy === "import" ? T.importing : T.importLabel;
    importButton.disabled = busy();
    const rereadButton = $("reread");
    rereadButton.textContent = T.reread;
    rereadButton.disabled = busy();
    // the group-by select and the raw toggle belong to the card views
    const cards = !!view.file && hasCards(view);
    const raw = $("raw-toggle");
    raw.hidden = !cards;
    raw.textContent = state.raw.has(view.id) ? T.rawOff : T.rawOn;
    raw.title = T.rawTitle;
    raw.setAttribute("aria-pressed", String(state.raw.has(view.id)));
    const group = $("group-by");
    $("group-field").hidden = !cards || !view.entries || state.raw.has(view.id);
    $("group-label").textContent = T.groupBy;
    fill(group, ["date", "area", "kind"].map((g) => h("option", { value: g, selected: g === state.groupBy }, T.group[g])));
    group.value = state.groupBy;
    const entry = view.file ? fileEntry(view.file) : null;
    $("file-meta").textContent = entry
      ? T.fileMeta(view.file, entry.bytes, typeof entry.mtime === "number" ? agoText(entry.mtime, Date.now()) : "")
      : "";
  }

  function renderContent() {
    const view = viewOf(state.tab);
    const content = $("content");
    content.setAttribute("data-view", view.id);
    content.setAttribute("aria-labelledby", `tab-${view.id}`);
    content.setAttribute("role", "tabpanel");
    let ready = true;
    let drawn;
    if (view.id === "agent") {
      ready = !!state.injection;
      drawn = views.agentView();
    } else if (view.id === "attention") {
      ready = !!state.attention;
      drawn = views.attentionView();
    } else if (showsRaw(view)) {
      ready = state.files !== null && !(fileEntry(view.file) || {}).omitted;
      drawn = rawView(view);
    } else if (view.id === "project") {
      ready = !!state.sections;
      drawn = views.sectionsView();
    } else {
      ready = !!state.cards;
      drawn = views.cardsView(view);
    }
    content.setAttribute("data-ready", String(ready));
    fill(content, drawn);
    views.observeMore();
  }

  function rawView(view) {
    const entry = fileEntry(view.file);
    const text = entry && typeof entry.text === "string" ? entry.text : "";
    const waiting = state.files === null || (entry !== null && entry.omitted);
    const shown = waiting ? T.loading : entry === null ? T.fileMissing : text.length === 0 ? T.fileEmpty : text;
    return h("pre", { class: "tp-pre", id: "file-text", "data-file": view.file }, shown);
  }

  /** Where a restored entry landed, from the answer's `where` (its file and 1-based place
   * in the file's date order). */
  function landed(out, fallbackFile) {
    const where = (out && (out.where || out)) || {};
    const file = where.file || fallbackFile;
    return T.restoredWhere(file, typeof where.position === "number" ? where.position : undefined, where.of);
  }

  /** After a write from the page: everything that may show it, read again (the page's own
   * write is not news for the poll). */
  /** The panes not on screen are read again when opened, rather than shown as they were
   * before a write. */
  function forgetOtherInsights() {
    for (const id of Object.keys(state.insightData)) {
      if (id !== state.insight) state.insightData[id] = undefined;
    }
  }

  async function afterWrite() {
    const root = state.selected;
    state.viewStale = false;
    forgetOtherInsights();
    await syncChange(root);
    await Promise.all([loadFiles(root), loadAttention(root), loadView(root), loadInsight(root)]);
  }
  // ---------------------------------------------------------------------------------------
  // Export and import
  // ---------------------------------------------------------------------------------------

  /** `<folder>-memory-<YYYY-MM-DD>.json`, the date in UTC. */
  function exportFileName(root, date) {
    return `${folderName(root)}-memory-${date.toISOString().slice(0, 10)}.json`;
  }

  /** Hand a text file to the browser's download machinery; false when it cannot. */
  function download(fileName, text) {
    if (typeof Blob !== "function" || typeof URL.createObjectURL !== "function") return false;
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const anchor = h("a", { href: url, download: fileName, rel: "noopener", hidden: true });
    document.body.appendChild(anchor);
    anchor.click();
    anchor.remove();
    // revoking in the same tick can cancel a download the browser has not started reading
    setTimeout(() => URL.revokeObjectURL(url), 1000);
    return true;
  }

  /** The bundle export would save, and under which name. */
  async function exportBundle(root) {
    const bundle = await get("/export", { root });
    return { fileName: exportFileName(root, new Date()), text: JSON.stringify(bundle, null, 2), bundle };
  }

  async function exportMemory() {
    await act("export", async () => {
      const { fileName, text, bundle } = await exportBundle(state.selected);
      const count = Object.keys(bundle.files || {}).length;
      if (download(fileName, text)) setStatus("ok", T.exported(count));
      else setStatus("err", T.cannotDownload);
    });
  }

  /** What an import did, from the server's answer. */
  function importedText(result) {
    return T.imported(
      Number(result.added) || 0,
      list(result.sections_added).length,
      Number(result.already_present) || 0,
      list(result.sections_kept).length,
    );
  }

  async function importMemory(event) {
    const input = event.target;
    const chosen = input.files && input.files[0];
    if (!chosen) return;
    await act("import", async () => {
      try {
        const raw = await chosen.text();
        let bundle;
        try {
          bundle = JSON.parse(raw);
        } catch (failure) {
          // never POSTed: a file that is not JSON cannot be a bundle
          setStatus("err", T.badJson(messageOf(failure)));
          return;
        }
        const result = await post("/import", { root: state.selected, bundle });
        await loadWorkspaces();
        await loadSelected();
        setStatus("ok", importedText(result));
      } finally {
        input.value = "";
      }
    });
  }

  // ---------------------------------------------------------------------------------------
  // The instruction file (AGENTS.md or the registered bootBlockFile)
  // ---------------------------------------------------------------------------------------

  function instruction() {
    return (state.files && state.files.instruction) || null;
  }

  function bootBadge(boot) {
    if (boot.exists) {
      return boot.current
        ? h("span", { class: "tp-badge", id: "boot-badge", "data-tone": "ok" }, T.bootWritten)
        : h("span", { class: "tp-badge", id: "boot-badge", "data-tone": "warn" }, T.bootOld);
    }
    return h("span", { class: "tp-badge", id: "boot-badge", "data-tone": "off" }, boot.fileExists ? T.bootMissing : T.bootNoFile);
  }

  function startEdit() {
    const ins = instruction();
    if (ins === null) return;
    state.editing = true;
    state.draft = typeof ins.text === "string" ? ins.text : "";
    state.confirmBoot = "";
    const editor = $("instruction-edit");
    editor.value = state.draft;
    setStatus("", "");
    render();
    editor.focus();
  }

  function cancelEdit() {
    state.editing = false;
    state.draft = "";
    render();
  }

  async function saveInstruction() {
    const ins = instruction();
    if (ins === null) return;
    await act("save", async () => {
      await post("/save", { root: state.selected, file: ins.name, text: state.draft });
      state.editing = false;
      state.draft = "";
      await loadSelected();
      setStatus("ok", T.saved(ins.name));
    });
  }

  async function bootAction(action) {
    state.confirmBoot = "";
    await act("boot", async () => {
      await post("/boot", { root: state.selected, action });
      // both halves: the editor's text comes from /files, so re-reading only the badge would
      // leave a removed block in the editor, and saving that would put it back
      await loadSelected();
      setStatus("ok", action === "remove" ? T.bootRemoved : T.bootRewritten);
    });
  }

  /** A block action's first click only arms it; the second, on the confirm button, acts. */
  function armBoot(action) {
    state.confirmBoot = action;
    render();
  }

  function renderInstruction() {
    const boot = state.boot;
    const ins = instruction();
    const path = boot ? boot.file : ins ? ins.path : "";
    fill(
      $("instruction-head"),
      h("span", { class: "tp-label" }, T.instruction),
      h("span", { class: "tp-path", id: "instruction-path" }, path || T.loading),
      boot ? bootBadge(boot) : null,
    );
    const actions = [];
    if (state.editing) {
      actions.push(
        button({ class: "tp-btn tp-btn-primary", id: "instruction-save", disabled: busy(), onclick: saveInstruction }, state.busy === "save" ? T.saving : T.save),
        button({ id: "instruction-cancel", disabled: busy(), onclick: cancelEdit }, T.cancel),
        h("span", { class: "tp-hint" }, T.editHint(ins ? ins.name : T.instruction)),
      );
    } else if (state.confirmBoot) {
      const remove = state.confirmBoot === "remove";
      actions.push(
        h("span", { class: "tp-warn", id: "boot-warning" }, remove ? T.removeWarn : T.rewriteWarn),
        button(
          { class: `tp-btn ${remove ? "tp-btn-danger" : "tp-btn-primary"}`, id: "boot-confirm", disabled: busy(), onclick: () => bootAction(state.confirmBoot) },
          remove ? T.confirmRemoveBlock : T.confirmRewrite,
        ),
        button(
          {
            id: "boot-cancel",
            disabled: busy(),
            onclick: () => {
              state.confirmBoot = "";
              render();
            },
          },
          T.cancel,
        ),
      );
    } else {
      actions.push(
        button({ class: "tp-btn tp-btn-primary", id: "instruction-edit-open", disabled: busy() || ins === null, onclick: startEdit }, T.edit),
        button({ id: "boot-rewrite", disabled: busy() || boot === null, onclick: () => armBoot("rewrite") }, state.busy === "boot" ? T.rewriting : T.rewrite),
        button({ class: "tp-btn tp-btn-danger", id: "boot-remove", disabled: busy() || boot === null || !boot.exists, onclick: () => armBoot("remove") }, T.remove),
        boot ? h("span", { class: "tp-hint", id: "boot-hint" }, boot.exists ? T.bootPresentHint : T.bootAbsentHint) : null,
      );
    }
    fill($("instruction-actions"), actions);
    const editor = $("instruction-edit");
    editor.hidden = !state.editing;
    editor.disabled = state.busy === "save";
  }

  // ---------------------------------------------------------------------------------------
  // The danger row: clear, armed by a first click, undone from its answer
  // ---------------------------------------------------------------------------------------

  async function clearWorkspace() {
    const root = state.selected;
    state.confirmClear = false;
    await act("clear", async () => {
      const body = await post("/clear", { root });
      await loadWorkspaces();
      await Promise.all([loadFiles(root), loadBoot(root), loadAttention(root), loadView(root), loadInsight(root)]);
      const undoable = body.clear_id !== undefined && body.clear_id !== null && body.undoable !== false;
      state.lastClear = undoable ? { root, id: body.clear_id, boot: body.bootBlockRemoved === true } : null;
      setStatus("ok", T.cleared(list(body.cleared).length, body.bootBlockRemoved === true, Number(body.entries) || 0, Number(body.sections) || 0), undoable);
    });
  }

  async function undoClear() {
    const undo = state.lastClear;
    if (!undo || undo.root !== state.selected) return;
    await act("restore", async () => {
      const out = await post("/restore", { root: undo.root, clear: undo.id });
      state.lastClear = null;
      await loadWorkspaces();
      await Promise.all([loadBoot(undo.root), afterWrite()]);
      setStatus("ok", T.undone(Number(out.entries) || 0, Number(out.sections) || 0, list(out.left).length, undo.boot));
    });
  }

  function renderDanger(w) {
    const row = $("danger");
    if (state.confirmClear) {
      return fill(
        row,
        h("span", { class: "tp-warn", id: "clear-warning" }, T.clearWarn(folderName(w.root))),
        button({ class: "tp-btn tp-btn-danger", id: "clear-confirm", disabled: busy(), onclick: clearWorkspace }, T.confirmClear),
        button(
          {
            id: "clear-cancel",
            disabled: busy(),
            onclick: () => {
              state.confirmClear = false;
              render();
            },
          },
          T.cancel,
        ),
      );
    }
    fill(
      row,
      h("span", { class: "tp-hint" }, T.danger),
      button(
        {
          class: "tp-btn tp-btn-danger",
          id: "clear",
          disabled: busy(),
          onclick: () => {
            state.confirmClear = true;
            render();
          },
        },
        state.busy === "clear" ? T.clearing : T.clear,
      ),
    );
  }

  // ---------------------------------------------------------------------------------------
  // Insight panes: search, changes, agent sessions, restorable entries, sessions per week
  // ---------------------------------------------------------------------------------------

  async function openInsight(id, focus) {
    state.insight = id;
    await showLoaded("insight-tabs", () => loadInsight(state.selected), focus);
  }

  async function moreInsight() {
    await act("more", () => loadInsight(state.selected, true));
  }

  async function runSearch(event) {
    event.preventDefault();
    state.query = $("search-q").value;
    state.insight = "search";
    state.insightData.search = undefined;
    render();
    await loadInsight(state.selected);
    render();
  }

  async function restoreById(entry) {
    await act("restore", async () => {
      const out = await post("/restore", { root: state.selected, id: entry.id, version: entry.version });
      await afterWrite();
      setStatus("ok", `${T.restoredEntry(out.heading || entry.heading || entry.id)} · ${landed(out, entry.file)}`);
    });
  }

  function renderInsight() {
    $("search-q").placeholder = T.searchPlaceholder;
    $("search-go").textContent = T.search;
    fill(
      $("insight-tabs"),
      INSIGHTS.map((pane) =>
        tabButton({ "data-insight": pane.id, "aria-controls": "insight-body", onclick: () => openInsight(pane.id) }, pane.id === state.insight, pane.label()),
      ),
    );
    const body = $("insight-body");
    body.setAttribute("data-insight", state.insight);
    body.setAttribute("role", "tabpanel");
    const slot = state.insightData[state.insight];
    if (state.insight === "search" && state.query.trim() === "") return fill(body, h("p", { class: "tp-empty" }, T.searchPrompt));
    if (slot === undefined || slot === null) return fill(body, h("p", { class: "tp-empty" }, T.loading));
    if (slot.error) return fill(body, h("p", { class: "tp-status tp-err" }, slot.error));
    const draw = { search: searchPane, events: eventsPane, sessions: sessionsPane, history: historyPane, weeks: weeksPane }[state.insight];
    fill(body, draw(slot.data));
  }

  function searchPane(data) {
    const hits = list(data && data.hits);
    if (hits.length === 0) return h("p", { class: "tp-empty", id: "search-none" }, T.noHits);
    return h(
      "div",
      { class: "tp-archive", id: "search-hits" },
      hits.map((hit, rank) =>
        h(
          "div",
          { class: "tp-entry tp-hit", "data-id": hit.id || "" },
          h(
            "div",
            { class: "tp-entry-head" },
            h("span", { class: "tp-meta" }, `#${rank + 1}`),
            h("span", { class: "tp-strong" }, hit.heading || hit.file || ""),
            h("span", { class: "tp-meta" }, hit.file || ""),
            hit.state && hit.state !== "live" ? h("span", { class: "tp-badge", "data-tone": "warn" }, T.hitState[hit.state] || hit.state) : null,
            hit.weak ? h("span", { class: "tp-badge" }, T.weakHit) : null,
          ),
          h("pre", { class: "tp-pre" }, typeof hit.text === "string" ? hit.text : hit.snippet || ""),
        ),
      ),
    );
  }

  function actorChip(actor) {
    return h("span", { class: "tp-actor", title: actor, "data-actor": actor }, T.actor(String(actor || "")));
  }

  /** An operation's name in the page's language; an unknown one as the server wrote it. */
  const opName = (op) => T.op[op] || op;

  /** "More" under a paged pane, while the last page was full and brought something new. */
  function moreButton(id, shown, total, exhausted, lastPage) {
    const more = typeof total === "number" ? shown < total : !exhausted && lastPage >= PAGE;
    if (more && shown >= LIST_CAP) return h("span", { class: "tp-meta", id: `${id}-capped` }, T.listCapped(LIST_CAP));
    return more ? button({ id, class: "tp-btn tp-more", disabled: busy(), onclick: moreInsight }, T.more) : null;
  }

  function eventsPane(data) {
    const events = list(data && data.events);
    if (events.length === 0) return h("p", { class: "tp-empty" }, T.noEvents);
    return [
      h(
        "table",
        { class: "tp-table", id: "events-table" },
        h("thead", null, h("tr", null, h("th", null, T.colWhen), h("th", null, T.colWho), h("th", null, T.colWhat), h("th", null, T.colDetail))),
        h(
          "tbody",
          null,
          events.map((e) =>
            h(
              "tr",
              { class: "tp-event", "data-seq": e.seq },
              h("td", { class: "tp-nowrap" }, stamp(e.at)),
              h("td", null, actorChip(e.actor)),
              h("td", { class: "tp-nowrap", "data-op": e.op, title: e.op }, opName(e.op)),
              h("td", null, e.detail || ""),
            ),
          ),
        ),
      ),
      moreButton("events-more", events.length, undefined, data.exhausted, events.length % PAGE === 0 ? PAGE : 0),
    ];
  }

  function droppedText(dropped) {
    if (!dropped) return T.droppedNothing;
    const parts = [];
    if (list(dropped.sections_cut).length > 0) parts.push(T.droppedSections(dropped.sections_cut.join("、")));
    if (dropped.decisions > 0) parts.push(T.droppedDecisions(dropped.decisions, dropped.decisions_from));
    if (list(dropped.sessions).length > 0) parts.push(T.droppedSessions(dropped.sessions.length));
    return parts.length === 0 ? T.droppedNothing : parts.join(" · ");
  }

  /** Open (or close) what agent session `id` was given word for word. */
  async function toggleGiven(id) {
    const root = state.selected;
    if (state.given && state.given.root === root && state.given.id === id) {
      state.given = null;
      return renderInsight();
    }
    state.given = { root, id };
    renderInsight();
    try {
      const data = await get("/given", { root, id });
      if (state.given && state.given.id === id) state.given = { root, id, data };
    } catch (failure) {
      if (state.given && state.given.id === id) state.given = { root, id, error: messageOf(failure) };
    }
    renderInsight();
  }

  /** The blocks and notices a session was given, oldest first, each as its text. */
  function givenRow(x) {
    const g = state.given;
    const items = list(g.data && g.data.items);
    const body = g.error
      ? h("p", { class: "tp-status tp-err" }, g.error)
      : !g.data
      ? h("p", { class: "tp-empty" }, T.loading)
      : items.length === 0
      ? h("p", { class: "tp-empty" }, T.givenNone)
      : items.map((item) =>
          h(
            "div",
            { class: "tp-given-item", "data-kind": item.kind },
            h("div", { class: "tp-meta" }, `${item.kind === "block" ? T.givenBlock(item.source) : T.givenNotice} · ${stamp(item.at)}`),
            h("pre", { class: "tp-pre tp-given-text", tabindex: "0" }, item.text || ""),
          ),
        );
    return h("tr", { class: "tp-given", "data-session": x.id }, h("td", { colspan: "3" }, body));
  }

  function sessionsPane(data) {
    const sessions = Array.isArray(data) ? data : list(data && data.sessions);
    if (sessions.length === 0) return h("p", { class: "tp-empty" }, T.noSessions);
    const open = (x) => !!state.given && state.given.root === state.selected && state.given.id === x.id;
    return h(
      "table",
      { class: "tp-table", id: "sessions-table" },
      h("thead", null, h("tr", null, h("th", null, T.colSession), h("th", null, T.colInjected), h("th", null, T.colDropped))),
      h(
        "tbody",
        null,
        sessions.slice(0, TABLE_PAGE).map((x) => [
          h(
            "tr",
            { class: "tp-session", "data-session": x.id },
            h(
              "td",
              null,
              h("div", { class: "tp-strong" }, x.id),
              h("div", { class: "tp-meta" }, `${x.host || ""} · ${stamp(x.started_at)}${x.ended_at ? ` · ${T.sessionEnded}` : ""}`),
              button({ class: "tp-btn tp-btn-mini tp-given-toggle", "aria-expanded": open(x) ? "true" : "false", onclick: () => toggleGiven(x.id) }, open(x) ? T.givenHide : T.givenShow),
            ),
            h(
              "td",
              null,
              h("div", null, T.injectedTimes(x.injections || 0, x.source, stamp(x.injected_at))),
              h("div", { class: "tp-meta" }, T.entriesInjected(list(x.injected_ids).length)),
            ),
            h("td", { class: "tp-dropped" }, droppedText(x.dropped)),
          ),
          open(x) ? givenRow(x) : null,
        ]),
      ),
    );
  }

  function historyPane(data) {
    const entries = list(data && data.entries);
    if (entries.length === 0) return h("p", { class: "tp-empty" }, T.noHistory);
    return [
      h(
        "div",
        { class: "tp-archive", id: "history" },
        entries.map((e) =>
          h(
            "div",
            { class: "tp-entry tp-history", "data-id": e.id, "data-state": e.state },
            h(
              "div",
              { class: "tp-entry-head" },
              button({ class: "tp-btn tp-history-restore", disabled: busy(), onclick: () => restoreById(e) }, T.restore),
              h("span", { class: "tp-badge", "data-tone": "warn" }, T.historyState[e.state] || e.state),
              h("span", { class: "tp-strong" }, e.heading || ""),
              h("span", { class: "tp-meta" }, `${e.file || ""}${e.at ? ` · ${stamp(e.at)}` : ""}`),
            ),
            h("pre", { class: "tp-pre" }, e.text || ""),
          ),
        ),
      ),
      typeof data.total === "number" ? h("span", { class: "tp-meta", id: "history-count" }, T.shownOf(entries.length, data.total)) : null,
      moreButton("history-more", entries.length, typeof data.total === "number" ? data.total : undefined, data.exhausted, typeof data.total === "number" ? PAGE : 0),
    ];
  }

  const PALETTE = ["#3964fe", "#1a8f4a", "#c47f17", "#a33ea1", "#0e8fa3", "#cc3333", "#6b7a99", "#7a5c2e"];

  const DAY_MS = 86400000;

  /** UTC midnight of the Monday of ISO week `YYYY-Www`, or null. */
  function isoWeekMonday(label) {
    const m = /^(\d{4})-W(\d{2})$/.exec(String(label));
    if (!m) return null;
    const jan4 = Date.UTC(Number(m[1]), 0, 4);
    const fromMonday = (new Date(jan4).getUTCDay() + 6) % 7;
    return jan4 - fromMonday * DAY_MS + (Number(m[2]) - 1) * 7 * DAY_MS;
  }

  /** `YYYY-Www` of the ISO week holding the UTC day `ms`. */
  function isoWeekLabel(ms) {
    const fromMonday = (new Date(ms).getUTCDay() + 6) % 7;
    const monday = ms - fromMonday * DAY_MS;
    // the ISO year is the year of the week's Thursday
    const year = new Date(monday + 3 * DAY_MS).getUTCFullYear();
    const week = Math.round((monday - isoWeekMonday(`${year}-W01`)) / (7 * DAY_MS)) + 1;
    return `${year}-W${String(week).padStart(2, "0")}`;
  }

  /** Today as UTC midnight: the server's date when it gives one (it honours a pinned date),
   * else the browser's. */
  function todayMs() {
    const today = state.info && typeof state.info.today === "string" ? Date.parse(`${state.info.today}T00:00:00Z`) : Number.NaN;
    if (Number.isFinite(today)) return today;
    const now = new Date();
    return Date.UTC(now.getFullYear(), now.getMonth(), now.getDate());
  }

  /** The weeks up to the one holding `today`, from the first one listed (at most `most`),
   * quiet weeks included, so the x axis is time and its right end is now. */
  function everyWeek(listed, most, today) {
    const known = listed.filter((w) => isoWeekMonday(w.week) !== null);
    if (known.length === 0) return listed.slice(-most);
    const byWeek = new Map(known.map((w) => [w.week, w]));
    const lastListed = isoWeekMonday(known[known.length - 1].week);
    const last = Math.max(lastListed, isoWeekMonday(isoWeekLabel(today)));
    const first = Math.max(isoWeekMonday(known[0].week), last - (most - 1) * 7 * DAY_MS);
    const out = [];
    for (let t = first; t <= last; t += 7 * DAY_MS) {
      const label = isoWeekLabel(t);
      out.push(byWeek.get(label) || { week: label, areas: {} });
    }
    return out;
  }

  /** Stacked bars of session entries per ISO week, one colour per area (the most frequent
   * areas get their own colours, the rest share the last one). */
  function weeksPane(data) {
    const weeks = everyWeek(list(data && data.weeks), 26, todayMs());
    if (weeks.length === 0) return h("p", { class: "tp-empty" }, T.noWeeks);
    const totals = new Map();
    for (const w of weeks) for (const [area, n] of Object.entries(w.areas || {})) totals.set(area, (totals.get(area) || 0) + n);
    const areas = [...totals.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([area]) => area);
    const colour = (area) => PALETTE[Math.min(areas.indexOf(area), PALETTE.length - 1)];
    const max = Math.max(1, ...weeks.map((w) => Object.values(w.areas || {}).reduce((a, b) => a + b, 0)));
    const width = 640;
    const height = 160;
    const top = 10;
    const bottom = 22;
    const left = 28;
    const plot = height - top - bottom;
    const step = (width - left) / weeks.length;
    const bar = Math.max(2, Math.min(28, step * 0.7));
    const lastWeek = weeks[weeks.length - 1].week;
    const svg = s("svg", { class: "tp-chart", id: "weeks-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": T.weeksCaption(weeks.length, lastWeek) });
    svg.appendChild(s("text", { x: 0, y: top + 8 }, String(max)));
    svg.appendChild(s("text", { x: 0, y: top + plot }, "0"));
    svg.appendChild(s("line", { x1: left - 4, x2: width, y1: top + plot + 0.5, y2: top + plot + 0.5, stroke: "currentColor", "stroke-opacity": "0.2" }));
    // a label is "2026-W48" wide (wider still on a narrow screen, where the text is drawn
    // larger): at most one per ~100 units, and always the last (this week)
    const labelEvery = Math.max(1, Math.ceil(100 / step));
    weeks.forEach((w, i) => {
      const x = left + i * step + (step - bar) / 2;
      svg.appendChild(s("g", { class: "tp-week", "data-week": w.week }));
      let y = top + plot;
      for (const area of areas) {
        const n = (w.areas || {})[area] || 0;
        if (n === 0) continue;
        const hgt = (n / max) * plot;
        y -= hgt;
        svg.appendChild(
          s(
            "rect",
            { class: "tp-bar", x: x.toFixed(1), y: y.toFixed(1), width: bar.toFixed(1), height: Math.max(1, hgt).toFixed(1), fill: colour(area), "data-week": w.week, "data-area": area, "data-count": n },
            s("title", null, `${w.week} · ${area}: ${n}`),
          ),
        );
      }
      const fromEnd = weeks.length - 1 - i;
      if (fromEnd % labelEvery === 0) {
        const anchor = i === weeks.length - 1 ? "end" : i === 0 ? "start" : "middle";
        const lx = anchor === "end" ? width : anchor === "start" ? left : x + bar / 2;
        svg.appendChild(s("text", { class: "tp-week-label", x: lx.toFixed(1), y: height - 6, "text-anchor": anchor }, String(w.week)));
      }
    });
    const legend = h(
      "div",
      { class: "tp-legend" },
      areas.map((area) => h("span", { class: "tp-legend-item" }, h("span", { class: "tp-swatch", style: `background:${colour(area)}` }), area)),
    );
    return [h("p", { class: "tp-hint" }, T.weeksCaption(weeks.length, lastWeek)), svg, legend];
  }

  // ---------------------------------------------------------------------------------------
  // Rendering
  // ---------------------------------------------------------------------------------------

  /** The views cards.js draws (what the agent sees, attention, sections, entry cards), made
   * once the page's language is known. */
  let views = null;
  function makeViews() {
    return window.trilogyViews({
      T,
      state,
      $,
      h,
      button,
      list,
      stamp,
      get,
      post,
      act,
      busy,
      render,
      afterWrite,
      setStatus,
      messageOf,
      mayDrop,
      landed,
      actorChip,
      loadInjection,
      loadCards,
      indexRecall,
      refreshView: () => loadView(state.selected).then(render),
      ARCHIVE,
      HOSTS,
      PAGE,
      TABLE_PAGE,
      AUTO_PAGE_LIMIT,
      CARD_WINDOW,
      TABLE_WINDOW,
      IN_USE_DAYS,
    });
  }

  /** What holds the keyboard focus, said so that a redraw can give it back: its id, a tab by
   * its name, or a card (or section) and the place of the control among that card's own. */
  function focusKey() {
    const el = document.activeElement;
    if (!el || el === document.body || !document.getElementById("app").contains(el)) return null;
    if (el.id) return { id: el.id };
    for (const attr of ["data-tab", "data-insight"]) {
      if (el.hasAttribute(attr)) return { selector: `[${attr}="${CSS.escape(el.getAttribute(attr))}"]` };
    }
    const holder = el.closest("[data-id], [data-key]");
    if (!holder) return null;
    const attr = holder.hasAttribute("data-id") ? "data-id" : "data-key";
    const controls = [...holder.querySelectorAll(CONTROLS)];
    return { holder: `[${attr}="${CSS.escape(holder.getAttribute(attr))}"]`, index: controls.indexOf(el) };
  }

  const CONTROLS = "button, input, textarea, select, a[href], summary";

  /** Put the focus back where `key` says, when the redraw took it away. */
  function giveFocusBack(key) {
    if (!key || (document.activeElement && document.activeElement !== document.body)) return;
    let el = key.id ? document.getElementById(key.id) : key.selector ? document.querySelector(key.selector) : null;
    if (!el && key.holder) {
      const holder = document.querySelector(key.holder);
      const controls = holder ? [...holder.querySelectorAll(CONTROLS)] : [];
      // an armed Remove turns into its Confirm in the same place
      el = controls[Math.max(0, Math.min(key.index, controls.length - 1))] || null;
    }
    if (el && typeof el.focus === "function") el.focus({ preventScroll: true });
  }

  function render() {
    const focus = focusKey();
    draw();
    giveFocusBack(focus);
  }

  function draw() {
    const error = $("error");
    error.hidden = state.error === "";
    error.textContent = state.error;
    const refresh = $("refresh");
    refresh.textContent = state.busy === "refresh" ? T.refreshing : T.refresh;
    refresh.disabled = busy();
    renderList();
    const w = current();
    $("detail-empty").hidden = w !== null;
    $("detail-empty").textContent = state.workspaces === null ? T.loading : T.pickOne;
    $("detail-body").hidden = w === null;
    if (w === null) return;
    renderTitle(w);
    renderStatusLine();
    renderStrip();
    renderStale();
    renderTabs();
    renderToolbar();
    renderContent();
    renderInstruction();
    renderInsight();
    renderDanger(w);
  }

  /** A re-render that leaves the open view alone: an open form keeps its focus and caret. */
  function renderAround() {
    const w = current();
    if (w === null) return render();
    renderList();
    renderTitle(w);
    renderStatusLine();
    renderStrip();
    renderStale();
    renderInsight();
  }

  async function refreshAll() {
    await act("refresh", async () => {
      const listed = await loadWorkspaces();
      if (listed.some((w) => w.root === state.selected)) {
        await loadSelected();
      }
      setStatus("ok", T.refreshed);
    });
  }

  // ---------------------------------------------------------------------------------------
  // Following the store: the open views are read again when something writes to it
  // ---------------------------------------------------------------------------------------

  /** The selected workspace's change token (`/change`): opaque, it differs after any write. */
  async function readChange(root) {
    const body = await get("/change", { root });
    return String(body.change);
  }

  /** Take the change token as the page's starting point for `root`. */
  async function syncChange(root) {
    try {
      const change = await readChange(root);
      if (root === state.selected) state.change = change;
    } catch {
      // no token yet (a workspace without a store): the first poll takes one
    }
  }

  let polling = false;

  async function pollChange() {
    const root = state.selected;
    if (polling || root === "" || document.visibilityState !== "visible" || busy()) return;
    polling = true;
    try {
      const change = await readChange(root);
      if (root !== state.selected || change === null || change === undefined) return;
      const before = state.change;
      state.change = change;
      if (before !== null && change !== before) await followChange(root);
    } catch {
      // a server that went away leaves the page as it is; the next poll tries again
    } finally {
      polling = false;
    }
  }

  /** A field of the open view has the focus (a form, the host or window field). */
  function typingInView() {
    const active = document.activeElement;
    return !!active && typeof active.closest === "function" && !!active.closest("#content input, #content select, #content textarea");
  }

  /** Something wrote to the store: read again what is on screen. An open form's view waits
   * (re-drawing it would take the caret and the typed text from the person typing), and so
   * does a view whose field has the focus; the rest follows at once. */
  async function followChange(root) {
    const formOpen = state.form !== null;
    forgetOtherInsights();
    const jobs = [loadFiles(root), loadAttention(root), loadInsight(root), loadWorkspaces()];
    // the open form's view is read again when the form closes
    if (formOpen) state.viewStale = true;
    else jobs.push(loadView(root));
    await Promise.all(jobs);
    if (root !== state.selected || busy()) return;
    if (formOpen || typingInView()) renderAround();
    else render();
  }

  // ---------------------------------------------------------------------------------------
  // Start-up
  // ---------------------------------------------------------------------------------------

  function wire() {
    $("refresh").addEventListener("click", refreshAll);
    $("side-filter").addEventListener("input", (event) => {
      state.filter = event.target.value;
      renderList();
    });
    $("export").addEventListener("click", exportMemory);
    $("import").addEventListener("click", () => $("import-file").click());
    $("import-file").addEventListener("change", importMemory);
    $("reread").addEventListener("click", reread);
    $("raw-toggle").addEventListener("click", async () => {
      const view = viewOf(state.tab);
      if (state.raw.has(view.id)) state.raw.delete(view.id);
      else if (mayDrop(false)) {
        state.raw.add(view.id);
        state.form = null;
      }
      render();
      const entry = view.file ? fileEntry(view.file) : null;
      if (state.raw.has(view.id) && entry && entry.omitted) await act("raw", () => loadFiles(state.selected));
    });
    $("group-by").addEventListener("change", (event) => {
      state.groupBy = event.target.value;
      render();
    });
    $("instruction-edit").addEventListener("input", (event) => {
      state.draft = event.target.value;
    });
    $("search-form").addEventListener("submit", runSearch);
    $("tabs").addEventListener("keydown", (event) =>
      tabKeys(event, VIEWS.map((v) => v.id), state.tab, (id) => openTab(id, true)),
    );
    $("insight-tabs").addEventListener("keydown", (event) =>
      tabKeys(event, INSIGHTS.map((p) => p.id), state.insight, (id) => openInsight(id, true)),
    );
    // a draft typed on the page is not lost to a reload or a closed tab without asking
    window.addEventListener("beforeunload", (event) => {
      if (formDirty() || instructionDirty()) {
        event.preventDefault();
        event.returnValue = "";
      }
    });
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") pollChange();
    });
  }

  async function start() {
    wire();
    try {
      state.info = await get("/info");
    } catch (failure) {
      state.info = { cwd: "", lang: "zh" };
      state.error = T.unreachable(messageOf(failure));
    }
    T = state.info.lang === "en" ? TEXTS.en : TEXTS.zh;
    views = makeViews();
    document.documentElement.lang = state.info.lang === "en" ? "en" : "zh-CN";
    document.title = `trilogy · ${T.title}`;
    $("title").textContent = T.title;
    $("intro").textContent = T.intro;
    $("side-label").textContent = T.workspaces;
    $("side-filter").placeholder = T.filter;
    const address = readAddress();
    if (address.tab && VIEWS.some((v) => v.id === address.tab)) state.tab = address.tab;
    render();
    startChip(state.info.cwd);
    const listed = await loadWorkspaces();
    render();
    const root = firstRoot(listed, address, state.info);
    if (root) await pick(root);
    setInterval(pollChange, CHANGE_POLL_MS);
  }

  // what the tests (and a curious user in the console) can reach: pure helpers only
  window.trilogyPanel = {
    exportFileName,
    exportBundle,
    agoText,
    chipNode,
    isoWeekLabel,
    isoWeekMonday,
    everyWeek,
    groupCards: (...args) => views.groupCards(...args),
    firstRoot,
    injectionUse: (...args) => views.injectionUse(...args),
    opName: (op) => opName(op),
  };

  start();
})();
