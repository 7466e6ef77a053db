//! What memory holds and finds: search and its evaluation, recall over transcripts, topics,
//! retire, review dates, proposals, secrets, the user memory, imports and bundles.

#[path = "../common/mod.rs"]
mod common;

mod bundles;
mod import_scale;
mod import_sources;
mod proposals;
mod recall;
mod recall_bounds;
mod red_team;
mod retire;
mod review_dates;
mod search;
mod search_eval;
mod secrets;
mod topics;
mod user_memory;
