//! What the server lets in: unknown endpoints, the page and its assets, the token cookie,
//! foreign hosts and origins, loopback only, and what `serve` prints.

use super::*;

#[test]
fn an_unknown_endpoint_is_404_and_the_page_and_its_assets_are_served() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    for path in ["/trilogy/nope", "/elsewhere", "/trilogy/../etc/passwd"] {
        let r = s.get(path);
        assert_eq!(r.status, 404, "{path}");
        assert!(r.error().contains("未知端点"), "{}", r.body);
    }
    let r = s.get("/trilogy/");
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(r.body.contains("<html"));
    assert!(
        s.get("/trilogy/panel.js")
            .header("content-type")
            .unwrap()
            .contains("javascript")
    );
    assert!(
        s.get("/trilogy/panel.css")
            .header("content-type")
            .unwrap()
            .starts_with("text/css")
    );
    let r = s.get("/");
    assert_eq!((r.status, r.header("location")), (303, Some("/trilogy/")));
    let r = s.get("/trilogy/save");
    assert_eq!(r.status, 405, "{}", r.body);
}

#[test]
fn the_printed_token_becomes_a_strict_cookie_that_lets_the_page_write() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let r = s.get(&format!("/trilogy/?token={}", s.token));
    assert_eq!((r.status, r.header("location")), (303, Some("/trilogy/")));
    let cookie = r.header("set-cookie").unwrap().to_string();
    for part in [
        "trilogy_token=",
        "HttpOnly",
        "SameSite=Strict",
        "Path=/trilogy",
    ] {
        assert!(cookie.contains(part), "{cookie}");
    }
    let pair = cookie.split(';').next().unwrap();
    let body = json!({ "root": root(&ws), "file": "PROJECT.md", "text": "# PROJECT\n\n## 现状\n\n能跑\n" });
    let origin = format!("http://{}", s.host());
    let r = s.raw(
        "POST",
        "/trilogy/save",
        &[("host", &s.host()), ("origin", &origin), ("cookie", pair)],
        &body.to_string(),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(ws.read("PROJECT.md").contains("能跑"));
    // a wrong token in the address sets nothing
    let r = s.get("/trilogy/?token=0000");
    assert_eq!(r.status, 200);
    assert_eq!(r.header("set-cookie"), None);
}

#[test]
fn the_fence_refuses_a_foreign_host_a_cross_site_origin_and_a_missing_token_and_writes_nothing() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let before = tree(ws.root());
    let body = json!({ "root": root(&ws), "file": "PROJECT.md", "text": "# PROJECT\n\n## 现状\n\nhacked\n" })
        .to_string();
    let host = s.host();
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        (
            "foreign host",
            vec![("host", "evil.example:80"), ("x-trilogy-token", &s.token)],
        ),
        (
            "rebound name",
            vec![("host", "attacker.test"), ("x-trilogy-token", &s.token)],
        ),
        (
            "cross-site origin",
            vec![
                ("host", &host),
                ("origin", "http://evil.example"),
                ("x-trilogy-token", &s.token),
            ],
        ),
        ("missing token", vec![("host", &host)]),
        (
            "wrong token",
            vec![
                ("host", &host),
                ("x-trilogy-token", "0123456789abcdef0123456789abcdef"),
            ],
        ),
        (
            "wrong cookie",
            vec![("host", &host), ("cookie", "trilogy_token=nope")],
        ),
    ];
    for (what, headers) in cases {
        let r = s.raw("POST", "/trilogy/save", &headers, &body);
        assert_eq!(r.status, 403, "{what}: {}", r.body);
        assert!(!r.error().is_empty(), "{what}");
    }
    // a read under a foreign name is refused too (DNS rebinding reads as well as writes)
    let r = s.raw(
        "GET",
        "/trilogy/workspaces",
        &[("host", "evil.example")],
        "",
    );
    assert_eq!(r.status, 403);
    assert!(r.error().contains("本机"), "{}", r.body);
    assert_eq!(tree(ws.root()), before, "nothing written");
}

