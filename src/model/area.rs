//! Areas: the closed set of names a session is filed under, as recorded and compared
//! (whitespace collapsed, Unicode NFC), and how a requested one folds into it.

use unicode_normalization::UnicodeNormalization;

/// The catch-all area; never written into a heading.
pub const CATCH_ALL_AREA: &str = "通用";
/// Named areas allowed besides the catch-all.
pub const MAX_NAMED_AREAS: usize = 4;
/// Longest area name a checkpoint accepts (characters): an area is a word or two.
pub const MAX_AREA_CHARS: usize = 64;

/// Area of a session heading: the text after `·` following the first token, else `通用`.
pub fn heading_area(heading: &str) -> String {
    let h = heading.trim();
    let token_end = h
        .find(|c: char| c.is_whitespace() || c == '·')
        .unwrap_or(h.len());
    let rest = h[token_end..].trim_start();
    match rest.strip_prefix('·') {
        Some(area) if !area.trim().is_empty() => area_name(area),
        _ => CATCH_ALL_AREA.to_string(),
    }
}

/// An area name as it is recorded and compared: whitespace runs collapsed to one space, and
/// Unicode NFC, so `café` typed as `e` + combining accent is the same area as `café`.
pub fn area_name(raw: &str) -> String {
    raw.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .nfc()
        .collect()
}

/// Result of folding a requested area into the closed set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AreaChoice {
    /// The area to write (`通用` means no tag).
    pub area: String,
    /// Set when the request was folded into `通用` because the set is full.
    pub folded: bool,
}

/// Fold a requested area into the closed set: reuse a known spelling case-insensitively (after
/// NFC, see [`area_name`]), add a new one while fewer than four are named, otherwise fold into
/// `通用`.
pub fn normalize_area(requested: Option<&str>, known: &mut Vec<String>) -> AreaChoice {
    let collapsed = area_name(requested.unwrap_or(""));
    if collapsed.is_empty() || collapsed == CATCH_ALL_AREA {
        return AreaChoice {
            area: CATCH_ALL_AREA.into(),
            folded: false,
        };
    }
    let lower = collapsed.to_lowercase();
    if let Some(k) = known.iter().find(|k| area_name(k).to_lowercase() == lower) {
        return AreaChoice {
            area: area_name(k),
            folded: false,
        };
    }
    let named = known.iter().filter(|k| *k != CATCH_ALL_AREA).count();
    if named >= MAX_NAMED_AREAS {
        return AreaChoice {
            area: CATCH_ALL_AREA.into(),
            folded: true,
        };
    }
    known.push(collapsed.clone());
    AreaChoice {
        area: collapsed,
        folded: false,
    }
}
