//! Reading a layout kept in records (see `store::layout`, which writes them): the layout's own
//! record, then its segments newest first, joined into one [`Layout`]. Reads only.

use super::super::damage;
use super::super::tables::{
    decode_at, decode_prefix, layout_count_key as count_key, layout_key,
    layout_segments_prefix as segments_prefix,
};
use super::{BytesTable, Reader};
use crate::error::Result;
use crate::markdown::{Layout, LayoutTop, Unit};
use crate::model::FileKind;

/// The units of the layout's own record from `bytes` (after its top): the first `n`, and the
/// offset where what follows them (the archived count) starts.
pub(in crate::store) fn own_units(
    path: &std::path::Path,
    bytes: &[u8],
    n: u64,
) -> Result<(Vec<Unit>, usize)> {
    let mut at = 0;
    let mut units = Vec::with_capacity(n.min(1 << 13) as usize);
    for _ in 0..n {
        let (u, used) = decode_prefix::<Unit>(path, &bytes[at..])?;
        at += used;
        units.push(u);
    }
    Ok((units, at))
}

/// The whole layout of `file` in `r`; `None` when it is laid out canonically.
pub(in crate::store) fn read(r: &(impl Reader + ?Sized), file: FileKind) -> Result<Option<Layout>> {
    let Some(main) = r.raw_get(BytesTable::Files, &layout_key(file))? else {
        return Ok(None);
    };
    let path = r.path().to_path_buf();
    let (top, at) = decode_prefix::<LayoutTop>(&path, &main)?;
    let (_, below) = match r.raw_get(BytesTable::Files, &count_key(file))? {
        Some(b) => decode_at::<(u64, u64)>(&path, &b)?,
        None => (0, 0),
    };
    let own = top.units.checked_sub(below).ok_or_else(|| {
        damage::damaged(
            &path,
            format!("{file:?}'s layout counts fewer units than its segments"),
        )
    })?;
    let (mut units, end) = own_units(&path, &main[at..], own)?;
    let archived = decode_at::<u64>(&path, &main[at + end..])?;
    let mut segments = Vec::new();
    r.raw_scan_each(BytesTable::Files, &segments_prefix(file), &mut |v| {
        segments.push(decode_at::<Vec<Unit>>(&path, v)?);
        Ok(true)
    })?;
    for s in segments.into_iter().rev() {
        units.extend(s);
    }
    if units.len() as u64 != top.units {
        return Err(damage::damaged(
            &path,
            format!(
                "{file:?}'s layout holds {} units of {}",
                units.len(),
                top.units
            ),
        ));
    }
    Ok(Some(Layout {
        bom: top.bom,
        crlf: top.crlf,
        head: top.head,
        units,
        archived,
    }))
}
