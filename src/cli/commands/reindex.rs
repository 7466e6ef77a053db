//! `trilogy reindex`: the search index rebuilt from the store.

use crate::error::Result;

use super::super::{Context, format, progress};

pub fn run(ctx: &Context) -> Result<()> {
    let mut bar = progress::Bar::stderr("indexing", ctx.json);
    let n = crate::ops::search::reindex(&ctx.ws, &mut |done, total| bar.update(done, total))?;
    drop(bar);
    format::print(ctx, &serde_json::json!({ "documents": n }), |_| {
        format!("indexed {n} documents")
    })
}
