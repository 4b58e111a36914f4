"""One file over HTTP(S), safely: same-scheme redirects only, HTML error pages, truncation and
interruptions refused with a clear message, a progress bar on a terminal."""

import http.client
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator

from .store import DataError

TIMEOUT = 60  # seconds without data before a download is given up
CHUNK = 1 << 16


class _SameSchemeRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to the scheme of the request (never https -> http, never file:)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        old, new = urllib.parse.urlsplit(req.full_url).scheme, urllib.parse.urlsplit(newurl).scheme
        if new != old:
            fp.close()
            raise DataError(f"{req.full_url} redirected to another scheme ({newurl}); refused")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


_OPENER = urllib.request.build_opener(_SameSchemeRedirects)


def _looks_like_html(first_bytes, content_type):
    if "text/html" in (content_type or "").lower():
        return True
    head = first_bytes.lstrip()[:64].lower()
    return head.startswith(b"<!doctype html") or head.startswith(b"<html")


def progress_bar(total: int | None, desc: str, progress: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr,
                disable=None if progress else True, leave=False)  # None: shown on a terminal only


def chunks(url: str, what: str, bar) -> Iterator[bytes]:
    """The body of `url` in chunks, with clear errors for HTTP failures, HTML pages, truncation and interruption."""
    response = _open(url, what)
    with response:
        length = response.headers.get("Content-Length")
        received = 0
        while True:
            chunk = _read(response, url, what, received)
            if not chunk:
                break
            if received == 0 and _looks_like_html(chunk, response.headers.get("Content-Type")):
                raise DataError(f"{what}: {url} sent an HTML page instead of the file (an error or login "
                                "page?); nothing was stored")
            received += len(chunk)
            bar.update(len(chunk))
            yield chunk
        if length is not None and length.isdigit() and received != int(length):
            raise DataError(f"{what}: the download from {url} was cut short: {received} of {length} bytes "
                            "(truncated); nothing was stored")


def _open(url, what):
    request = urllib.request.Request(url, headers={"User-Agent": "benchscore-data", "Accept-Encoding": "identity"})
    try:
        return _OPENER.open(request, timeout=TIMEOUT)
    except urllib.error.HTTPError as err:
        raise DataError(f"{what}: {url} answered HTTP {err.code} {err.reason}") from None
    except urllib.error.URLError as err:
        raise DataError(f"{what}: cannot reach {url} ({err.reason})") from None
    except (OSError, http.client.HTTPException) as err:
        raise DataError(f"{what}: cannot reach {url} ({err})") from None


def _read(response, url, what, received):
    """The next chunk of `response` (b'' at the end), `received` bytes having come before it."""
    try:
        return response.read(CHUNK)
    except http.client.IncompleteRead as err:
        raise DataError(f"{what}: the download from {url} was cut short after "
                        f"{received + len(err.partial)} bytes (truncated); nothing was stored") from None
    except (OSError, http.client.HTTPException) as err:
        raise DataError(f"{what}: the download from {url} was interrupted ({err}); nothing was stored") from None
