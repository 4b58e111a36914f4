"""A small fake OpenAI-compatible chat-completions server on 127.0.0.1, for the Ev²R judge tests.

By default it answers each request with a fenced JSON record whose counts are a function of the
claim (``counts_for``), so replies stay right however concurrent requests interleave.  A test
scripts per-claim misbehaviour with ``server.script[claim] = [action, ...]``, consumed one action
per request for that claim; each action is a dict with any of
  ``sleep`` (seconds before answering; interrupted when the server stops),
  ``status`` (an HTTP error status, with ``body`` as the error text),
  ``content`` (the reply text of a 200 answer), ``raw`` (a 200 answer's whole body, not JSON),
  ``headers`` (extra response headers), ``usage`` (the answer's usage object; None: no usage).
An action with only ``sleep`` answers normally afterwards.  ``hold`` delays every answer (to make
concurrency observable).  Every request is recorded (headers and decoded body), as is the
largest number of requests in flight at once.
"""

import http.server
import json
import threading


def counts_for(claim):
    """The default reply's counts: a deterministic function of the claim text."""
    n = len(claim)
    return {
        "facts count predicted evidence": n % 5 + 2,
        "support predicted evidence": n % 3,
        "facts count reference evidence": n % 4 + 3,
        "support reference evidence": n % 2 + 1,
    }


def fenced(record):
    return "Here is my analysis.\n```json\n" + json.dumps(record, indent=2) + "\n```\n"


def claim_of(prompt):
    """The claim of the last `# CLAIM:` block (our prompt's worked example has one too; the official
    template quotes the claim)."""
    start = prompt.rindex("# CLAIM:\n") + len("# CLAIM:\n")
    claim = prompt[start:prompt.index("\n\n# REFERENCE EVIDENCE:", start)]
    return claim[1:-1] if len(claim) >= 2 and claim[0] == claim[-1] == '"' else claim


def usage_for(body):
    """The default reply's usage: a deterministic function of the request (tokens ~ characters / 4)."""
    prompt = len(body["messages"][-1]["content"]) // 4
    return {"prompt_tokens": prompt, "completion_tokens": 50, "total_tokens": prompt + 50,
            "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 20}}


class FakeJudgeServer:
    def __init__(self, hold=0.0, port=0):
        self.hold = hold
        self.script = {}
        self.responder = None  # claim -> reply text (None: the default), for replies that depend on the claim
        self.requests = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):
                owner._handle(self)

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self):
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def _handle(self, handler):
        body = json.loads(handler.rfile.read(int(handler.headers["Content-Length"])))
        claim = claim_of(body["messages"][-1]["content"])
        with self._lock:
            self.requests.append({"path": handler.path, "headers": dict(handler.headers), "body": body})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            actions = self.script.get(claim)
            action = actions.pop(0) if actions else {}
        try:
            self._stopping.wait(self.hold + action.get("sleep", 0))
            if "status" in action:
                payload = json.dumps({"error": {"message": action.get("body", "error")}}).encode()
                status = action["status"]
            elif "raw" in action:
                payload, status = action["raw"].encode(), 200
            else:
                default = self.responder(claim) if self.responder else None
                content = action.get("content", default if default is not None else fenced(counts_for(claim)))
                answer = {"id": "fake", "object": "chat.completion", "model": body["model"],
                          "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                       "finish_reason": "stop"}],
                          "usage": action.get("usage", usage_for(body))}
                if answer["usage"] is None:
                    del answer["usage"]
                payload, status = json.dumps(answer).encode(), 200
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            for name, value in action.get("headers", {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            pass
        finally:
            with self._lock:
                self.in_flight -= 1


if __name__ == "__main__":  # a loopback judge to try the CLI on: python tests/fake_judge_server.py --port 8765
    import argparse
    import time

    parser = argparse.ArgumentParser(description="a fake OpenAI-compatible Ev2R judge on 127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each answer")
    options = parser.parse_args()
    with FakeJudgeServer(hold=options.latency, port=options.port) as server:
        print(f"serving {server.base_url}", flush=True)
        while True:
            time.sleep(3600)
