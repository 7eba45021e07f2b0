import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
MODE = sys.argv[2]
class H(BaseHTTPRequestHandler):
    def _send(self, body, ctype="application/json", code=200):
        self.send_response(code); self.send_header("Content-Type", ctype); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_GET(self):
        self._send(b'{"data": [{"id": "m"}')
    def do_POST(self):
        n = int(self.headers.get("Content-Length", 0)); self.rfile.read(n)
        if MODE == "badjson":
            self._send(b'{"id": "x", "choices": [{"message": {"content": "| Data Ref')
        elif MODE == "sse":
            body = b'data: {"id":"x","choices":[{"delta":{"content":"hello"}}]}\n\ndata: {broken\n\n'
            self._send(body, "text/event-stream")
        elif MODE == "prose":
            import json
            body = json.dumps({"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Sure! Here is your mapping: Event has a name."}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}).encode()
            self._send(body)
    def log_message(self, *a): pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
