//! The four projected files and the language they are written in.

use serde::{Deserialize, Serialize};

/// Language of headings, labels and template prose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Chinese: what the original plugin writes; the default.
    #[default]
    Zh,
    /// English (also the legacy forms).
    En,
}

impl Lang {
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }
}

/// The four projected files.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum FileKind {
    Project,
    Decisions,
    Sessions,
    Archive,
}

impl FileKind {
    pub const ALL: [FileKind; 4] = [
        FileKind::Project,
        FileKind::Decisions,
        FileKind::Sessions,
        FileKind::Archive,
    ];

    pub fn file_name(self) -> &'static str {
        match self {
            FileKind::Project => "PROJECT.md",
            FileKind::Decisions => "DECISIONS.md",
            FileKind::Sessions => "SESSIONS.md",
            FileKind::Archive => "SESSIONS-archive.md",
        }
    }

    /// Parse a file name as a user would type it (`SESSIONS.md`, `sessions`, `archive`).
    pub fn from_name(name: &str) -> Option<FileKind> {
        let n = name.trim().to_lowercase();
        let n = n.strip_suffix(".md").unwrap_or(&n);
        match n {
            "project" => Some(FileKind::Project),
            "decisions" => Some(FileKind::Decisions),
            "sessions" => Some(FileKind::Sessions),
            "sessions-archive" | "archive" => Some(FileKind::Archive),
            _ => None,
        }
    }

    /// Stable one-byte code used in store keys.
    pub fn code(self) -> u8 {
        match self {
            FileKind::Project => 1,
            FileKind::Decisions => 2,
            FileKind::Sessions => 3,
            FileKind::Archive => 4,
        }
    }
}
