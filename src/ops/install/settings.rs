//! A host's JSON settings file edited in place: only the nodes trilogy adds or removes change,
//! every other byte (order, spacing, comments, CRLF line ends) stays as the user wrote it. The
//! pieces every JSON host shares live here: hook groups, a permission rule, and planning the
//! file's new text or its removal with what [`Record`] says install made (the server entry is
//! [`super::server`]'s).

use std::path::{Path, PathBuf};

use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstArray, CstInputValue, CstNode, CstObject, CstRootNode};
use serde_json::{Map, Value};

use super::InstallOptions;
use super::plan::Plan;
use super::record::{Made, Record};
use crate::error::{Error, Result};
use crate::model::host::Host;

/// One hook trilogy registers.
pub(super) struct HookSpec {
    /// The host's event name.
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    /// The event name `trilogy hook <host>` takes.
    pub arg: &'static str,
    /// Seconds.
    pub timeout: u64,
}

/// True when every line of `text` ends with CRLF (and there is at least one).
pub(super) fn is_crlf(text: &str) -> bool {
    text.contains("\r\n") && !text.replace("\r\n", "").contains('\n')
}

/// `text` with the line ends of the file it goes into.
pub(super) fn line_ends(text: String, crlf: bool) -> String {
    if crlf {
        text.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        text
    }
}

pub(super) fn parse_error(path: &Path, reason: String) -> Error {
    Error::Unparseable {
        path: path.to_path_buf(),
        line: 1,
        reason: format!("{reason}; nothing was changed"),
    }
}

/// A file inside the project is written only through the workspace fence (a cloned repository
/// may commit `.claude/settings.json` as a link to a file elsewhere); user files are the user's.
pub(super) fn confine(opts: &InstallOptions, path: PathBuf) -> Result<PathBuf> {
    if crate::workspace::is_under(&opts.root, &path) {
        crate::workspace::beneath(&opts.root, &path)
    } else {
        Ok(path)
    }
}

/// A JSON settings file.
pub(super) struct Settings {
    pub path: PathBuf,
    pub original: Option<String>,
    root: CstRootNode,
    crlf: bool,
    /// The file ended without a newline: it stays so.
    bare_end: bool,
    /// Said beside the file in the report.
    pub note: Option<String>,
}

impl Settings {
    pub fn load(plan: &Plan, path: PathBuf) -> Result<Settings> {
        let original = plan.read(&path)?;
        let text = original
            .as_deref()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or("{}\n");
        let root = CstRootNode::parse(text, &ParseOptions::default())
            .map_err(|e| parse_error(&path, format!("not valid JSON ({e})")))?;
        Ok(Settings {
            crlf: is_crlf(text),
            bare_end: !text.ends_with('\n'),
            path,
            original,
            root,
            note: None,
        })
    }

    pub fn object(&self) -> Result<CstObject> {
        self.root
            .object_value_or_create()
            .ok_or_else(|| parse_error(&self.path, "the settings are not a JSON object".into()))
    }

    fn text(&self) -> String {
        let text = self.root.to_string();
        let nl = if self.crlf { "\r\n" } else { "\n" };
        let text = if text.ends_with('\n') || self.bare_end {
            text
        } else {
            format!("{text}{nl}")
        };
        line_ends(text, self.crlf)
    }

    /// Plan the file after `install`.
    pub fn save(self, plan: &mut Plan, rec: &mut Record) {
        let text = self.text();
        plan.put(&self.path, self.original, Some(text), rec);
        if let Some(note) = self.note {
            plan.note(note);
        }
    }

    /// Plan the file after `uninstall`: it goes when install made it and it is empty.
    pub fn finish(self, plan: &mut Plan, rec: &Record) -> Result<()> {
        if self.original.is_none() {
            return Ok(());
        }
        let empty = self.object()?.properties().is_empty();
        let text = self.text();
        plan_removal(plan, &self.path, self.original, text, empty, rec);
        Ok(())
    }
}

/// After `uninstall`: the file goes when install made it and nothing is left in it (`empty`),
/// else it gets `text`.
pub(super) fn plan_removal(
    plan: &mut Plan,
    path: &Path,
    original: Option<String>,
    text: String,
    empty: bool,
    rec: &Record,
) {
    let after = if empty && rec.undo(Made::File, path, "", true) {
        None
    } else {
        Some(text)
    };
    plan.change(path, original, after);
}

pub(super) fn input_value(v: &Value) -> CstInputValue {
    match v {
        Value::Null => CstInputValue::Null,
        Value::Bool(b) => CstInputValue::Bool(*b),
        Value::Number(n) => CstInputValue::Number(n.to_string()),
        Value::String(s) => CstInputValue::String(s.clone()),
        Value::Array(a) => CstInputValue::Array(a.iter().map(input_value).collect()),
        Value::Object(o) => {
            CstInputValue::Object(o.iter().map(|(k, v)| (k.clone(), input_value(v))).collect())
        }
    }
}

/// Is this handler one of ours (for this host)? Recognised by its command,
/// `… trilogy hook <host> <event>`, in the form written for any shell on any system.
pub(super) fn is_ours(handler: &Value, target: Host) -> bool {
    let Some(cmd) = handler.get("command").and_then(Value::as_str) else {
        return false;
    };
    let marker = format!(" hook {} ", target.as_str());
    cmd.find(&marker)
        .is_some_and(|pos| super::shell::runs_trilogy(&cmd[..pos]))
}

