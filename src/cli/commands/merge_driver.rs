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
    if !is_memory_file(&a.path) {
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

/// Is `path` (git's `%P`, from the work tree's top, where git runs the driver) a memory file
/// of a workspace above it, as that workspace's settings name its memory folder?
fn is_memory_file(path: &str) -> bool {
    use std::path::Path;
    let path = Path::new(path);
    let named =
        |f: &crate::model::FileKind| Some(std::ffi::OsStr::new(f.file_name())) == path.file_name();
    if !crate::model::FileKind::ALL.iter().any(named) {
        return false;
    }
    let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return false;
    };
    let env = crate::base::env::snapshot();
    folder.ancestors().skip(1).any(|root| {
        let at = if root.as_os_str().is_empty() {
            Path::new(".")
        } else {
            root
        };
        let dir_name = match crate::workspace::open_workspace(at, &env, &[]) {
            Ok((ws, _)) => ws.config.memory_dir_name,
            Err(_) => crate::config::Config::default().memory_dir_name,
        };
        root.join(dir_name) == folder
    })
}
