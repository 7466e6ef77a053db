//! The user's folders. Linux and macOS follow the XDG rule, as command-line tools there do:
//! trilogy's folder under `$XDG_<KIND>_HOME` when that is an absolute path, else under its
//! usual place in `$HOME` (`~/.config`, `~/.local/share`, `~/.local/state`, `~/.cache`).
//! Windows keeps settings and data in the roaming profile, state and caches in the local one:
//! `%APPDATA%\trilogy\{config,data}`, `%LOCALAPPDATA%\trilogy\{state,cache}` (an `XDG_*`
//! variable set there still wins), the home folder being `%USERPROFILE%`. A relative or empty
//! variable counts as unset ([`super::env::folder`]). Only the environment snapshot given is read.

use std::path::PathBuf;

use super::env::folder;

/// Which rule names the folders: the one of the system this trilogy was built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Convention {
    Xdg,
    Windows,
}

const HERE: Convention = if cfg!(windows) {
    Convention::Windows
} else {
    Convention::Xdg
};

/// The four kinds of folder: the XDG variable, the place under `$HOME`, and on Windows the
/// profile variable and the name under it.
struct Kind {
    xdg: &'static str,
    under_home: &'static str,
    windows: (&'static str, &'static str),
}

const CONFIG: Kind = Kind {
    xdg: "XDG_CONFIG_HOME",
    under_home: ".config",
    windows: ("APPDATA", "config"),
};
const DATA: Kind = Kind {
    xdg: "XDG_DATA_HOME",
    under_home: ".local/share",
    windows: ("APPDATA", "data"),
};
const STATE: Kind = Kind {
    xdg: "XDG_STATE_HOME",
    under_home: ".local/state",
    windows: ("LOCALAPPDATA", "state"),
};
const CACHE: Kind = Kind {
    xdg: "XDG_CACHE_HOME",
    under_home: ".cache",
    windows: ("LOCALAPPDATA", "cache"),
};

fn home_by(c: Convention, env: &[(String, String)]) -> Option<PathBuf> {
    match c {
        Convention::Xdg => folder(env, "HOME"),
        Convention::Windows => folder(env, "USERPROFILE").or_else(|| folder(env, "HOME")),
    }
}

fn trilogy_in(c: Convention, env: &[(String, String)], kind: &Kind) -> Option<PathBuf> {
    if let Some(base) = folder(env, kind.xdg) {
        return Some(base.join("trilogy"));
    }
    match c {
        Convention::Xdg => Some(home_by(c, env)?.join(kind.under_home).join("trilogy")),
        Convention::Windows => {
            let (var, name) = kind.windows;
            Some(folder(env, var)?.join("trilogy").join(name))
        }
    }
}

/// The user's home folder: `$HOME` (Windows: `%USERPROFILE%`, else `$HOME`), when absolute.
pub fn home(env: &[(String, String)]) -> Option<PathBuf> {
    home_by(HERE, env)
}

/// trilogy's settings folder: `$XDG_CONFIG_HOME/trilogy`, else `~/.config/trilogy`
/// (Windows: `%APPDATA%\trilogy\config`).
pub fn config(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(HERE, env, &CONFIG)
}

/// trilogy's data folder: `$XDG_DATA_HOME/trilogy`, else `~/.local/share/trilogy`
/// (Windows: `%APPDATA%\trilogy\data`).
pub fn data(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(HERE, env, &DATA)
}

/// trilogy's state folder: `$XDG_STATE_HOME/trilogy`, else `~/.local/state/trilogy`
/// (Windows: `%LOCALAPPDATA%\trilogy\state`).
pub fn state(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(HERE, env, &STATE)
}

/// trilogy's cache folder: `$XDG_CACHE_HOME/trilogy`, else `~/.cache/trilogy`
/// (Windows: `%LOCALAPPDATA%\trilogy\cache`).
pub fn cache(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(HERE, env, &CACHE)
}

/// The system's own folders: a project lives below them, never in one.
const SYSTEM_FOLDERS: [&str; 30] = [
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/media",
    "/mnt",
    "/opt",
    "/proc",
    "/root",
    "/run",
    "/sbin",
    "/snap",
    "/srv",
    "/sys",
    "/tmp",
    "/usr",
    "/usr/local",
    "/var",
    "/var/tmp",
    "/private",
    "/private/tmp",
    "/System",
    "/Library",
    "/Applications",
    "/Users",
];

/// True when `path` is one of the system's own folders (`/etc`, `/usr`, `/tmp`, …; macOS's
/// too): a project lives below them, never in one.
pub fn is_system_folder(path: &std::path::Path) -> bool {
    SYSTEM_FOLDERS
        .iter()
        .any(|f| path == std::path::Path::new(f))
        || (cfg!(windows) && is_windows_system_folder(path))
}

