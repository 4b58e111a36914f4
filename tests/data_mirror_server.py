"""Loopback servers for the data-store tests: a GitHub-raw-style mirror and a fake Hugging Face Hub.

`MirrorServer(root)` serves the files under `root` (laid out `<owner>/<repo>/<commit>/<path>`, as
GitHub raw and `BENCHSCORE_DATA_MIRROR`) on 127.0.0.1. A test scripts misbehaviour per URL path
(decoded, without the leading slash) with ``server.faults[path] = kind``:
  ``tamper``    the file with one byte changed (same length), status 200;
  ``truncate``  half the file, but Content-Length of the whole, then the connection is closed;
  ``short``     half the file with a matching Content-Length (no way to tell but the pinned size);
  ``html``      an HTML error page with status 200;
  ``redirect-scheme``  302 to the same path on ftp:// ; ``redirect``  302 to the same server (fine);
  ``slow``      the file in small pieces with pauses (to make concurrent fetches overlap);
  ``404``       not found.
Every GET is recorded in ``server.gets`` (decoded paths).

`FakeHub(files)` answers what `huggingface_hub.hf_hub_download` asks for a dataset repository,
``HEAD``/``GET /datasets/<repo_id>/resolve/<revision>/<filename>``, with ``X-Repo-Commit``,
``ETag`` (sha256 of the bytes for "LFS" files, the git blob sha1 for the others) and
``Content-Length``. ``files`` maps a revision (a branch name or a 40-hex commit) to
{filename: bytes}; a branch name maps to its commit through ``branches``. ``tamper`` holds
filenames whose body is served with one byte changed (the ETag stays that of the true file).
"""

import hashlib
import http.server
import os
import threading
import time
import urllib.parse


class _Server:
    def __init__(self, handler_method):
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def do_GET(self):
                handler_method(owner, self, head=False)

            def do_HEAD(self):
                handler_method(owner, self, head=True)

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()


def _send(handler, status, body, headers=(), head=False, length=None):
    handler.send_response(status)
    for key, value in headers:
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(len(body) if length is None else length))
    handler.end_headers()
    if not head:
        handler.wfile.write(body)


class MirrorServer(_Server):
    def __init__(self, root):
        self.root = str(root)
        self.faults = {}
        self.gets = []
        self._lock = threading.Lock()
        super().__init__(MirrorServer._handle)

    def _handle(self, handler, head):
        path = urllib.parse.unquote(urllib.parse.urlsplit(handler.path).path).lstrip("/")
        if not head:
            with self._lock:
                self.gets.append(path)
        fault = self.faults.get(path)
        local = os.path.join(self.root, *path.split("/"))
        if fault == "404" or not os.path.isfile(local):
            _send(handler, 404, b"404: Not Found", [("Content-Type", "text/plain")], head)
            return
        with open(local, "rb") as f:
            body = f.read()
        plain = [("Content-Type", "text/plain; charset=utf-8")]
        if fault == "tamper":
            body = body[:100] + bytes([body[100] ^ 1]) + body[101:]
        elif fault == "short":
            body = body[: len(body) // 2]
        elif fault == "html":
            body = b"<!DOCTYPE html>\n<html><body><h1>Rate limit exceeded</h1></body></html>\n"
            plain = [("Content-Type", "text/html; charset=utf-8")]
        elif fault in ("redirect-scheme", "redirect"):
            if fault == "redirect-scheme":
                location = "ftp://127.0.0.1/" + urllib.parse.quote(path)
            else:
                location = f"{self.url}/{urllib.parse.quote(path)}"
                self.faults.pop(path)  # the redirect target is the plain file
            _send(handler, 302, b"", [("Location", location)], head)
            return
        if fault == "truncate":
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(body)))
            handler.send_header("Connection", "close")
            handler.end_headers()
            handler.wfile.write(body[: len(body) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            return
        if fault == "slow" and not head:
            handler.send_response(200)
            handler.send_header("Content-Length", str(len(body)))
            handler.end_headers()
            step = max(1, len(body) // 10)
            for start in range(0, len(body), step):
                handler.wfile.write(body[start:start + step])
                handler.wfile.flush()
                time.sleep(0.1)
            return
        _send(handler, 200, body, plain, head)


def git_blob_sha1(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class FakeHub(_Server):
    def __init__(self, repo_id, files, branches, lfs_suffixes=(".jsonl",)):
        self.repo_id = repo_id
        self.files = files
        self.branches = branches
        self.lfs_suffixes = lfs_suffixes
        self.tamper = set()
        self.requests = []
        super().__init__(FakeHub._handle)

    def _handle(self, handler, head):
        path = urllib.parse.unquote(urllib.parse.urlsplit(handler.path).path)
        self.requests.append((handler.command, path))
        prefix = f"/datasets/{self.repo_id}/resolve/"
        if not path.startswith(prefix):
            _send(handler, 404, b'{"error": "not found"}', [("Content-Type", "application/json")], head)
            return
        revision, _, filename = path[len(prefix):].partition("/")
        commit = self.branches.get(revision, revision)
        if commit not in self.files:
            _send(handler, 404, b'{"error": "Revision Not Found"}',
                  [("Content-Type", "application/json"), ("X-Error-Code", "RevisionNotFound")], head)
            return
        body = self.files[commit].get(filename)
        if body is None:
            _send(handler, 404, b'{"error": "Entry not found"}',
                  [("Content-Type", "application/json"), ("X-Error-Code", "EntryNotFound"),
                   ("X-Repo-Commit", commit)], head)
            return
        lfs = filename.endswith(self.lfs_suffixes)
        etag = hashlib.sha256(body).hexdigest() if lfs else git_blob_sha1(body)
        headers = [("X-Repo-Commit", commit), ("ETag", f'"{etag}"'), ("Content-Type", "application/octet-stream")]
        if lfs:
            headers.append(("X-Linked-Etag", f'"{etag}"'))
            headers.append(("X-Linked-Size", str(len(body))))
        if filename in self.tamper:
            body = body[:10] + bytes([body[10] ^ 1]) + body[11:]
        _send(handler, 200, body, headers, head)
