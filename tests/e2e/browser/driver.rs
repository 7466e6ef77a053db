//! Chromium driven over WebDriver: launching it with a chromedriver of its own, opening the
//! panel, running scripts, waiting on the DOM, clicking and typing, and counting the page's
//! requests. It only drives the page; what a check expects is in the tests.

use super::*;

/// Headless Chromium behind a chromedriver of our own (its own process group, killed whole).
pub(super) struct Browser {
    pub(super) driver: Child,
    pub(super) client: Client,
    pub(super) downloads: tempfile::TempDir,
    pub(super) _profile: tempfile::TempDir,
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
    pub(super) async fn launch() -> Browser {
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
    pub(super) async fn open(&self, server: &Server) {
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
    pub(super) async fn open_on_agent(&self, server: &Server) {
        self.open(server).await;
        self.until(
            "the injection view",
            "return !!document.getElementById('inject-text')",
        )
        .await;
    }

    pub(super) async fn js(&self, script: &str) -> Value {
        self.js_with(script, vec![]).await
    }

    pub(super) async fn js_with(&self, script: &str, args: Vec<Value>) -> Value {
        self.client
            .execute(script, args)
            .await
            .unwrap_or_else(|e| panic!("script failed: {e}\n{script}"))
    }

    /// Poll `script` (a function body) until it returns something truthy; that value.
    pub(super) async fn until(&self, what: &str, script: &str) -> Value {
        self.until_with(what, script, vec![]).await
    }

    pub(super) async fn until_with(&self, what: &str, script: &str, args: Vec<Value>) -> Value {
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
    pub(super) async fn click(&self, css: &str) {
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
    pub(super) async fn click_text(&self, scope: &str, text: &str) {
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
    pub(super) async fn click_marked(&self, what: &str, mark: &str, args: Vec<Value>) {
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

    pub(super) async fn text(&self, css: &str) -> String {
        self.js_with(
            "const e = document.querySelector(arguments[0]); return e ? e.textContent : null",
            vec![json!(css)],
        )
        .await
        .as_str()
        .unwrap_or_else(|| panic!("no element {css}"))
        .to_string()
    }

    pub(super) async fn exists(&self, css: &str) -> bool {
        self.js_with(
            "const e = document.querySelector(arguments[0]); return !!e && e.offsetParent !== null",
            vec![json!(css)],
        )
        .await
            == json!(true)
    }

    /// The URLs of the requests the page made whose path starts with `/trilogy/<endpoint>`.
    pub(super) async fn requests(&self, endpoint: &str) -> Vec<String> {
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
    pub(super) async fn status(&self, text: &str) -> String {
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
    pub(super) async fn pick(&self, root: &Path) {
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
    pub(super) async fn tab(&self, label: &str) {
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
    pub(super) async fn raw(&self, label: &str, file: &str) -> String {
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
    pub(super) async fn elements(&self) -> u64 {
        self.js("return document.getElementsByTagName('*').length")
            .await
            .as_u64()
            .unwrap()
    }

    pub(super) async fn close(self) {
        let client = self.client.clone();
        client.close().await.unwrap();
    }
}

/// The workspace row of `root` in the list: badge text and whether it offers 忘记.
pub(super) async fn row(b: &Browser, root: &Path) -> Option<(String, bool)> {
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

impl Browser {
    /// The page's address: path and query.
    pub(super) async fn address(&self) -> String {
        self.js("return location.pathname + location.search")
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// The tab selected in the view strip, by its `data-tab`.
    pub(super) async fn selected_tab(&self) -> String {
        self.js("const t = document.querySelector('#tabs [aria-selected=true]'); return t ? t.dataset.tab : ''")
            .await
            .as_str()
            .unwrap()
            .to_string()
    }

    /// Press `key` (a WebDriver key code point) on the focused element.
    pub(super) async fn press(&self, key: char) {
        let active = self.client.active_element().await.unwrap();
        active.send_keys(&key.to_string()).await.unwrap();
    }

    /// Wait for a `window.confirm` dialog; its text.
    pub(super) async fn dialog(&self) -> String {
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
    pub(super) async fn card(&self, heading: &str) -> String {
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
    pub(super) async fn card_click(&self, heading: &str, css: &str) {
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
    pub(super) async fn type_into(&self, css: &str, text: &str) {
        self.until_with(
            &format!("the field {css}"),
            "const f = document.querySelector(arguments[0]); return !!f && f.offsetParent !== null",
            vec![json!(css)],
        )
        .await;
        // the panel may render the view again between finding the field and typing (a live
        // update): the field is found again, as a person's next keystroke would find it
        let mut last = None;
        for _ in 0..5 {
            let typed = async {
                let field = self.client.find(Locator::Css(css)).await?;
                field.clear().await?;
                field.send_keys(text).await
            };
            match typed.await {
                Ok(()) => return,
                Err(e) => last = Some(e),
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("could not type into {css}: {last:?}");
    }
}
