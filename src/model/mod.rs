//! Pure types of the memory: files, entry kinds and states, PROJECT sections, areas, labels,
//! content-addressed ids, and the records the store keeps.
//!
//! An entry is its heading line plus its body, kept verbatim as Markdown: fields such as
//! Done/Open/Next are *views* read out of the body, so text nobody can place in a field is
//! never dropped. Nothing here does I/O or knows about redb, comrak or the clock.
//!
//! One concept per file, all re-exported here: `files` (the four files, the language),
//! `entry` (kinds, states, ids, the entry record), `section` (PROJECT.md's sections), `fields`
//! (labels, field and marker lines), `area`, `dates`, `actor` (who writes), `records` (the
//! log, reports, file stamps, what the block left out), `text` (cutting text to its room),
//! `proposal` and `clash`; `marks` (what the store finds entries by besides their id), `host` (the agents' hosts) and `user` (USER.md's file, sections and
//! lines) are read through their own paths.

mod actor;
mod area;
mod clash;
mod dates;
mod entry;
mod fields;
mod files;
pub mod host;
pub mod marks;
mod proposal;
mod records;
mod section;
pub mod text;
pub mod user;
pub use actor::*;
pub use area::*;
pub use clash::SectionClash;
pub use dates::*;
pub use entry::*;
pub use fields::*;
pub use files::*;
pub use proposal::{Proposal, ProposalKind, ProposalState};
pub use records::*;
pub use section::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_line_in_written_text_is_escaped_even_when_it_is_the_only_line() {
        assert_eq!(
            escape_marker("Retired: 2026-01-01 — x".into()),
            "\\Retired: 2026-01-01 — x"
        );
        assert_eq!(
            escape_marker("Done: a\n已失效：x".into()),
            "Done: a\n\\已失效：x"
        );
        assert_eq!(escape_marker("Done: a\nb".into()), "Done: a\nb");
    }

    #[test]
    fn area_parses_with_or_without_spaces_around_dot() {
        assert_eq!(heading_area("2026-01-02 · 网络"), "网络");
        assert_eq!(heading_area("2026-01-02·网络"), "网络");
        assert_eq!(heading_area("2026-01-02"), CATCH_ALL_AREA);
        assert_eq!(heading_area("2026-01-02 — title"), CATCH_ALL_AREA);
    }

    #[test]
    fn fifth_area_folds_and_known_area_is_reused_case_insensitively() {
        let mut known = vec!["A".to_string(), "b".into(), "c".into()];
        assert_eq!(normalize_area(Some("d"), &mut known).area, "d");
        let fifth = normalize_area(Some("e"), &mut known);
        assert_eq!(fifth.area, CATCH_ALL_AREA);
        assert!(fifth.folded);
        assert_eq!(normalize_area(Some("  a "), &mut known).area, "A");
        assert_eq!(normalize_area(Some(""), &mut known).area, CATCH_ALL_AREA);
        assert_eq!(
            normalize_area(Some("通用"), &mut known).area,
            CATCH_ALL_AREA
        );
    }

    #[test]
    fn an_nfd_spelling_is_the_same_area() {
        let nfc = "caf\u{e9}";
        let nfd = "cafe\u{301}";
        assert_eq!(heading_area(&format!("2026-01-02 · {nfd}")), nfc);
        let mut known = vec![nfc.to_string()];
        let choice = normalize_area(Some(nfd), &mut known);
        assert_eq!(choice.area, nfc);
        assert_eq!(known.len(), 1, "no look-alike area added");
        // a new area is recorded composed
        let mut known = Vec::new();
        assert_eq!(normalize_area(Some(nfd), &mut known).area, nfc);
        assert_eq!(known, [nfc]);
        // and an older hand-written NFD spelling still matches, recorded composed
        let mut known = vec![nfd.to_string()];
        assert_eq!(
            normalize_area(Some(&nfc.to_uppercase()), &mut known).area,
            nfc
        );
    }

    #[test]
    fn fields_read_both_label_sets() {
        let f = read_fields("完成：did it\nmore\n未完成：x\nDone: ignored twice\n\nprose");
        assert_eq!(f.done.as_deref(), Some("did it\nmore"));
        assert_eq!(f.open.as_deref(), Some("x\nDone: ignored twice"));
        assert_eq!(f.extra, "prose");
        let f = read_fields("Chose: x\nBecause: y\nArea: infra");
        assert_eq!(
            f.because.as_deref(),
            Some("y"),
            "the area is not part of the reason"
        );
        assert_eq!(f.area.as_deref(), Some("infra"));
        let f = read_fields("Done:a\nNext: b");
        assert_eq!(f.done.as_deref(), Some("a"));
        assert_eq!(f.next.as_deref(), Some("b"));
    }

    #[test]
    fn blank_lines_are_trimmed_but_indentation_kept() {
        assert_eq!(trim_blank_lines("\n  \n    code\nx  \n\n"), "    code\nx");
        assert_eq!(trim_blank_lines(""), "");
    }

    #[test]
    fn section_names_match_both_languages() {
        assert_eq!(section_slot("state"), Some(3));
        assert_eq!(section_slot(" 现状 "), Some(3));
        assert_eq!(section_slot("nope"), None);
        assert_eq!(section_key("Traps"), "5");
    }
}
