//! What the panel opens a workspace on: `injection` (the block an agent would be given for a
//! host and a window, and why each entry is in it or not: [`crate::ops::seen`]), `attention`
//! (what waits for a person: reports, proposals, reviews due, a stale PROJECT, doctor's
//! findings, recall's freshness), `change` (a token that moves with every write, for the
//! page to poll), and `review` (proposals and reports, with accept, reject and close).

use axum::http::Method;
use serde_json::{Value, json};

use super::api::{open, open_to_read, registered, root_of};
use super::{ApiError, ApiResult, App, Request, says, to_json, wrong_method};
use crate::ops;

/// Who the event log names for the panel's writes.
const ACTOR: &str = "panel";

const ENDPOINTS: [&str; 4] = ["injection", "attention", "change", "review"];

pub fn is_endpoint(name: &str) -> bool {
    ENDPOINTS.contains(&name)
}

pub fn route(app: &App, req: &Request) -> Option<ApiResult> {
    let get = req.method == Method::GET;
    Some(match req.name.as_str() {
        "injection" if get => injection(app, req),
        "attention" if get => attention(app, req),
        "change" if get => change(app, req),
        "review" if get => review_list(app, req),
        "review" if req.method == Method::POST => review_act(app, req),
        "review" => Err(wrong_method(req, "GET|POST")),
        "injection" | "attention" | "change" => Err(wrong_method(req, "GET")),
        _ => return None,
    })
}

/// `GET /injection?root=&host=&window=`: `trilogy inject --host H --window-tokens N`'s block
/// and its account.
fn injection(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    let window = match req.param("window") {
        None => None,
        Some(w) => Some(w.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
            ApiError::bad(says(
                format!("window 必须是正整数（模型上下文的 token 数）：{w}"),
                format!(
                    "window must be a positive whole number (the model's context in tokens): {w}"
                ),
            ))
        })?),
    };
    to_json(&ops::seen::seen(&ws, req.param("host"), window)?)
}

/// `GET /change?root=`: `{change}`, which differs after any write to the store (entries,
/// sections, events, proposals, reports). Reading it absorbs a hand edit first, like every
/// read, so an edit made in an editor moves it too.
fn change(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    Ok(json!({ "change": ops::panel::change(&ws)? }))
}

/// `GET /attention?root=&host=`: what waits for a person, each with where it is handled, and
/// the ledger line of `host`'s block.
fn attention(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    let listing = ops::proposals::list(&ws, false)?;
    let project_ms = std::fs::metadata(ws.file_path(crate::model::FileKind::Project))
        .and_then(|m| m.modified())
        .ok()
        .map_or(0, |t| crate::base::clock::unix_ms(t) as i64);
    let ops::panel::Attention {
        due,
        stale,
        change: token,
    } = ops::panel::attention(&ws, &app.lags, project_ms)?;
    let threshold = ws.config.project_stale_days;
    let stale = stale.filter(|l| threshold > 0 && l.behind_days >= threshold);
    let recall = if ws.config.recall.is_some() {
        let st = crate::recall::status(&ws)?;
        let pending: usize = st.hosts.iter().map(|h| h.pending).sum();
        Some(json!({
            "complete": st.complete,
            "pending_files": pending,
            "messages": st.messages,
            "last_build": st.last_build,
        }))
    } else {
        None
    };
    // the ledger of the host the page shows, with that host's limit
    let ledger_line = ops::seen::ledger_line(&ws, req.param("host"))?;
    Ok(json!({
        "reports_open": listing.reports.len(),
        "proposals_pending": listing.proposals.len(),
        "due": due,
        "stale": stale,
        "doctor": doctor_part(app, &ws, &token),
        "recall": recall,
        "ledger_line": ledger_line,
        "change": token,
    }))
}

/// How long doctor's findings are kept for one change token: it also looks at what the
/// token does not follow (git's state, permissions, the user memory).
const DOCTOR_FRESH: std::time::Duration = std::time::Duration::from_secs(30);

