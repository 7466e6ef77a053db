//! `trilogy merge-driver`: three versions of a memory file merged by entry, as git's merge
//! driver (`%O %A %B %P`). It answers in git's protocol, not trilogy's exit table: 0 merged,
//! non-zero conflicted.

use std::path::PathBuf;

use clap::Args;

use crate::ops::gitmerge;

#[derive(Args, Debug)]
pub struct MergeDriverArgs {
    /// The common ancestor (%O)
    base: PathBuf,
    /// Our version (%A); the result is written here
    ours: PathBuf,
    /// Their version (%B)
    theirs: PathBuf,
    /// The path in the repository (%P)
    path: String,
}

/// Merge, and give the exit code git reads.
pub fn run(a: &MergeDriverArgs) -> i32 {
    // `.gitattributes` may send any path here (`* merge=trilogy`): what is not a workspace's
    // memory file gets git's own text merge
    if !gitmerge::is_memory_path(&a.path) {
        return gitmerge::fallback_merge(&a.base, &a.ours, &a.theirs);
    }
    match gitmerge::merge_driver(&a.base, &a.ours, &a.theirs, &a.path) {
        Ok(r) if r.conflicts == 0 => 0,
        Ok(r) => {
            eprintln!(
                "trilogy: {}: {} section(s) changed on both sides; resolve the markers",
                a.path, r.conflicts
            );
            1
        }
        Err(e) => {
            eprintln!("trilogy: {}: {e}; falling back to a line merge", a.path);
            gitmerge::fallback_merge(&a.base, &a.ours, &a.theirs)
        }
    }
}
