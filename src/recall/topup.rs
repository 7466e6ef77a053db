//! Bringing the recall index up to the transcripts before a query: what changed since each
//! file was last read is read from where that read ended, and committed — or, when it is only
//! a turn or two, or another process holds the writer, handed back to be searched beside the
//! index. A top-up that finds nothing to read leaves a stamp (`fresh`), so the next one whose
//! files are as they were searches without reading the manifest.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use tantivy::Index;

use crate::error::Result;
use crate::model::host::Host;
use crate::workspace::Workspace;

use super::{SMALL_TAIL, fresh, hosts, index, index_err, root_of, sources};

/// Bring the index up to the transcripts, as far as this process may; the documents it does
/// not commit (a few new ones, or all while another process holds the writer) come back, to
/// be searched beside it.
pub fn top_up(
    ws: &Workspace,
    dir: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Index, index::Fields, Vec<index::Doc>)> {
    top_up_leaving(ws, dir, progress, SMALL_TAIL)
}

/// [`top_up`] committing everything new, however little (asked for by a person, who then
/// reads the index's status: nothing is left pending that could be read).
pub fn top_up_all(
    ws: &Workspace,
    dir: &Path,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(Index, index::Fields, Vec<index::Doc>)> {
    top_up_leaving(ws, dir, progress, 0)
}

/// [`top_up`], leaving up to `small_tail` new messages uncommitted.
fn top_up_leaving(
    ws: &Workspace,
    dir: &Path,
    progress: &mut dyn FnMut(usize, usize),
    small_tail: usize,
) -> Result<(Index, index::Fields, Vec<index::Doc>)> {
    let Some(places) = ws.config.recall.clone() else {
        let (idx, f, _) = index::open(dir)?;
        return Ok((idx, f, Vec::new()));
    };
    let root = root_of(ws);
    // the answer of the check below, kept from the last time it found nothing to read
    let stamp = fresh::read(dir);
    let others: HashSet<&str> = (stamp.iter())
        .flat_map(|s| s.others.iter().map(String::as_str))
        .collect();
    let known_other = |p: &Path| !others.is_empty() && others.contains(fresh::key(p).as_str());
    let found = sources::find(&places, &hosts(ws, None), &root, &known_other);
    if let Some(stamp) = &stamp
        && let Some((idx, f)) =
            index::open_fresh(dir, stamp, &fresh::digest(&found, &|s| s.known_other))
    {
        return Ok((idx, f, Vec::new()));
    }
    // the manifest as it was before it is read: a stamp names what its check read
    let seen_stat = index::manifest_stat(dir);
    let (idx, f, seen) = index::open(dir)?;
    let gemini: Vec<String> = match places.home(Host::Gemini) {
        Some(base) => (sources::gemini_projects(base, &root).iter())
            .map(|(p, _)| sources::gemini_hash(p))
            .collect(),
        None => Vec::new(),
    };
    let pass = Pass {
        dir,
        keys: found.iter().map(|s| s.path.display().to_string()).collect(),
        found,
        root,
        gemini,
        small_tail,
    };
    // a manifest that does not go with the index's last commit cannot be read on from
    let matched = seen.generation == index::committed(&idx);
    let gone = seen.files.keys().any(|k| !pass.keys.contains(k));
    let seen = match matched && !gone {
        true => match pass.without_writer(seen, seen_stat)? {
            Light::Done(docs) => return Ok((idx, f, docs)),
            Light::Writer(seen) => seen,
        },
        false => seen,
    };
    let writer: tantivy::IndexWriter = match idx.writer_with_num_threads(2, 64_000_000) {
        Ok(w) => w,
        // another process is indexing: what is new is searched from memory this once
        Err(tantivy::TantivyError::LockFailure(..)) => {
            let fresh = pass.read_all(&seen, progress);
            return Ok((idx, f, fresh.into_iter().flat_map(|x| x.docs).collect()));
        }
        Err(e) => return Err(index_err(dir, e)),
    };
    crate::base::fault::pause_point("recall-writer");
    pass.commit(ws, &idx, &f, writer, progress)?;
    Ok((idx, f, Vec::new()))
}

/// One top-up's view of the transcripts: the files found and how to read them.
struct Pass<'a> {
    /// The recall index's folder.
    dir: &'a Path,
    found: Vec<sources::Source>,
    /// The manifest's keys of the files found.
    keys: BTreeSet<String>,
    root: PathBuf,
    /// Gemini's hashes of this project's folders.
    gemini: Vec<String>,
    /// Up to this many new messages in files already indexed are searched from memory rather
    /// than committed.
    small_tail: usize,
}

/// What a top-up found without taking the writer.
enum Light {
    /// Nothing to commit: the documents to search beside the index.
    Done(Vec<index::Doc>),
    /// The writer is needed; the manifest as read.
    Writer(index::Manifest),
}

