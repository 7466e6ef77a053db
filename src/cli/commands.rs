//! The commands that work on an opened workspace: each one's arguments to the `ops` call
//! that does the work, and its result to `format`. The workspace is built, and recorded for
//! the panel, by the caller.

use crate::error::{Error, Exit, Result};
use crate::model::FileKind;
use crate::ops::{self, EntryFilter, LogQuery, ReadTarget};

use super::{
    Command, DoctorArgs, DueArgs, Env, ReadArgs, ReportsArgs, ResolveArgs, RestoreArgs, agent,
    bundle, checkpoint, format, parse_date,
};

/// One command on its opened workspace.
pub(super) fn run(command: Command, env: &Env) -> Result<()> {
    match command {
        Command::Init => cmd_init(env),
        Command::Checkpoint(a) => checkpoint::checkpoint(env, *a),
        Command::Read(a) => cmd_read(env, a),
        Command::Status => {
            let s = ops::status(&env.ws)?;
            format::print(env, &s, format::status)
        }
        Command::Log(a) => {
            let view = ops::log(
                &env.ws,
                &LogQuery {
                    limit: a.limit,
                    id: a.id,
                    section: a.section,
                },
            )?;
            format::print(env, &view, format::log)
        }
        Command::Due(a) => cmd_due(env, a),
        Command::Retire(a) => {
            let out = ops::truth::retire::retire(&env.ws, "cli", &a.id, &a.why, None)?;
            format::warn_sync(&out.report);
            format::print(env, &out.value, |o| {
                format!(
                    "retired {} ({}) in {}: {}\nit is no longer injected; `trilogy restore {}` brings it back",
                    o.id, o.heading, o.file, o.marker, o.id
                )
            })
        }
        Command::Restore(a) if a.clear.is_some() => {
            let out = ops::restore_cleared(&env.ws, "cli", a.clear.unwrap_or_default())?;
            format::warn_sync(&out.report);
            format::print(env, &out.value, |o| {
                let mut lines = vec![format!(
                    "brought back {} entries and {} sections from clear #{}",
                    o.entries, o.sections, o.clear
                )];
                lines.extend(o.left.iter().map(|l| format!("left as it is: {l}")));
                lines.join("\n")
            })
        }
        Command::Restore(a) => cmd_restore(env, a),
        Command::Reports(a) => cmd_reports(env, a),
        Command::Doctor(a) => cmd_doctor(env, a),
        Command::Resolve(a) => cmd_resolve(env, a),
        Command::Config => format::print(env, &env.loaded, format::config),
        Command::Review(a) => super::review::review(env, a),
        Command::Recall(a) => super::recall::run(env, a),
        Command::Search(a) => agent::search(env, a),
        Command::Reindex => agent::reindex(env),
        Command::Inject(a) => agent::inject(env, a),
        Command::Sessions(a) => agent::sessions(env, a),
        Command::Install(a) => agent::install(env, a, false),
        Command::Uninstall(a) => agent::install(env, a, true),
        Command::Block(a) => bundle::block(env, a),
        Command::Export(a) => bundle::export(env, a),
        Command::Import(a) => bundle::import(env, a),
        Command::Clear(a) => bundle::clear(env, a),
        Command::Demo(_)
        | Command::Completions(_)
        | Command::Man
        | Command::Hook(_)
        | Command::Mcp(_)
        | Command::Serve(_)
        | Command::User(_)
        | Command::MergeDriver(_) => unreachable!("handled above"),
    }
}

/// `init`: the memory files and store made, and a language chosen for this command kept.
fn cmd_init(env: &Env) -> Result<()> {
    let out = ops::init(&env.ws)?;
    crate::registry::touch_quietly(&env.vars, &env.ws, true);
    // a language chosen for this command alone becomes the workspace's
    let chosen = env
        .loaded
        .sources
        .get("lang")
        .is_some_and(|from| from == "--set" || from.starts_with("env "));
    if chosen {
        ops::persist_lang(&env.ws)?;
    }
    format::print(env, &out, format::init)
}

/// `due`: what is due for review within `--within` days.
fn cmd_due(env: &Env, a: DueArgs) -> Result<()> {
    let until = env
        .ws
        .clock
        .today()
        .checked_add_days(chrono::Days::new(a.within))
        .ok_or_else(|| Error::bad_input("--within: too many days"))?;
    env.ws.require_memory()?;
    let due = env
        .ws
        .read(|r| crate::ops::truth::review::due(r, until))?
        .value;
    format::print(env, &due, |d| format::due(d))
}

/// `restore`: an entry, a section's revision, or pasted text brought back.
fn cmd_restore(env: &Env, a: RestoreArgs) -> Result<()> {
    let out = match (&a.id, &a.section, a.revision) {
        _ if a.text.is_some() => {
            let text = match a.text.as_deref() {
                Some("-") => {
                    let mut s = String::new();
                    std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
                        .map_err(|e| Error::io("<stdin>", e))?;
                    s
                }
                t => t.unwrap_or_default().to_string(),
            };
            ops::restore_text(&env.ws, &text, "cli")?
        }
        (Some(id), _, _) => ops::restore_entry(&env.ws, "cli", id, None)?,
        (None, Some(s), Some(r)) => ops::restore_section(&env.ws, "cli", s, r, None)?,
        _ => {
            return Err(Error::bad_input(
                "give an entry id, or --section NAME --revision N",
            ));
        }
    };
    format::warn_sync(&out.report);
    format::print(env, &out.value, format::restore)
}

