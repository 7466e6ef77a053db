//! Dates: a day given on the command line or in the environment, the date a heading starts
//! with, the dated headings of sessions and decisions, and the compact form the store keeps.

use super::CATCH_ALL_AREA;

use chrono::NaiveDate;

/// Date at the start of a heading (`2026-01-02 · area`, `2026-01-02 — title`).
pub fn heading_date(heading: &str) -> Option<NaiveDate> {
    let head = heading.trim_start().get(..10)?;
    NaiveDate::parse_from_str(head, "%Y-%m-%d").ok()
}

/// Parse a day given as `YYYY-MM-DD`; `label` names where it came from (`--since`,
/// `TRILOGY_TODAY`, `` `until` ``) in the error.
pub fn parse_day(label: &str, value: &str) -> crate::error::Result<NaiveDate> {
    crate::base::clock::parse_day(label, value).map_err(crate::error::Error::bad_input)
}

/// Session heading text for a date and area.
pub fn session_heading(date: NaiveDate, area: &str) -> String {
    if area == CATCH_ALL_AREA {
        date.format("%Y-%m-%d").to_string()
    } else {
        format!("{} · {}", date.format("%Y-%m-%d"), area)
    }
}

/// Decision heading text for a date and choice.
pub fn decision_heading(date: NaiveDate, choice: &str) -> String {
    format!("{} — {}", date.format("%Y-%m-%d"), choice)
}

/// A date stored as days since 0001-01-01 (compact and quick to decode).
pub(super) mod days_from_ce {
    use chrono::{Datelike, NaiveDate};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(d: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_i32(d.num_days_from_ce())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDate, D::Error> {
        let days = i32::deserialize(d)?;
        NaiveDate::from_num_days_from_ce_opt(days)
            .ok_or_else(|| serde::de::Error::custom(format!("day {days} is out of range")))
    }
}