impl Pass<'_> {
    /// Every file as `m` last read it (by its size and time when listed).
    fn all_unchanged(&self, m: &index::Manifest) -> bool {
        (self.found.iter())
            .all(|src| index::unchanged(src, m.files.get(&src.path.display().to_string())))
    }

    /// Say in a stamp for the next recall, once `all_unchanged(manifest)` holds, that nothing
    /// is to read while the manifest keeps `stat`.
    fn stamp(&self, manifest: &index::Manifest, stat: Option<sources::Stat>) {
        let Some(stat) = stat else { return };
        let other = |src: &sources::Source| {
            (manifest.files.get(&src.path.display().to_string())).is_some_and(|s| s.other)
        };
        fresh::write(
            self.dir,
            &fresh::Stamp {
                version: index::VERSION,
                generation: manifest.generation,
                manifest: stat,
                files: fresh::digest(&self.found, &other),
                others: (self.found.iter().filter(|s| other(s)))
                    .map(|s| fresh::key(&s.path))
                    .collect(),
            },
        );
    }

    /// What each file holds past what `manifest` says was read.
    fn read_all(
        &self,
        manifest: &index::Manifest,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Vec<index::Fresh> {
        let total = self.found.len();
        let mut out = Vec::new();
        for (i, src) in self.found.iter().enumerate() {
            progress(i, total);
            crate::base::fault::pause_point("recall-file");
            let key = src.path.display().to_string();
            if let Some(x) =
                index::read_new(src, manifest.files.get(&key), &self.root, &self.gemini)
            {
                out.push(x);
            }
        }
        progress(total, total);
        out
    }

    /// With a manifest `seen` that goes with the index: nothing new (stat alone tells), lines
    /// that said nothing, or a few new messages, need no writer.
    fn without_writer(
        &self,
        seen: index::Manifest,
        seen_stat: Option<sources::Stat>,
    ) -> Result<Light> {
        if self.all_unchanged(&seen) {
            self.stamp(&seen, seen_stat);
            return Ok(Light::Done(Vec::new()));
        }
        // a few new messages (a turn or two) are searched from memory rather than committed,
        // as memory_search does: a commit costs more than reading them again next time
        let fresh = self.read_all(&seen, &mut |_, _| {});
        // only appends to files already indexed: a file read for the first time is committed
        let quiet = fresh.iter().all(|x| {
            !x.restart && x.state.unreadable.is_none() && seen.files.contains_key(&x.path)
        });
        let new: usize = fresh.iter().map(|x| x.docs.len()).sum();
        if quiet && new == 0 {
            // lines that said nothing (tool output, a touched file): only how far they were
            // read changes, nothing of the index
            let mut manifest = seen;
            for x in fresh {
                manifest.files.insert(x.path, x.state);
            }
            index::save(self.dir, &manifest)?;
            if self.all_unchanged(&manifest) {
                self.stamp(&manifest, index::manifest_stat(self.dir));
            }
            return Ok(Light::Done(Vec::new()));
        }
        if quiet && new <= self.small_tail {
            return Ok(Light::Done(
                fresh.into_iter().flat_map(|x| x.docs).collect(),
            ));
        }
        Ok(Light::Writer(seen))
    }

    /// Under the writer: read what is new, commit it with the manifest that says so, and
    /// merge the segments after a large catch-up.
    fn commit(
        &self,
        ws: &Workspace,
        idx: &Index,
        f: &index::Fields,
        mut writer: tantivy::IndexWriter,
        progress: &mut dyn FnMut(usize, usize),
    ) -> Result<()> {
        let dir = self.dir;
        // read again under the writer: another process may have indexed meanwhile
        let mut manifest = index::load(dir);
        let committed = index::committed(idx);
        if manifest.generation != committed {
            // left by a process that stopped between committing and saving: built again
            writer
                .delete_all_documents()
                .map_err(|e| index_err(dir, e))?;
            manifest = index::Manifest::default();
        }
        // files no longer found (deleted, or of a host no longer read): their messages go
        let gone: Vec<String> = (manifest.files.keys())
            .filter(|k| !self.keys.contains(*k))
            .cloned()
            .collect();
        for k in gone {
            index::delete_file(&writer, f, &k);
            manifest.files.remove(&k);
        }
        let mut added = 0u64;
        for x in self.read_all(&manifest, progress) {
            let key = x.path;
            if x.restart {
                index::delete_file(&writer, f, &key);
            }
            for d in x.docs {
                writer
                    .add_document(d.into_tantivy(f))
                    .map_err(|e| index_err(dir, e))?;
                added += 1;
            }
            manifest.files.insert(key, x.state);
        }
        // the commit names its generation, and the manifest saying the same is saved before
        // the writer is let go
        manifest.generation = committed + 1;
        manifest.version = index::VERSION;
        manifest.last_build = Some(ws.clock.now());
        let mut prepared = writer.prepare_commit().map_err(|e| index_err(dir, e))?;
        prepared.set_payload(&manifest.generation.to_string());
        prepared.commit().map_err(|e| index_err(dir, e))?;
        index::save(dir, &manifest)?;
        merge_after(idx, &mut writer, added);
        writer
            .wait_merging_threads()
            .map_err(|e| index_err(dir, e))?;
        if self.all_unchanged(&manifest) {
            self.stamp(&manifest, index::manifest_stat(dir));
        }
        Ok(())
    }
}

/// A build, or a catch-up of a quarter of the index or more (`added` documents), leaves it one
/// segment: a query prunes far better in one than across several (at 1 GB of transcripts, a
/// warm recall takes two thirds of the time), and merging costs a small part of indexing (the
/// segments' metas are not held past this: tantivy keeps the files of every meta alive in
/// memory; the merge collects the merged ones when it ends).
fn merge_after(idx: &Index, writer: &mut tantivy::IndexWriter, added: u64) {
    let (ids, total): (Vec<_>, u64) = (idx.searchable_segment_metas().unwrap_or_default())
        .iter()
        .fold((Vec::new(), 0), |(mut ids, n), m| {
            ids.push(m.id());
            (ids, n + u64::from(m.num_docs()))
        });
    if ids.len() > 1 && added * 4 >= total {
        // an optimisation only: the commit above already holds everything
        if let Err(e) = writer.merge(&ids).wait() {
            tracing::debug!("recall index: segments not merged: {e}");
        }
    }
}
