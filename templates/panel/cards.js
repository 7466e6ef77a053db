// The trilogy panel's views of one workspace: what the agent sees (the injected text, each
// file's share, why each entry is in or out), the attention view (proposals, reports, doctor,
// recall), PROJECT.md's sections with their revisions, and the entry cards of DECISIONS.md,
// SESSIONS.md and the archive, with the forms that fix an entry in place.
//
// Served at /trilogy/cards.js and loaded before panel.js. Nothing here runs by itself:
// panel.js calls `window.trilogyViews(ctx)` once it knows the page's language, handing over
// the page's state, its texts and its helpers (the HTTP client, the DOM builder, the action
// runner), and draws what the returned functions build. The rules of panel.js hold here too:
// memory text reaches the DOM only as text nodes, and every write sends the version shown.
"use strict";

window.trilogyViews = (ctx) => {
  const { T, state, $, h, button, list, stamp, get, post, act, busy, render, afterWrite, setStatus, messageOf } = ctx;
  const { mayDrop, landed, actorChip, loadInjection, loadCards, indexRecall, refreshView } = ctx;
  const { ARCHIVE, HOSTS, PAGE, TABLE_PAGE, AUTO_PAGE_LIMIT, CARD_WINDOW, TABLE_WINDOW, IN_USE_DAYS } = ctx;

  // ---------------------------------------------------------------------------------------
  // What the agent sees: the injected text, each file's share, why each entry is in or out
  // ---------------------------------------------------------------------------------------

  /** "in use" (injected within 30 days), "silent" (injected before) or "never". */
  function injectionUse(entry, now) {
    const n = Number(entry.injected_count) || 0;
    if (n === 0) return "never";
    const at = Date.parse(entry.last_injected || "");
    if (Number.isFinite(at) && now - at <= IN_USE_DAYS * 86400000) return "inUse";
    return "silent";
  }

  /** The reference "now" for injection ages: the server's today when it says, else ours. */
  function nowForAges() {
    const today = state.info && typeof state.info.today === "string" ? Date.parse(`${state.info.today}T23:59:59Z`) : Number.NaN;
    return Number.isFinite(today) ? today : Date.now();
  }

  function keepsEntry(filter, entry, now) {
    if (filter === "shown") return !!entry.shown;
    if (filter === "left") return !entry.shown;
    if (filter === "never") return injectionUse(entry, now) === "never";
    if (filter === "silent") return injectionUse(entry, now) === "silent";
    return true;
  }

  function injectControls() {
    const apply = () => {
      state.injectHost = $("inject-host").value;
      state.injectWindow = $("inject-window").value.trim();
      state.injectRows = TABLE_PAGE;
      state.injectStart = 0;
      act("inject", () => loadInjection(state.selected));
    };
    return h(
      "form",
      {
        class: "tp-toolbar tp-inject-controls",
        id: "inject-form",
        onsubmit: (event) => {
          event.preventDefault();
          apply();
        },
      },
      h(
        "label",
        { class: "tp-field" },
        h("span", { class: "tp-label" }, T.host),
        h(
          "select",
          { class: "tp-input tp-select", id: "inject-host", onchange: apply },
          HOSTS.map((host) => h("option", { value: host, selected: host === state.injectHost }, host || T.hostDefault)),
        ),
      ),
      h(
        "label",
        { class: "tp-field" },
        h("span", { class: "tp-label" }, T.windowTokens),
        h("input", { class: "tp-input tp-num", id: "inject-window", type: "number", min: "1", step: "1", inputmode: "numeric", value: state.injectWindow }),
      ),
      h("button", { type: "submit", class: "tp-btn", id: "inject-apply", disabled: busy() }, T.apply),
    );
  }

  function fileBars(files) {
    return h(
      "div",
      { class: "tp-bars", id: "inject-files", "aria-label": T.fileBars },
      files.map((f) => {
        const share = Math.max(1, Number(f.share) || 0);
        const shown = Number(f.bytes_shown) || 0;
        const total = Number(f.bytes_total) || 0;
        const used = Math.min(100, (shown / share) * 100);
        const whole = Math.min(100, total > 0 ? (total / Math.max(share, total)) * 100 : 0);
        return h(
          "div",
          { class: "tp-bar-row", "data-file": f.file, "data-shown": shown, "data-share": f.share, "data-total": total },
          h("span", { class: "tp-bar-name" }, f.file),
          h(
            "span",
            { class: "tp-bar-track", role: "meter", "aria-valuemin": "0", "aria-valuemax": share, "aria-valuenow": shown, "aria-label": f.file },
            h("span", { class: "tp-bar-total", style: `width:${whole.toFixed(1)}%` }),
            h("span", { class: "tp-bar-fill", style: `width:${used.toFixed(1)}%` }),
          ),
          h("span", { class: "tp-meta tp-bar-text" }, T.barText(shown, f.share ?? "-", total)),
        );
      }),
    );
  }

  function injectionTable(entries) {
    const now = nowForAges();
    const kept = entries.filter((e) => keepsEntry(state.injectFilter, e, now));
    // a window of rows: "more" past TABLE_WINDOW lets the first page go, "earlier" brings it back
    const from = Math.min(state.injectStart || 0, Math.max(0, kept.length - 1));
    const rows = kept.slice(from, from + state.injectRows);
    const filter = h(
      "select",
      {
        class: "tp-input tp-select",
        id: "inject-filter",
        onchange: (event) => {
          state.injectFilter = event.target.value;
          state.injectRows = TABLE_PAGE;
          state.injectStart = 0;
          render();
        },
      },
      Object.keys(T.entryFilter).map((k) => h("option", { value: k, selected: k === state.injectFilter }, T.entryFilter[k])),
    );
    return [
      h("div", { class: "tp-toolbar" }, filter, h("span", { class: "tp-meta", id: "inject-count" }, T.shownOf(rows.length, kept.length))),
      h(
        "table",
        { class: "tp-table", id: "inject-entries" },
        h(
          "thead",
          null,
          h("tr", null, h("th", null, T.colEntry), h("th", { class: "tp-col-file" }, T.colFile), h("th", null, T.colShown), h("th", null, T.colUse)),
        ),
        h(
          "tbody",
          null,
          rows.map((e) => {
            const use = injectionUse(e, now);
            return h(
              "tr",
              { class: "tp-inject-row", "data-id": e.id, "data-reason": e.reason, "data-shown": String(!!e.shown), "data-use": use },
              h(
                "td",
                null,
                h("div", { class: "tp-strong" }, e.heading || e.id),
                // what the entry says: a session's Done, a decision's choice
                e.first_line ? h("div", { class: "tp-inject-line" }, e.first_line) : null,
                // the file again under the entry, for a screen too narrow for its column
                h("div", { class: "tp-meta" }, [e.area, h("span", { class: "tp-file-inline" }, e.file || "")].filter(Boolean).flatMap((x, i) => (i ? [" · ", x] : [x]))),
              ),
              h("td", { class: "tp-nowrap tp-col-file" }, e.file || ""),
              h("td", null, h("span", { class: "tp-badge", "data-tone": e.shown ? "ok" : "warn" }, T.reason[e.reason] || e.reason || "")),
              h(
                "td",
                null,
                h("span", { class: "tp-badge", "data-tone": use === "inUse" ? "ok" : use === "silent" ? "warn" : "" }, T.use[use]),
                h("div", { class: "tp-meta" }, T.useDetail(Number(e.injected_count) || 0, stamp(e.last_injected))),
              ),
            );
          }),
        ),
      ),
      from > 0
        ? button(
            {
              id: "inject-earlier",
              class: "tp-btn tp-more",
              onclick: () => {
                state.injectStart = Math.max(0, from - TABLE_PAGE);
                render();
              },
            },
            T.newer,
          )
        : null,
      kept.length > from + rows.length
        ? button(
            {
              id: "inject-more",
              class: "tp-btn tp-more",
              onclick: () => {
                if (state.injectRows + TABLE_PAGE > TABLE_WINDOW) state.injectStart = from + TABLE_PAGE;
                else state.injectRows += TABLE_PAGE;
                render();
              },
            },
            T.more,
          )
        : null,
    ];
  }

  function agentView() {
    const slot = state.injection;
    const parts = [h("p", { class: "tp-hint" }, T.agentIntro), injectControls()];
    if (!slot) return h("div", { class: "tp-view", id: "agent-view" }, parts, h("p", { class: "tp-empty" }, T.loading));
    if (slot.error) return h("div", { class: "tp-view", id: "agent-view" }, parts, h("p", { class: "tp-status tp-err" }, slot.error));
    const data = slot.data || {};
    const budget = data.budget || {};
    return h(
      "div",
      { class: "tp-view", id: "agent-view" },
      parts,
      h("div", { class: "tp-section-head" }, h("span", { class: "tp-label" }, T.fileBars), h("span", { class: "tp-meta", id: "inject-budget" }, T.budget(budget.bytes ?? "-", budget.chars))),
      fileBars(list(data.files)),
      h("div", { class: "tp-section-head" }, h("span", { class: "tp-label" }, T.injectedText)),
      h("pre", { class: "tp-pre tp-inject-text", id: "inject-text", tabindex: "0" }, typeof data.text === "string" ? data.text : ""),
      typeof data.sessions_counted === "number" ? h("p", { class: "tp-hint" }, T.sessionsCounted(data.sessions_counted)) : null,
      injectionTable(list(data.entries)),
    );
  }

  // ---------------------------------------------------------------------------------------
  // Attention: proposals to decide, reports to close, doctor findings, the recall index
  // ---------------------------------------------------------------------------------------

  async function reviewAction(id, action, done) {
    await act("review", async () => {
      await post("/review", { root: state.selected, id, action });
      await afterWrite();
      setStatus("ok", done);
    });
  }

  function proposalBox(p) {
    return h(
      "div",
      { class: "tp-note tp-proposal", "data-proposal": p.id },
      h(
        "div",
        { class: "tp-entry-head" },
        h("span", { class: "tp-badge", "data-tone": "warn" }, T.proposalOn(p.id)),
        p.kind ? h("span", { class: "tp-meta" }, p.kind) : null,
        list(p.proposers).length > 0 ? actorChip(p.proposers[0]) : p.actor ? actorChip(p.actor) : null,
        p.proposed_at ? h("span", { class: "tp-meta" }, stamp(p.proposed_at)) : null,
        h("span", { class: "tp-spacer" }),
        button({ class: "tp-btn tp-btn-mini tp-btn-primary tp-accept", disabled: busy(), onclick: () => reviewAction(p.id, "accept", T.accepted(p.id)) }, T.accept),
        button({ class: "tp-btn tp-btn-mini tp-reject", disabled: busy(), onclick: () => reviewAction(p.id, "reject", T.rejected(p.id)) }, T.reject),
      ),
      h("div", { class: "tp-note-text" }, p.text || p.summary || (typeof p.item === "string" ? p.item : JSON.stringify(p.item || ""))),
    );
  }

  function reportBox(r) {
    return h(
      "div",
      { class: "tp-note tp-report", "data-report": r.n },
      h(
        "div",
        { class: "tp-entry-head" },
        h("span", { class: "tp-badge", "data-tone": "warn" }, T.reportOn(r.n)),
        r.actor ? actorChip(r.actor) : null,
        r.at ? h("span", { class: "tp-meta" }, stamp(r.at)) : null,
        h("span", { class: "tp-spacer" }),
        button({ class: "tp-btn tp-btn-mini tp-close-report", disabled: busy(), onclick: () => reviewAction(r.n, "close", T.closedReport(r.n)) }, T.close),
      ),
      h("div", { class: "tp-note-text" }, r.text || ""),
      list(r.names).length > 0 ? h("div", { class: "tp-meta" }, `${T.reportNames}: ${list(r.names).join(", ")}`) : null,
    );
  }

  function attentionView() {
    const att = state.attention && state.attention.data;
    const review = (state.review && state.review.data) || {};
    if (!state.attention) return h("p", { class: "tp-empty" }, T.loading);
    if (!att && state.attention.error) return h("p", { class: "tp-status tp-err" }, state.attention.error);
    const proposals = list(review.proposals);
    const reports = list(review.reports);
    const findings = list(att && att.doctor && att.doctor.findings);
    const recall = att && att.recall;
    return h(
      "div",
      { class: "tp-view tp-section", id: "attention-view" },
      h("h3", { class: "tp-label" }, T.proposals),
      proposals.length === 0 ? h("p", { class: "tp-empty" }, T.noProposals) : proposals.map(proposalBox),
      h("h3", { class: "tp-label" }, T.reports),
      reports.length === 0 ? h("p", { class: "tp-empty" }, T.noReports) : reports.map(reportBox),
      h("h3", { class: "tp-label" }, T.doctor),
      att && att.doctor && att.doctor.pending
        ? h("p", { class: "tp-empty", id: "doctor-pending" }, T.attDoctorPending)
        : findings.length === 0
        ? h("p", { class: "tp-empty" }, T.noFindings)
        : h(
            "ul",
            { class: "tp-findings", id: "doctor-findings" },
            findings.map((f) =>
              h("li", { "data-level": f.level }, h("span", { class: "tp-badge", "data-tone": f.level === "error" ? "off" : "warn" }, f.check || f.level), " ", f.message || ""),
            ),
          ),
      h("h3", { class: "tp-label" }, T.recall),
      h("p", { class: "tp-hint", id: "recall-state" }, recall ? T.recallText(recall) : T.attRecall(false, 0)),
      recall && recall.pending_files > 0
        ? button({ id: "recall-index-now", disabled: !!(state.recallIndex && state.recallIndex.running), onclick: indexRecall }, T.recallIndexNow)
        : null,
      recall ? list(recall.messages).map((m) => h("p", { class: "tp-meta" }, typeof m === "string" ? m : JSON.stringify(m))) : null,
    );
  }

  // ---------------------------------------------------------------------------------------
  // Forms on cards and sections: one open at a time, its draft in `state.form`
  // ---------------------------------------------------------------------------------------

  function openForm(scope, id, kind, fields, version) {
    if (state.form && !(state.form.scope === scope && state.form.id === id) && !mayDrop(false)) return false;
    state.form = { scope, id, kind, fields: { ...fields }, base: { ...fields }, version, conflict: null };
    state.armed = "";
    render();
    const field = document.querySelector(`[data-form="${scope}:${id}"] textarea, [data-form="${scope}:${id}"] input`);
    if (field) field.focus();
    return true;
  }

  function closeForm() {
    state.form = null;
    render();
    if (state.viewStale) {
      state.viewStale = false;
      refreshView();
    }
  }

  /** A text field bound to the open form's draft. */
  function formField(name, attrs, multiline) {
    const f = state.form;
    const props = {
      class: multiline ? "tp-edit tp-card-edit" : "tp-input",
      name,
      value: f.fields[name] || "",
      spellcheck: "false",
      oninput: (event) => {
        f.fields[name] = event.target.value;
      },
      ...attrs,
    };
    return multiline ? h("textarea", props) : h("input", { type: "text", ...props });
  }

  // ---------------------------------------------------------------------------------------
  // PROJECT.md: its sections, each editable, each with its revisions
  // ---------------------------------------------------------------------------------------

  function openSectionForm(section) {
    openForm("section", section.key, "edit", { text: section.body || "" }, section.version);
  }

  async function sectionWrite(section, body, done) {
    if (state.form && state.form.id !== section.key && !mayDrop(false)) return;
    await act("section", async () => {
      try {
        await post("/section", { root: state.selected, key: section.key, version: state.form && state.form.id === section.key ? state.form.version : section.version, ...body });
        state.form = null;
        delete state.revisions[section.key];
        setStatus("ok", done);
      } catch (failure) {
        if (failure.status !== 409) throw failure;
        const drafting = state.form && state.form.id === section.key;
        setStatus("err", drafting ? T.conflict : T.changedReread);
        if (drafting) state.form.conflict = { text: T.conflict };
        delete state.revisions[section.key];
      }
      await afterWrite();
      // the re-read brings the section's current version: a second save is deliberate
      const now = state.sections && state.sections.data ? list(state.sections.data.sections).find((x) => x.key === section.key) : null;
      if (state.form && state.form.id === section.key && now) {
        state.form.version = now.version;
        state.form.conflict = { text: T.conflict, current: now.body };
      }
    });
  }

  async function toggleRevisions(section) {
    if (state.revisions[section.key]) {
      delete state.revisions[section.key];
      return render();
    }
    const root = state.selected;
    const slot = { data: null };
    state.revisions[section.key] = slot;
    render();
    let got;
    try {
      got = { data: await get("/revisions", { root, key: section.key }) };
    } catch (failure) {
      got = { error: messageOf(failure) };
    }
    // another workspace opened meanwhile (section keys repeat across workspaces), or the
    // list was closed: the answer is not shown
    if (state.selected !== root || state.revisions[section.key] !== slot) return;
    state.revisions[section.key] = got;
    render();
  }

  function revisionList(section) {
    const slot = state.revisions[section.key];
    if (!slot) return null;
    if (slot.error) return h("p", { class: "tp-status tp-err" }, slot.error);
    if (!slot.data) return h("p", { class: "tp-empty" }, T.loading);
    const revisions = list(slot.data.revisions).filter((r) => r.revision !== section.revision);
    if (revisions.length === 0) return h("p", { class: "tp-empty" }, T.noRevisions);
    return h(
      "div",
      { class: "tp-revisions" },
      revisions.slice(0, PAGE).map((r) =>
        h(
          "div",
          { class: "tp-revision", "data-revision": r.revision },
          h(
            "div",
            { class: "tp-entry-head" },
            h("span", { class: "tp-badge" }, T.revision(r.revision)),
            h("span", { class: "tp-meta" }, stamp(r.at)),
            r.actor ? actorChip(r.actor) : null,
            h("span", { class: "tp-spacer" }),
            button(
              {
                class: "tp-btn tp-btn-mini tp-restore-revision",
                disabled: busy(),
                onclick: () => sectionWrite(section, { action: "restore", revision: r.revision }, T.sectionRestored(section.heading, r.revision)),
              },
              T.restoreRevision,
            ),
          ),
          h("pre", { class: "tp-pre" }, r.body || ""),
        ),
      ),
    );
  }

  function sectionCard(section) {
    const f = state.form && state.form.scope === "section" && state.form.id === section.key ? state.form : null;
    return h(
      "article",
      { class: "tp-card tp-section-card", "data-key": section.key, "data-removed": String(!!section.removed) },
      h(
        "div",
        { class: "tp-card-head" },
        h("span", { class: "tp-strong" }, section.heading || section.key),
        typeof section.revision === "number" ? h("span", { class: "tp-badge" }, T.revision(section.revision)) : null,
        section.removed ? h("span", { class: "tp-badge", "data-tone": "warn" }, T.sectionRemoved) : null,
        h("span", { class: "tp-spacer" }),
        f ? null : button({ class: "tp-btn tp-btn-mini tp-section-edit", disabled: busy(), onclick: () => openSectionForm(section) }, T.sectionEdit),
        button({ class: "tp-btn tp-btn-mini tp-section-revisions", "aria-expanded": String(!!state.revisions[section.key]), onclick: () => toggleRevisions(section) }, T.revisions),
      ),
      f
        ? h(
            "div",
            { class: "tp-form", "data-form": `section:${section.key}` },
            f.conflict ? conflictNote(f.conflict.text, f.conflict.current) : null,
            formField("text", { rows: 8 }, true),
            h(
              "div",
              { class: "tp-toolbar" },
              button(
                { class: "tp-btn tp-btn-primary tp-form-save", disabled: busy(), onclick: () => sectionWrite(section, { action: "edit", text: f.fields.text }, T.sectionSaved(section.heading)) },
                state.busy === "section" ? T.saving : T.save,
              ),
              button({ class: "tp-btn tp-form-cancel", disabled: busy(), onclick: closeForm }, T.cancel),
            ),
          )
        : h("pre", { class: "tp-pre tp-card-body" }, section.body || ""),
      revisionList(section),
    );
  }

  function sectionsView() {
    const slot = state.sections;
    if (!slot) return h("p", { class: "tp-empty" }, T.loading);
    if (slot.error) return h("p", { class: "tp-status tp-err" }, slot.error);
    const data = slot.data || {};
    const sections = list(data.sections);
    return h(
      "div",
      { class: "tp-view tp-cards", id: "sections" },
      data.prose ? h("pre", { class: "tp-pre tp-prose" }, data.prose) : null,
      sections.length === 0 ? h("p", { class: "tp-empty" }, T.fileEmpty) : sections.map(sectionCard),
    );
  }

  function conflictNote(text, current) {
    return h(
      "div",
      { class: "tp-conflict", role: "alert" },
      h("p", { class: "tp-warn" }, text),
      typeof current === "string" ? h("pre", { class: "tp-pre tp-conflict-current" }, current) : null,
    );
  }
  // ---------------------------------------------------------------------------------------
  // Entry cards: DECISIONS.md, SESSIONS.md and the archive, a page at a time, grouped
  // ---------------------------------------------------------------------------------------

  /** The group a card falls in: its area, its month, or its kind and state. */
  function groupKey(card, by) {
    if (by === "area") return card.area || T.generalArea;
    if (by === "kind") {
      const kind = T.kindName[card.kind] || card.kind || "";
      return card.state && card.state !== "live" ? `${kind} · ${T.state[card.state] || card.state}` : kind;
    }
    const date = typeof card.date === "string" && /^\d{4}-\d{2}/.test(card.date) ? card.date.slice(0, 7) : "";
    return date || T.noDate;
  }

  /** Cards in groups, the groups in the order their first card comes (the file's order, newest
   * first), the cards in file order within each. */
  function groupCards(cards, by) {
    const groups = new Map();
    for (const card of cards) {
      const key = groupKey(card, by);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(card);
    }
    return [...groups.entries()].map(([key, items]) => ({ key, items }));
  }

  /** The Markdown an edit starts from: the entry as its file has it. */
  const entryMarkdown = (card) => `## ${card.heading || ""}\n${card.body || ""}`;

  /** One POST /entry for `card`, with the version it was shown at. A stale version keeps the
   * open draft and shows what the entry says now. */
  async function entryWrite(card, action, extra, doneText) {
    // a write here closes whatever form is open: another card's draft is not dropped unasked
    if (state.form && state.form.id !== card.id && !mayDrop(false)) return;
    await act("entry", async () => {
      const version = state.form && state.form.id === card.id && state.form.version ? state.form.version : card.version;
      try {
        const out = await post("/entry", { root: state.selected, id: card.id, action, version, ...extra });
        state.form = null;
        state.armed = "";
        const where = action === "restore" ? ` · ${landed(out, card.file)}` : "";
        setStatus("ok", `${doneText(out.heading || card.heading || card.id)}${where}`);
      } catch (failure) {
        if (failure.status !== 409) throw failure;
        const currentCard = failure.body && failure.body.current;
        setStatus("err", currentCard ? T.conflict : T.conflictGone);
        if (state.form && state.form.id === card.id) {
          // the draft moves onto the entry as it is now (an edit gives it a new id), so a
          // second save is made knowingly against the current version
          if (currentCard) {
            state.form.id = currentCard.id;
            state.form.version = currentCard.version;
          }
          state.form.conflict = { text: currentCard ? T.conflict : T.conflictGone, current: currentCard ? entryMarkdown(currentCard) : undefined };
        } else {
          state.form = {
            scope: "card",
            id: currentCard ? currentCard.id : card.id,
            kind: "conflict",
            fields: {},
            base: {},
            version: currentCard ? currentCard.version : card.version,
            conflict: { text: currentCard ? T.conflict : T.conflictGone, current: currentCard ? entryMarkdown(currentCard) : undefined },
          };
        }
      }
      await afterWrite();
    });
  }

  function cardForm(card, f) {
    const save = (action, extra, done) => button({ class: "tp-btn tp-btn-primary tp-form-save", disabled: busy(), onclick: () => entryWrite(card, action, extra(), done) }, state.busy === "entry" ? T.saving : T.save);
    const cancel = button({ class: "tp-btn tp-form-cancel", disabled: busy(), onclick: closeForm }, T.cancel);
    let body;
    if (f.kind === "edit") {
      body = [formField("text", { rows: 8 }, true), h("div", { class: "tp-toolbar" }, save("edit", () => ({ text: f.fields.text }), T.entryDone.edit), cancel)];
    } else if (f.kind === "retire") {
      body = [
        formField("why", { placeholder: T.retireWhy, "aria-label": T.retireWhy, required: true }),
        h(
          "div",
          { class: "tp-toolbar" },
          button(
            {
              class: "tp-btn tp-btn-primary tp-form-save",
              disabled: busy(),
              onclick: () => {
                if ((f.fields.why || "").trim() === "") {
                  const field = document.querySelector(`[data-form="card:${card.id}"] input`);
                  if (field) field.focus();
                  return;
                }
                entryWrite(card, "retire", { why: f.fields.why.trim() }, T.entryDone.retire);
              },
            },
            T.cardRetire,
          ),
          cancel,
        ),
      ];
    } else if (f.kind === "supersede") {
      body = [
        formField("choice", { placeholder: T.supChoice, "aria-label": T.supChoice }),
        formField("because", { placeholder: T.supBecause, "aria-label": T.supBecause }),
        formField("over", { placeholder: T.supOver, "aria-label": T.supOver }),
        h(
          "div",
          { class: "tp-toolbar" },
          save(
            "supersede",
            () => ({
              decision: {
                choice: f.fields.choice.trim(),
                because: f.fields.because.trim() || undefined,
                over: f.fields.over.trim() || undefined,
                area: card.area || undefined,
              },
            }),
            T.entryDone.supersede,
          ),
          cancel,
        ),
      ];
    } else {
      body = [h("div", { class: "tp-toolbar" }, cancel)];
    }
    return h("div", { class: "tp-form", "data-form": `card:${card.id}` }, f.conflict ? conflictNote(f.conflict.text, f.conflict.current) : null, body);
  }

  function cardActions(card) {
    const live = !card.state || card.state === "live";
    if (!live) {
      return [button({ class: "tp-btn tp-btn-mini tp-card-restore", disabled: busy(), onclick: () => entryWrite(card, "restore", {}, T.entryDone.restore) }, T.cardRestore)];
    }
    const armed = state.armed === card.id;
    return [
      button({ class: "tp-btn tp-btn-mini tp-card-edit-open", disabled: busy(), onclick: () => openForm("card", card.id, "edit", { text: entryMarkdown(card) }, card.version) }, T.cardEdit),
      card.kind === "decision"
        ? button({ class: "tp-btn tp-btn-mini tp-card-supersede", disabled: busy(), onclick: () => openForm("card", card.id, "supersede", { choice: "", because: "", over: "" }, card.version) }, T.cardSupersede)
        : null,
      button({ class: "tp-btn tp-btn-mini tp-card-retire", disabled: busy(), onclick: () => openForm("card", card.id, "retire", { why: "" }, card.version) }, T.cardRetire),
      armed
        ? button({ class: "tp-btn tp-btn-mini tp-btn-danger tp-card-remove-confirm", disabled: busy(), onclick: () => entryWrite(card, "remove", {}, T.entryDone.remove) }, T.cardConfirmRemove)
        : button(
            {
              class: "tp-btn tp-btn-mini tp-btn-danger tp-card-remove",
              disabled: busy(),
              onclick: () => {
                state.armed = card.id;
                render();
              },
            },
            T.cardRemove,
          ),
    ];
  }

  function provenance(card) {
    const p = card.provenance || {};
    const values = { branch: p.branch, session: p.agent_session || p.session, host: p.host, via: p.via };
    const parts = ["branch", "session", "host", "via"].filter((k) => values[k]).map((k) => `${T.prov[k]} ${values[k]}`);
    if (card.actor) parts.unshift(T.actor(String(card.actor)));
    if (card.created_at) parts.push(stamp(card.created_at));
    return parts.length === 0 ? null : h("div", { class: "tp-meta tp-prov" }, parts.join(" · "));
  }

  /** The reports and proposals that name this card, with their buttons, next to it. */
  function cardNotes(card) {
    const review = (state.review && state.review.data) || {};
    const reports = list(review.reports).filter((r) => list(card.reports).includes(r.n) || list(r.names).includes(card.id));
    const proposals = list(review.proposals).filter((p) => list(card.proposals).includes(p.id));
    if (reports.length === 0 && proposals.length === 0) return null;
    return h("div", { class: "tp-card-notes" }, reports.map(reportBox), proposals.map(proposalBox));
  }

  /** The heading without what the badges beside it already say (its date, its area); empty
   * when they say all of it (a session's "2026-11-24 · panel"). */
  function cardTitle(card) {
    const heading = String(card.heading || "");
    let rest = card.date && heading.startsWith(card.date) ? heading.slice(card.date.length) : heading;
    rest = rest.replace(/^\s*[—·–-]\s*/, "");
    if (card.area && rest.trim() === card.area) rest = "";
    return rest.trim();
  }

  /** A field of the entry (`topic`, `review`): the card's own, else its parsed fields'. */
  const cardField = (card, name) => card[name] || (card.fields && card.fields[name]) || "";

  function entryCard(card) {
    const f = state.form && state.form.scope === "card" && state.form.id === card.id ? state.form : null;
    const st = card.state || "live";
    return h(
      "article",
      { class: "tp-card tp-entry-card", "data-id": card.id, "data-state": st, "data-kind": card.kind || "", "data-heading": card.heading || "" },
      h(
        "div",
        { class: "tp-card-head" },
        card.date ? h("span", { class: "tp-badge tp-date" }, card.date) : null,
        card.area ? h("span", { class: "tp-badge tp-area" }, card.area) : null,
        h("span", { class: "tp-badge tp-state", "data-tone": st === "live" ? "ok" : "warn" }, T.state[st] || st),
        cardField(card, "topic") ? h("span", { class: "tp-badge tp-topic" }, T.topic(cardField(card, "topic"))) : null,
        cardField(card, "review") ? h("span", { class: "tp-badge tp-review", "data-tone": "warn" }, T.review(cardField(card, "review"))) : null,
        cardTitle(card) ? h("span", { class: "tp-strong tp-card-title" }, cardTitle(card)) : null,
      ),
      f && f.kind === "edit" ? null : h("pre", { class: "tp-pre tp-card-body" }, card.body || ""),
      provenance(card),
      cardNotes(card),
      f ? cardForm(card, f) : h("div", { class: "tp-card-actions" }, cardActions(card)),
    );
  }

  function cardsView(view) {
    const slot = state.cards;
    if (!slot) return h("p", { class: "tp-empty" }, T.loading);
    if (slot.error) return h("p", { class: "tp-status tp-err" }, slot.error);
    const groups = groupCards(slot.entries, state.groupBy);
    return h(
      "div",
      { class: "tp-view tp-cards", id: "cards", "data-file": view.file, "data-total": slot.total, "data-shown": slot.entries.length, "data-start": slot.start || 0 },
      view.file === ARCHIVE ? h("p", { class: "tp-hint", id: "archive-readonly" }, T.archiveIntro) : null,
      (slot.start || 0) > 0
        ? h(
            "div",
            { class: "tp-toolbar tp-more-row" },
            button({ id: "cards-newer", class: "tp-btn tp-more", disabled: slot.loading, onclick: newerCards }, T.newer),
          )
        : null,
      slot.entries.length === 0
        ? h("p", { class: "tp-empty" }, view.file === ARCHIVE ? T.archiveEmpty : T.noEntries)
        : groups.map((g) => {
            const key = `${state.groupBy}:${g.key}`;
            return h(
              "details",
              {
                class: "tp-group",
                "data-group": g.key,
                open: !state.collapsed.has(key),
                ontoggle: (event) => {
                  if (event.target.open) state.collapsed.delete(key);
                  else state.collapsed.add(key);
                },
              },
              h("summary", { class: "tp-group-head" }, g.key, h("span", { class: "tp-meta" }, ` · ${g.items.length}`)),
              g.items.map(entryCard),
            );
          }),
      h(
        "div",
        { class: "tp-toolbar tp-more-row" },
        h("span", { class: "tp-meta", id: "cards-count" }, T.entriesTotal(slot.entries.length, slot.total)),
        (slot.start || 0) + slot.entries.length < slot.total
          ? button({ id: "cards-more", class: "tp-btn tp-more", disabled: slot.loading, onclick: moreCards }, T.more)
          : null,
      ),
    );
  }

  async function moreCards() {
    const slot = state.cards;
    if (!slot || slot.loading || (slot.start || 0) + slot.entries.length >= slot.total) return;
    slot.loading = true;
    await loadCards(state.selected, false);
    render();
  }

  /** The page before the window's first card (after "more" let it go). */
  async function newerCards() {
    const slot = state.cards;
    if (!slot || slot.loading || !(slot.start > 0)) return;
    slot.loading = true;
    await loadCards(state.selected, false, true);
    render();
  }

  /** Scrolling near the end of the cards pages the next ones in, up to a limit. */
  let moreObserver = null;
  function observeMore() {
    if (typeof IntersectionObserver !== "function") return;
    if (moreObserver === null) {
      moreObserver = new IntersectionObserver((seen) => {
        const slot = state.cards;
        if (seen.some((e) => e.isIntersecting) && slot && (slot.start || 0) + slot.entries.length < AUTO_PAGE_LIMIT && !state.form) moreCards();
      });
    }
    moreObserver.disconnect();
    const more = $("cards-more");
    if (more) moreObserver.observe(more);
  }
  return {
    agentView,
    attentionView,
    sectionsView,
    cardsView,
    observeMore,
    openSectionForm,
    injectionUse,
    groupCards,
  };
};
