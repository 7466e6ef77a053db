"""The HTTP side the stand-ins share: bind 127.0.0.1 (port 0 picks a free one and prints it on
stdout, so a test never races for a port), append every request to the log, hand the body to
the API's handler."""
import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

_lock = __import__("threading").Lock()
_count = [0]


def run(handle, get=None):
    """handle(handler, path, body, n) answers a POST; get(handler) answers a GET (else 404)."""
    port, log = int(sys.argv[1]), sys.argv[2]

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_GET(self):
            if get:
                get(self)
            else:
                self.send_response(404)
                self.end_headers()

        def do_HEAD(self):
            self.send_response(200)
            self.end_headers()

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"raw": raw[:200].decode("utf-8", "replace")}
            with _lock:
                _count[0] += 1
                n = _count[0]
                with open(log, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"n": n, "path": self.path, "body": body}, ensure_ascii=False) + "\n")
            handle(self, self.path, body, n)

    server = ThreadingHTTPServer(("127.0.0.1", port), H)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def send_json(handler, value):
    out = json.dumps(value, ensure_ascii=False).encode()
    handler.send_response(200)
    handler.send_header("content-type", "application/json")
    handler.send_header("content-length", str(len(out)))
    handler.end_headers()
    handler.wfile.write(out)


def send_sse(handler, events, named=True):
    """Server-sent events; `named` adds the `event:` line the Anthropic and OpenAI streams use."""
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.end_headers()
    for ev in events:
        head = f"event: {ev['type']}\n" if named else ""
        handler.wfile.write(f"{head}data: {json.dumps(ev, ensure_ascii=False)}\n\n".encode())
        handler.wfile.flush()
