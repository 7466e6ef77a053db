//! A `trilogy mcp` process driven frame by frame, as a host drives it: the test sends requests
//! and reads what the server writes, answering the server's own requests (roots, elicitation)
//! as they come.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

pub struct McpPeer {
    child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
}

impl McpPeer {
    /// Start `cmd` (a `trilogy … mcp` command) with its stdin and stdout piped, its stderr
    /// dropped.
    pub fn spawn(mut cmd: Command) -> McpPeer {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().unwrap());
        McpPeer { child, stdin, out }
    }

    /// Write one frame.
    pub fn send(&mut self, v: Value) {
        writeln!(self.stdin.as_mut().unwrap(), "{v}").unwrap();
    }

    /// The next frame the server wrote; fails when it hung up.
    pub fn next(&mut self) -> Value {
        let mut line = String::new();
        assert!(
            self.out.read_line(&mut line).unwrap() > 0,
            "the server hung up"
        );
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not a frame ({e}): {line:?}"))
    }

    /// Close the server's stdin, as a host that leaves, and wait for it to end.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

impl Drop for McpPeer {
    fn drop(&mut self) {
        // a failed assertion leaves no server behind
        if self.stdin.is_some() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