#[cfg(unix)]
#[test]
fn the_server_listens_on_loopback_only_and_keeps_its_token_private() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    // the kernel's table of listening sockets: ours is 127.0.0.1, never 0.0.0.0
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let port = format!("{:04X}", s.port);
    let listening: Vec<&str> = table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let cols: Vec<&str> = l.split_whitespace().collect();
            let (addr, p) = cols.get(1)?.split_once(':')?;
            (p == port && cols.get(3) == Some(&"0A")).then_some(addr)
        })
        .collect();
    assert_eq!(listening, ["0100007F"], "listening on 127.0.0.1 only");
    let v6 = std::fs::read_to_string("/proc/net/tcp6").unwrap_or_default();
    assert!(
        !v6.lines()
            .any(|l| l.contains(&format!(":{port} ")) && l.contains(" 0A ")),
        "no IPv6 listener"
    );
    // the token for scripts: readable by this user only, gone when the server stops
    let file = std::path::PathBuf::from(s.launch["tokenFile"].as_str().unwrap());
    assert_eq!(
        file,
        ws.state
            .path()
            .join(format!("trilogy/serve-{}.token", s.port))
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim(), s.token);
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let pid = s.child.id().to_string();
    let stopped = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .unwrap();
    assert!(stopped.success());
    let mut s = s;
    let status = s.child.wait().unwrap();
    assert!(
        status.success(),
        "a SIGTERM stops the server cleanly: {status}"
    );
    assert!(!file.exists(), "the token file is removed on shutdown");
}

#[test]
fn serve_prints_its_url_first_and_says_when_the_port_is_taken() {
    let ws = Ws::init();
    let mut child = ws
        .std_cmd()
        .args(["serve", "--port", "0"])
        .current_dir(ws.root())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let rest = line
        .trim_end()
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("{line:?}"));
    let (port, token) = rest.split_once("/trilogy/?token=").unwrap();
    assert!(port.parse::<u16>().unwrap() > 0);
    assert_eq!(token.len(), 32);
    assert!(token.chars().all(|c| c.is_ascii_hexdigit()));

    // a port already in use is an error that says what to do
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let out = ws.run(&["serve", "--port", &port]);
    assert_eq!(out.status.code(), Some(3));
    let err = common::text(&out.stderr);
    assert!(
        err.contains("cannot listen") && err.contains("--port"),
        "{err}"
    );
}

#[test]
fn the_icon_is_served_and_the_hand_over_keeps_the_links_place() {
    let ws = Ws::init();
    let s = Server::start(&ws);
    let r = s.get("/favicon.ico");
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.header("content-type"), Some("image/svg+xml"));
    assert!(r.body.starts_with("<svg"), "{}", r.body);
    let r = s.get(&format!(
        "/trilogy/?root=%2Fw%2Fa&token={}&tab=archive",
        s.token
    ));
    assert_eq!(
        (r.status, r.header("location")),
        (303, Some("/trilogy/?root=%2Fw%2Fa&tab=archive"))
    );
    assert!(r.header("set-cookie").is_some());
}

#[test]
fn an_english_workspace_is_answered_in_english() {
    let ws = Ws::init();
    std::fs::write(ws.root().join("trilogy.toml"), "lang = \"en\"\n").unwrap();
    let s = Server::start(&ws);
    let r = s.get("/trilogy/nope");
    assert_eq!(r.error(), "no such endpoint: /trilogy/nope");
    let r = s.get("/trilogy/files");
    assert_eq!(
        (r.status, r.error()),
        (400, "missing the root parameter".into())
    );
    let r = s.get(&format!("/trilogy/injection?root={}&window=x", root(&ws)));
    assert_eq!(
        r.error(),
        "window must be a positive whole number (the model's context in tokens): x"
    );
    let r = s.get("/trilogy/save");
    assert_eq!(
        r.error(),
        "/trilogy/save takes only POST requests (got GET)"
    );
}
