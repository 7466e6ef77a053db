//! A project's own templates (`templates_dir`): scaffolding takes each file the folder holds,
//! the built-in template for each it lacks, and never reads outside the project for them.

use crate::common;

use std::os::unix::fs::symlink;

use common::{Ws, text};

const OWN_PROJECT: &str = "# PROJECT\n\n> Our house template: one screen, no more.\n\n## What this is\n\nNone yet\n\n## Run and test\n\n`make check`\n\n## Where things live\n\nNone yet\n\n## State\n\nNone yet\n\n## Traps\n\nNone yet\n";

fn with_templates(config: &str, files: &[(&str, &[u8])]) -> Ws {
    let ws = Ws::new();
    std::fs::write(ws.root().join("trilogy.toml"), config).unwrap();
    let dir = ws.root().join("my-templates");
    std::fs::create_dir(&dir).unwrap();
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    ws
}

#[test]
fn init_takes_the_projects_own_templates_and_falls_back_per_file() {
    let ws = with_templates(
        "templates_dir = \"my-templates\"\nlang = \"en\"\n",
        &[
            ("PROJECT.md", OWN_PROJECT.as_bytes()),
            (
                "boot-block.md",
                b"## Our memory\n\nRead `{dir}/PROJECT.md` first.\n",
            ),
        ],
    );
    let out = ws.ok(&["init"]);
    assert!(
        out.contains("PROJECT.md, DECISIONS.md, SESSIONS.md"),
        "{out}"
    );
    assert_eq!(ws.read("PROJECT.md"), OWN_PROJECT);
    // no DECISIONS.md or SESSIONS.md in the folder: the built-in ones
    let builtin = Ws::new();
    builtin.ok(&["--set", "lang=en", "init"]);
    assert_eq!(ws.read("DECISIONS.md"), builtin.read("DECISIONS.md"));
    assert_eq!(ws.read("SESSIONS.md"), builtin.read("SESSIONS.md"));
    let agents = std::fs::read_to_string(ws.root().join("AGENTS.md")).unwrap();
    assert_eq!(
        agents,
        "<!-- trilogy:start -->\n## Our memory\n\nRead `memory/PROJECT.md` first.\n<!-- trilogy:end -->\n"
    );
    // the template's text is the project's memory from then on
    let v = ws.json(&["read", "--section", "Run and test"]);
    assert_eq!(
        v["text"].as_str().map(str::trim),
        Some("`make check`"),
        "{v}"
    );
}

#[test]
fn templates_dir_from_set_and_a_missing_folder_mean_the_builtin_templates() {
    let ws = Ws::new();
    std::fs::create_dir(ws.root().join("t")).unwrap();
    std::fs::write(ws.root().join("t/SESSIONS.md"), "# SESSIONS\n\n> ours\n").unwrap();
    ws.ok(&["--set", "templates_dir=t", "init"]);
    assert_eq!(ws.read("SESSIONS.md"), "# SESSIONS\n\n> ours\n");
    assert!(ws.read("PROJECT.md").contains("## 这是什么"));

    let none = Ws::new();
    none.ok(&["--set", "templates_dir=no-such-folder", "init"]);
    let plain = Ws::init();
    assert_eq!(none.snapshot(), plain.snapshot());
}

#[test]
fn a_template_that_is_not_utf8_or_empty_is_named_and_nothing_is_written() {
    for (bytes, says) in [
        (&b"# PROJECT\n\n\xff\xfe broken\n"[..], "not UTF-8"),
        (&b"  \n"[..], "empty"),
    ] {
        let ws = with_templates(
            "templates_dir = \"my-templates\"\n",
            &[("DECISIONS.md", bytes)],
        );
        let out = ws.run(&["init"]);
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        let err = text(&out.stderr);
        assert!(
            err.contains("my-templates/DECISIONS.md") && err.contains(says),
            "{err}"
        );
        assert!(err.contains("delete it to use the built-in one"), "{err}");
        assert!(!ws.root().join("memory").exists(), "nothing scaffolded");
        assert!(!ws.root().join("AGENTS.md").exists());
    }
}

#[test]
fn a_boot_block_template_holding_our_markers_is_refused() {
    let ws = with_templates(
        "templates_dir = \"my-templates\"\n",
        &[("boot-block.md", b"## Memory\n<!-- trilogy:end -->\n")],
    );
    let out = ws.run(&["init"]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("boot-block.md") && err.contains("<!-- trilogy:end -->"),
        "{err}"
    );
}

#[test]
fn a_template_that_cannot_be_read_is_named() {
    let ws = with_templates("templates_dir = \"my-templates\"\n", &[]);
    std::fs::create_dir(ws.root().join("my-templates/PROJECT.md")).unwrap();
    let out = ws.run(&["init"]);
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(
        err.contains("my-templates/PROJECT.md") && err.contains("cannot read this template"),
        "{err}"
    );
}

#[test]
fn templates_linked_out_of_the_project_are_refused() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("PROJECT.md"), "# stolen\n").unwrap();
    // the folder itself linked out, and one file linked out of a folder inside
    let ws = Ws::new();
    std::fs::write(
        ws.root().join("trilogy.toml"),
        "templates_dir = \"my-templates\"\n",
    )
    .unwrap();
    symlink(outside.path(), ws.root().join("my-templates")).unwrap();
    let file = with_templates("templates_dir = \"my-templates\"\n", &[]);
    symlink(
        outside.path().join("PROJECT.md"),
        file.root().join("my-templates/PROJECT.md"),
    )
    .unwrap();
    for ws in [ws, file] {
        let out = ws.run(&["init"]);
        assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("my-templates"));
        assert!(!ws.root().join("memory").exists());
    }
}

#[test]
fn a_templates_dir_outside_the_project_is_refused_when_loaded() {
    let ws = Ws::new();
    std::fs::write(ws.root().join("trilogy.toml"), "templates_dir = \"/etc\"\n").unwrap();
    let out = ws.run(&["init"]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.contains("trilogy.toml") && err.contains("templates_dir") && err.contains("absolute"),
        "{err}"
    );
}
