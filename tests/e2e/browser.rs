//! The panel in a real browser: headless Debian Chromium, driven over WebDriver by a
//! chromedriver this test spawns, against a real `trilogy serve` on workspaces made with the
//! real CLI. These are the original plugin's 29 browser checks (`test/client-interact.mjs`,
//! numbered as in the spec's §9.2) plus what the panel adds: search, the event log, what each
//! agent session was injected and what its caps dropped, restorable history and the weekly
//! chart.
//!
//! Requests are counted with the page's own Resource Timing entries (every `fetch` the page
//! makes), and what a request did is checked on disk and in the store, never in a stub.
//! Waits poll the DOM with a generous deadline; no assertion depends on how fast the machine
//! is. The tests fail, never skip, when Chromium or chromedriver is missing
//! (`apt-get install chromium chromium-driver`). They build only with `--features e2e`
//! (`tests/e2e/run` installs the browser and runs them).

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// How long any one condition may take to hold (a loaded 2-core machine runs two browsers).
const DEADLINE: Duration = Duration::from_secs(20);

/// What JavaScript's `encodeURIComponent` leaves alone.
const URI_COMPONENT: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

/// `s` as the page's `encodeURIComponent` sends it.
fn uri_component(s: &Path) -> String {
    percent_encoding::utf8_percent_encode(&s.to_string_lossy(), URI_COMPONENT).to_string()
}

// -------------------------------------------------------------------------------------------
// trilogy processes: one isolated home (registry, state, config) per test
// -------------------------------------------------------------------------------------------

/// Where the tests' trilogy processes keep everything outside the workspaces.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        Home {
            dir: tempfile::Builder::new()
                .prefix("trilogy-panel-")
                .tempdir()
                .unwrap(),
        }
    }

    fn registry(&self) -> PathBuf {
        self.dir.path().join("registry.json")
    }

    /// A new empty project folder called `name`.
    fn folder(&self, name: &str) -> PathBuf {
        let p = self.dir.path().join("projects").join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    fn env(&self, c: &mut Command) {
        let d = self.dir.path();
        c.env("TRILOGY_REGISTRY", self.registry())
            .env("DSH_HOME", d.join("dsh"))
            .env("XDG_STATE_HOME", d.join("state"))
            .env("XDG_DATA_HOME", d.join("data"))
            .env("TRILOGY_CONFIG", d.join("no-user-config.toml"))
            .env("TRILOGY_TODAY", common::TODAY)
            .env_remove("TRILOGY_LANG")
            .env_remove("TRILOGY_SESSIONS_MAX_ENTRIES")
            .env_remove("TRILOGY_SESSIONS_ARCHIVE_BATCH");
    }

    /// `trilogy --root ROOT ARGS`, with `env` on top; requires success and returns stdout.
    fn run(&self, root: &Path, args: &[&str], env: &[(&str, &str)], stdin: Option<&str>) -> String {
        let mut c = Command::new(bin());
        c.arg("--root").arg(root).args(args).current_dir(root);
        self.env(&mut c);
        for (k, v) in env {
            c.env(k, v);
        }
        c.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = c.spawn().unwrap();
        {
            use std::io::Write;
            let mut input = child.stdin.take().unwrap();
            input.write_all(stdin.unwrap_or("").as_bytes()).unwrap();
        }
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "trilogy {args:?} in {}: {}",
            root.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn json(&self, root: &Path, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        serde_json::from_str(&self.run(root, &a, &[], None)).unwrap()
    }

    /// One checkpoint batch recorded on `date`.
    fn checkpoint(&self, root: &Path, date: &str, batch: Value) {
        self.run(
            root,
            &["checkpoint", "--json"],
            &[
                ("TRILOGY_TODAY", date),
                ("TRILOGY_SESSIONS_MAX_ENTRIES", "3"),
                ("TRILOGY_SESSIONS_ARCHIVE_BATCH", "0"),
            ],
            Some(&batch.to_string()),
        );
    }
}

fn bin() -> PathBuf {
    assert_cmd::cargo::cargo_bin("trilogy")
}

fn read(root: &Path, file: &str) -> String {
    std::fs::read_to_string(root.join("memory").join(file))
        .unwrap_or_else(|e| panic!("read {file} in {}: {e}", root.display()))
}

/// Set a file's modification time `ago` into the past.
fn age(path: &Path, ago: Duration) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - ago).unwrap();
}

/// A workspace with everything the panel shows: an instruction file with the user's own text
/// and the boot block, PROJECT text, decisions (one superseded), five sessions over five ISO
/// weeks (with a quiet week between the first two) in four areas of which two are archived, and an agent session whose caps dropped
/// entries.
fn alpha(home: &Home, name: &str) -> PathBuf {
    let root = home.folder(name);
    std::fs::write(
        root.join("AGENTS.md"),
        "# Agents\n\nUse tabs, not spaces.\n",
    )
    .unwrap();
    home.run(&root, &["init"], &[], None);
    home.checkpoint(
        &root,
        "2026-10-19",
        json!({
            "sessions": [{"done": "parser keeps fenced code whole, verified by cargo test parse", "area": "parser", "next": "archive order"}],
            "decisions": [{"choice": "keep entries in redb", "over": "sqlite", "because": "one file and no server"}],
            "project": [{"section": "现状", "text": "A CLI that keeps an agent's project memory in three Markdown files."}]
        }),
    );
    home.checkpoint(
        &root,
        "2026-11-03",
        json!({"sessions": [{"done": "the archive stays newest first, verified by the archive tests", "area": "archive"}]}),
    );
    home.checkpoint(
        &root,
        "2026-11-17",
        json!({
            "sessions": [{"done": "search ranks whole entries with BM25, verified by the search tests", "area": "search"}],
            "decisions": [{"choice": "tantivy for the search index", "over": "a hand-rolled index", "because": "phrase queries and BM25"}]
        }),
    );
    home.checkpoint(
        &root,
        "2026-11-24",
        json!({"sessions": [{"done": "the panel lists every workspace, verified in Chromium", "area": "panel"}]}),
    );
    home.checkpoint(
        &root,
        "2026-11-29",
        json!({
            "sessions": [{"done": "the panel restores archived entries, verified in Chromium", "area": "panel"}],
            "decisions": [{"choice": "keep entries in redb 4", "over": "redb 3", "because": "the lock protocol", "supersedes": "keep entries in redb"}]
        }),
    );
    // an agent session whose block was cut by its host's limit
    home.run(
        &root,
        &[
            "inject",
            "--session",
            "s-alpha-1",
            "--host",
            "claude",
            "--max-chars",
            "700",
        ],
        &[],
        None,
    );
    root
}

/// An agent's `notes` naming alpha's tantivy decision: an open report for a person.
fn report_on_tantivy(home: &Home, root: &Path) {
    home.run(
        root,
        &[
            "checkpoint",
            "--notes",
            "2026-11-17 — tantivy for the search index is out of date",
        ],
        &[],
        None,
    );
}

/// A small recorded workspace.
fn beta(home: &Home, name: &str) -> PathBuf {
    let root = home.folder(name);
    home.run(&root, &["init"], &[], None);
    home.checkpoint(
        &root,
        common::TODAY,
        json!({
            "sessions": [{"done": "beta builds, verified by cargo build", "area": "build"}],
            "project": [{"section": "现状", "text": "Beta is a small service. <img src=x onerror=\"window.__pwned = 1\"><b>not bold</b>"}]
        }),
    );
    root
}

/// A running `trilogy serve --port 0`, in `cwd`.
struct Server {
    child: Child,
    /// The printed URL, token included.
    url: String,
}

