//! `install dsh`: the DeepSeek Harness plugin. Its files are compiled into the binary and
//! written, with the command that runs trilogy, to `$XDG_DATA_HOME/trilogy/dsh-plugin/`
//! (`~/.local/share/…` by default); the harness's own `dsh plugin --profile P add DIR` then
//! links it into a profile. The bundle carries two rows: the plugin (`id: trilogy`, the id
//! of the original plugin, so a profile's existing `- id: trilogy` row configures it) and the
//! MCP client entry for `trilogy mcp`.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

const INDEX_JS: &str = include_str!("../../../templates/dsh/index.js");
const LIB_JS: &str = include_str!("../../../templates/dsh/lib.js");
const PACKAGE_JSON: &str = include_str!("../../../templates/dsh/package.json");
const PATCH: &str = include_str!("../../../templates/dsh/cordis.patch.yml");

/// The plugin's package name, as `dsh plugin remove` takes it.
pub const PACKAGE: &str = "@trilogy-memory/dsh-plugin";

/// Where the bundle is written, from the environment.
pub fn bundle_dir(env: &[(String, String)]) -> Result<PathBuf> {
    let data = crate::base::dirs::data(env).ok_or_else(|| {
        Error::bad_input("neither XDG_DATA_HOME nor HOME is set: no place for the plugin")
    })?;
    Ok(data.join("dsh-plugin"))
}

/// A YAML single-quoted scalar.
fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

/// The bundle's patch with `command` in both rows.
pub fn patch(command: &str) -> String {
    PATCH.replace("command: trilogy", &format!("command: {}", quoted(command)))
}

/// Write the bundle into `dir` (created), each file whole. Returns the files written.
pub fn write_bundle(dir: &Path, command: &str) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut written = Vec::new();
    for (name, text) in [
        ("index.js", INDEX_JS.to_string()),
        ("lib.js", LIB_JS.to_string()),
        ("package.json", PACKAGE_JSON.to_string()),
        ("cordis.patch.yml", patch(command)),
    ] {
        let path = dir.join(name);
        crate::workspace::write_atomic(&path, text.as_bytes())?;
        written.push(path);
    }
    Ok(written)
}

/// The harness command that adds (or removes) the plugin in `profile`.
pub fn plugin_argv(profile: &str, dir: &Path, remove: bool) -> Vec<String> {
    let target = if remove {
        PACKAGE.to_string()
    } else {
        dir.display().to_string()
    };
    vec![
        "dsh".into(),
        "plugin".into(),
        "--profile".into(),
        profile.into(),
        if remove { "remove" } else { "add" }.into(),
        target,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_patch_names_the_command_in_both_rows() {
        let p = patch("/opt/it's here/trilogy");
        assert_eq!(
            p.matches("command: '/opt/it''s here/trilogy'").count(),
            2,
            "{p}"
        );
        assert!(
            p.contains("id: trilogy") && p.contains("id: mcp-trilogy"),
            "{p}"
        );
    }

    #[test]
    fn a_windows_path_stays_literal_in_the_patch() {
        // YAML single quotes keep backslashes; the plugin spawns the program without a shell
        let p = patch(r"C:\Program Files\trilogy\trilogy.exe");
        assert_eq!(
            p.matches(r"command: 'C:\Program Files\trilogy\trilogy.exe'")
                .count(),
            2,
            "{p}"
        );
    }

    #[test]
    fn the_bundle_goes_under_the_data_dir() {
        let env = vec![("HOME".to_string(), "/home/u".to_string())];
        assert_eq!(
            bundle_dir(&env).unwrap(),
            PathBuf::from("/home/u/.local/share/trilogy/dsh-plugin")
        );
        let env = vec![
            ("HOME".to_string(), "/home/u".to_string()),
            ("XDG_DATA_HOME".to_string(), "/data".to_string()),
        ];
        assert_eq!(
            bundle_dir(&env).unwrap(),
            PathBuf::from("/data/trilogy/dsh-plugin")
        );
    }
}
