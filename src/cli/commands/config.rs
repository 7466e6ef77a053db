//! `trilogy config`: the effective configuration and where each value came from. It runs in a
//! workspace that is switched off too, to show where `enabled = false` was set.

use crate::error::Result;

use super::super::{Context, format};

pub fn run(ctx: &Context) -> Result<()> {
    format::print(ctx, &ctx.loaded, format::config)
}