/// `reports`: the reports listed, or one closed.
fn cmd_reports(env: &Env, a: ReportsArgs) -> Result<()> {
    match a.close {
        Some(n) => {
            let r = ops::close_report(&env.ws, "cli", n)?;
            format::print(env, &r, format::closed_report)
        }
        None => {
            let list = ops::reports(&env.ws, a.all)?;
            format::print(env, &list, |l| {
                if l.is_empty() {
                    return "(no open reports)".into();
                }
                l.iter()
                    .map(|r| {
                        format!(
                            "#{} {} {} ({}): {}",
                            r.seq,
                            if r.open { "open  " } else { "closed" },
                            r.at,
                            r.actor,
                            r.text
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n")
            })
        }
    }
}

/// `doctor`: the findings (and with `--fix`, what was repaired); exit 9 on an error.
fn cmd_doctor(env: &Env, a: DoctorArgs) -> Result<()> {
    let report = ops::doctor::doctor(&env.ws, &env.vars, a.fix)?;
    format::print(env, &report, |r| {
        let mut lines: Vec<String> = r.fixed.iter().map(|f| format!("fixed: {f}")).collect();
        if r.worst() == ops::doctor::Level::Ok {
            lines.push("all checks passed".into());
        }
        for f in &r.findings {
            let level = format!("{:?}", f.level).to_lowercase();
            lines.push(format!("{level:<5} {:<13} {}", f.check, f.message));
            if !f.action.is_empty() {
                lines.push(format!("      {:<13} → {}", "", f.action));
            }
        }
        lines.join("\n")
    })?;
    if report.worst() == ops::doctor::Level::Error {
        std::process::exit(Exit::Doctor.code());
    }
    Ok(())
}

/// `resolve`: files git left unmerged merged by entry; the unparseable exit when markers stay.
fn cmd_resolve(env: &Env, a: ResolveArgs) -> Result<()> {
    let done = ops::gitmerge::resolve(&env.ws, &a.files)?;
    format::print(env, &done, |d| format::resolved(d))?;
    if done.iter().any(|r| r.conflicts > 0) {
        // the markers left make the file one that does not parse
        std::process::exit(Exit::Unparseable.code());
    }
    Ok(())
}

fn cmd_read(env: &Env, a: ReadArgs) -> Result<()> {
    if a.file.as_deref().is_some_and(crate::user::is_file) {
        let target = match a.section {
            Some(s) => ReadTarget::Section(s),
            None => ReadTarget::File(FileKind::Project),
        };
        let out = ops::read(crate::user::ready(&env.ws)?, &target)?;
        format::warn_sync(&out.report);
        return format::print(env, &out.value, format::read);
    }
    if a.section.is_some()
        && let Some(f) = a
            .file
            .as_deref()
            .filter(|f| FileKind::from_name(f) != Some(FileKind::Project))
    {
        return Err(Error::bad_input(format!(
            "--section reads a section of PROJECT.md or USER.md, not of {f}; drop the file name, or name one of those two"
        )));
    }
    let file = a
        .file
        .as_deref()
        .map(|f| {
            FileKind::from_name(f).ok_or_else(|| {
                Error::bad_input(format!(
                    "unknown file `{f}`; choose PROJECT.md, DECISIONS.md, SESSIONS.md, SESSIONS-archive.md or USER.md"
                ))
            })
        })
        .transpose()?;
    let entry_mode = a.area.is_some()
        || a.since.is_some()
        || a.until.is_some()
        || a.limit.is_some()
        || a.branch.is_some();
    let targets: Vec<ReadTarget> = if let Some(s) = a.section {
        vec![ReadTarget::Section(s)]
    } else if entry_mode {
        vec![ReadTarget::Entries(EntryFilter {
            file: file.unwrap_or(FileKind::Sessions),
            area: a.area,
            since: parse_date("since", &a.since)?,
            until: parse_date("until", &a.until)?,
            limit: a.limit.unwrap_or(usize::MAX),
            branch: a.branch,
        })]
    } else if let Some(f) = file {
        vec![ReadTarget::File(f)]
    } else {
        [FileKind::Project, FileKind::Decisions, FileKind::Sessions]
            .into_iter()
            .map(ReadTarget::File)
            .collect()
    };
    let mut outs = Vec::new();
    for t in &targets {
        let out = ops::read(&env.ws, t)?;
        format::warn_sync(&out.report);
        outs.push(out.value);
    }
    if outs.len() == 1 {
        format::print(env, &outs[0], format::read)
    } else {
        format::print(env, &outs, |o: &Vec<ops::ReadOutput>| {
            o.iter().map(format::read).collect::<Vec<_>>().join("\n")
        })
    }
}
