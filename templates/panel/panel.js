// The trilogy panel: the browser half of `trilogy serve`.
//
// A plain script with no build step and no dependency; the server compiles it into the binary
// and serves it at /trilogy/panel.js. Sections, top to bottom: texts (Chinese and English),
// the HTTP client, DOM helpers, page state, the status chip, the workspace list, the detail
// (title, staleness banner, file tabs, export/import, archive restore, instruction file, the
// danger row), the insight panes (search, changes, agent sessions, restorable entries, the
// weekly chart), and start-up.
//
// Rules kept throughout:
// - every request is a relative /trilogy/... path; the browser sends the launch cookie and
//   its own Origin; every body is a JSON string with `content-type: application/json`;
// - memory text is written by people and agents, so it reaches the DOM only as text nodes
//   (textContent, createTextNode), never as markup;
// - the memory files are read-only here; only the instruction file is edited, as a whole.
"use strict";

(() => {
  // ---------------------------------------------------------------------------------------
  // Texts
  // ---------------------------------------------------------------------------------------

  const TEXTS = {
    zh: {
      title: "项目记忆",
      intro:
        "每个工作区一份 memory/：PROJECT.md 是项目现状，DECISIONS.md 是已定决策，SESSIONS.md 是会话日志，SESSIONS-archive.md 是搬出去的老日志。记忆文件在这里只读，由智能体记录；指令文件可以整份编辑。",
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
      tabProject: "现状",
      tabDecisions: "决策",
      tabSessions: "日志",
      tabArchive: "归档",
      reread: "重新读取",
      staleBadge: "PROJECT.md 可能过时",
      staleText: (days, entries) =>
        `它已经 ${days} 天没改过，而这期间日志里追加了 ${entries} 条 —— 先把它改写成现在的样子，再往下做。`,
      archiveHint: "归档只读，要改就先用「恢复这条」搬回日志",
      archiveIntro: "归档条目不会被自动注入。点「恢复这条」把它搬回日志顶部。",
      archiveEmpty: "（归档是空的）",
      restoreThis: "恢复这条",
      restoredToLog: "已恢复到活日志顶部",
      fileEmpty: "（这个文件目前是空的）",
      fileMissing: "（这个文件不存在）",
      fileMeta: (file, bytes, ago) => `${file} · ${bytes} 字节${ago ? ` · 修改于 ${ago}` : ""}`,
      exportLabel: "导出",
      exporting: "导出中…",
      importLabel: "导入",
      importing: "导入中…",
      exported: (n) => `已导出 ${n} 个文件`,
      cannotDownload: "这个浏览器不允许下载文件，无法导出",
      imported: (n) => `已导入 ${n} 个文件`,
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
      editHint: (name) => `${name} 整份可改，Memory 段也在里面`,
      bootPresentHint: "新会话开头会读到这一段，它告诉智能体 memory/ 在哪、怎么记录",
      bootAbsentHint: "没有它，新会话不会知道 memory/ 的存在",
      saved: (name) => `已保存 ${name}`,
      bootRemoved: "已从指令文件移除 Memory 段（其余内容原样保留）",
      bootRewritten: "已把 Memory 段写回指令文件",
      danger: "危险操作",
      clear: "清除记忆文件",
      clearing: "清除中…",
      confirmClear: "确认清除",
      clearWarn: (name) =>
        `会清空 ${name} 的全部记忆文件（含归档 SESSIONS-archive.md），并移除指令文件里的 Memory 段。再点一次「确认清除」才会执行。`,
      cleared: (n, boot) =>
        `已清除 ${n} 个文件${boot ? "（并移除了指令文件的 Memory 段）" : ""}。下次在该工作区开新会话会重新创建空文件。`,
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
      hitState: { live: "现行", archived: "已归档", superseded: "已被取代", removed: "已删除", replaced: "已替换" },
      noEvents: "还没有变更。",
      colWhen: "时间",
      colWho: "谁",
      colWhat: "做了什么",
      colDetail: "内容",
      actor: (actor) => {
        if (actor === "cli") return "命令行";
        if (actor === "panel") return "面板";
        if (actor === "mcp") return "MCP";
        if (actor === "file-edit") return "手改文件";
        const session = /^(?:agent|hook):(.+)$/.exec(actor);
        if (session) return `会话 ${session[1]}`;
        return actor;
      },
      op: {
        add: "新增",
        remove: "删除",
        replace: "替换",
        archive: "归档",
        restore: "恢复",
        supersede: "取代",
        section: "改写小节",
        import: "导入",
        clear: "清除",
        save: "保存",
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
      noHistory: "没有可恢复的条目：被删除、替换、取代或归档的条目会出现在这里。",
      historyState: { archived: "已归档", removed: "已删除", replaced: "已替换", superseded: "已被取代" },
      restore: "恢复",
      restoredEntry: (heading) => `已恢复：${heading}`,
      noWeeks: "还没有会话记录。",
      weeksCaption: (weeks) => `最近 ${weeks} 周，每周的会话条目数（按领域分色，含归档）`,
      generalArea: "通用",
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
        "One memory/ per workspace: PROJECT.md is what the project is now, DECISIONS.md the settled choices, SESSIONS.md the session log, SESSIONS-archive.md the older log moved out. The memory files are read-only here (agents record them); the instruction file can be edited as a whole.",
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
      tabProject: "State",
      tabDecisions: "Decisions",
      tabSessions: "Log",
      tabArchive: "Archive",
      reread: "Re-read",
      staleBadge: "PROJECT.md may be stale",
      staleText: (days, entries) =>
        `It has not changed for ${days} days while the log gained ${entries} entries: bring it up to date before going on.`,
      archiveHint: "The archive is read-only: move an entry back to the log with “Restore this” first",
      archiveIntro: "Archived entries are never injected. “Restore this” moves one back to the top of the log.",
      archiveEmpty: "(the archive is empty)",
      restoreThis: "Restore this",
      restoredToLog: "Restored to the top of the log",
      fileEmpty: "(this file is empty)",
      fileMissing: "(this file does not exist)",
      fileMeta: (file, bytes, ago) => `${file} · ${bytes} bytes${ago ? ` · modified ${ago}` : ""}`,
      exportLabel: "Export",
      exporting: "Exporting…",
      importLabel: "Import",
      importing: "Importing…",
      exported: (n) => `Exported ${n} files`,
      cannotDownload: "This browser does not allow downloads; cannot export",
      imported: (n) => `Imported ${n} files`,
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
      editHint: (name) => `All of ${name} is editable, the Memory block included`,
      bootPresentHint: "New sessions read this block: it tells the agent where memory/ is and how to record",
      bootAbsentHint: "Without it, new sessions do not know memory/ exists",
      saved: (name) => `Saved ${name}`,
      bootRemoved: "Removed the Memory block from the instruction file (the rest is untouched)",
      bootRewritten: "Wrote the Memory block back into the instruction file",
      danger: "Danger zone",
      clear: "Clear memory files",
      clearing: "Clearing…",
      confirmClear: "Confirm clear",
      clearWarn: (name) =>
        `This empties every memory file of ${name} (the archive SESSIONS-archive.md included) and removes the Memory block from the instruction file. Click “Confirm clear” to do it.`,
      cleared: (n, boot) =>
        `Cleared ${n} files${boot ? " (and removed the Memory block from the instruction file)" : ""}. The next session in this workspace creates empty files again.`,
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
      hitState: { live: "live", archived: "archived", superseded: "superseded", removed: "removed", replaced: "replaced" },
      noEvents: "No change yet.",
      colWhen: "When",
      colWho: "Who",
      colWhat: "What",
      colDetail: "Detail",
      actor: (actor) => {
        if (actor === "cli") return "CLI";
        if (actor === "panel") return "panel";
        if (actor === "mcp") return "MCP";
        if (actor === "file-edit") return "file edit";
        const session = /^(?:agent|hook):(.+)$/.exec(actor);
        if (session) return `session ${session[1]}`;
        return actor;
      },
      op: {},
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
      noHistory: "Nothing to restore: removed, replaced, superseded and archived entries show up here.",
      historyState: { archived: "archived", removed: "removed", replaced: "replaced", superseded: "superseded" },
      restore: "Restore",
      restoredEntry: (heading) => `Restored: ${heading}`,
      noWeeks: "No session recorded yet.",
      weeksCaption: (weeks) => `Session entries per week over the last ${weeks} weeks, by area (archive included)`,
      generalArea: "general",
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

  /** The memory tabs, in strip order; 重新读取 sits immediately left of 归档. */
  const MEMORY_TABS = [
    { file: "PROJECT.md", label: () => T.tabProject },
    { file: "DECISIONS.md", label: () => T.tabDecisions },
    { file: "SESSIONS.md", label: () => T.tabSessions },
    { file: "SESSIONS-archive.md", label: () => T.tabArchive },
  ];
  const ARCHIVE = "SESSIONS-archive.md";

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
   * can hand `fetch` an object (which it would send as "[object Object]").
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
      throw new Error(`${response.status} ${response.statusText}: ${text.slice(0, 200)}`);
    }
    if (!response.ok) {
      throw new Error(body && typeof body.error === "string" ? body.error : `${response.status} ${response.statusText}`);
    }
    return body;
  }

  /** `path?k=v&…`, each value percent-encoded; undefined values are left out. */
  function withQuery(path, params) {
    const parts = Object.entries(params)
      .filter(([, value]) => value !== undefined && value !== null)
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

  // ---------------------------------------------------------------------------------------
  // Page state
  // ---------------------------------------------------------------------------------------

  const state = {
    info: null,
    workspaces: null,
    selected: "",
    files: null, // the /files body of the selected workspace
    boot: null, // the /boot body of the selected workspace
    tab: "PROJECT.md",
    busy: "",
    status: { kind: "", text: "" },
    error: "",
    filter: "",
    editing: false,
    draft: "",
    confirmClear: false,
    insight: "events",
    insightData: {}, // insight id → { root, data, error }
    query: "",
  };

  const current = () => (state.workspaces || []).find((w) => w.root === state.selected) || null;
  const busy = () => state.busy !== "";

  function setStatus(kind, text) {
    state.status = { kind, text };
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
  // Loading
  // ---------------------------------------------------------------------------------------

  async function loadWorkspaces() {
    try {
      const body = await get("/workspaces");
      state.workspaces = Array.isArray(body.workspaces) ? body.workspaces : [];
      state.error = "";
    } catch (failure) {
      state.workspaces = state.workspaces || [];
      state.error = T.unreachable(messageOf(failure));
    }
    return state.workspaces;
  }

  async function loadFiles(root) {
    if (!root) return;
    try {
      const body = await get("/files", { root });
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

  /** The data of the open insight pane (search runs only with a query). */
  async function loadInsight(root) {
    if (!root) return;
    const id = state.insight;
    let request;
    if (id === "events") request = get("/events", { root, limit: 50 });
    else if (id === "sessions") request = get("/sessions", { root });
    else if (id === "history") request = get("/history", { root });
    else if (id === "weeks") request = get("/weeks", { root });
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
      if (state.selected === root) state.insightData[id] = { root, data, error: "" };
    } catch (failure) {
      if (state.selected === root) state.insightData[id] = { root, data: null, error: messageOf(failure) };
    }
  }

  /** Point the detail at `root` (or at nothing), dropping what belonged to the last one. */
  function select(root) {
    state.selected = root;
    state.files = null;
    state.boot = null;
    state.editing = false;
    state.draft = "";
    state.confirmClear = false;
    state.insightData = {};
  }

  /** Everything the detail shows about the selected workspace. */
  const loadSelected = () => Promise.all([loadFiles(state.selected), loadBoot(state.selected), loadInsight(state.selected)]);

  /** Show one workspace: its files, its boot block and the open insight pane. */
  async function pick(root) {
    select(root);
    setStatus("", "");
    render();
    await loadSelected();
    render();
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
  // Detail: title, staleness, file tabs and content
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
    line.textContent = state.status.text;
  }

  function renderStale() {
    const st = state.files && state.files.staleness;
    if (!st || !st.stale) return fill($("stale"));
    fill(
      $("stale"),
      h(
        "div",
        { class: "tp-stale", id: "stale-banner", role: "status" },
        h("span", { class: "tp-badge" }, T.staleBadge),
        h("span", null, T.staleText(st.behindDays, st.entriesSince)),
      ),
    );
  }

  async function reread() {
    await act("reread", async () => {
      await Promise.all([loadFiles(state.selected), loadInsight(state.selected)]);
    });
  }

  function renderTabs() {
    const strip = [];
    for (const tab of MEMORY_TABS) {
      if (tab.file === ARCHIVE) {
        strip.push(h("button", { type: "button", class: "tp-btn", id: "reread", disabled: busy(), onclick: reread }, T.reread));
      }
      strip.push(
        h(
          "button",
          {
            type: "button",
            class: "tp-btn tp-tab",
            role: "tab",
            "data-file": tab.file,
            "aria-selected": String(tab.file === state.tab),
            onclick: () => {
              state.tab = tab.file;
              render();
            },
          },
          tab.label(),
        ),
      );
    }
    fill($("tabs"), strip);
  }

  function fileEntry(name) {
    const files = state.files && state.files.files;
    return files ? files[name] || null : null;
  }

  function renderToolbar() {
    const archived = state.tab === ARCHIVE;
    const hint = $("archive-hint");
    hint.hidden = !archived;
    hint.textContent = T.archiveHint;
    const exportButton = $("export");
    exportButton.textContent = state.busy === "export" ? T.exporting : T.exportLabel;
    exportButton.disabled = busy();
    const importButton = $("import");
    importButton.textContent = state.busy === "import" ? T.importing : T.importLabel;
    importButton.disabled = busy();
    const entry = fileEntry(state.tab);
    $("file-meta").textContent = entry
      ? T.fileMeta(state.tab, entry.bytes, typeof entry.mtime === "number" ? agoText(entry.mtime, Date.now()) : "")
      : "";
  }

  /** The archive's dated entries, as the original split them: header and undated parts are
   * never offered for restore. */
  function archiveEntries(text) {
    return text
      .split(/^## /m)
      .map((part) => part.trim())
      .filter((part) => /^\d{4}-\d{2}-\d{2}/.test(part))
      .map((part) => `## ${part}`);
  }

  async function restoreArchived(text) {
    await act("restore", async () => {
      await post("/restore", { root: state.selected, text });
      await Promise.all([loadFiles(state.selected), loadInsight(state.selected)]);
      state.tab = "SESSIONS.md";
      setStatus("ok", T.restoredToLog);
    });
  }

  function renderContent() {
    const entry = fileEntry(state.tab);
    const text = entry && typeof entry.text === "string" ? entry.text : "";
    if (state.tab === ARCHIVE) {
      const entries = archiveEntries(text);
      return fill(
        $("content"),
        h(
          "div",
          { class: "tp-section tp-archive", id: "archive" },
          h("p", { class: "tp-hint", id: "archive-readonly" }, T.archiveIntro),
          entries.length === 0
            ? h("p", { class: "tp-empty" }, T.archiveEmpty)
            : entries.map((part) =>
                h(
                  "div",
                  { class: "tp-entry tp-archived" },
                  h(
                    "div",
                    { class: "tp-entry-head" },
                    h("button", { type: "button", class: "tp-btn tp-restore", disabled: busy(), onclick: () => restoreArchived(part) }, T.restoreThis),
                  ),
                  h("pre", { class: "tp-pre" }, part),
                ),
              ),
        ),
      );
    }
    const shown = state.files === null ? T.loading : entry === null ? T.fileMissing : text.length === 0 ? T.fileEmpty : text;
    fill($("content"), h("pre", { class: "tp-pre", id: "file-text", "data-file": state.tab }, shown));
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
        setStatus("ok", T.imported(Array.isArray(result.written) ? result.written.length : 0));
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
    await act("boot", async () => {
      await post("/boot", { root: state.selected, action });
      // both halves: the editor's text comes from /files, so re-reading only the badge would
      // leave a removed block in the editor, and saving that would put it back
      await loadSelected();
      setStatus("ok", action === "remove" ? T.bootRemoved : T.bootRewritten);
    });
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
        h("button", { type: "button", class: "tp-btn tp-btn-primary", id: "instruction-save", disabled: busy(), onclick: saveInstruction }, state.busy === "save" ? T.saving : T.save),
        h("button", { type: "button", class: "tp-btn", id: "instruction-cancel", disabled: busy(), onclick: cancelEdit }, T.cancel),
        h("span", { class: "tp-hint" }, T.editHint(ins ? ins.name : T.instruction)),
      );
    } else {
      actions.push(
        h("button", { type: "button", class: "tp-btn tp-btn-primary", id: "instruction-edit-open", disabled: busy() || ins === null, onclick: startEdit }, T.edit),
        h(
          "button",
          { type: "button", class: "tp-btn", id: "boot-rewrite", disabled: busy() || boot === null, onclick: () => bootAction("rewrite") },
          state.busy === "boot" ? T.rewriting : T.rewrite,
        ),
        h(
          "button",
          { type: "button", class: "tp-btn tp-btn-danger", id: "boot-remove", disabled: busy() || boot === null || !boot.exists, onclick: () => bootAction("remove") },
          T.remove,
        ),
        boot ? h("span", { class: "tp-hint", id: "boot-hint" }, boot.exists ? T.bootPresentHint : T.bootAbsentHint) : null,
      );
    }
    fill($("instruction-actions"), actions);
    const editor = $("instruction-edit");
    editor.hidden = !state.editing;
    editor.disabled = state.busy === "save";
  }

  // ---------------------------------------------------------------------------------------
  // The danger row: clear, armed by a first click
  // ---------------------------------------------------------------------------------------

  async function clearWorkspace() {
    const root = state.selected;
    state.confirmClear = false;
    await act("clear", async () => {
      const body = await post("/clear", { root });
      await loadWorkspaces();
      await Promise.all([loadFiles(root), loadBoot(root), loadInsight(root)]);
      setStatus("ok", T.cleared(Array.isArray(body.cleared) ? body.cleared.length : 0, body.bootBlockRemoved === true));
    });
  }

  function renderDanger(w) {
    const row = $("danger");
    if (state.confirmClear) {
      return fill(
        row,
        h("span", { class: "tp-warn", id: "clear-warning" }, T.clearWarn(folderName(w.root))),
        h("button", { type: "button", class: "tp-btn tp-btn-danger", id: "clear-confirm", disabled: busy(), onclick: clearWorkspace }, T.confirmClear),
        h(
          "button",
          {
            type: "button",
            class: "tp-btn",
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
      h(
        "button",
        {
          type: "button",
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

  async function openInsight(id) {
    state.insight = id;
    render();
    await loadInsight(state.selected);
    render();
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
      await post("/restore", { root: state.selected, id: entry.id });
      await Promise.all([loadFiles(state.selected), loadInsight(state.selected)]);
      setStatus("ok", T.restoredEntry(entry.heading || entry.id));
    });
  }

  function renderInsight() {
    $("search-q").placeholder = T.searchPlaceholder;
    $("search-go").textContent = T.search;
    fill(
      $("insight-tabs"),
      INSIGHTS.map((pane) =>
        h(
          "button",
          {
            type: "button",
            class: "tp-btn tp-tab",
            role: "tab",
            "data-insight": pane.id,
            "aria-selected": String(pane.id === state.insight),
            onclick: () => openInsight(pane.id),
          },
          pane.label(),
        ),
      ),
    );
    const body = $("insight-body");
    body.setAttribute("data-insight", state.insight);
    const slot = state.insightData[state.insight];
    if (state.insight === "search" && state.query.trim() === "") return fill(body, h("p", { class: "tp-empty" }, T.searchPrompt));
    if (slot === undefined || slot === null) return fill(body, h("p", { class: "tp-empty" }, T.loading));
    if (slot.error) return fill(body, h("p", { class: "tp-status tp-err" }, slot.error));
    const draw = { search: searchPane, events: eventsPane, sessions: sessionsPane, history: historyPane, weeks: weeksPane }[state.insight];
    fill(body, draw(slot.data));
  }

  function searchPane(data) {
    const hits = (data && Array.isArray(data.hits) && data.hits) || [];
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

  function eventsPane(data) {
    const events = (data && Array.isArray(data.events) && data.events) || [];
    if (events.length === 0) return h("p", { class: "tp-empty" }, T.noEvents);
    return h(
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
            h("td", { class: "tp-nowrap", "data-op": e.op }, T.op[e.op] || e.op),
            h("td", null, e.detail || ""),
          ),
        ),
      ),
    );
  }

  function droppedText(dropped) {
    if (!dropped) return T.droppedNothing;
    const parts = [];
    if (Array.isArray(dropped.sections_cut) && dropped.sections_cut.length > 0) parts.push(T.droppedSections(dropped.sections_cut.join("、")));
    if (dropped.decisions > 0) parts.push(T.droppedDecisions(dropped.decisions, dropped.decisions_from));
    if (Array.isArray(dropped.sessions) && dropped.sessions.length > 0) parts.push(T.droppedSessions(dropped.sessions.length));
    return parts.length === 0 ? T.droppedNothing : parts.join(" · ");
  }

  function sessionsPane(data) {
    const sessions = Array.isArray(data) ? data : (data && Array.isArray(data.sessions) && data.sessions) || [];
    if (sessions.length === 0) return h("p", { class: "tp-empty" }, T.noSessions);
    return h(
      "table",
      { class: "tp-table", id: "sessions-table" },
      h("thead", null, h("tr", null, h("th", null, T.colSession), h("th", null, T.colInjected), h("th", null, T.colDropped))),
      h(
        "tbody",
        null,
        sessions.map((x) =>
          h(
            "tr",
            { class: "tp-session", "data-session": x.id },
            h(
              "td",
              null,
              h("div", { class: "tp-strong" }, x.id),
              h("div", { class: "tp-meta" }, `${x.host || ""} · ${stamp(x.started_at)}${x.ended_at ? ` · ${T.sessionEnded}` : ""}`),
            ),
            h(
              "td",
              null,
              h("div", null, T.injectedTimes(x.injections || 0, x.source, stamp(x.injected_at))),
              h("div", { class: "tp-meta" }, T.entriesInjected(Array.isArray(x.injected_ids) ? x.injected_ids.length : 0)),
            ),
            h("td", { class: "tp-dropped" }, droppedText(x.dropped)),
          ),
        ),
      ),
    );
  }

  function historyPane(data) {
    const entries = (data && Array.isArray(data.entries) && data.entries) || [];
    if (entries.length === 0) return h("p", { class: "tp-empty" }, T.noHistory);
    return h(
      "div",
      { class: "tp-archive", id: "history" },
      entries.map((e) =>
        h(
          "div",
          { class: "tp-entry tp-history", "data-id": e.id, "data-state": e.state },
          h(
            "div",
            { class: "tp-entry-head" },
            h("button", { type: "button", class: "tp-btn tp-history-restore", disabled: busy(), onclick: () => restoreById(e) }, T.restore),
            h("span", { class: "tp-badge", "data-tone": "warn" }, T.historyState[e.state] || e.state),
            h("span", { class: "tp-strong" }, e.heading || ""),
            h("span", { class: "tp-meta" }, `${e.file || ""}${e.at ? ` · ${stamp(e.at)}` : ""}`),
          ),
          h("pre", { class: "tp-pre" }, e.text || ""),
        ),
      ),
    );
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

  /** The weeks from the first to the last one listed, quiet weeks included (at most the
   * last `most`), so the x axis is time. */
  function everyWeek(listed, most) {
    const known = listed.filter((w) => isoWeekMonday(w.week) !== null);
    if (known.length === 0) return listed.slice(-most);
    const byWeek = new Map(known.map((w) => [w.week, w]));
    const last = isoWeekMonday(known[known.length - 1].week);
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
    const weeks = everyWeek((data && Array.isArray(data.weeks) && data.weeks) || [], 26);
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
    const svg = s("svg", { class: "tp-chart", id: "weeks-chart", viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": T.weeksCaption(weeks.length) });
    svg.appendChild(s("text", { x: 0, y: top + 8 }, String(max)));
    svg.appendChild(s("text", { x: 0, y: top + plot }, "0"));
    svg.appendChild(s("line", { x1: left - 4, x2: width, y1: top + plot + 0.5, y2: top + plot + 0.5, stroke: "currentColor", "stroke-opacity": "0.2" }));
    const labelEvery = Math.ceil(weeks.length / 8);
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
      if (i % labelEvery === 0) svg.appendChild(s("text", { x: (x + bar / 2).toFixed(1), y: height - 6, "text-anchor": "middle" }, String(w.week).replace(/^\d{4}-/, "")));
    });
    const legend = h(
      "div",
      { class: "tp-legend" },
      areas.map((area) => h("span", { class: "tp-legend-item" }, h("span", { class: "tp-swatch", style: `background:${colour(area)}` }), area)),
    );
    return [h("p", { class: "tp-hint" }, T.weeksCaption(weeks.length)), svg, legend];
  }

  // ---------------------------------------------------------------------------------------
  // Rendering and start-up
  // ---------------------------------------------------------------------------------------

  function render() {
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
    renderStale();
    renderTabs();
    renderToolbar();
    renderContent();
    renderInstruction();
    renderInsight();
    renderDanger(w);
  }

  async function refreshAll() {
    await act("refresh", async () => {
      const list = await loadWorkspaces();
      if (list.some((w) => w.root === state.selected)) {
        await loadSelected();
      }
      setStatus("ok", T.refreshed);
    });
  }

  function wire() {
    $("refresh").addEventListener("click", refreshAll);
    $("side-filter").addEventListener("input", (event) => {
      state.filter = event.target.value;
      renderList();
    });
    $("export").addEventListener("click", exportMemory);
    $("import").addEventListener("click", () => $("import-file").click());
    $("import-file").addEventListener("change", importMemory);
    $("instruction-edit").addEventListener("input", (event) => {
      state.draft = event.target.value;
    });
    $("search-form").addEventListener("submit", runSearch);
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
    document.documentElement.lang = state.info.lang === "en" ? "en" : "zh-CN";
    document.title = `trilogy · ${T.title}`;
    $("title").textContent = T.title;
    $("intro").textContent = T.intro;
    $("side-label").textContent = T.workspaces;
    $("side-filter").placeholder = T.filter;
    render();
    startChip(state.info.cwd);
    const list = await loadWorkspaces();
    render();
    if (list.length > 0) await pick(list[0].root);
  }

  // what the tests (and a curious user in the console) can reach: pure helpers only
  window.trilogyPanel = { exportFileName, exportBundle, archiveEntries, agoText, chipNode, isoWeekLabel, isoWeekMonday };

  start();
})();
