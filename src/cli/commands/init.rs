//! `trilogy init`: the memory files and the store made, and a language chosen for this
//! command kept as the workspace's.

use crate::error::Result;
use crate::ops;

use super::super::{Context, format};

pub fn run(ctx: &Context) -> Result<()> {
    let out = ops::init(&ctx.ws)?;
    crate::registry::touch_quietly(&ctx.vars, &ctx.ws, true);
    // a language chosen for this command alone becomes the workspace's
    let chosen = ctx
        .loaded
        .sources
        .get("lang")
        .is_some_and(|from| from == "--set" || from.starts_with("env "));
    if chosen {
        ops::persist_lang(&ctx.ws)?;
    }
    format::print(ctx, &out, format::init)
}
