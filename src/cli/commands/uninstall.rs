//! `trilogy uninstall`: what `install` added taken out, each file given back as it was. The
//! arguments are `install`'s.

use crate::error::Result;

use super::super::Context;
use super::install::{self, InstallArgs};

pub fn run(ctx: &Context, a: InstallArgs) -> Result<()> {
    install::apply(ctx, a, true)
}
