//! The records of entries new to the store, written to the entries table in key order.
//!
//! Entry ids are content hashes: inserted as they come, the 100k or 1M entries of a store
//! rebuilt from the Markdown land on pages all over the table, and each insert reads back a page
//! the cache let go a moment ago. A write transaction keeps here the records of the entries it
//! adds (see `WriteTx::put_entry_over`): a bounded chunk in memory, sorted by id when it fills and
//! written to a temporary file beside the store as a sorted run; before the entries table is next
//! opened, and at the latest at the commit, the runs are merged into the table in id order, so
//! every page of it is written once.
//!
//! Must not: hold more than [`CHUNK_BYTES`] of records in memory, nor be read as entries (the
//! write transaction drains it before anything reads the table).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use crate::error::{Error, Result};

/// How many bytes of records a transaction keeps in memory before it writes them to a run.
const CHUNK_BYTES: usize = 8 << 20;
/// What a kept record costs besides its id and its bytes (two heap buffers, the tuple).
const PER_RECORD: usize = 64;
/// The read buffer of each run while they are merged.
const RUN_BUFFER: usize = 64 << 10;

/// Records waiting to be written to the entries table: (id, encoded record).
#[derive(Default)]
pub(super) struct NewEntries {
    chunk: Vec<(String, Vec<u8>)>,
    bytes: usize,
    runs: Vec<File>,
}

impl NewEntries {
    pub(super) fn is_empty(&self) -> bool {
        self.chunk.is_empty() && self.runs.is_empty()
    }

    /// Keep `id`'s record; a chunk grown past [`CHUNK_BYTES`] goes to a sorted run in `dir`.
    pub(super) fn push(&mut self, dir: &Path, id: &str, record: Vec<u8>) -> Result<()> {
        self.bytes += id.len() + record.len() + PER_RECORD;
        self.chunk.push((id.to_string(), record));
        if self.bytes >= CHUNK_BYTES {
            self.spill(dir)?;
        }
        Ok(())
    }

    /// Write the chunk, sorted by id, to a run of its own (an unnamed file, gone once closed).
    fn spill(&mut self, dir: &Path) -> Result<()> {
        let mut chunk = std::mem::take(&mut self.chunk);
        self.bytes = 0;
        // stable: of two records of one id, the later stays after the earlier
        chunk.sort_by(|a, b| a.0.cmp(&b.0));
        let io = |e: std::io::Error| Error::io(dir, e);
        let file = tempfile::tempfile_in(dir).map_err(io)?;
        let mut w = BufWriter::with_capacity(RUN_BUFFER, file);
        for (id, record) in &chunk {
            put_field(&mut w, id.as_bytes()).map_err(io)?;
            put_field(&mut w, record).map_err(io)?;
        }
        let mut file = w.into_inner().map_err(|e| io(e.into_error()))?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        self.runs.push(file);
        Ok(())
    }

    /// Give every kept record to `put` in id order (of two records of one id, the later one
    /// last), and forget them.
    pub(super) fn drain(
        &mut self,
        dir: &Path,
        put: &mut dyn FnMut(&str, &[u8]) -> Result<()>,
    ) -> Result<()> {
        if self.runs.is_empty() {
            let mut chunk = std::mem::take(&mut self.chunk);
            self.bytes = 0;
            chunk.sort_by(|a, b| a.0.cmp(&b.0));
            return chunk.iter().try_for_each(|(id, r)| put(id, r));
        }
        if !self.chunk.is_empty() {
            self.spill(dir)?;
        }
        let io = |e: std::io::Error| Error::io(dir, e);
        let mut runs: Vec<BufReader<File>> = (std::mem::take(&mut self.runs).into_iter())
            .map(|f| BufReader::with_capacity(RUN_BUFFER, f))
            .collect();
        // the smallest id first; for one id, the earlier run (older records) first
        let mut heads: BinaryHeap<Reverse<(Vec<u8>, usize)>> = BinaryHeap::new();
        let mut records: Vec<Vec<u8>> = vec![Vec::new(); runs.len()];
        for (n, run) in runs.iter_mut().enumerate() {
            if let Some((id, record)) = take_record(run).map_err(io)? {
                heads.push(Reverse((id, n)));
                records[n] = record;
            }
        }
        while let Some(Reverse((id, n))) = heads.pop() {
            let id = String::from_utf8(id).map_err(|_| {
                Error::Internal("an entry id kept for the store is not UTF-8".into())
            })?;
            put(&id, &records[n])?;
            if let Some((next, record)) = take_record(&mut runs[n]).map_err(io)? {
                heads.push(Reverse((next, n)));
                records[n] = record;
            }
        }
        Ok(())
    }
}

fn put_field(w: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    let len = u32::try_from(bytes.len()).map_err(std::io::Error::other)?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(bytes)
}

fn take_field(r: &mut impl Read) -> std::io::Result<Option<Vec<u8>>> {
    let mut len = [0u8; 4];
    match r.read_exact(&mut len) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
    r.read_exact(&mut bytes)?;
    Ok(Some(bytes))
}

/// The next (id, record) of a run; `None` at its end.
fn take_record(r: &mut impl Read) -> std::io::Result<Option<(Vec<u8>, Vec<u8>)>> {
    let Some(id) = take_field(r)? else {
        return Ok(None);
    };
    let record = take_field(r)?.ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::UnexpectedEof,
            "a run ends inside a record",
        )
    })?;
    Ok(Some((id, record)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drained(kept: &mut NewEntries, dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        kept.drain(dir, &mut |id, r| {
            out.push((id.to_string(), r.to_vec()));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn records_come_out_in_id_order_the_later_of_one_id_last_from_memory_and_runs() {
        let dir = tempfile::tempdir().unwrap();
        for spilled in [false, true] {
            let mut kept = NewEntries::default();
            // ids in scrambled order, one of them twice
            for k in [7u32, 3, 9, 1, 3, 5] {
                let rec = format!("{k}-{}", kept.chunk.len() + kept.runs.len());
                kept.push(dir.path(), &format!("id{k}"), rec.into_bytes())
                    .unwrap();
                if spilled {
                    kept.spill(dir.path()).unwrap();
                }
            }
            assert_eq!(kept.runs.len(), if spilled { 6 } else { 0 });
            let out = drained(&mut kept, dir.path());
            let ids: Vec<&str> = out.iter().map(|(id, _)| id.as_str()).collect();
            assert_eq!(ids, ["id1", "id3", "id3", "id5", "id7", "id9"]);
            // the second record of id3 (pushed fifth) comes after the first (pushed second)
            let threes: Vec<&[u8]> = (out.iter())
                .filter(|(id, _)| id == "id3")
                .map(|(_, r)| r.as_slice())
                .collect();
            assert_eq!(threes, [&b"3-1"[..], &b"3-4"[..]]);
            assert!(kept.is_empty());
        }
    }

    #[test]
    fn a_chunk_past_its_bound_goes_to_a_run_and_memory_stays_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let mut kept = NewEntries::default();
        let record = vec![b'x'; 4096];
        let n = 2 * CHUNK_BYTES / record.len() + 10;
        for k in 0..n {
            // descending ids: the worst order for the table
            kept.push(dir.path(), &format!("{:08}", n - k), record.clone())
                .unwrap();
            assert!(kept.bytes < CHUNK_BYTES);
        }
        assert!(kept.runs.len() >= 2, "{} runs", kept.runs.len());
        let out = drained(&mut kept, dir.path());
        assert_eq!(out.len(), n);
        assert!(out.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(out.iter().all(|(_, r)| r == &record));
    }
}
