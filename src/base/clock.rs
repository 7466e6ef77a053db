//! Where "now" comes from: the wall clock, unless the environment pins it — `TRILOGY_TODAY`
//! (a date, for scripts, tests and the demo) and `TRILOGY_NOW_MS` (Unix milliseconds, for the
//! cooldowns tests step through). Times of files and of processes (stamps, ages of locks,
//! unique names) are read from the wall clock, never pinned: the filesystem dates files by it.

use std::time::{SystemTime, UNIX_EPOCH};

use chrono::NaiveDate;

/// Nanoseconds from the Unix epoch to `t` (0 for a time before it).
pub fn unix_ns(t: SystemTime) -> u128 {
    t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos())
}

/// Milliseconds from the Unix epoch to `t` (0 for a time before it).
pub fn unix_ms(t: SystemTime) -> u64 {
    (unix_ns(t) / 1_000_000) as u64
}

/// The wall clock, in Unix nanoseconds.
pub fn wall_ns() -> u128 {
    unix_ns(SystemTime::now())
}

/// The wall clock, in Unix milliseconds.
pub fn wall_ms() -> u64 {
    unix_ms(SystemTime::now())
}

/// The clock a command runs on.
#[derive(Debug, Clone, Default)]
pub struct Clock {
    /// Fixed date for new entries (`TRILOGY_TODAY`), instead of the local date.
    pub today: Option<NaiveDate>,
    /// Fixed Unix milliseconds for cooldowns (`TRILOGY_NOW_MS`), instead of the wall clock.
    pub now_ms: Option<i64>,
}

/// A date as trilogy writes and takes them (`YYYY-MM-DD`, surrounding blanks ignored); the
/// error says what `label` held and what to give instead.
pub fn parse_day(label: &str, value: &str) -> Result<NaiveDate, String> {
    NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d")
        .map_err(|_| format!("{label} `{value}` is not a date; use YYYY-MM-DD"))
}

impl Clock {
    /// The pins in `env` (`TRILOGY_TODAY`, `TRILOGY_NOW_MS`), else the real clock; a pin that
    /// does not parse is an error saying so.
    pub fn from_env(env: &[(String, String)]) -> Result<Clock, String> {
        let var = |k: &str| {
            env.iter()
                .find(|(n, _)| n == k)
                .map(|(_, v)| v.trim().to_string())
        };
        let today = var("TRILOGY_TODAY")
            .map(|v| parse_day("TRILOGY_TODAY", &v))
            .transpose()?;
        let now_ms = var("TRILOGY_NOW_MS")
            .map(|v| {
                v.parse::<i64>()
                    .map_err(|_| format!("TRILOGY_NOW_MS=`{v}` is not a number of milliseconds"))
            })
            .transpose()?;
        Ok(Clock { today, now_ms })
    }

    /// Unix milliseconds, for cooldowns.
    pub fn millis(&self) -> i64 {
        self.now_ms
            .unwrap_or_else(|| chrono::Utc::now().timestamp_millis())
    }

    pub fn today(&self) -> NaiveDate {
        self.today
            .unwrap_or_else(|| chrono::Local::now().date_naive())
    }

    /// RFC 3339 time of this command; on the pinned date when the date is pinned, so every
    /// date trilogy derives (section revisions, staleness) agrees with it.
    pub fn now(&self) -> String {
        match self.today {
            Some(d) => format!("{}T12:00:00+00:00", d.format("%Y-%m-%d")),
            None => chrono::Local::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::env::tests::env;

    #[test]
    fn pins_are_read_from_the_environment_given_and_bad_ones_refused() {
        let c = Clock::from_env(&env(&[
            ("TRILOGY_TODAY", " 2026-11-29 "),
            ("TRILOGY_NOW_MS", "1234"),
        ]))
        .unwrap();
        assert_eq!(c.today(), NaiveDate::from_ymd_opt(2026, 11, 29).unwrap());
        assert_eq!(c.millis(), 1234);
        assert_eq!(c.now(), "2026-11-29T12:00:00+00:00");
        let e = Clock::from_env(&env(&[("TRILOGY_TODAY", "29/11")])).unwrap_err();
        assert_eq!(e, "TRILOGY_TODAY `29/11` is not a date; use YYYY-MM-DD");
        let e = Clock::from_env(&env(&[("TRILOGY_NOW_MS", "soon")])).unwrap_err();
        assert!(e.contains("TRILOGY_NOW_MS=`soon`"), "{e}");
        assert!(Clock::from_env(&env(&[])).unwrap().today.is_none());
    }

    #[test]
    fn unix_times_count_from_the_epoch_and_never_below_it() {
        let t = UNIX_EPOCH + std::time::Duration::from_millis(1_500);
        assert_eq!(unix_ms(t), 1_500);
        assert_eq!(unix_ns(t), 1_500_000_000);
        assert_eq!(unix_ms(UNIX_EPOCH - std::time::Duration::from_secs(1)), 0);
        assert!(wall_ms() > 1_700_000_000_000);
    }
}
