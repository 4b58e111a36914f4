"""A loopback stand-in for the Hub's upload endpoints (what `HfApi.upload_file` calls): preupload,
then commit, with or without a pull request. It records every commit's files and headers."""

import base64
import json
import threading
import http.server
import urllib.parse


class FakeUploadHub:
    def __init__(self, repos):
        self.repos = set(repos)  # model repositories that exist
        self.commits = []  # {"repo", "revision", "create_pr", "files": {path: bytes}, "headers": {...}, "summary"}
        self.requests = []
        hub = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                hub._post(self)

            def do_GET(self):
                hub.requests.append(("GET", self.path))
                hub._send(self, 404, {"error": "not found"})

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self):
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()

    def _send(self, handler, status, payload, headers=()):
        body = json.dumps(payload).encode("utf-8")
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        for name, value in headers:
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    def _post(self, handler):
        split = urllib.parse.urlsplit(handler.path)
        path, query = urllib.parse.unquote(split.path), urllib.parse.parse_qs(split.query)
        length = int(handler.headers.get("Content-Length") or 0)
        body = handler.rfile.read(length)
        self.requests.append(("POST", handler.path))
        parts = path.strip("/").split("/")  # api models <owner> <name> (preupload|commit) <revision>
        if len(parts) < 6 or parts[:2] != ["api", "models"]:
            self._send(handler, 404, {"error": "not found"})
            return
        repo, action, revision = f"{parts[2]}/{parts[3]}", parts[4], "/".join(parts[5:])
        if repo not in self.repos:
            self._send(handler, 404, {"error": "Repository not found"}, [("X-Error-Code", "RepoNotFound")])
            return
        if action == "preupload":
            files = json.loads(body)["files"]
            self._send(handler, 200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False}
                                                for f in files]})
        elif action == "commit":
            self._commit(handler, repo, revision, query, body)
        else:
            self._send(handler, 404, {"error": "not found"})

    def _commit(self, handler, repo, revision, query, body):
        lines = [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]
        files = {line["value"]["path"]: base64.b64decode(line["value"]["content"]) for line in lines
                 if line.get("key") == "file"}
        header = next((line["value"] for line in lines if line.get("key") == "header"), {})
        create_pr = query.get("create_pr", ["0"])[0] in ("1", "true", "True")
        self.commits.append({"repo": repo, "revision": revision, "create_pr": create_pr, "files": files,
                             "summary": header.get("summary"), "authorization": handler.headers.get("Authorization")})
        oid = "a" * 40
        payload = {"success": True, "commitOid": oid, "commitUrl": f"{self.url}/{repo}/commit/{oid}"}
        if create_pr:
            payload["pullRequestUrl"] = f"{self.url}/{repo}/discussions/1"
        self._send(handler, 200, payload)