/// Windows's own folders, in any case: a drive's root, `Windows`, `Program Files`,
/// `Program Files (x86)`, `ProgramData`, `Users` on any drive.
fn is_windows_system_folder(path: &std::path::Path) -> bool {
    let text = path.to_string_lossy().replace('/', "\\");
    let text = text.trim_end_matches('\\');
    let Some((drive, rest)) = text.split_once(':') else {
        return false;
    };
    let rest = rest.trim_start_matches('\\');
    drive.len() == 1
        && [
            "",
            "windows",
            "program files",
            "program files (x86)",
            "programdata",
            "users",
        ]
        .iter()
        .any(|f| rest.eq_ignore_ascii_case(f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::env::tests::env;
    use std::path::Path;

    const KINDS: [(&Kind, &str); 4] = [
        (&CONFIG, "config"),
        (&DATA, "data"),
        (&STATE, "state"),
        (&CACHE, "cache"),
    ];

    #[test]
    fn each_folder_is_under_its_variable_else_under_home() {
        for (kind, _) in KINDS {
            let xdg = kind.xdg;
            let e = env(&[("HOME", "/home/u"), (xdg, "/x")]);
            let got = trilogy_in(Convention::Xdg, &e, kind);
            assert_eq!(got, Some(PathBuf::from("/x/trilogy")), "{xdg}");
            let e = env(&[("HOME", "/home/u")]);
            assert_eq!(
                trilogy_in(Convention::Xdg, &e, kind),
                Some(Path::new("/home/u").join(kind.under_home).join("trilogy")),
                "{xdg}"
            );
        }
        // the functions follow the system's rule
        let e = env(&[("HOME", "/home/u"), ("XDG_CONFIG_HOME", "/x")]);
        assert_eq!(config(&e), trilogy_in(HERE, &e, &CONFIG));
        assert_eq!(data(&e), trilogy_in(HERE, &e, &DATA));
        assert_eq!(state(&e), trilogy_in(HERE, &e, &STATE));
        assert_eq!(cache(&e), trilogy_in(HERE, &e, &CACHE));
    }

    #[test]
    fn windows_keeps_settings_and_data_roaming_and_state_and_caches_local() {
        let e = env(&[
            ("USERPROFILE", "/c/Users/u"),
            ("APPDATA", "/c/Users/u/AppData/Roaming"),
            ("LOCALAPPDATA", "/c/Users/u/AppData/Local"),
        ]);
        for (kind, name) in KINDS {
            let profile = if kind.windows.0 == "APPDATA" {
                "/c/Users/u/AppData/Roaming"
            } else {
                "/c/Users/u/AppData/Local"
            };
            assert_eq!(
                trilogy_in(Convention::Windows, &e, kind),
                Some(Path::new(profile).join("trilogy").join(name)),
                "{name}"
            );
            // an XDG variable set there still wins; a missing profile folder gives none
            let mut with = e.clone();
            with.push((kind.xdg.into(), "/x".into()));
            let got = trilogy_in(Convention::Windows, &with, kind);
            assert_eq!(got, Some(PathBuf::from("/x/trilogy")), "{name}");
            let bare = env(&[("USERPROFILE", "/c/Users/u")]);
            assert_eq!(trilogy_in(Convention::Windows, &bare, kind), None, "{name}");
        }
        assert_eq!(
            home_by(Convention::Windows, &e),
            Some(PathBuf::from("/c/Users/u"))
        );
        let only_home = env(&[("HOME", "/h")]);
        assert_eq!(
            home_by(Convention::Windows, &only_home),
            Some(PathBuf::from("/h"))
        );
    }

    #[test]
    fn a_relative_or_empty_variable_is_ignored_for_every_folder() {
        for (kind, _) in KINDS {
            for value in ["rel/dir", ""] {
                let e = env(&[("HOME", "/home/u"), (kind.xdg, value)]);
                assert_eq!(
                    trilogy_in(Convention::Xdg, &e, kind),
                    Some(Path::new("/home/u").join(kind.under_home).join("trilogy")),
                    "{}={value:?}",
                    kind.xdg
                );
            }
        }
    }

    #[test]
    fn a_relative_home_gives_no_folder() {
        for (kind, _) in KINDS {
            let none = |e: &[(String, String)]| trilogy_in(Convention::Xdg, e, kind);
            assert_eq!(none(&env(&[("HOME", "home/u")])), None, "{}", kind.xdg);
            assert_eq!(none(&env(&[("HOME", "")])), None, "{}", kind.xdg);
            assert_eq!(none(&env(&[])), None, "{}", kind.xdg);
            // the variable alone is enough
            assert_eq!(
                none(&env(&[("HOME", "home/u"), (kind.xdg, "/x")])),
                Some(PathBuf::from("/x/trilogy"))
            );
        }
        assert_eq!(home_by(Convention::Xdg, &env(&[("HOME", "home/u")])), None);
    }

    #[test]
    fn system_folders_are_told_from_folders_below_them() {
        assert!(is_system_folder(Path::new("/etc")));
        assert!(is_system_folder(Path::new("/usr/local")));
        assert!(!is_system_folder(Path::new("/usr/local/src")));
        assert!(!is_system_folder(Path::new("/home/u/project")));
        for p in [
            "C:\\",
            "c:\\Windows",
            "D:/Program Files (x86)/",
            "C:\\users",
        ] {
            assert!(is_windows_system_folder(Path::new(p)), "{p}");
        }
        for p in ["C:\\Users\\u\\src", "C:\\work", "relative\\Windows"] {
            assert!(!is_windows_system_folder(Path::new(p)), "{p}");
        }
    }
}
