//! `trilogy status`: files, counts, areas, open reports and files that do not parse.

use crate::error::Result;
use crate::ops;

use super::super::{Context, format};

pub fn run(ctx: &Context) -> Result<()> {
    let s = ops::status(&ctx.ws)?;
    format::print(ctx, &s, format::status)
}
