//! `trilogy init`: the memory files and the store made, and the workspace's language kept in
//! its `trilogy.toml`; `--lang` switches it.

use crate::error::Result;
use crate::model::Lang;
use crate::ops;

use super::super::{Context, format};

#[derive(clap::Args, Debug)]
pub struct InitArgs {
    /// The language of headings, labels and templates: zh or en. Without it: the language of
    /// the memory already here, else `lang` from your settings, else your locale (LC_ALL,
    /// LC_MESSAGES, LANG: zh… is Chinese, anything else English). In a workspace that has one
    /// already, it switches: entries written so far keep their bytes and ids, what trilogy
    /// writes from now on is in the new language.
    #[arg(long, value_parser = ["zh", "en"])]
    pub lang: Option<String>,
}

pub const HELP: &str = "\
Prints what it created from the templates, restored from the store (the files were deleted),
and kept as they were, and the language and where it came from. The language is written
into the project's trilogy.toml (commit it) so teammates with other locales write the same
labels; `trilogy init --lang en` (or zh) switches it later.";

/// The `--set` a `--lang` stands for, after the command's own so it wins.
pub fn overrides(a: &InitArgs, set: &[String]) -> Vec<String> {
    let mut all = set.to_vec();
    all.extend(a.lang.as_ref().map(|l| format!("lang={l}")));
    all
}

pub fn run(ctx: &Context, a: &InitArgs) -> Result<()> {
    let mut out = ops::init_as(&ctx.ws, a.lang.is_some())?;
    let path = crate::base::env::var(&ctx.vars, "PATH");
    out.git = ops::gitmerge::set_up(&ctx.ws, path);
    crate::registry::touch_quietly(&ctx.vars, &ctx.ws, true);
    let from = match &a.lang {
        Some(_) => Some("--lang".to_string()),
        None => ctx.loaded.sources.get("lang").cloned(),
    };
    let from = match from.as_deref() {
        None | Some("default") => format!("the default ({})", Lang::Zh.as_str()),
        Some(f) => f.to_string(),
    };
    format::print(ctx, &out, |o| format::init(o, &from))
}