/// Remove our handlers from the groups of one event; a group left empty by that goes too.
fn strip_ours(groups: &CstArray, target: Host) {
    for group in groups.elements() {
        let Some(handlers) = group.as_object().and_then(|g| g.array_value("hooks")) else {
            continue;
        };
        let all = handlers.elements();
        let ours: Vec<CstNode> = all
            .iter()
            .filter(|h| h.to_serde_value().is_some_and(|v| is_ours(&v, target)))
            .cloned()
            .collect();
        if !ours.is_empty() && ours.len() == all.len() {
            group.remove();
        } else {
            ours.into_iter().for_each(CstNode::remove);
        }
    }
}

/// The group holding one handler.
pub(super) fn group(spec: &HookSpec, handler: Value) -> Value {
    let mut g = Map::new();
    if let Some(m) = spec.matcher {
        g.insert("matcher".into(), Value::String(m.into()));
    }
    g.insert("hooks".into(), Value::Array(vec![handler]));
    Value::Object(g)
}

/// Merge our hook groups into `hooks`, replacing an older handler of ours.
pub(super) fn add_hooks(
    s: &Settings,
    target: Host,
    groups: &[(&HookSpec, Value)],
    rec: &mut Record,
) -> Result<()> {
    let obj = s.object()?;
    if obj.get("hooks").is_none() {
        rec.note(Made::Key, &s.path, "hooks");
    }
    let hooks = obj
        .object_value_or_create("hooks")
        .ok_or_else(|| parse_error(&s.path, "`hooks` is not an object".into()))?;
    for (spec, desired) in groups {
        if hooks.get(spec.event).is_none() {
            rec.note(Made::Key, &s.path, &format!("hooks.{}", spec.event));
        }
        let list = hooks.array_value_or_create(spec.event).ok_or_else(|| {
            parse_error(&s.path, format!("`hooks.{}` is not an array", spec.event))
        })?;
        if list
            .elements()
            .iter()
            .any(|g| g.to_serde_value().as_ref() == Some(desired))
        {
            continue;
        }
        strip_ours(&list, target);
        list.append(input_value(desired));
    }
    Ok(())
}

/// Take our hook groups out; containers install made go when they are left empty.
pub(super) fn remove_hooks(
    s: &Settings,
    target: Host,
    specs: &[HookSpec],
    rec: &Record,
) -> Result<()> {
    let obj = s.object()?;
    let Some(hooks) = obj.object_value("hooks") else {
        return Ok(());
    };
    for spec in specs {
        if let Some(list) = hooks.array_value(spec.event) {
            strip_ours(&list, target);
            let key = format!("hooks.{}", spec.event);
            if list.elements().is_empty()
                && rec.undo(Made::Key, &s.path, &key, true)
                && let Some(p) = hooks.get(spec.event)
            {
                p.remove();
            }
        }
    }
    if hooks.properties().is_empty()
        && rec.undo(Made::Key, &s.path, "hooks", true)
        && let Some(p) = obj.get("hooks")
    {
        p.remove();
    }
    Ok(())
}

/// Add `rule` to `permissions.allow` (Claude Code's allow list).
pub(super) fn allow(s: &Settings, rule: &str, rec: &mut Record) -> Result<()> {
    let obj = s.object()?;
    if obj.get("permissions").is_none() {
        rec.note(Made::Key, &s.path, "permissions");
    }
    let perms = obj
        .object_value_or_create("permissions")
        .ok_or_else(|| parse_error(&s.path, "`permissions` is not an object".into()))?;
    if perms.get("allow").is_none() {
        rec.note(Made::Key, &s.path, "permissions.allow");
    }
    let list = perms
        .array_value_or_create("allow")
        .ok_or_else(|| parse_error(&s.path, "`permissions.allow` is not an array".into()))?;
    if !list
        .elements()
        .iter()
        .any(|e| e.to_serde_value().as_ref().and_then(Value::as_str) == Some(rule))
    {
        list.append(CstInputValue::String(rule.into()));
        rec.note(Made::Entry, &s.path, rule);
    }
    Ok(())
}

/// Take `rule` out of `permissions.allow` when install added it.
pub(super) fn disallow(s: &Settings, rule: &str, rec: &Record) -> Result<()> {
    let obj = s.object()?;
    let Some(perms) = obj.object_value("permissions") else {
        return Ok(());
    };
    if let Some(list) = perms.array_value("allow") {
        if rec.undo(Made::Entry, &s.path, rule, true) {
            for e in list.elements() {
                if e.to_serde_value().as_ref().and_then(Value::as_str) == Some(rule) {
                    e.remove();
                }
            }
        }
        if list.elements().is_empty()
            && rec.undo(Made::Key, &s.path, "permissions.allow", true)
            && let Some(p) = perms.get("allow")
        {
            p.remove();
        }
    }
    if perms.properties().is_empty()
        && rec.undo(Made::Key, &s.path, "permissions", true)
        && let Some(p) = obj.get("permissions")
    {
        p.remove();
    }
    Ok(())
}
