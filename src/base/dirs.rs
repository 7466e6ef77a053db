//! The user's folders, by one rule for all four: trilogy's folder under `$XDG_<KIND>_HOME`
//! when that is an absolute path, else under its usual place in `$HOME` (itself absolute),
//! else none. A relative or empty variable counts as unset ([`super::env::folder`]). Only the
//! environment snapshot given is read.

use std::path::PathBuf;

use super::env::folder;

/// `$HOME`, when it is an absolute path.
pub fn home(env: &[(String, String)]) -> Option<PathBuf> {
    folder(env, "HOME")
}

fn trilogy_in(env: &[(String, String)], xdg: &str, under_home: &str) -> Option<PathBuf> {
    let base = folder(env, xdg).or_else(|| home(env).map(|h| h.join(under_home)))?;
    Some(base.join("trilogy"))
}

/// trilogy's settings folder: `$XDG_CONFIG_HOME/trilogy`, else `~/.config/trilogy`.
pub fn config(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(env, "XDG_CONFIG_HOME", ".config")
}

/// trilogy's data folder: `$XDG_DATA_HOME/trilogy`, else `~/.local/share/trilogy`.
pub fn data(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(env, "XDG_DATA_HOME", ".local/share")
}

/// trilogy's state folder: `$XDG_STATE_HOME/trilogy`, else `~/.local/state/trilogy`.
pub fn state(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(env, "XDG_STATE_HOME", ".local/state")
}

/// trilogy's cache folder: `$XDG_CACHE_HOME/trilogy`, else `~/.cache/trilogy`.
pub fn cache(env: &[(String, String)]) -> Option<PathBuf> {
    trilogy_in(env, "XDG_CACHE_HOME", ".cache")
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::env::tests::env;
    use std::path::Path;

    type Kind = fn(&[(String, String)]) -> Option<PathBuf>;
    const KINDS: [(Kind, &str, &str); 4] = [
        (config, "XDG_CONFIG_HOME", ".config"),
        (data, "XDG_DATA_HOME", ".local/share"),
        (state, "XDG_STATE_HOME", ".local/state"),
        (cache, "XDG_CACHE_HOME", ".cache"),
    ];

    #[test]
    fn each_folder_is_under_its_variable_else_under_home() {
        for (kind, xdg, under) in KINDS {
            let e = env(&[("HOME", "/home/u"), (xdg, "/x")]);
            assert_eq!(kind(&e), Some(PathBuf::from("/x/trilogy")), "{xdg}");
            let e = env(&[("HOME", "/home/u")]);
            assert_eq!(
                kind(&e),
                Some(Path::new("/home/u").join(under).join("trilogy")),
                "{xdg}"
            );
        }
    }

    #[test]
    fn a_relative_or_empty_variable_is_ignored_for_every_folder() {
        for (kind, xdg, under) in KINDS {
            for value in ["rel/dir", ""] {
                let e = env(&[("HOME", "/home/u"), (xdg, value)]);
                assert_eq!(
                    kind(&e),
                    Some(Path::new("/home/u").join(under).join("trilogy")),
                    "{xdg}={value:?}"
                );
            }
        }
    }

    #[test]
    fn a_relative_home_gives_no_folder() {
        for (kind, xdg, _) in KINDS {
            assert_eq!(kind(&env(&[("HOME", "home/u")])), None, "{xdg}");
            assert_eq!(kind(&env(&[("HOME", "")])), None, "{xdg}");
            assert_eq!(kind(&env(&[])), None, "{xdg}");
            // the variable alone is enough
            assert_eq!(
                kind(&env(&[("HOME", "home/u"), (xdg, "/x")])),
                Some(PathBuf::from("/x/trilogy"))
            );
        }
        assert_eq!(home(&env(&[("HOME", "home/u")])), None);
    }

    #[test]
    fn system_folders_are_told_from_folders_below_them() {
        assert!(is_system_folder(Path::new("/etc")));
        assert!(is_system_folder(Path::new("/usr/local")));
        assert!(!is_system_folder(Path::new("/usr/local/src")));
        assert!(!is_system_folder(Path::new("/home/u/project")));
    }
}
