//! Recall's index brought up to date from the attention strip, its progress shown.

use super::*;

/// A Claude Code transcript line of `root` saying `text`.
fn claude_line(root: &Path, text: &str) -> String {
    let v = json!({"type": "user", "cwd": root.to_string_lossy(), "message": {"content": text}});
    format!("{v}\n")
}

/// The recall chip says how many transcripts wait to be indexed and indexes them when
/// clicked, saying how far it got; then the index is complete and finds what was said.
#[tokio::test(flavor = "current_thread")]
async fn the_recall_chip_indexes_what_waits() {
    let home = Home::new();
    let root = beta(&home, "beta");
    std::fs::write(root.join("trilogy.toml"), "recall_hosts = [\"claude\"]\n").unwrap();
    let real = root.canonicalize().unwrap();
    let claude = home.dir.path().join("claude");
    let folder = claude.join("projects").join(
        real.to_string_lossy()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect::<String>(),
    );
    std::fs::create_dir_all(&folder).unwrap();
    for (i, said) in [
        "the flaky test was the clock",
        "pin the tantivy version",
        "ship on tuesday",
    ]
    .iter()
    .enumerate()
    {
        std::fs::write(
            folder.join(format!("0000000{i}-0934-4279-b365-2b88693115fe.jsonl")),
            claude_line(&real, said),
        )
        .unwrap();
    }
    let cache = home.dir.path().join("cache");
    let env: [(&str, &str); 3] = [
        ("CLAUDE_CONFIG_DIR", claude.to_str().unwrap()),
        ("XDG_CACHE_HOME", cache.to_str().unwrap()),
        // each transcript read takes a moment, so the count can be seen going up
        ("TRILOGY_PAUSE_AT", "recall-file:700"),
    ];
    let server = Server::start(&home, &root, &env);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    b.until(
        "the chip offering to index",
        "const c = document.getElementById('recall-index');
         return !!c && c.textContent === '召回索引 3 个文件待索引' && !c.disabled",
    )
    .await;
    b.click("#recall-index").await;
    b.until(
        "the count going up",
        "const c = document.getElementById('recall-index');
         return !!c && /^召回索引中 [12]\\/3 个文件…$/.test(c.textContent)",
    )
    .await;
    b.status("召回索引已更新").await;
    b.until(
        "the strip saying the index is current",
        "const a = document.querySelector('#attention [data-att=recall]');
         return !!a && a.textContent === '召回索引是新的' && a.dataset.count === '0'",
    )
    .await;
    assert!(!b.exists("#recall-index").await, "nothing left to index");
    let run = |args: &[&str]| {
        let mut c = Command::new(bin());
        c.arg("--root").arg(&root).args(args).current_dir(&root);
        home.env(&mut c);
        c.envs(env.iter().take(2).copied());
        let out = c.output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let status = run(&["recall", "--status", "--json"]);
    assert_eq!(status["complete"], json!(true), "{status}");
    assert_eq!(status["messages"], json!(3), "{status}");
    let hits = run(&["recall", "tantivy", "--json"]);
    assert_eq!(
        hits["hits"][0]["text"],
        json!("pin the tantivy version"),
        "{hits}"
    );
    b.close().await;
}