impl Server {
    fn start(home: &Home, cwd: &Path, env: &[(&str, &str)]) -> Server {
        let mut c = Command::new(bin());
        c.args(["serve", "--port", "0"]).current_dir(cwd);
        home.env(&mut c);
        for (k, v) in env {
            c.env(k, v);
        }
        let mut child = c
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        if !line.starts_with("http://127.0.0.1:") {
            let _ = child.kill();
            let mut err = String::new();
            let _ = child.stderr.take().unwrap().read_to_string(&mut err);
            panic!("trilogy serve printed {line:?} as its first line, not its URL: {err}");
        }
        Server {
            child,
            url: line.trim().to_string(),
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// -------------------------------------------------------------------------------------------
// The browser
// -------------------------------------------------------------------------------------------

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Headless Chromium behind a chromedriver of our own (its own process group, killed whole).
struct Browser {
    driver: Child,
    client: Client,
    downloads: tempfile::TempDir,
    _profile: tempfile::TempDir,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // the driver leads its own process group, Chromium included
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.driver.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.driver.wait();
    }
}

impl Browser {
    async fn launch() -> Browser {
        for (path, what) in [(CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")] {
            assert!(
                Path::new(path).is_file(),
                "{path} is missing: the panel's browser tests need Debian's Chromium \
                 ({what}: apt-get install -y chromium chromium-driver; tests/e2e/run installs them)"
            );
        }
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {CHROMEDRIVER}: {e}"));
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < DEADLINE,
                "chromedriver did not listen on port {port}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let profile = tempfile::Builder::new()
            .prefix("trilogy-chromium-")
            .tempdir()
            .unwrap();
        let downloads = tempfile::Builder::new()
            .prefix("trilogy-downloads-")
            .tempdir()
            .unwrap();
        let caps = json!({
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                "args": [
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--disable-quic",
                    "--no-first-run",
                    "--disable-background-networking",
                    "--disable-component-update",
                    "--disable-sync",
                    "--disable-dev-shm-usage",
                    "--window-size=1280,1100",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
                "prefs": {
                    "download.default_directory": downloads.path().to_string_lossy(),
                    "download.prompt_for_download": false,
                    "download.directory_upgrade": true,
                    "safebrowsing.enabled": false
                }
            }
        });
        let caps = match caps {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        let client = ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
            .capabilities(caps)
            .connect(&format!("http://127.0.0.1:{port}"))
            .await
            .unwrap_or_else(|e| panic!("chromedriver could not start Chromium: {e}"));
        Browser {
            driver,
            client,
            downloads,
            _profile: profile,
        }
    }

    /// Open the panel with the printed URL (the token becomes the cookie), and wait for the
    /// page to have asked for its workspaces.
    async fn open(&self, server: &Server) {
        self.client.goto(&server.url).await.unwrap();
        self.js("performance.setResourceTimingBufferSize(100000); return true")
            .await;
        let here = self.client.current_url().await.unwrap();
        assert_eq!(
            here.path(),
            "/trilogy/",
            "the token URL redirects to the bare page"
        );
        // the page writes its own place (?root=…&tab=…) there, never the token
        assert!(
            !here.query().unwrap_or("").contains("token"),
            "the token leaves the address bar: {here}"
        );
    }

    /// Open the panel and wait for the view a workspace opens on (what the agent sees).
    async fn open_on_agent(&self, server: &Server) {
        self.open(server).await;
        self.until(
            "the injection view",
            "return !!document.getElementById('inject-text')",
        )
        .await;
    }

    async fn js(&self, script: &str) -> Value {
        self.js_with(script, vec![]).await
    }

    async fn js_with(&self, script: &str, args: Vec<Value>) -> Value {
        self.client
            .execute(script, args)
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Poll `script` (a function body) until it returns something truthy; that value.
    async fn until(&self, what: &str, script: &str) -> Value {
        self.until_with(what, script, vec![]).await
    }

    async fn until_with(&self, what: &str, script: &str, args: Vec<Value>) -> Value {
        let start = Instant::now();
        loop {
            let v = self.js_with(script, args.clone()).await;
            let truthy = match &v {
                Value::Null => false,
                Value::Bool(b) => *b,
                Value::Number(n) => n.as_f64() != Some(0.0),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return v;
            }
            if start.elapsed() > DEADLINE {
                let page = self.js("return document.body.innerText").await;
                panic!(
                    "timed out waiting for {what} (last value {v})\n----- page text -----\n{}",
                    page.as_str().unwrap_or_default()
                );
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Click the element `css` once it exists and is enabled, as a user would.
    async fn click(&self, css: &str) {
        self.click_marked(
            &format!("{css} to be clickable"),
            "const e = document.querySelector(arguments[0]);
             if (!e || e.disabled || e.offsetParent === null) return null;
             const mark = String(Math.random()); e.setAttribute('data-test-click', mark); return mark;",
            vec![json!(css)],
        )
        .await;
    }

    /// Click the button under `scope` whose text is exactly `text`.
    async fn click_text(&self, scope: &str, text: &str) {
        self.click_marked(
            &format!("a button {text:?} in {scope}"),
            "const b = [...document.querySelectorAll(arguments[0] + ' button')]
               .find(b => b.textContent.trim() === arguments[1] && !b.disabled && b.offsetParent !== null);
             if (!b) return null;
             const mark = String(Math.random()); b.setAttribute('data-test-click', mark); return mark;",
            vec![json!(scope), json!(text)],
        )
        .await;
    }

    /// Click what `mark` (a script) finds and marks with `data-test-click`, returning the
    /// mark. The page redraws parts of itself after every answer from the server, so an
    /// element found can be gone by the time it is clicked: then it is found again.
    async fn click_marked(&self, what: &str, mark: &str, args: Vec<Value>) {
        let start = Instant::now();
        loop {
            let m = self.until_with(what, mark, args.clone()).await;
            let css = format!("[data-test-click=\"{}\"]", m.as_str().unwrap());
            let clicked = match self.client.find(Locator::Css(&css)).await {
                Ok(e) => e.click().await,
                Err(e) => Err(e),
            };
            match clicked {
                Ok(()) => return,
                Err(e) if start.elapsed() > DEADLINE => panic!("click {what}: {e}"),
                Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
    }

    async fn text(&self, css: &str) -> String {
        self.js_with(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null",
            vec![json!(css)],
        )
        .await
        .as_str()
        .unwrap_or_else(|| panic!("no element {css}"))
        .to_string()
    }

    async fn exists(&self, css: &str) -> bool {
        self.js_with(
            "const e = document.querySelector(arguments[0]); return !!e && e.offsetParent !== null",
            vec![json!(css)],
        )
        .await
            == json!(true)
    }

    /// The URLs of the requests the page made whose path starts with `/trilogy/<endpoint>`.
    async fn requests(&self, endpoint: &str) -> Vec<String> {
        let v = self
            .js_with(
                "return performance.getEntriesByType('resource').map(e => e.name)
                   .filter(n => { const u = new URL(n); return u.pathname === '/trilogy/' + arguments[0]; })",
                vec![json!(endpoint)],
            )
            .await;
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    }

    /// Wait for the status line to say `text`.
    async fn status(&self, text: &str) -> String {
        self.until_with(
            &format!("the status line to say {text:?}"),
            "const e = document.getElementById('status'); return e && e.textContent.includes(arguments[0]) ? e.textContent : null",
            vec![json!(text)],
        )
        .await
        .as_str()
        .unwrap()
        .to_string()
    }

    /// Pick the workspace `root` in the list and wait for the detail to show it.
    async fn pick(&self, root: &Path) {
        let root = root.to_string_lossy().to_string();
        self.click_marked(
            "the workspace row",
            "const row = [...document.querySelectorAll('#side-list .tp-item')].find(r => r.dataset.root === arguments[0]);
             if (!row) return null;
             const b = row.querySelector('.tp-item-pick'); b.setAttribute('data-test-click', 'pick'); return 'pick';",
            vec![json!(root)],
        )
        .await;
        self.until_with(
            "the detail to show the picked workspace",
            "const r = document.getElementById('detail-root');
             return !!r && r.textContent === arguments[0] && !!document.getElementById('boot-badge')
               && document.getElementById('content').dataset.ready === 'true'",
            vec![json!(root)],
        )
        .await;
    }

    /// Open the view tab labelled `label`, and wait for it to be drawn.
    async fn tab(&self, label: &str) {
        self.click_text("#tabs", label).await;
        self.until_with(
            &format!("the {label} view"),
            "const t = [...document.querySelectorAll('#tabs [role=tab]')].find(b => b.textContent === arguments[0]);
             const c = document.getElementById('content');
             return !!t && t.getAttribute('aria-selected') === 'true' && c.dataset.view === t.dataset.tab
               && c.dataset.ready === 'true'",
            vec![json!(label)],
        )
        .await;
    }

    /// Open the memory tab `label` showing its file's raw text (the cards' toggle); that text.
    async fn raw(&self, label: &str, file: &str) -> String {
        self.tab(label).await;
        self.js("const r = document.getElementById('raw-toggle');
             if (r.offsetParent !== null && r.getAttribute('aria-pressed') !== 'true') r.click();
             return true")
            .await;
        self.until_with(
            &format!("the raw text of {file}"),
            "const t = document.getElementById('file-text');
             return !!t && t.dataset.file === arguments[0] && t.textContent !== '读取中…' ? t.textContent : null",
            vec![json!(file)],
        )
        .await
        .as_str()
        .unwrap()
        .to_string()
    }

    /// The number of elements in the page.
    async fn elements(&self) -> u64 {
        self.js("return document.getElementsByTagName('*').length")
            .await
            .as_u64()
            .unwrap()
    }

    async fn close(self) {
        let client = self.client.clone();
        client.close().await.unwrap();
    }
}

/// The workspace row of `root` in the list: badge text and whether it offers 忘记.
async fn row(b: &Browser, root: &Path) -> Option<(String, bool)> {
    let v = b
        .js_with(
            "const row = [...document.querySelectorAll('#side-list .tp-item')].find(r => r.dataset.root === arguments[0]);
             if (!row) return null;
             return [row.querySelector('.tp-badge').textContent, !!row.querySelector('.tp-forget')];",
            vec![json!(root.to_string_lossy())],
        )
        .await;
    let a = v.as_array()?;
    Some((a[0].as_str().unwrap().to_string(), a[1].as_bool().unwrap()))
}

fn target_dir() -> PathBuf {
    // target/debug/trilogy → target
    bin().parent().unwrap().parent().unwrap().to_path_buf()
}

// -------------------------------------------------------------------------------------------
// The tests
// -------------------------------------------------------------------------------------------

/// Reading: the list and detail, the tabs, the instruction file and its editor, the boot
/// block buttons, plus search, the event log, agent sessions and the weekly chart. Checks 1–3,
/// 5–12, 18, 21–24 of §9.2; the screenshot for the README.
#[tokio::test(flavor = "current_thread")]
async fn panel_reads_workspaces_and_edits_only_the_instruction_file() {
    let home = Home::new();
    let b_root = beta(&home, "beta");
    let a_root = alpha(&home, "alpha");
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;

    // 1. the list, then the first workspace's files: one /files and one /boot read
    b.until(
        "the list and the first workspace's files",
        "return document.querySelectorAll('#side-list .tp-item').length === 2
           && document.getElementById('content').dataset.ready === 'true' && !!document.getElementById('boot-badge')",
    )
    .await;
    let first = b
        .js("return document.querySelector('#side-list .tp-item').dataset.root")
        .await;
    let first = PathBuf::from(first.as_str().unwrap());
    assert_eq!(b.text("#detail-root").await, first.to_string_lossy());
    assert_eq!(
        b.requests("files").await.len(),
        1,
        "one /files read at opening"
    );
    assert_eq!(
        b.requests("boot").await.len(),
        1,
        "one /boot read at opening"
    );
    assert_eq!(
        b.requests("workspaces").await.len(),
        1,
        "one /workspaces read"
    );

    // the page and its assets come from this server alone (no CDN: it works offline), the
    // stylesheet applied
    let loaded = b
        .js("return { foreign: performance.getEntriesByType('resource').map(e => e.name)
                        .filter(n => new URL(n).origin !== location.origin),
                      assets: performance.getEntriesByType('resource').map(e => new URL(e.name).pathname)
                        .filter(p => p.endsWith('.js') || p.endsWith('.css')).sort(),
                      grid: getComputedStyle(document.querySelector('.tp-body')).display }")
        .await;
    assert_eq!(
        loaded,
        json!({"foreign": [], "assets": ["/trilogy/cards.js", "/trilogy/panel.css", "/trilogy/panel.js"], "grid": "grid"})
    );

    // 2. picking the other workspace re-reads /files for it and shows its content
    let other = if first == a_root { &b_root } else { &a_root };
    // 24. the list and the detail are two columns, and the list stays through a selection
    b.js("window.__side = document.getElementById('side-list'); return true")
        .await;
    b.pick(other).await;
    let files = b.requests("files").await;
    assert_eq!(
        files.len(),
        2,
        "a second /files read for the picked workspace"
    );
    let want = format!("root={}", uri_component(other));
    assert!(
        files[1].contains(&want),
        "{} should ask for {want}",
        files[1]
    );
    assert_eq!(
        b.raw("现状", "PROJECT.md").await,
        read(other, "PROJECT.md"),
        "the picked workspace's PROJECT.md"
    );
    let layout = b
        .js(
            "const s = document.getElementById('side').getBoundingClientRect();
             const d = document.getElementById('detail').getBoundingClientRect();
             return { sideRight: s.right, detailLeft: d.left, sideTop: s.top, detailTop: d.top,
                      same: window.__side === document.getElementById('side-list'),
                      rows: document.querySelectorAll('#side-list .tp-item').length,
                      visible: document.getElementById('side').offsetParent !== null }",
        )
        .await;
    assert!(
        layout["sideRight"].as_f64() <= layout["detailLeft"].as_f64(),
        "list left of the detail: {layout}"
    );
    assert!(
        (layout["sideTop"].as_f64().unwrap() - layout["detailTop"].as_f64().unwrap()).abs() < 40.0,
        "list and detail side by side: {layout}"
    );
    assert_eq!(layout["same"], json!(true), "the picker persists: {layout}");
    assert_eq!(layout["rows"], json!(2));
    assert_eq!(layout["visible"], json!(true));

    // memory text is text: markup in it is shown, never run, on the section cards as in the
    // raw file
    b.pick(&b_root).await;
    b.raw("现状", "PROJECT.md").await;
    b.js("document.getElementById('raw-toggle').click(); return true")
        .await;
    let cards = b
        .until(
            "the PROJECT section cards",
            "const c = document.getElementById('sections');
             return c ? { text: c.textContent, imgs: c.querySelectorAll('img, b').length } : null",
        )
        .await;
    assert!(
        cards["text"]
            .as_str()
            .unwrap()
            .contains("<img src=x onerror="),
        "{cards}"
    );
    assert_eq!(cards["imgs"], json!(0), "{cards}");
    b.raw("现状", "PROJECT.md").await;
    let shown = b
        .js("const t = document.getElementById('file-text');
             return { text: t.textContent, elements: t.children.length, pwned: window.__pwned === 1,
                      imgs: document.querySelectorAll('#content img, #content b').length }")
        .await;
    assert_eq!(shown["text"], json!(read(&b_root, "PROJECT.md")));
    assert!(
        shown["text"]
            .as_str()
            .unwrap()
            .contains("<img src=x onerror="),
        "{shown}"
    );
    assert_eq!(shown["elements"], json!(0), "{shown}");
    assert_eq!(shown["imgs"], json!(0), "{shown}");
    assert_eq!(shown["pwned"], json!(false), "{shown}");

    b.pick(&a_root).await;
    let agents = a_root.join("AGENTS.md");

    // 22. the tab strip, in order; 重新读取 beside it, in the toolbar
    let strip = b
        .js("return [...document.querySelectorAll('#tabs button')].map(b => b.textContent)")
        .await;
    assert_eq!(
        strip,
        json!(["智能体所见", "待处理", "现状", "决策", "日志", "归档"])
    );
    assert!(b.exists("#reread").await);

    // 23. the detail repeats the root; one danger row, holding only the clear button
    assert_eq!(b.text("#detail-root").await, a_root.to_string_lossy());
    let danger = b
        .js("return { rows: document.querySelectorAll('.tp-danger').length,
                      buttons: [...document.querySelectorAll('.tp-danger button')].map(b => b.textContent) }")
        .await;
    assert_eq!(danger, json!({"rows": 1, "buttons": ["清除记忆文件"]}));

    // 18. a fresh workspace shows no staleness banner
    assert!(!b.exists("#stale-banner").await);

    // 3. each memory tab shows its file's text on the raw toggle; no editor is open until one
    // is asked for, and only the instruction file is edited whole
    for (label, file) in [
        ("现状", "PROJECT.md"),
        ("决策", "DECISIONS.md"),
        ("日志", "SESSIONS.md"),
    ] {
        assert_eq!(b.raw(label, file).await, read(&a_root, file), "{file}");
        let editors = b
            .js("return { areas: [...document.querySelectorAll('textarea')].filter(t => t.offsetParent !== null).length,
                          edit: [...document.querySelectorAll('button')].filter(b => b.textContent === '编辑整份文件')
                                  .map(b => !!b.closest('#instruction')) }")
            .await;
        assert_eq!(
            editors,
            json!({"areas": 0, "edit": [true]}),
            "{label}: no editor for a memory file"
        );
    }

    // 5. the instruction panel: AGENTS.md's path and the 已写入 badge
    assert_eq!(b.text("#instruction-path").await, agents.to_string_lossy());
    assert_eq!(b.text("#boot-badge").await, "已写入");

    // 9. the editor opens the whole file, block included; the block buttons hide meanwhile
    b.click("#instruction-edit-open").await;
    let opened = b
        .until(
            "the editor",
            "const t = document.getElementById('instruction-edit'); return t.offsetParent !== null ? t.value : null",
        )
        .await;
    let on_disk = std::fs::read_to_string(&agents).unwrap();
    assert_eq!(opened.as_str().unwrap(), on_disk);
    assert!(
        on_disk.contains("Use tabs, not spaces.") && on_disk.contains("<!-- trilogy:start -->")
    );
    assert!(!b.exists("#boot-remove").await && !b.exists("#boot-rewrite").await);

    // 11. cancel closes it, with no POST
    b.click("#instruction-cancel").await;
    b.until(
        "the editor to close",
        "return document.getElementById('instruction-edit').offsetParent === null && !!document.getElementById('boot-remove')",
    )
    .await;
    assert!(b.requests("save").await.is_empty());

    // 12. switching tabs keeps an open editor and its draft, with no POST
    b.click("#instruction-edit-open").await;
    b.until(
        "the editor",
        "return document.getElementById('instruction-edit').offsetParent !== null",
    )
    .await;
    let editor = b
        .client
        .find(Locator::Id("instruction-edit"))
        .await
        .unwrap();
    editor.send_keys("\nKeep commits small.\n").await.unwrap();
    let draft = b
        .js("return document.getElementById('instruction-edit').value")
        .await;
    let draft = draft.as_str().unwrap().to_string();
    assert!(draft.ends_with("Keep commits small.\n"), "{draft:?}");
    for label in ["决策", "归档", "现状"] {
        b.tab(label).await;
        let kept = b
            .js("const t = document.getElementById('instruction-edit'); return t.offsetParent !== null ? t.value : null")
            .await;
        assert_eq!(kept.as_str(), Some(draft.as_str()), "after {label}");
    }
    assert!(b.requests("save").await.is_empty());

    // 10. save: POST {root, file: AGENTS.md, text}, 已保存, the editor closes, buttons return
    b.click("#instruction-save").await;
    b.status("已保存 AGENTS.md").await;
    b.until(
        "the editor to close and the block buttons to return",
        "return document.getElementById('instruction-edit').offsetParent === null
           && !!document.getElementById('boot-remove') && !!document.getElementById('boot-rewrite')",
    )
    .await;
    assert_eq!(b.requests("save").await.len(), 1);
    assert_eq!(std::fs::read_to_string(&agents).unwrap(), draft);

    // 6. remove the block: a first click only arms it (the warning says what it does), the
    // second removes it: 未写入 with the consequence hint, the button disabled
    b.click("#boot-remove").await;
    let warning = b
        .until(
            "the armed block removal",
            "const w = document.getElementById('boot-warning'); return w && document.getElementById('boot-confirm') ? w.textContent : null",
        )
        .await;
    assert!(warning.as_str().unwrap().contains("memory/"), "{warning}");
    assert!(
        std::fs::read_to_string(&agents)
            .unwrap()
            .contains("trilogy:start"),
        "armed, not removed"
    );
    b.click("#boot-cancel").await;
    b.until("the block buttons again", "return !!document.getElementById('boot-remove') && !document.getElementById('boot-confirm')").await;
    assert!(
        std::fs::read_to_string(&agents)
            .unwrap()
            .contains("trilogy:start"),
        "cancelled"
    );
    b.click("#boot-remove").await;
    b.click("#boot-confirm").await;
    b.until(
        "the 未写入 badge",
        "return document.getElementById('boot-badge').textContent === '未写入'",
    )
    .await;
    assert_eq!(
        b.text("#boot-hint").await,
        "没有它，新会话不会知道 memory/ 的存在"
    );
    assert_eq!(
        b.js("return document.getElementById('boot-remove').disabled")
            .await,
        json!(true)
    );
    let removed = std::fs::read_to_string(&agents).unwrap();
    assert!(!removed.contains("trilogy:start"), "{removed}");
    assert!(removed.contains("Use tabs, not spaces.") && removed.contains("Keep commits small."));

    // 8. after a remove the editor shows the file without the block (re-read, not stale)
    b.click("#instruction-edit-open").await;
    let reopened = b
        .until(
            "the editor",
            "const t = document.getElementById('instruction-edit'); return t.offsetParent !== null ? t.value : null",
        )
        .await;
    assert_eq!(reopened.as_str().unwrap(), removed);
    b.click("#instruction-cancel").await;

    // 7. rewrite: armed first too, then the block comes back, and the badge with it
    b.click("#boot-rewrite").await;
    b.until(
        "the armed rewrite",
        "return !!document.getElementById('boot-confirm')",
    )
    .await;
    assert!(
        !std::fs::read_to_string(&agents)
            .unwrap()
            .contains("trilogy:start"),
        "armed, not rewritten"
    );
    b.click("#boot-confirm").await;
    b.until(
        "the 已写入 badge",
        "return document.getElementById('boot-badge').textContent === '已写入'",
    )
    .await;
    assert!(
        std::fs::read_to_string(&agents)
            .unwrap()
            .contains("<!-- trilogy:start -->")
    );

    // 21. the archive tab: no editor, the hint, 重新读取 kept, no save
    b.tab("归档").await;
    b.until(
        "the archive view",
        "return !!document.getElementById('archive-readonly')",
    )
    .await;
    assert!(b.exists("#archive-hint").await && b.exists("#reread").await);
    assert_eq!(
        b.js("return document.querySelectorAll('#content textarea, #content [contenteditable]').length")
            .await,
        json!(0)
    );
    assert_eq!(
        b.requests("save").await.len(),
        1,
        "no save from the archive"
    );

    // search: the memory_search ranking, whole entries shown
    let cli = home.json(&a_root, &["search", "-n", "20", "panel verified Chromium"]);
    let want_ids: Vec<&str> = cli["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert!(want_ids.len() >= 2, "{cli}");
    let q = b.client.find(Locator::Id("search-q")).await.unwrap();
    q.send_keys("panel verified Chromium\n").await.unwrap();
    let shown = b
        .until(
            "search hits",
            "const hits = [...document.querySelectorAll('#search-hits .tp-hit')];
             return hits.length ? hits.map(h => [h.dataset.id, h.querySelector('pre').textContent]) : null",
        )
        .await;
    let shown = shown.as_array().unwrap();
    assert_eq!(
        shown
            .iter()
            .map(|h| h[0].as_str().unwrap())
            .collect::<Vec<_>>(),
        want_ids,
        "the panel's order is memory_search's"
    );
    for (hit, want) in shown.iter().zip(cli["hits"].as_array().unwrap()) {
        assert_eq!(hit[1], want["text"], "whole entry shown");
    }

    // the event log: who changed what, newest first, as `trilogy log` has it
    b.click_text("#insight-tabs", "变更记录").await;
    let log = home.json(&a_root, &["log", "-n", "50"]);
    let rows = b
        .until(
            "the event log",
            "const rows = [...document.querySelectorAll('#events-table .tp-event')];
             return rows.length ? rows.map(r => [r.dataset.seq, r.querySelector('.tp-actor').dataset.actor, r.lastChild.textContent]) : null",
        )
        .await;
    let events = log["events"].as_array().unwrap();
    assert_eq!(rows.as_array().unwrap().len(), events.len());
    for (row, e) in rows.as_array().unwrap().iter().zip(events) {
        assert_eq!(row[0].as_str().unwrap(), e["seq"].to_string());
        assert_eq!(row[1], e["actor"]);
        assert_eq!(row[2], e["detail"]);
    }
    assert!(
        b.text("#events-table").await.contains("命令行"),
        "CLI writes are named"
    );

    // agent sessions: what each was injected and what its caps dropped
    b.click_text("#insight-tabs", "智能体会话").await;
    let sessions = home.json(&a_root, &["sessions"]);
    let s = &sessions.as_array().unwrap()[0];
    assert_eq!(s["id"], "s-alpha-1");
    let row_text = b
        .until(
            "the agent session row",
            "const r = document.querySelector('#sessions-table .tp-session[data-session=\"s-alpha-1\"]'); return r ? r.textContent : null",
        )
        .await;
    let row_text = row_text.as_str().unwrap();
    let injected = s["injected_ids"].as_array().unwrap().len();
    assert!(row_text.contains(&format!("{injected} 条")), "{row_text}");
    let dropped = s["dropped"]["sessions"].as_array().unwrap().len();
    assert!(dropped > 0, "the 700-character cap drops log entries: {s}");
    assert!(
        row_text.contains(&format!("日志 {dropped} 条")),
        "{row_text}"
    );

    // the weekly chart: one column per week, quiet weeks included, and one bar segment per
    // (week, area), live and archived sessions alike
    b.click_text("#insight-tabs", "每周会话").await;
    let chart = b
        .until(
            "the weekly chart",
            "const r = [...document.querySelectorAll('#weeks-chart rect.tp-bar')];
             return r.length ? { weeks: [...document.querySelectorAll('#weeks-chart .tp-week')].map(g => g.dataset.week),
                                 bars: r.map(x => [x.dataset.week, x.dataset.area, Number(x.dataset.count)]) } : null",
        )
        .await;
    // from the first week with a session to this week (the server's pinned today, W48, or the
    // browser's own when the server does not say)
    let weeks: Vec<String> = chart["weeks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        weeks[..6],
        [
            "2026-W43", "2026-W44", "2026-W45", "2026-W46", "2026-W47", "2026-W48"
        ],
        "{chart}"
    );
    let this_week = b
        .js("const d = new Date(); return window.trilogyPanel.isoWeekLabel(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()))")
        .await;
    let last = weeks.last().unwrap();
    assert!(
        last == "2026-W48" || last == this_week.as_str().unwrap(),
        "the window ends this week: {weeks:?}"
    );
    let mut bars: Vec<(String, String, i64)> = chart["bars"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x[0].as_str().unwrap().to_string(),
                x[1].as_str().unwrap().to_string(),
                x[2].as_i64().unwrap(),
            )
        })
        .collect();
    bars.sort();
    let want: Vec<(String, String, i64)> = [
        ("2026-W43", "parser", 1),
        ("2026-W45", "archive", 1),
        ("2026-W47", "search", 1),
        ("2026-W48", "panel", 2),
    ]
    .iter()
    .map(|(w, a, n)| (w.to_string(), a.to_string(), *n))
    .collect();
    assert_eq!(bars, want);

    // the README's picture: the recorded workspace, its log and the changes, freshly loaded
    b.client.refresh().await.unwrap();
    b.until(
        "the page again",
        "return document.getElementById('content').dataset.ready === 'true' && !!document.getElementById('boot-badge') && !!document.getElementById('status-chip')",
    )
    .await;
    b.tab("日志").await;
    b.click_text("#insight-tabs", "变更记录").await;
    b.until(
        "the change log",
        "return !!document.getElementById('events-table')",
    )
    .await;
    b.client.set_window_size(1280, 1500).await.unwrap();
    b.js("window.scrollTo(0, 0); return true").await;
    let png = b.client.screenshot().await.unwrap();
    assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
    std::fs::write(target_dir().join("panel.png"), &png).unwrap();

    b.close().await;
}

/// Writing: export and import as one group, the download's name and contents, a bad import
/// file, the archive restore, restore of a removed entry, the two-click clear and forget.
/// Checks 4, 13–16, 20 and 27 of §9.2.
#[tokio::test(flavor = "current_thread")]
async fn panel_exports_imports_restores_and_clears() {
    let home = Home::new();
    let d_root = home.folder("delta");
    home.run(&d_root, &["init"], &[], None);
    let a_root = alpha(&home, "alpha");
    // a hand edit rewrites a decision; absorbed by the next command, the old text is a
    // replaced entry, restorable from the history pane
    let decisions = read(&a_root, "DECISIONS.md");
    assert!(
        decisions.contains("因为：phrase queries and BM25"),
        "{decisions}"
    );
    std::fs::write(
        a_root.join("memory/DECISIONS.md"),
        decisions.replace(
            "因为：phrase queries and BM25",
            "因为：phrase queries, BM25 and CJK pairs",
        ),
    )
    .unwrap();
    home.run(
        &a_root,
        &["checkpoint", "--notes", "the README lists an old flag"],
        &[],
        None,
    );
    assert!(read(&a_root, "DECISIONS.md").contains("CJK pairs"));

    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;
    b.until(
        "the list",
        "return document.querySelectorAll('#side-list .tp-item').length === 2 && document.getElementById('content').dataset.ready === 'true'",
    )
    .await;
    b.pick(&a_root).await;

    // 20. the archive tab: one card with 恢复 per dated entry, none for the header
    b.tab("归档").await;
    let archive = read(&a_root, "SESSIONS-archive.md");
    let dated: Vec<&str> = archive.lines().filter(|l| l.starts_with("## 20")).collect();
    assert_eq!(
        dated.len(),
        2,
        "the fixture archives two entries: {archive}"
    );
    let offered = b
        .until(
            "the archived entries",
            "const e = [...document.querySelectorAll('#cards .tp-entry-card')];
             return e.length ? e.map(x => [x.querySelector('.tp-card-restore').textContent, x.dataset.state,
                                           '## ' + x.dataset.heading]) : null",
        )
        .await;
    let offered = offered.as_array().unwrap();
    assert_eq!(offered.len(), 2);
    for (o, heading) in offered.iter().zip(&dated) {
        assert_eq!(o[0], "恢复");
        assert_eq!(o[1], "archived");
        assert_eq!(o[2].as_str().unwrap(), *heading, "the file's order");
    }

    // 13. export and import are one group, on one row, even with the archive hint shown
    let group = b
        .js(
            "const e = document.getElementById('export'), i = document.getElementById('import');
             return { same: e.parentElement === i.parentElement, group: e.parentElement.className,
                      row: e.getBoundingClientRect().top === i.getBoundingClientRect().top,
                      hint: document.getElementById('archive-hint').offsetParent !== null }",
        )
        .await;
    assert_eq!(
        group,
        json!({"same": true, "group": "tp-btn-group", "row": true, "hint": true})
    );

    // 14. export: GET /export?root=, a download named <folder>-memory-<UTC date>.json
    let before = chrono::Utc::now().format("%Y-%m-%d").to_string();
    b.click("#export").await;
    b.status("已导出 4 个文件").await;
    let after = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let exports = b.requests("export").await;
    assert_eq!(exports.len(), 1);
    assert!(exports[0].contains("root="), "{}", exports[0]);
    let start = Instant::now();
    let saved = loop {
        let names: Vec<String> = std::fs::read_dir(b.downloads.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        if let Some(n) = names
            .iter()
            .find(|n| n.ends_with(".json") && !n.ends_with(".crdownload"))
        {
            break n.clone();
        }
        assert!(
            start.elapsed() < DEADLINE,
            "no download arrived in {}: {names:?}",
            b.downloads.path().display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert!(
        saved == format!("alpha-memory-{before}.json")
            || saved == format!("alpha-memory-{after}.json"),
        "download named {saved}"
    );
    let bundle: Value =
        serde_json::from_str(&std::fs::read_to_string(b.downloads.path().join(&saved)).unwrap())
            .unwrap();
    assert_eq!(bundle["kind"], "dsh-trilogy/memory-bundle");
    assert_eq!(bundle["version"], 1);
    for f in [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ] {
        assert_eq!(bundle["files"][f], read(&a_root, f), "{f} in the download");
    }

    // the archive restore: the entry goes back into the log in date order, and the message
    // says where it landed
    let first_heading = dated[0].to_string();
    b.click(".tp-entry-card:first-of-type .tp-card-restore")
        .await;
    let said = b.status("已恢复").await;
    let log = read(&a_root, "SESSIONS.md");
    let log_headings: Vec<&str> = log.lines().filter(|l| l.starts_with("## ")).collect();
    let at = log_headings
        .iter()
        .position(|l| *l == first_heading)
        .unwrap_or_else(|| panic!("{first_heading} restored into {log}"))
        + 1;
    assert!(
        said.contains(&format!("SESSIONS.md，按日期排在第 {at} 条")),
        "{said} (the entry is number {at} in {log})"
    );
    assert!(!said.contains("顶部"), "{said}");
    assert!(!read(&a_root, "SESSIONS-archive.md").contains(&first_heading));
    b.until(
        "one archived entry left",
        "return document.querySelectorAll('#cards .tp-entry-card').length === 1",
    )
    .await;

    // restore of a replaced entry, from the history pane, by id
    b.click_text("#insight-tabs", "可恢复").await;
    let mark = b
        .until_with(
            "the replaced decision in the history",
            "const e = [...document.querySelectorAll('#history .tp-history')]
               .find(x => x.querySelector('pre').textContent.includes(arguments[0]));
             if (!e) return null;
             e.querySelector('.tp-history-restore').setAttribute('data-test-click', 'history');
             return e.dataset.state;",
            vec![json!("因为：phrase queries and BM25")],
        )
        .await;
    assert_eq!(mark, "replaced");
    let states = b
        .js("return [...document.querySelectorAll('#history .tp-history')].map(x => x.dataset.state).sort()")
        .await;
    assert_eq!(
        states,
        json!(["archived", "replaced", "superseded"]),
        "one archived entry left, the replaced and the superseded decision"
    );
    b.click("[data-test-click=\"history\"]").await;
    let said = b
        .status("已恢复：2026-11-17 — tantivy for the search index")
        .await;
    assert!(
        said.contains("DECISIONS.md") && said.contains("按日期"),
        "{said}"
    );
    assert!(read(&a_root, "DECISIONS.md").contains("因为：phrase queries and BM25"));
    b.tab("决策").await;
    b.until(
        "the restored decision on screen",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('因为：phrase queries and BM25'))",
    )
    .await;
    // ... and the event log names who did what: the panel's restores, the hand edit, the CLI
    b.click_text("#insight-tabs", "变更记录").await;
    let who = b
        .until(
            "a panel event",
            "const a = [...document.querySelectorAll('#events-table .tp-actor')];
             return a.some(x => x.dataset.actor === 'panel') ? [...new Set(a.map(x => x.textContent))].sort() : null",
        )
        .await;
    assert_eq!(who, json!(["命令行", "手改文件", "面板"]));

    // 15. import into the other workspace: POST {root, bundle}, re-read, and say what came in:
    // one decision and one session, no PROJECT section
    b.pick(&d_root).await;
    let bundle_path = home.dir.path().join("bundle.json");
    let decisions = "# DECISIONS\n\n## 2026-10-01 — ship the panel\n选择：ship the panel\n放弃：a desktop app\n因为：the browser is everywhere\n";
    let sessions_text = "# SESSIONS\n\n## 2026-10-02 · panel\n完成：the panel imports bundles, verified in Chromium\n";
    std::fs::write(
        &bundle_path,
        json!({
            "kind": "dsh-trilogy/memory-bundle",
            "version": 1,
            "exportedAt": "2026-10-02T10:00:00.000Z",
            "root": "/elsewhere/delta",
            "files": {"DECISIONS.md": decisions, "SESSIONS.md": sessions_text}
        })
        .to_string(),
    )
    .unwrap();
    let picker = b.client.find(Locator::Id("import-file")).await.unwrap();
    picker
        .send_keys(&bundle_path.to_string_lossy())
        .await
        .unwrap();
    let said = b.status("已导入").await;
    assert_eq!(said, "已导入 2 条条目、0 个 PROJECT 小节");
    assert_eq!(b.requests("import").await.len(), 1);
    assert!(read(&d_root, "DECISIONS.md").contains("ship the panel"));
    assert!(read(&d_root, "SESSIONS.md").contains("the panel imports bundles"));
    b.tab("日志").await;
    b.until(
        "the imported log on screen",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('the panel imports bundles'))",
    )
    .await;

    // 16. an unparseable file: a JSON error, and never POSTed
    let bad = home.dir.path().join("bad.json");
    std::fs::write(&bad, "{\"kind\": \"dsh-trilogy/memory-bundle\", files: ").unwrap();
    let before_files = read(&d_root, "SESSIONS.md");
    let picker = b.client.find(Locator::Id("import-file")).await.unwrap();
    picker.send_keys(&bad.to_string_lossy()).await.unwrap();
    let said = b.status("JSON").await;
    assert!(said.starts_with("导入的文件不是有效的 JSON"), "{said}");
    assert_eq!(
        b.js("return document.getElementById('status').className")
            .await,
        "tp-status tp-err"
    );
    assert_eq!(
        b.requests("import").await.len(),
        1,
        "the bad file is never POSTed"
    );
    assert_eq!(read(&d_root, "SESSIONS.md"), before_files);

    // 4. clear: a first click only arms it (the warning names the archive), the second clears
    b.pick(&a_root).await;
    b.click("#clear").await;
    let warning = b
        .until(
            "the armed clear",
            "const w = document.getElementById('clear-warning'); return w ? w.textContent : null",
        )
        .await;
    assert!(warning.as_str().unwrap().contains("归档"), "{warning}");
    assert!(b.requests("clear").await.is_empty(), "armed, not cleared");
    assert!(a_root.join("memory/PROJECT.md").exists());
    b.click("#clear-confirm").await;
    let said = b.status("已清除").await;
    assert!(said.starts_with("已清除 4 个文件"), "{said}");
    assert!(
        said.contains("可以撤销"),
        "a clear says it can be undone: {said}"
    );
    assert!(
        said.contains("Memory 段"),
        "the boot block removal is reported: {said}"
    );
    assert_eq!(b.requests("clear").await.len(), 1);
    for f in [
        "PROJECT.md",
        "DECISIONS.md",
        "SESSIONS.md",
        "SESSIONS-archive.md",
    ] {
        assert!(!a_root.join("memory").join(f).exists(), "{f} cleared");
    }
    assert!(
        !std::fs::read_to_string(a_root.join("AGENTS.md"))
            .unwrap()
            .contains("trilogy:start")
    );
    b.until(
        "the 已清除 badges",
        "return document.querySelector('#detail-title .tp-badge').textContent === '已清除'",
    )
    .await;

    // 27. only the cleared row offers 忘记; it forgets that row only, touching no file
    assert_eq!(row(&b, &a_root).await, Some(("已清除".into(), true)));
    let (_, d_forget) = row(&b, &d_root).await.unwrap();
    assert!(!d_forget, "a live workspace cannot be forgotten");
    let agents_before = std::fs::read_to_string(a_root.join("AGENTS.md")).unwrap();
    b.click("#side-list .tp-forget").await;
    b.until_with(
        "the row to go",
        "return ![...document.querySelectorAll('#side-list .tp-item')].some(r => r.dataset.root === arguments[0])",
        vec![json!(a_root.to_string_lossy())],
    )
    .await;
    assert_eq!(b.requests("forget").await.len(), 1);
    assert!(row(&b, &d_root).await.is_some(), "the other row stays");
    assert!(!b.exists("#side-list .tp-forget").await);
    let registry = std::fs::read_to_string(home.registry()).unwrap();
    assert!(!registry.contains(&*a_root.to_string_lossy()), "{registry}");
    assert_eq!(
        std::fs::read_to_string(a_root.join("AGENTS.md")).unwrap(),
        agents_before
    );

    b.close().await;
}

/// The staleness banner (checks 17–19), the status chip (25, 26, 28, 29) and the English
/// labels.
#[tokio::test(flavor = "current_thread")]
async fn panel_banner_chip_and_english_labels() {
    let home = Home::new();
    // PROJECT.md last written on 2026-09-30 (its file that old too), the log 60 days on
    // (§4.11; trilogy judges by the store's revision dates, src/ops/inject/stale.rs)
    let s_root = home.folder("stale");
    let then = [("TRILOGY_TODAY", "2026-09-30")];
    home.run(&s_root, &["init"], &then, None);
    home.run(
        &s_root,
        &[
            "checkpoint",
            "--section",
            "现状",
            "--text",
            "Stale is a small service.",
        ],
        &then,
        None,
    );
    age(
        &s_root.join("memory/PROJECT.md"),
        Duration::from_secs(60 * 86_400 + 3_600),
    );
    home.checkpoint(
        &s_root,
        common::TODAY,
        json!({"sessions": [{"done": "stale builds, verified by cargo build", "area": "build"}]}),
    );
    let here = home.folder("gamma");
    let server = Server::start(&home, &here, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;

    // 17. a stale reading shows the banner with the day and entry counts
    b.pick(&s_root).await;
    let banner = b
        .until(
            "the staleness banner",
            "const e = document.getElementById('stale-banner'); return e ? e.textContent : null",
        )
        .await;
    let banner = banner.as_str().unwrap();
    assert!(banner.starts_with("PROJECT.md 可能过时"), "{banner}");
    assert!(
        banner.contains("已经 60 天没改过") && banner.contains("追加了 1 条"),
        "{banner}"
    );
    // its action opens PROJECT with the first section's editor
    b.click("#stale-edit").await;
    let editing = b
        .until(
            "the PROJECT editor",
            "const t = document.querySelector('#sections .tp-card-edit');
             return document.getElementById('content').dataset.view === 'project' && t && document.activeElement === t ? t.value : null",
        )
        .await;
    assert_eq!(editing, "暂无", "the first section, as it is");
    b.click(".tp-form-cancel").await;

    // 19. it goes after a re-read once PROJECT.md is current again
    home.checkpoint(
        &s_root,
        common::TODAY,
        json!({"project": [{"section": "现状", "text": "Stale no more."}]}),
    );
    b.click("#reread").await;
    b.until(
        "the banner to go",
        "return !document.getElementById('stale-banner')",
    )
    .await;
    assert!(b.raw("现状", "PROJECT.md").await.contains("Stale no more."));

    // 28. the chip of a folder without memory: a button 无记忆 · 点击创建, which POSTs /init
    let chip = b
        .until(
            "the chip",
            "const c = document.getElementById('status-chip'); return c ? [c.tagName, c.textContent] : null",
        )
        .await;
    assert_eq!(chip, json!(["BUTTON", "无记忆 · 点击创建"]));
    // 25. one /status?cwd=<own cwd> at once, then one every 4000 ms
    let statuses = b.requests("status").await;
    let cwd = uri_component(&here);
    assert!(
        statuses
            .iter()
            .all(|u| u.ends_with(&format!("/trilogy/status?cwd={cwd}"))),
        "{statuses:?}"
    );
    b.until(
        "a second /status poll",
        "return performance.getEntriesByType('resource').filter(e => new URL(e.name).pathname === '/trilogy/status').length >= 3",
    )
    .await;
    let gaps = b
        .js("const t = performance.getEntriesByType('resource')
               .filter(e => new URL(e.name).pathname === '/trilogy/status').map(e => e.startTime);
             return t.slice(1).map((x, i) => x - t[i])")
        .await;
    for gap in gaps.as_array().unwrap() {
        assert!(
            gap.as_f64().unwrap() >= 3_900.0,
            "polls are 4000 ms apart, never closer: {gaps}"
        );
    }
    b.click("#status-chip").await;
    let chip = b
        .until(
            "the chip after init",
            "const c = document.getElementById('status-chip');
             return c && c.textContent.includes('刚刚') ? [c.tagName, c.textContent] : null",
        )
        .await;
    assert_eq!(chip[0], "SPAN", "{chip}");
    assert_eq!(b.requests("init").await.len(), 1);
    assert!(here.join("memory/PROJECT.md").exists());

    // 26. a synced chip: a span with 已同步 and how long ago
    for f in ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"] {
        age(&here.join("memory").join(f), Duration::from_secs(75));
    }
    let start = Instant::now();
    let chip = loop {
        let c = b
            .js("const c = document.getElementById('status-chip'); return c ? [c.tagName, c.textContent] : null")
            .await;
        if c[1].as_str().is_some_and(|t| t.contains("已同步")) {
            break c;
        }
        // "更新完毕" lingers 8 s after the init, then the chip settles
        assert!(
            start.elapsed() < DEADLINE + Duration::from_secs(10),
            "the chip never settled: {c}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(chip[0], "SPAN", "{chip}");
    let said = chip[1].as_str().unwrap();
    assert!(
        said.contains("已同步") && said.contains("1 分钟前"),
        "{said}"
    );

    // 29. no known cwd: the chip renders nothing. `trilogy serve` always knows the folder it
    // runs in (it does not start without one), so this asks the page's own chip renderer
    let v = b
        .js("const P = window.trilogyPanel;
             const snap = { phase: 'none', at: 0, workspace: null, lastSyncAt: null, lastSyncFile: null, now: Date.now() };
             return [P.chipNode('', snap, false), P.chipNode(null, snap, false), P.chipNode('/x', snap, false).tagName]")
        .await;
    assert_eq!(v, json!([null, null, "BUTTON"]));

    // English labels when the server's language is English
    let en = Server::start(&home, &here, &[("TRILOGY_LANG", "en")]);
    b.open(&en).await;
    b.until(
        "the English panel",
        "return document.querySelectorAll('#tabs button').length === 6",
    )
    .await;
    let strip = b
        .js("return [...document.querySelectorAll('#tabs button')].map(b => b.textContent)")
        .await;
    assert_eq!(
        strip,
        json!([
            "What the agent sees",
            "Attention",
            "State",
            "Decisions",
            "Log",
            "Archive"
        ])
    );
    assert_eq!(b.text("#reread").await, "Re-read");
    assert_eq!(b.text("#title").await, "Project memory");

    b.close().await;
}

// -------------------------------------------------------------------------------------------
// What the agent sees, cards and fixing in place, following the store, the page's own state
// -------------------------------------------------------------------------------------------

/// What `trilogy inject` printed, without the line end the printing adds.
fn printed(out: String) -> String {
    out.strip_suffix('\n').unwrap_or(&out).to_string()
}

/// A workspace holding `n` decisions, `n` log entries and `n` archived ones, made by
/// importing a generated bundle with the CLI (the files taken whole), and 120 log entries
/// more merged in by a second import.
fn big(home: &Home, name: &str, n: usize) -> PathBuf {
    let root = home.folder(name);
    home.run(&root, &["init"], &[], None);
    let day = |i: usize| {
        let d = chrono::NaiveDate::from_ymd_opt(2026, 11, 29).unwrap()
            - chrono::Duration::days((i / 4) as i64);
        d.format("%Y-%m-%d").to_string()
    };
    let mut decisions = String::from("# DECISIONS\n");
    let mut sessions = String::from("# SESSIONS\n");
    let mut archive = String::from("# SESSIONS archive\n");
    for i in 0..n {
        decisions.push_str(&format!(
            "\n## {} — choice number {i}\n选择：choice number {i}\n放弃：option {i}\n因为：reason {i}\n",
            day(i)
        ));
        sessions.push_str(&format!(
            "\n## {} · area{}\n完成：step {i} of the big log, verified by test {i}\n",
            day(i),
            i % 7
        ));
        archive.push_str(&format!(
            "\n## {} · old{}\n完成：archived step {i}, verified by test {i}\n",
            day(n + i),
            i % 5
        ));
    }
    let bundle = json!({
        "kind": "dsh-trilogy/memory-bundle",
        "version": 1,
        "exportedAt": "2026-11-29T10:00:00.000Z",
        "root": "/elsewhere/big",
        "files": {"DECISIONS.md": decisions, "SESSIONS.md": sessions, "SESSIONS-archive.md": archive}
    });
    let path = home.dir.path().join(format!("{name}.json"));
    std::fs::write(&path, bundle.to_string()).unwrap();
    home.run(&root, &["import", &path.to_string_lossy()], &[], None);
    // 120 more, merged into the memory there: one event each, so the change log has pages
    let mut more = String::from("# SESSIONS\n");
    for i in 0..120 {
        more.push_str(&format!(
            "\n## 2026-11-29 · merged{i}\n完成：merged step {i}, verified by test {i}\n"
        ));
    }
    let bundle = json!({
        "kind": "dsh-trilogy/memory-bundle",
        "version": 1,
        "exportedAt": "2026-11-29T11:00:00.000Z",
        "root": "/elsewhere/big",
        "files": {"SESSIONS.md": more}
    });
    std::fs::write(&path, bundle.to_string()).unwrap();
    home.run(&root, &["import", &path.to_string_lossy()], &[], None);
    root
}

impl Browser {
    /// The page's address: path and query.
    async fn address(&self) -> String {
        self.js("return location.pathname + location.search")
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The tab selected in the view strip, by its `data-tab`.
    async fn selected_tab(&self) -> String {
        self.js("const t = document.querySelector('#tabs [aria-selected=true]'); return t ? t.dataset.tab : ''")
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Press `key` (a WebDriver key code point) on the focused element.
    async fn press(&self, key: char) {
        let active = self.client.active_element().await.unwrap();
        active.send_keys(&key.to_string()).await.unwrap();
    }

    /// Wait for a `window.confirm` dialog; its text.
    async fn dialog(&self) -> String {
        let start = Instant::now();
        loop {
            match self.client.get_alert_text().await {
                Ok(t) => return t,
                Err(_) if start.elapsed() < DEADLINE => {
                    tokio::time::sleep(Duration::from_millis(100)).await
                }
                Err(e) => panic!("no dialog came: {e}"),
            }
        }
    }

    /// The card whose heading (or text) holds `heading`: its `data-id`.
    async fn card(&self, heading: &str) -> String {
        self.until_with(
            &format!("the card {heading:?}"),
            "const c = [...document.querySelectorAll('#cards .tp-entry-card')].find(c => c.dataset.heading.includes(arguments[0]) || c.textContent.includes(arguments[0]));
             return c ? c.dataset.id : null",
            vec![json!(heading)],
        )
        .await
        .as_str()
        .unwrap()
        .to_string()
    }

    /// Click the button `css` inside the card whose heading (or text) holds `heading`.
    async fn card_click(&self, heading: &str, css: &str) {
        self.click_marked(
            &format!("{css} on the card {heading:?}"),
            "const c = [...document.querySelectorAll('#cards .tp-entry-card')].find(c => c.dataset.heading.includes(arguments[0]) || c.textContent.includes(arguments[0]));
             const b = c && c.querySelector(arguments[1]);
             if (!b || b.disabled) return null;
             const mark = String(Math.random()); b.setAttribute('data-test-click', mark); return mark;",
            vec![json!(heading), json!(css)],
        )
        .await;
    }

    /// Type `text` into the field `css` (replacing what it holds), as a person would.
    async fn type_into(&self, css: &str, text: &str) {
        self.until_with(
            &format!("the field {css}"),
            "const f = document.querySelector(arguments[0]); return !!f && f.offsetParent !== null",
            vec![json!(css)],
        )
        .await;
        let field = self.client.find(Locator::Css(css)).await.unwrap();
        field.clear().await.unwrap();
        field.send_keys(text).await.unwrap();
    }
}

/// The panel opens on the workspace `serve` ran in (from a folder inside it), keeps the
/// workspace and the view in the address bar (a reload and a link restore them), and its view
/// tabs answer ←/→/Home/End.
#[tokio::test(flavor = "current_thread")]
async fn panel_opens_where_serve_ran_and_keeps_its_place() {
    let home = Home::new();
    let b_root = beta(&home, "beta");
    let a_root = alpha(&home, "alpha");
    let inside = b_root.join("src");
    std::fs::create_dir_all(&inside).unwrap();
    let server = Server::start(&home, &inside, &[]);
    let b = Browser::launch().await;
    b.open(&server).await;
    b.until(
        "the list",
        "return document.querySelectorAll('#side-list .tp-item').length === 2",
    )
    .await;
    // beta is not the list's first row: opening the first row would not open it
    let first = b
        .js("return document.querySelector('#side-list .tp-item').dataset.root")
        .await;
    assert_eq!(
        first.as_str().unwrap(),
        a_root.to_string_lossy(),
        "alpha was seen last"
    );
    b.until_with(
        "the detail on beta",
        "const r = document.getElementById('detail-root'); return !!r && r.textContent === arguments[0]",
        vec![json!(b_root.to_string_lossy())],
    )
    .await;

    // a workspace opens on what the agent sees, byte for byte what `trilogy inject` prints
    assert_eq!(b.selected_tab().await, "agent");
    let text = b
        .until(
            "the injected text",
            "const t = document.getElementById('inject-text'); return t ? t.textContent : null",
        )
        .await;
    assert_eq!(
        text.as_str().unwrap(),
        printed(home.run(&b_root, &["inject"], &[], None))
    );
    let want = format!("root={}&tab=agent", uri_component(&b_root));
    assert!(
        b.address().await.ends_with(&format!("?{want}")),
        "{}",
        b.address().await
    );

    // the view goes into the address, and a reload comes back to it
    b.tab("决策").await;
    assert!(
        b.address().await.ends_with("&tab=decisions"),
        "{}",
        b.address().await
    );
    b.client.refresh().await.unwrap();
    b.until(
        "the reloaded page on beta's decisions",
        "const c = document.getElementById('content');
         return c && c.dataset.view === 'decisions' && c.dataset.ready === 'true'
           && document.querySelector('#tabs [aria-selected=true]').dataset.tab === 'decisions'",
    )
    .await;
    assert_eq!(b.text("#detail-root").await, b_root.to_string_lossy());

    // a link names another workspace and view: it opens there
    let link = format!(
        "{}?root={}&tab=archive",
        server.url.split("/trilogy/").next().unwrap().to_string() + "/trilogy/",
        uri_component(&a_root)
    );
    b.client.goto(&link).await.unwrap();
    b.until_with(
        "alpha's archive from the link",
        "const r = document.getElementById('detail-root'); const c = document.getElementById('content');
         return !!r && r.textContent === arguments[0] && c.dataset.view === 'archive' && c.dataset.ready === 'true'",
        vec![json!(a_root.to_string_lossy())],
    )
    .await;

    // keys on the tab strip: one tab stop (the selected tab), arrows move and open
    let stops = b
        .js("return [...document.querySelectorAll('#tabs [role=tab]')].map(t => t.tabIndex)")
        .await;
    assert_eq!(stops, json!([-1, -1, -1, -1, -1, 0]), "roving tabindex");
    b.js("document.querySelector('#tabs [aria-selected=true]').focus(); return true")
        .await;
    let mut seen = Vec::new();
    for (key, want) in [
        ('\u{E014}', "agent"),     // → from the last wraps to the first
        ('\u{E014}', "attention"), // →
        ('\u{E012}', "agent"),     // ←
        ('\u{E010}', "archive"),   // End
        ('\u{E011}', "agent"),     // Home
        ('\u{E012}', "archive"),   // ← from the first wraps to the last
    ] {
        b.press(key).await;
        b.until_with(
            &format!("the {want} tab selected and focused"),
            "const t = document.querySelector('#tabs [aria-selected=true]');
             return !!t && t.dataset.tab === arguments[0] && document.activeElement === t && t.tabIndex === 0
               && document.getElementById('content').dataset.view === arguments[0]",
            vec![json!(want)],
        )
        .await;
        seen.push(b.address().await);
    }
    assert!(seen[1].ends_with("tab=attention"), "{seen:?}");

    b.close().await;
}

/// What the agent sees: the injected text for the picked host and window, a bar per file,
/// the ledger line before any file, and every entry with why it is in or out and whether
/// agents have been given it lately.
#[tokio::test(flavor = "current_thread")]
async fn panel_shows_what_the_agent_sees() {
    let home = Home::new();
    let a_root = alpha(&home, "alpha");
    // two session slots: the area allocation gives `search` one of them, so the second
    // newest `panel` session is out by the area quota
    std::fs::write(
        a_root.join("trilogy.toml"),
        "session_entries_injected = 2\n",
    )
    .unwrap();
    // a second agent session given the whole block (alpha's first was cut to 700 characters)
    home.run(
        &a_root,
        &["inject", "--session", "s-alpha-2", "--host", "codex"],
        &[],
        None,
    );
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    assert_eq!(
        b.text("#inject-text").await,
        printed(home.run(&a_root, &["inject"], &[], None))
    );

    // the ledger line the agents get, above the tabs and every file
    let ledger = b
        .until(
            "the ledger line",
            "const l = document.getElementById('ledger-line');
             return l && !l.hidden && l.textContent ? [l.textContent,
               !!(l.compareDocumentPosition(document.getElementById('tabs')) & Node.DOCUMENT_POSITION_FOLLOWING)] : null",
        )
        .await;
    assert!(
        ledger[0].as_str().unwrap().starts_with("本次注入"),
        "{ledger}"
    );
    assert_eq!(
        ledger[1],
        json!(true),
        "the ledger line comes before the tabs"
    );
    assert!(
        b.text("#inject-text")
            .await
            .contains(ledger[0].as_str().unwrap()),
        "the line is the block's own"
    );

    // a bar per file, shown bytes against the share and the file's size
    let bars = b
        .js("return [...document.querySelectorAll('#inject-files .tp-bar-row')].map(r =>
               [r.dataset.file, Number(r.dataset.shown), Number(r.dataset.share), Number(r.dataset.total)])")
        .await;
    let bars = bars.as_array().unwrap();
    let files: Vec<&str> = bars.iter().map(|r| r[0].as_str().unwrap()).collect();
    for f in ["PROJECT.md", "DECISIONS.md", "SESSIONS.md"] {
        assert!(files.contains(&f), "{files:?}");
    }
    for r in bars {
        assert!(
            r[1].as_u64().unwrap() <= r[3].as_u64().unwrap().max(r[1].as_u64().unwrap()),
            "{r}"
        );
    }

    // the entries: the superseded decision is left out, and says why; what the session
    // `s-alpha-1` was given is in use, the rest never injected
    let rows = b
        .js("return [...document.querySelectorAll('#inject-entries .tp-inject-row')].map(r =>
               [r.querySelector('.tp-strong').textContent, r.dataset.reason, r.cells[2].textContent, r.dataset.use, r.cells[3].textContent])")
        .await;
    let rows = rows.as_array().unwrap();
    let old = rows
        .iter()
        .find(|r| r[0] == "2026-10-19 — keep entries in redb")
        .unwrap_or_else(|| panic!("the superseded decision is listed: {rows:?}"));
    assert_eq!(old[1], "superseded");
    assert_eq!(old[2], "没注入：已被取代");
    let quota = rows
        .iter()
        .find(|r| r[0] == "2026-11-24 · panel")
        .unwrap_or_else(|| panic!("the older panel session is listed: {rows:?}"));
    assert_eq!(
        (quota[1].as_str().unwrap(), quota[2].as_str().unwrap()),
        ("area_quota", "没注入：超出领域配额"),
        "{rows:?}"
    );
    assert!(
        !b.text("#inject-text")
            .await
            .contains("## 2026-11-24 · panel"),
        "and it is not in the text"
    );
    let sessions = home.json(&a_root, &["sessions"]);
    let given: Vec<String> = sessions
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["injected_ids"].as_array().unwrap().clone())
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let uses = b
        .js("return [...document.querySelectorAll('#inject-entries .tp-inject-row')].map(r => [r.dataset.id, r.dataset.use, r.cells[3].textContent])")
        .await;
    let mut in_use = 0;
    for u in uses.as_array().unwrap() {
        let id = u[0].as_str().unwrap();
        if given
            .iter()
            .any(|g| g.starts_with(id) || id.starts_with(g.as_str()))
        {
            assert_eq!(u[1], "inUse", "{u}");
            assert!(u[2].as_str().unwrap().starts_with("在用1 次"), "{u}");
            in_use += 1;
        } else {
            assert_eq!(u[1], "never", "{u}");
            assert!(u[2].as_str().unwrap().starts_with("从未注入0 次"), "{u}");
        }
    }
    assert!(in_use > 0, "{uses} {given:?}");
    assert!(
        b.text("#agent-view")
            .await
            .contains("注入次数来自 2 个智能体会话的记录"),
        "the counts say where they come from"
    );

    // another host and a window: the text is `trilogy inject --host … --window-tokens …`'s
    let select = b.client.find(Locator::Id("inject-host")).await.unwrap();
    select.select_by_value("codex").await.unwrap();
    b.type_into("#inject-window", "20000").await;
    b.click("#inject-apply").await;
    let want = printed(home.run(
        &a_root,
        &["inject", "--host", "codex", "--window-tokens", "20000"],
        &[],
        None,
    ));
    b.until_with(
        "the codex block",
        "const t = document.getElementById('inject-text'); return !!t && t.textContent === arguments[0]",
        vec![json!(want)],
    )
    .await;
    let asked = b.requests("injection").await;
    assert!(
        asked.last().unwrap().contains("host=codex")
            && asked.last().unwrap().contains("window=20000"),
        "{asked:?}"
    );

    b.close().await;
}

/// Entries as cards, fixed where they are seen: edit (and a stale version refused with the
/// entry as it is now), two-step remove, retire with a reason, supersede, restore with where
/// it landed; PROJECT sections edited and put back to a revision; a report shown on the card
/// it names and closed from there.
#[tokio::test(flavor = "current_thread")]
async fn panel_fixes_entries_in_place() {
    let home = Home::new();
    let a_root = alpha(&home, "alpha");
    report_on_tantivy(&home, &a_root);
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;

    // the attention strip counts the report and links to where it is handled
    let strip = b
        .until(
            "the attention strip",
            "const a = document.querySelector('#attention [data-att=reports]'); return a ? [a.textContent, a.getAttribute('href')] : null",
        )
        .await;
    assert_eq!(strip[0], "待处理报告 1");
    assert!(
        strip[1].as_str().unwrap().ends_with("&tab=attention"),
        "{strip}"
    );
    // doctor is judged in the background at the server: its count comes when it is done
    b.until(
        "doctor's count",
        "const a = document.querySelector('#attention [data-att=doctor]');
         return !!a && /^体检 \\d+ 错 · \\d+ 警告$/.test(a.textContent)",
    )
    .await;

    // the cards: date, area, state, provenance; grouped by month, by area on request
    b.tab("决策").await;
    let tantivy = "2026-11-17 — tantivy for the search index";
    let id = b.card(tantivy).await;
    let card = b
        .js_with(
            "const c = document.querySelector(`.tp-entry-card[data-id=\"${arguments[0]}\"]`);
             return { date: c.querySelector('.tp-date').textContent, state: c.querySelector('.tp-state').textContent,
                      prov: c.querySelector('.tp-prov').textContent, report: !!c.querySelector('.tp-report'),
                      groups: [...document.querySelectorAll('#cards .tp-group')].map(g => g.dataset.group) }",
            vec![json!(id)],
        )
        .await;
    assert_eq!(card["date"], "2026-11-17");
    assert_eq!(card["state"], "现行");
    assert!(card["prov"].as_str().unwrap().contains("命令行"), "{card}");
    assert_eq!(
        card["report"],
        json!(true),
        "the report is shown on the card it names: {card}"
    );
    assert_eq!(card["groups"], json!(["2026-11", "2026-10"]), "{card}");
    let select = b.client.find(Locator::Id("group-by")).await.unwrap();
    select.select_by_value("kind").await.unwrap();
    b.until(
        "groups by kind",
        "return [...document.querySelectorAll('#cards .tp-group')].map(g => g.dataset.group).join('|') === '决策|决策 · 已被取代'",
    )
    .await;
    // a group folds shut and stays shut through a re-draw
    b.js("document.querySelector('#cards .tp-group').open = false; return true")
        .await;
    b.until(
        "the fold",
        "return !document.querySelector('#cards .tp-group').open",
    )
    .await;
    select.select_by_value("date").await.unwrap();
    select.select_by_value("kind").await.unwrap();
    b.until(
        "the fold kept",
        "return !document.querySelector('#cards .tp-group').open",
    )
    .await;
    b.js("document.querySelector('#cards .tp-group').open = true; return true")
        .await;

    // edit: the entry's Markdown in a textarea; save sends its version
    b.card_click(tantivy, ".tp-card-edit-open").await;
    let opened = b
        .until(
            "the card editor",
            "const t = document.querySelector('.tp-card-edit'); return t ? t.value : null",
        )
        .await;
    assert!(
        opened
            .as_str()
            .unwrap()
            .starts_with(&format!("## {tantivy}\n"))
            && opened
                .as_str()
                .unwrap()
                .contains("因为：phrase queries and BM25"),
        "{opened}"
    );
    let edited = opened.as_str().unwrap().replace(
        "phrase queries and BM25",
        "phrase queries, BM25 and fast merges",
    );
    b.type_into(".tp-card-edit", &edited).await;
    b.click(".tp-form-save").await;
    b.status("已修改").await;
    assert!(read(&a_root, "DECISIONS.md").contains("因为：phrase queries, BM25 and fast merges"));
    let posts = b.requests("entry").await.len();

    // a stale version: someone else edits the entry while the editor is open; the save is
    // refused, the page shows the entry as it is now and keeps the draft
    let redb = "2026-11-29 — keep entries in redb 4";
    b.card_click(redb, ".tp-card-edit-open").await;
    b.until(
        "the card editor",
        "return !!document.querySelector('.tp-card-edit')",
    )
    .await;
    let other = b
        .js_with(
            "const root = new URLSearchParams(location.search).get('root');
             const list = await (await fetch('/trilogy/entries?root=' + encodeURIComponent(root) + '&file=DECISIONS.md')).json();
             const c = list.entries.find(e => e.heading === arguments[0]);
             const r = await fetch('/trilogy/entry', { method: 'POST', headers: {'content-type': 'application/json'},
               body: JSON.stringify({ root, id: c.id, action: 'edit', version: c.version,
                 text: '## ' + c.heading + '\\n' + c.body.replace('the lock protocol', 'the lock protocol, as another writer says') }) });
             return r.status",
            vec![json!(redb)],
        )
        .await;
    assert_eq!(other, json!(200));
    let draft = format!(
        "## {redb}\n选择：keep entries in redb 4\n放弃：redb 3\n因为：the lock protocol and its tests\n"
    );
    b.type_into(".tp-card-edit", &draft).await;
    b.click(".tp-form-save").await;
    b.status("被改过了").await;
    let conflict = b
        .until(
            "the entry as it is now",
            "const c = document.querySelector('.tp-conflict-current'); const t = document.querySelector('.tp-card-edit');
             return c && t ? [c.textContent, t.value] : null",
        )
        .await;
    assert!(
        conflict[0]
            .as_str()
            .unwrap()
            .contains("as another writer says"),
        "{conflict}"
    );
    assert_eq!(conflict[1].as_str().unwrap(), draft, "the draft is kept");
    assert!(read(&a_root, "DECISIONS.md").contains("as another writer says"));
    // a second save is deliberate, against the version now shown
    b.click(".tp-form-save").await;
    b.status("已修改").await;
    assert!(read(&a_root, "DECISIONS.md").contains("the lock protocol and its tests"));

    // supersede (decisions only): choice, because, over
    b.card_click("tantivy for the search index", ".tp-card-supersede")
        .await;
    b.type_into(
        ".tp-form input[name=choice]",
        "tantivy with a CJK tokenizer",
    )
    .await;
    b.type_into(
        ".tp-form input[name=because]",
        "Chinese text needs word pairs",
    )
    .await;
    b.type_into(".tp-form input[name=over]", "the default tokenizer")
        .await;
    b.click(".tp-form-save").await;
    b.status("已用新决策取代").await;
    let decisions = read(&a_root, "DECISIONS.md");
    assert!(
        decisions.contains("选择：tantivy with a CJK tokenizer"),
        "{decisions}"
    );
    b.card("tantivy with a CJK tokenizer").await;

    // retire asks why; without a reason nothing is sent
    b.card_click(redb, ".tp-card-retire").await;
    let before = b.requests("entry").await.len();
    b.click(".tp-form-save").await;
    assert_eq!(
        b.requests("entry").await.len(),
        before,
        "no reason, no retire"
    );
    b.type_into(".tp-form input[name=why]", "redb 5 is out")
        .await;
    b.click(".tp-form-save").await;
    b.status("已退役").await;
    assert!(read(&a_root, "DECISIONS.md").contains("redb 5 is out"));

    // remove: the first click only arms it
    b.tab("日志").await;
    let panel = "2026-11-24 · panel";
    b.card_click(panel, ".tp-card-remove").await;
    b.until(
        "the armed remove",
        "return !!document.querySelector('.tp-card-remove-confirm')",
    )
    .await;
    assert!(
        read(&a_root, "SESSIONS.md").contains(panel),
        "armed, not removed"
    );
    let before = b.requests("entry").await.len();
    assert!(before > posts);
    b.card_click(panel, ".tp-card-remove-confirm").await;
    b.status("已移除").await;
    assert!(!read(&a_root, "SESSIONS.md").contains(panel));

    // restore from the history: the message says where it landed, in date order
    b.click_text("#insight-tabs", "可恢复").await;
    b.click_marked(
        "the removed session's restore",
        "const e = [...document.querySelectorAll('#history .tp-history')].find(x => x.dataset.state === 'removed' && x.textContent.includes(arguments[0]));
         if (!e) return null; const b = e.querySelector('.tp-history-restore'); b.setAttribute('data-test-click', 'r'); return 'r';",
        vec![json!(panel)],
    )
    .await;
    let said = b.status("已恢复").await;
    let log = read(&a_root, "SESSIONS.md");
    let at = log
        .lines()
        .filter(|l| l.starts_with("## "))
        .position(|l| l == format!("## {panel}"))
        .unwrap_or_else(|| panic!("restored into {log}"))
        + 1;
    assert!(
        said.contains(&format!("SESSIONS.md，按日期排在第 {at} 条")),
        "{said}"
    );

    // the change log names the panel's operations in the page's language, and the first
    // rows it shows already hold the restore (a pane not on screen is read again when opened,
    // never shown as it was before a write)
    b.click_text("#insight-tabs", "变更记录").await;
    let ops = b
        .until(
            "the panel's events",
            "const r = [...document.querySelectorAll('#events-table .tp-event')].filter(r => r.querySelector('.tp-actor').dataset.actor === 'panel');
             return r.length >= 5 ? r.map(x => [x.querySelector('[data-op]').dataset.op, x.querySelector('[data-op]').textContent]) : null",
        )
        .await;
    for op in ops.as_array().unwrap() {
        assert_ne!(op[0], op[1], "{op} is translated");
        assert!(
            !op[1].as_str().unwrap().is_ascii(),
            "{op} is shown in Chinese"
        );
    }
    let names: Vec<&str> = ops
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o[1].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"退役") && names.contains(&"恢复"),
        "{names:?}"
    );

    // PROJECT: edit a section's body, then put an earlier revision back
    b.tab("现状").await;
    b.click_marked(
        "the 现状 section's edit",
        "const c = [...document.querySelectorAll('.tp-section-card')].find(c => c.querySelector('.tp-strong').textContent === '现状');
         const e = c && c.querySelector('.tp-section-edit'); if (!e) return null; e.setAttribute('data-test-click', 's'); return 's';",
        vec![],
    )
    .await;
    let body = b
        .until(
            "the section editor",
            "const t = document.querySelector('.tp-card-edit'); return t ? t.value : null",
        )
        .await;
    assert_eq!(
        body,
        "A CLI that keeps an agent's project memory in three Markdown files."
    );
    b.type_into(
        ".tp-card-edit",
        "A CLI and a web panel that keep an agent's memory.",
    )
    .await;
    b.click(".tp-form-save").await;
    b.status("已保存小节「现状」").await;
    assert!(
        read(&a_root, "PROJECT.md").contains("A CLI and a web panel that keep an agent's memory.")
    );
    b.click_marked(
        "the 现状 revisions",
        "const c = [...document.querySelectorAll('.tp-section-card')].find(c => c.querySelector('.tp-strong').textContent === '现状');
         const e = c && c.querySelector('.tp-section-revisions'); if (!e) return null; e.setAttribute('data-test-click', 'v'); return 'v';",
        vec![],
    )
    .await;
    b.click_marked(
        "the earlier revision's restore",
        "const r = [...document.querySelectorAll('.tp-revision')].find(r => r.textContent.includes('A CLI that keeps'));
         const e = r && r.querySelector('.tp-restore-revision'); if (!e) return null; e.setAttribute('data-test-click', 'rv'); return 'rv';",
        vec![],
    )
    .await;
    b.status("已把小节「现状」恢复到第").await;
    assert!(read(&a_root, "PROJECT.md").contains("A CLI that keeps an agent's project memory"));

    // the report, closed from the attention view; the strip follows
    b.click("#attention [data-att=reports]").await;
    b.until(
        "the attention view",
        "return document.getElementById('content').dataset.view === 'attention'",
    )
    .await;
    b.click("#attention-view .tp-close-report").await;
    b.status("已关闭报告").await;
    b.until(
        "no open report",
        "const a = document.querySelector('#attention [data-att=reports]'); return !!a && a.textContent === '待处理报告 0'",
    )
    .await;
    assert!(b.elements().await < 5_000);

    b.close().await;
}

/// State that can be trusted: the open view follows a CLI write without a reload; a draft is
/// not dropped without asking (another workspace, another view, leaving the page); the list
/// does not stick over the tabs of a narrow screen; the empty badge looks at all three files;
/// the weekly chart ends this week, its labels with years; a clear can be undone.
#[tokio::test(flavor = "current_thread")]
async fn panel_follows_the_store_and_keeps_drafts() {
    let home = Home::new();
    let b_root = beta(&home, "beta");
    // only a log entry, long ago: PROJECT.md still the template
    let l_root = home.folder("logonly");
    home.run(&l_root, &["init"], &[], None);
    home.checkpoint(
        &l_root,
        "2026-10-19",
        json!({"sessions": [{"done": "logonly started, verified by cargo build", "area": "build"}]}),
    );
    let a_root = alpha(&home, "alpha");
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;

    // the empty badge: a log entry is memory, whatever PROJECT.md says
    assert_eq!(row(&b, &l_root).await, Some(("已记录".into(), false)));

    // a CLI checkpoint while the page is open shows up in the open view, with no reload
    b.tab("日志").await;
    b.js("window.__same = 1; return true").await;
    home.checkpoint(
        &a_root,
        common::TODAY,
        json!({"sessions": [{"done": "the panel follows the store, verified in Chromium", "area": "panel"}]}),
    );
    b.until(
        "the new session's card",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('the panel follows the store'))",
    )
    .await;
    assert_eq!(b.js("return window.__same").await, json!(1), "no reload");
    let polls = b.requests("change").await;
    assert!(
        !polls.is_empty()
            && polls
                .iter()
                .all(|u| u.contains(&format!("root={}", uri_component(&a_root)))),
        "{polls:?}"
    );

    // the instruction editor's draft: switching workspace asks, and cancelling stays
    b.click("#instruction-edit-open").await;
    let editor = b
        .client
        .find(Locator::Id("instruction-edit"))
        .await
        .unwrap();
    editor.send_keys("\nA draft.\n").await.unwrap();
    b.click_marked(
        "beta's row",
        "const row = [...document.querySelectorAll('#side-list .tp-item')].find(r => r.dataset.root === arguments[0]);
         if (!row) return null; row.querySelector('.tp-item-pick').setAttribute('data-test-click', 'beta'); return 'beta';",
        vec![json!(b_root.to_string_lossy())],
    )
    .await;
    assert_eq!(b.dialog().await, "有没保存的修改，离开会丢掉它。仍然离开？");
    b.client.dismiss_alert().await.unwrap();
    assert_eq!(
        b.text("#detail-root").await,
        a_root.to_string_lossy(),
        "stayed"
    );
    let kept = b
        .js("return document.getElementById('instruction-edit').value")
        .await;
    assert!(kept.as_str().unwrap().ends_with("A draft.\n"), "{kept}");
    // leaving the page asks too (the browser's own prompt, from beforeunload)
    let asks = b
        .js("const e = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented")
        .await;
    assert_eq!(asks, json!(true));
    b.click("#instruction-cancel").await;
    let asks = b
        .js("const e = new Event('beforeunload', { cancelable: true }); window.dispatchEvent(e); return e.defaultPrevented")
        .await;
    assert_eq!(asks, json!(false), "nothing to lose, nothing asked");

    // a card's draft: another view asks; accepting goes
    b.js("window.__events = document.querySelectorAll('#events-table .tp-event').length; return true")
        .await;
    b.card_click("the panel follows the store", ".tp-card-edit-open")
        .await;
    b.type_into(".tp-card-edit", "## 2026-11-29 · panel\n完成：a draft\n")
        .await;
    b.click_marked(
        "the 决策 tab",
        "const t = document.querySelector('#tabs [data-tab=decisions]'); t.setAttribute('data-test-click', 't'); return 't';",
        vec![],
    )
    .await;
    assert_eq!(b.dialog().await, "有没保存的修改，离开会丢掉它。仍然离开？");
    b.client.dismiss_alert().await.unwrap();
    assert_eq!(b.selected_tab().await, "sessions");
    assert_eq!(
        b.js("return document.querySelector('.tp-card-edit').value")
            .await,
        "## 2026-11-29 · panel\n完成：a draft\n"
    );
    // the open workspace's own row clicked again keeps the draft, and asks nothing
    b.click_marked(
        "the open workspace's row",
        "const row = [...document.querySelectorAll('#side-list .tp-item')].find(r => r.dataset.root === arguments[0]);
         if (!row) return null; row.querySelector('.tp-item-pick').setAttribute('data-test-click', 'self'); return 'self';",
        vec![json!(a_root.to_string_lossy())],
    )
    .await;
    assert!(b.client.get_alert_text().await.is_err(), "no dialog");
    assert_eq!(
        b.js("const f = document.querySelector('.tp-card-edit'); return f && f.value")
            .await,
        "## 2026-11-29 · panel\n完成：a draft\n",
        "the draft is still there"
    );
    // removing another card while this draft is open asks first; dismissed, nothing happens
    let other = b
        .js("const c = [...document.querySelectorAll('#cards .tp-entry-card')].find(c => !c.querySelector('.tp-card-edit') && c.querySelector('.tp-card-remove'));
             return c ? c.dataset.id : null")
        .await;
    let other = other.as_str().expect("another card to remove").to_string();
    let remove_on = |css: &'static str| {
        format!(
            "const c = document.querySelector('#cards .tp-entry-card[data-id=\"{other}\"]'); const b = c && c.querySelector('{css}');
             if (!b) return null; b.setAttribute('data-test-click', '{css}'); return '{css}';"
        )
    };
    b.click_marked(
        "Remove on the other card",
        &remove_on(".tp-card-remove"),
        vec![],
    )
    .await;
    let focused = b
        .until(
            "the armed Remove",
            "return document.querySelector('.tp-card-remove-confirm') ? document.activeElement.className : null",
        )
        .await;
    assert!(
        focused.as_str().unwrap().contains("tp-card-remove-confirm"),
        "the focus moves onto the Confirm that took Remove's place: {focused}"
    );
    b.click_marked(
        "Confirm on the other card",
        &remove_on(".tp-card-remove-confirm"),
        vec![],
    )
    .await;
    assert_eq!(b.dialog().await, "有没保存的修改，离开会丢掉它。仍然离开？");
    b.client.dismiss_alert().await.unwrap();
    assert!(
        b.js("return !!document.querySelector('.tp-card-edit')").await == json!(true)
            && read(&a_root, "SESSIONS.md").contains(
                b.js(&format!("return document.querySelector('#cards .tp-entry-card[data-id=\"{other}\"]').dataset.heading"))
                    .await
                    .as_str()
                    .unwrap()
            ),
        "the draft stays and the other card is not removed"
    );
    // a write elsewhere while the draft is open: the page follows it around the form, the
    // form keeps its text and its focus, and the view catches up when the form closes
    b.js("document.querySelector('.tp-card-edit').focus(); return true")
        .await;
    home.checkpoint(
        &a_root,
        common::TODAY,
        json!({"sessions": [{"done": "a write while a draft is open, verified in Chromium", "area": "panel"}]}),
    );
    b.until(
        "the change log to show the write",
        "return !!document.getElementById('events-table') && document.getElementById('events-table').textContent.includes('SESSIONS.md: 2026-11-29 · panel')
           && [...document.querySelectorAll('#events-table .tp-event')].length > window.__events",
    )
    .await;
    let form = b
        .js("const t = document.querySelector('.tp-card-edit'); return [t.value, document.activeElement === t,
               [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('a write while a draft is open'))]")
        .await;
    assert_eq!(
        form,
        json!(["## 2026-11-29 · panel\n完成：a draft\n", true, false]),
        "the form is left alone"
    );
    b.click(".tp-form-cancel").await;
    b.until(
        "the view to catch up",
        "return [...document.querySelectorAll('#cards .tp-card-body')].some(p => p.textContent.includes('a write while a draft is open'))",
    )
    .await;
    b.card_click("a write while a draft is open", ".tp-card-edit-open")
        .await;
    b.type_into(".tp-card-edit", "## 2026-11-29 · panel\n完成：a draft\n")
        .await;
    b.click("#tabs [data-tab=decisions]").await;
    b.dialog().await;
    b.client.accept_alert().await.unwrap();
    b.until(
        "the decisions",
        "return document.getElementById('content').dataset.view === 'decisions'",
    )
    .await;
    assert!(!read(&a_root, "SESSIONS.md").contains("完成：a draft\n"));

    // the weekly chart of the log-only workspace: from its one week to this one, years shown
    b.pick(&l_root).await;
    b.click_text("#insight-tabs", "每周会话").await;
    let chart = b
        .until(
            "the weekly chart",
            "const w = [...document.querySelectorAll('#weeks-chart .tp-week')].map(g => g.dataset.week);
             return w.length ? { weeks: w, labels: [...document.querySelectorAll('#weeks-chart .tp-week-label')].map(t => t.textContent) } : null",
        )
        .await;
    let weeks = chart["weeks"].as_array().unwrap();
    assert_eq!(weeks[0], "2026-W43");
    assert_eq!(
        weeks.last().unwrap(),
        "2026-W48",
        "the window ends today (2026-11-29): {chart}"
    );
    assert_eq!(weeks.len(), 6, "{chart}");
    let labels = chart["labels"].as_array().unwrap();
    assert!(labels.len() >= 2, "{chart}");
    for l in labels {
        let l = l.as_str().unwrap();
        assert!(
            l.len() == 8 && l.starts_with("2026-W"),
            "a label carries its year: {l}"
        );
    }
    assert_eq!(labels.last().unwrap(), "2026-W48");

    // a clear says it can be undone, and undoes
    b.click("#clear").await;
    b.click("#clear-confirm").await;
    let said = b.status("已清除").await;
    assert!(said.contains("可以撤销"), "{said}");
    assert!(!l_root.join("memory/SESSIONS.md").exists());
    b.click("#clear-undo").await;
    let said = b.status("已恢复这次清除的内容").await;
    assert!(said.contains("1 条条目"), "{said}");
    assert!(read(&l_root, "SESSIONS.md").contains("logonly started"));

    // below 760 px the list is one column above the detail and does not stick over the tabs
    b.pick(&b_root).await;
    b.client.set_window_size(400, 900).await.unwrap();
    let narrow = b
        .until(
            "the narrow layout",
            "const side = document.getElementById('side');
             if (window.innerWidth > 760) return null;
             const tabs = document.getElementById('tabs');
             tabs.scrollIntoView({ block: 'start' });
             const r = tabs.querySelector('[role=tab]').getBoundingClientRect();
             const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
             return { position: getComputedStyle(side).position, onTab: !!hit && !!hit.closest('#tabs'),
                      overflow: document.documentElement.scrollWidth - window.innerWidth };",
        )
        .await;
    assert_ne!(narrow["position"], "sticky", "{narrow}");
    assert_eq!(
        narrow["onTab"],
        json!(true),
        "nothing covers the tabs: {narrow}"
    );
    assert!(
        narrow["overflow"].as_i64().unwrap() <= 0,
        "no sideways scrolling: {narrow}"
    );

    b.close().await;
}

/// At 2,000 entries in each file (and 2,000 archived), every view stays under 5,000
/// elements: cards and tables come 50 at a time with "more".
#[tokio::test(flavor = "current_thread")]
async fn panel_pages_large_files() {
    let home = Home::new();
    let root = big(&home, "big", 2_000);
    let server = Server::start(&home, &root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    let rows = b
        .js("return document.querySelectorAll('#inject-entries .tp-inject-row').length")
        .await;
    assert_eq!(rows, json!(100), "the first hundred of the entries");
    assert!(b.exists("#inject-more").await);
    let mut counts = vec![("agent".to_string(), b.elements().await)];
    for (label, tab) in [
        ("待处理", "attention"),
        ("现状", "project"),
        ("决策", "decisions"),
        ("日志", "sessions"),
        ("归档", "archive"),
    ] {
        b.tab(label).await;
        if tab == "decisions" || tab == "sessions" || tab == "archive" {
            let shown = b
                .until(
                    "the cards",
                    "const c = document.getElementById('cards'); return c ? [Number(c.dataset.shown), Number(c.dataset.total)] : null",
                )
                .await;
            let total = if tab == "sessions" { 2_120 } else { 2_000 };
            assert_eq!(
                shown,
                json!([50, total]),
                "{tab}: a page of 50 of the {total}"
            );
        }
        counts.push((tab.to_string(), b.elements().await));
    }
    // "more" pages in the next 50
    b.click("#cards-more").await;
    let shown = b
        .until(
            "the second page",
            "const c = document.getElementById('cards');
             return c && Number(c.dataset.shown) >= 100 ? [Number(c.dataset.shown), document.querySelectorAll('#cards .tp-entry-card').length] : null",
        )
        .await;
    assert!(shown[0].as_u64().unwrap() >= 100, "{shown}");
    assert_eq!(
        shown[0], shown[1],
        "every entry asked for is drawn: {shown}"
    );
    counts.push(("archive+more".into(), b.elements().await));
    // reading on past the window: "more" lets the newest pages go, "newer" brings them back
    // (scrolling may page in by itself too: the test follows what is there)
    let reached = |v: &Value| v[0].as_u64().unwrap() + v[1].as_u64().unwrap();
    let window_now = "const c = document.getElementById('cards');
         return [Number(c.dataset.start), Number(c.dataset.shown), document.querySelectorAll('#cards .tp-entry-card').length]";
    let mut window = b.js(window_now).await;
    for _ in 0..12 {
        if reached(&window) >= 300 {
            break;
        }
        let before = reached(&window);
        b.click("#cards-more").await;
        b.until_with(
            "the next page",
            "const c = document.getElementById('cards');
             return c && !c.querySelector('#cards-more[disabled]') && Number(c.dataset.start) + Number(c.dataset.shown) > arguments[0]",
            vec![json!(before)],
        )
        .await;
        window = b.js(window_now).await;
    }
    let start = window[0].as_u64().unwrap();
    assert!(reached(&window) >= 300, "{window}");
    assert_eq!(
        (window[1].clone(), window[2].clone()),
        (json!(200), json!(200)),
        "a window of 200 cards: {window}"
    );
    assert_eq!(start, reached(&window) - 200, "{window}");
    assert!(b.exists("#cards-newer").await);
    counts.push(("archive+300".into(), b.elements().await));
    b.click("#cards-newer").await;
    b.until_with(
        "the page before the window",
        "const c = document.getElementById('cards'); return c && Number(c.dataset.start) === arguments[0]",
        vec![json!(start - 50)],
    )
    .await;
    // the change log and the restorable entries: 50 at a time too
    b.click_text("#insight-tabs", "变更记录").await;
    b.until(
        "a page of events",
        "return document.querySelectorAll('#events-table .tp-event').length === 50 && !!document.getElementById('events-more')",
    )
    .await;
    b.click("#events-more").await;
    let seqs = b
        .until(
            "a second page of events",
            "const r = [...document.querySelectorAll('#events-table .tp-event')].map(e => Number(e.dataset.seq));
             return r.length === 100 ? r : null",
        )
        .await;
    let seqs: Vec<i64> = seqs
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert!(
        seqs.windows(2).all(|w| w[0] > w[1]),
        "newest first, no repeats: {seqs:?}"
    );
    b.click_text("#insight-tabs", "可恢复").await;
    b.until(
        "a page of restorable entries",
        "return document.querySelectorAll('#history .tp-history').length === 50 && !!document.getElementById('history-more')",
    )
    .await;
    b.click("#history-more").await;
    b.until(
        "a second page of restorable entries",
        "return document.querySelectorAll('#history .tp-history').length === 100",
    )
    .await;
    counts.push(("history".into(), b.elements().await));
    for (view, n) in &counts {
        assert!(*n < 5_000, "{view}: {n} elements ({counts:?})");
    }

    b.close().await;
}

/// Every view at 1400 and at 400 pixels wide: none scrolls sideways, and each is saved as a
/// picture under target/panel-shots/ to look at (the README's comes from there).
#[tokio::test(flavor = "current_thread")]
async fn panel_views_fit_wide_and_narrow() {
    let home = Home::new();
    let a_root = alpha(&home, "alpha");
    beta(&home, "beta");
    home.run(
        &a_root,
        &["inject", "--session", "s-alpha-2", "--host", "codex"],
        &[],
        None,
    );
    report_on_tantivy(&home, &a_root);
    let server = Server::start(&home, &a_root, &[]);
    let b = Browser::launch().await;
    b.open_on_agent(&server).await;
    let shots = target_dir().join("panel-shots");
    std::fs::create_dir_all(&shots).unwrap();
    for (width, height) in [(1400u32, 1800u32), (400, 2400)] {
        b.client.set_window_size(width, height).await.unwrap();
        for (label, tab) in [
            ("智能体所见", "agent"),
            ("待处理", "attention"),
            ("现状", "project"),
            ("决策", "decisions"),
            ("日志", "sessions"),
            ("归档", "archive"),
        ] {
            b.tab(label).await;
            if tab == "sessions" {
                b.click_text("#insight-tabs", "每周会话").await;
                b.until(
                    "the chart",
                    "return !!document.getElementById('weeks-chart')",
                )
                .await;
            }
            if tab == "decisions" {
                b.click_text("#insight-tabs", "变更记录").await;
                b.until(
                    "the change log",
                    "return !!document.getElementById('events-table')",
                )
                .await;
            }
            let fit = b
                .js("window.scrollTo(0, 0);
                     const wide = [...document.querySelectorAll('#app *')].filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                       .filter(e => !e.closest('.tp-pre, .tp-table, .tp-list')).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5);
                     return { overflow: document.documentElement.scrollWidth - window.innerWidth, wide }")
                .await;
            assert!(
                fit["overflow"].as_i64().unwrap() <= 0,
                "{tab} at {width} px scrolls sideways: {fit}"
            );
            let png = b.client.screenshot().await.unwrap();
            assert!(png.starts_with(b"\x89PNG"), "a PNG screenshot");
            std::fs::write(shots.join(format!("{width}-{tab}.png")), &png).unwrap();
        }
    }
    b.close().await;
}
