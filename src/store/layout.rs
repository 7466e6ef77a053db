//! A file's layout as records: the newest units in the layout's own record, the older ones in
//! records of [`SEGMENT`] units each. Putting units on top of the archive (a batch move) then
//! writes a few thousand units at most, never the 950k a large archive's layout holds; reading
//! the whole layout (rendering the file) joins the records. The layout's own record starts as
//! it always did, the [`LayoutTop`] (its marks, head and count of units) and then units, so a
//! record with no segments (one written before them) reads as it did. Owns the records'
//! shape; what a layout means is `markdown::layout`'s.

use redb::ReadableTable;

use super::reader::BytesTable;
use super::reader::layout::{own_units, read};
use super::tables::{
    FILES, decode_at, decode_prefix, encode, layout_count_key as count_key, layout_key,
    layout_segment_key as segment_key, layout_segments_prefix as segments_prefix,
};
use super::{Reader, WriteTx, damage};
use crate::error::{Error, Result};
use crate::markdown::{Layout, LayoutTop, Unit};
use crate::model::FileKind;

/// Units a layout's own record holds at most (with what goes on top, before they go to a
/// segment) and units a segment holds.
pub(super) const SEGMENT: usize = 4096;

impl WriteTx {
    /// Record how `file` is laid out (`None`: canonically).
    pub fn set_layout(&self, file: FileKind, layout: Option<&Layout>) -> Result<()> {
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(FILES).map_err(self.w())?;
            t.remove(layout_key(file).as_str()).map_err(self.w())?;
            t.remove(count_key(file).as_str()).map_err(self.w())?;
            let prefix = segments_prefix(file);
            let old: Vec<String> = (t.range::<&str>(prefix.as_str()..).map_err(self.w())?)
                .map_while(|row| {
                    let k = row.ok()?.0.value().to_string();
                    k.starts_with(&prefix).then_some(k)
                })
                .collect();
            for k in old {
                t.remove(k.as_str()).map_err(self.w())?;
            }
            let Some(l) = layout else {
                return Ok(());
            };
            // the newest units in the layout's own record, the rest in segments, oldest first
            let own = l.units.len().min(SEGMENT);
            let top = LayoutTop {
                bom: l.bom,
                crlf: l.crlf,
                head: l.head.clone(),
                units: l.units.len() as u64,
            };
            let mut bytes = encode(&top)?;
            for u in &l.units[..own] {
                bytes.extend(encode(u)?);
            }
            bytes.extend(encode(&l.archived)?);
            t.insert(layout_key(file).as_str(), bytes.as_slice())
                .map_err(self.w())?;
            let rest = &l.units[own..];
            let mut n = 0u64;
            for chunk in rest.rchunks(SEGMENT) {
                let seg = encode(&chunk.to_vec())?;
                t.insert(segment_key(file, n).as_str(), seg.as_slice())
                    .map_err(self.w())?;
                n += 1;
            }
            if n > 0 {
                let counts = encode(&(n, rest.len() as u64))?;
                t.insert(count_key(file).as_str(), counts.as_slice())
                    .map_err(self.w())?;
            }
            Ok(())
        })
    }

    /// Put `units` on top of file `file`'s stored layout, its top now `top`: the layout's own
    /// record is written again (a few thousand units at most, its older units going to a
    /// segment of their own once there are enough); the segments are left as they are.
    pub fn put_layout_on_top(&self, file: FileKind, top: &LayoutTop, units: &[Unit]) -> Result<()> {
        let main = (self.raw_get(BytesTable::Files, &layout_key(file))?)
            .ok_or_else(|| Error::Internal(format!("no layout of {file:?} to add to")))?;
        let (was, at) = decode_prefix::<LayoutTop>(&self.path, &main)?;
        if was.units + units.len() as u64 != top.units {
            return Err(Error::Internal(format!(
                "a layout of {} units given {} more is not one of {}",
                was.units,
                units.len(),
                top.units
            )));
        }
        let counts = self.raw_get(BytesTable::Files, &count_key(file))?;
        let (next, below) = match &counts {
            Some(b) => decode_at::<(u64, u64)>(&self.path, b)?,
            None => (0, 0),
        };
        let own = was.units.saturating_sub(below);
        if own > SEGMENT as u64 * 2 {
            // a record written whole (before segments, or by a full write of a large layout
            // that predates them): split once, then put the units on top
            let whole = read(self, file)?
                .ok_or_else(|| Error::Internal(format!("no layout of {file:?} to add to")))?;
            self.set_layout(file, Some(&whole))?;
            return self.put_layout_on_top(file, top, units);
        }
        let (old_units, end) = own_units(&self.path, &main[at..], own)?;
        let mut bytes = encode(top)?;
        for u in units {
            bytes.extend(encode(u)?);
        }
        let spill = own as usize + units.len() > SEGMENT;
        if !spill {
            bytes.extend_from_slice(&main[at..]);
        } else {
            // the layout's own units so far become the newest segment
            bytes.extend_from_slice(&main[at + end..]);
        }
        damage::guard(&self.path, || {
            let mut t = self.txn.open_table(FILES).map_err(self.w())?;
            if spill && !old_units.is_empty() {
                let seg = encode(&old_units)?;
                t.insert(segment_key(file, next).as_str(), seg.as_slice())
                    .map_err(self.w())?;
                let counts = encode(&(next + 1, below + own))?;
                t.insert(count_key(file).as_str(), counts.as_slice())
                    .map_err(self.w())?;
            }
            t.insert(layout_key(file).as_str(), bytes.as_slice())
                .map_err(self.w())?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use std::time::Duration;

    fn unit(k: usize) -> Unit {
        Unit {
            key: format!("u{k}"),
            canon: k as u64,
            raw: k.is_multiple_of(7).then(|| format!("## raw {k}\n")),
            open_end: false,
            gap: "\n\n".into(),
        }
    }

    fn layout(keys: impl Iterator<Item = usize>) -> Layout {
        Layout {
            bom: false,
            crlf: true,
            head: unit(0),
            units: keys.map(unit).collect(),
            archived: 42,
        }
    }

    fn top_of(l: &Layout) -> LayoutTop {
        LayoutTop {
            bom: l.bom,
            crlf: l.crlf,
            head: l.head.clone(),
            units: l.units.len() as u64,
        }
    }

    fn records(w: &WriteTx, f: FileKind) -> usize {
        let mut n = 0;
        w.raw_scan_each(BytesTable::Files, &segments_prefix(f), &mut |_| {
            n += 1;
            Ok(true)
        })
        .unwrap();
        n
    }

    #[test]
    fn a_layout_kept_in_segments_reads_back_whole_however_units_went_on_top() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.redb"), Duration::from_secs(5)).unwrap();
        let w = s.write(Duration::from_secs(1)).unwrap();
        let f = FileKind::Archive;
        // newest first: 10,000 units written whole, then batches put on top
        let mut want = layout((0..10_000).rev());
        w.set_layout(f, Some(&want)).unwrap();
        assert_eq!(read(&w, f).unwrap().as_ref(), Some(&want));
        assert_eq!(
            records(&w, f),
            2,
            "10,000 units: 4,096 in the record, two segments"
        );
        let mut next = 10_000;
        for batch in [1, 300, 4000, 4096, 5000, 17, 2] {
            let units: Vec<Unit> = (next..next + batch).rev().map(unit).collect();
            next += batch;
            let mut all = units.clone();
            all.extend(std::mem::take(&mut want.units));
            want.units = all;
            w.put_layout_on_top(f, &top_of(&want), &units).unwrap();
            assert_eq!(read(&w, f).unwrap().as_ref(), Some(&want), "after {batch}");
            assert_eq!(w.layout_top(f).unwrap(), Some(top_of(&want)));
        }
        assert!(records(&w, f) > 2);
        // written whole again, then canonical: the segments go with it
        let small = layout((0..5).rev());
        w.set_layout(f, Some(&small)).unwrap();
        assert_eq!(read(&w, f).unwrap(), Some(small));
        assert_eq!(records(&w, f), 0);
        w.set_layout(f, None).unwrap();
        assert_eq!(read(&w, f).unwrap(), None);
    }

    #[test]
    fn a_layout_recorded_whole_before_segments_reads_and_grows() {
        let dir = tempfile::tempdir().unwrap();
        let s = Store::open(&dir.path().join("s.redb"), Duration::from_secs(5)).unwrap();
        let w = s.write(Duration::from_secs(1)).unwrap();
        let f = FileKind::Archive;
        // the record as a layout was kept whole: the layout encoded as it is
        let mut want = layout((0..9_000).rev());
        {
            let mut t = w.txn.open_table(FILES).unwrap();
            let bytes = encode(&want).unwrap();
            t.insert(layout_key(f).as_str(), bytes.as_slice()).unwrap();
        }
        assert_eq!(read(&w, f).unwrap().as_ref(), Some(&want));
        let units: Vec<Unit> = (9_000..9_010).rev().map(unit).collect();
        let mut all = units.clone();
        all.extend(std::mem::take(&mut want.units));
        want.units = all;
        w.put_layout_on_top(f, &top_of(&want), &units).unwrap();
        assert_eq!(read(&w, f).unwrap(), Some(want));
        assert!(records(&w, f) > 0, "split into segments on the first move");
    }
}
