//! The process environment, taken once as a snapshot of `(name, value)` pairs and passed down:
//! every room reads variables from the snapshot it is given (tests hand in their own), never
//! from the process behind the caller's back.

use std::path::PathBuf;

/// The variables of this process, for a surface to pass down.
pub fn snapshot() -> Vec<(String, String)> {
    std::env::vars().collect()
}

/// The value of `key` in `env`, when it is set and not empty (Windows: names in any case, as
/// there `Path` is `PATH`).
pub fn var<'a>(env: &'a [(String, String)], key: &str) -> Option<&'a str> {
    let named = |n: &str| match cfg!(windows) {
        true => n.eq_ignore_ascii_case(key),
        false => n == key,
    };
    env.iter()
        .find(|(n, v)| named(n) && !v.is_empty())
        .map(|(_, v)| v.as_str())
}

/// The folder `key` names in `env`, when it is set to an absolute path: a relative one is
/// ignored as if unset (what the XDG base directory rules ask), so no folder ever depends on
/// the directory a command happened to start in.
pub fn folder(env: &[(String, String)], key: &str) -> Option<PathBuf> {
    var(env, key).map(PathBuf::from).filter(|p| p.is_absolute())
}

/// The folders of a list such as `PATH`, split the way this system splits it, empty entries
/// skipped (to a POSIX shell an empty entry is the working folder: never one for trilogy).
pub fn folder_list(value: &str) -> impl Iterator<Item = PathBuf> + '_ {
    std::env::split_paths(value).filter(|d| !d.as_os_str().is_empty())
}

/// The places a program called `name` is looked for on `path` (a `PATH` value), in order.
pub fn on_path<'a>(path: Option<&'a str>, name: &'a str) -> impl Iterator<Item = PathBuf> + 'a {
    path.into_iter()
        .flat_map(folder_list)
        .map(move |d| d.join(name))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// An environment snapshot of `pairs`, for tests.
    pub(crate) fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn an_empty_variable_reads_as_unset() {
        let e = env(&[("A", ""), ("B", "x")]);
        assert_eq!(var(&e, "A"), None);
        assert_eq!(var(&e, "B"), Some("x"));
        assert_eq!(var(&e, "C"), None);
    }

    #[test]
    fn a_relative_folder_reads_as_unset() {
        let e = env(&[("REL", "some/where"), ("ABS", "/some/where"), ("EMPTY", "")]);
        assert_eq!(folder(&e, "REL"), None);
        assert_eq!(folder(&e, "EMPTY"), None);
        assert_eq!(folder(&e, "ABS"), Some(PathBuf::from("/some/where")));
    }

    #[test]
    fn a_program_is_looked_for_in_each_path_entry_but_an_empty_one() {
        let found: Vec<PathBuf> = on_path(Some("/a::/b/"), "git").collect();
        assert_eq!(found, [PathBuf::from("/a/git"), PathBuf::from("/b/git")]);
        assert_eq!(on_path(None, "git").count(), 0);
    }
}