/// `doctor`'s findings for `ws` at change `token`: from the cache while fresh, or
/// `{pending: true}` while a judgement runs on a thread of its own (one per workspace at a
/// time; the page asks again), so opening a large workspace never waits for it.
fn doctor_part(app: &App, ws: &std::sync::Arc<crate::workspace::Workspace>, token: &str) -> Value {
    let cache = app.doctors.clone();
    let mut held = cache.lock().unwrap_or_else(|p| p.into_inner());
    match held.get(&ws.root) {
        Some(d) if d.value.is_none() => return json!({ "pending": true }),
        Some(d) if d.token == token && d.at.elapsed() < DOCTOR_FRESH => {
            return d.value.clone().unwrap_or_default();
        }
        _ => {}
    }
    held.insert(
        ws.root.clone(),
        super::Doctored {
            token: token.to_string(),
            at: std::time::Instant::now(),
            value: None,
        },
    );
    drop(held);
    let (ws, token, env) = (ws.clone(), token.to_string(), app.env.clone());
    std::thread::spawn(move || {
        let judged = ops::doctor::doctor(&ws, &env, false).map(|report| {
            let count = |level: ops::doctor::Level| {
                report.findings.iter().filter(|f| f.level == level).count()
            };
            // each as `trilogy doctor --json` gives it: level, check, message, action
            let findings: Vec<&ops::doctor::Finding> = (report.findings.iter())
                .filter(|f| f.level != ops::doctor::Level::Ok)
                .collect();
            json!({
                "errors": count(ops::doctor::Level::Error),
                "warnings": count(ops::doctor::Level::Warn),
                "findings": findings,
            })
        });
        let mut held = cache.lock().unwrap_or_else(|p| p.into_inner());
        match judged {
            Ok(v) => {
                held.insert(
                    ws.root.clone(),
                    super::Doctored {
                        token,
                        at: std::time::Instant::now(),
                        value: Some(v),
                    },
                );
            }
            // a failed judgement (a writer held the lock past the timeout…) is asked again
            Err(e) => {
                tracing::debug!(error = %e, "doctor for the panel");
                held.remove(&ws.root);
            }
        }
    });
    json!({ "pending": true })
}

/// `GET /review?root=`: pending proposals and open reports, each report with the live
/// entries it names.
fn review_list(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    let ws = open_to_read(app, &root, true)?;
    to_json(&ops::panel::review(&ws)?)
}

/// `POST /review {root, id, action, why?, text?}`: accept or reject a proposal, close a
/// report (its number as `id`).
fn review_act(app: &App, req: &Request) -> ApiResult {
    let root = root_of(req)?;
    registered(app, &root)?;
    let ws = open(app, &root)?;
    let id = match req.field("id") {
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            return Err(ApiError::bad(says(
                "缺少 id（提案的 id，或报告的编号）",
                "missing id (a proposal's id, or a report's number)",
            )));
        }
    };
    let key = root.display().to_string();
    match req.str_field("action").unwrap_or("") {
        "accept" => to_json(
            &app.writing(&key, || {
                ops::proposals::accept(&ws, ACTOR, &id, req.str_field("text"))
            })?
            .value,
        ),
        "reject" => to_json(&app.writing(&key, || {
            ops::proposals::reject(&ws, ACTOR, &id, req.str_field("why"))
        })?),
        "close" => {
            let n = id.parse::<u64>().map_err(|_| {
                ApiError::bad(says(
                    format!("报告编号必须是整数：{id}"),
                    format!("a report's number must be a whole number: {id}"),
                ))
            })?;
            to_json(&app.writing(&key, || ops::close_report(&ws, ACTOR, n))?)
        }
        _ => Err(ApiError::bad(says(
            "action 必须是 accept、reject 或 close",
            "action must be accept, reject or close",
        ))),
    }
}
