//! A real `trilogy serve` process for the HTTP tests: started from a workspace, its URL read
//! from the first stdout line, spoken to with raw HTTP/1.1 requests.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};

use serde_json::Value;

use super::Ws;

/// A running `trilogy serve`, stopped when dropped.
pub struct Server {
    pub child: Child,
    pub port: u16,
    pub token: String,
    /// The launch line.
    pub launch: Value,
}

/// An HTTP answer.
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or("").to_string()
    }
}

impl Server {
    /// Serve from `ws`'s root, with its registry and state folders.
    pub fn start(ws: &Ws) -> Server {
        Server::start_with(ws, ws.std_cmd())
    }

    /// Serve with `c` (the workspace's command, with more settings).
    pub fn start_with(ws: &Ws, mut c: std::process::Command) -> Server {
        c.current_dir(ws.root());
        Server::start_in(c)
    }

    /// Serve with `c` as it is (its working directory included).
    pub fn start_in(mut c: std::process::Command) -> Server {
        c.args(["serve", "--port", "0", "--json"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null());
        let mut child = c.spawn().expect("trilogy serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("first line is not the launch JSON ({e}): {line:?}"));
        let port = v["port"].as_u64().unwrap() as u16;
        let token = v["token"].as_str().unwrap().to_string();
        assert_eq!(
            v["url"].as_str().unwrap(),
            format!("http://127.0.0.1:{port}/trilogy/?token={token}")
        );
        Server {
            child,
            port,
            token,
            launch: v,
        }
    }

    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// One request with exactly these headers (plus Connection: close and the length).
    pub fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        let mut s = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        let mut req = format!("{method} {path} HTTP/1.1\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        req.push_str(&format!(
            "connection: close\r\ncontent-length: {}\r\n\r\n{body}",
            body.len()
        ));
        s.write_all(req.as_bytes()).unwrap();
        let mut raw = Vec::new();
        s.read_to_end(&mut raw).unwrap();
        let text = String::from_utf8(raw).unwrap();
        let (head, body) = text.split_once("\r\n\r\n").unwrap();
        let mut lines = head.lines();
        let status = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_lowercase(), v.trim().to_string()))
            .collect();
        Resp {
            status,
            headers,
            body: body.to_string(),
        }
    }

    pub fn get(&self, path: &str) -> Resp {
        self.raw("GET", path, &[("host", &self.host())], "")
    }

    pub fn post(&self, path: &str, body: &Value) -> Resp {
        self.raw(
            "POST",
            path,
            &[
                ("host", &self.host()),
                ("content-type", "application/json"),
                ("x-trilogy-token", &self.token),
            ],
            &body.to_string(),
        )
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `s` with every character outside the unreserved set percent-encoded.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub fn root(ws: &Ws) -> String {
    ws.root().display().to_string()
}
