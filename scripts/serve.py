#!/usr/bin/env python3
"""Serve the built site on 127.0.0.1 the way a static host would.

    python3 scripts/serve.py [--port N] [--sub-path /sdpa/] [--directory site] [--check]

- files only: a folder without index.html is a 404, never a directory listing;
- a missing page gets the site's own 404.html, with HTTP status 404;
- --sub-path mounts the site under a path (/sdpa/), as a host serving it from a
  sub-folder would; every URL outside that path is a 404 too;
- nothing outside the site's folder, symbolic links resolved: a link inside site/ to
  /etc/passwd is a 404; a malformed path (%00, bad UTF-8) is a 400, never a traceback;
- an idle connection is closed after IDLE_SECONDS, each connection has its own thread;
- text is sent gzipped to a client that accepts it, each file compressed once (at
  GZIP_LEVEL) and kept until it changes, so repeated requests cost no CPU.

Standard library only, so any Python 3.11 runs it (scripts/site.sh calls it after the build).
The handler can be reused: make_server(directory, port, sub_path) or subclass SiteHandler.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import mimetypes
import os
import re
import socket
import sys
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
DEFAULT_PORT = 8000
NOT_FOUND_PAGE = "404.html"
_SEGMENT = re.compile(r"[A-Za-z0-9._~-]+")
IDLE_SECONDS = 10  # a connection that sends nothing for this long is closed
BACKLOG = 128  # connections waiting to be accepted


def normalize_sub_path(text: str) -> str:
    """'sdpa', '/sdpa' and '/sdpa/' give '/sdpa/'; '' and '/' give '/'.

    ValueError for anything a URL path segment should not hold (spaces, '?', '..', '//').
    """
    inner = text.strip()
    if inner in ("", "/"):
        return "/"
    if inner.startswith("/"):
        inner = inner[1:]
    if inner.endswith("/"):
        inner = inner[:-1]
    parts = inner.split("/")
    for part in parts:
        if part in (".", "..") or not _SEGMENT.fullmatch(part):
            raise ValueError(
                f"bad sub-path {text!r}: use letters, digits and . _ ~ - between slashes, e.g. /sdpa/"
            )
    return "/" + "/".join(parts) + "/"


def parse_port(text: str) -> int:
    """A TCP port: 1-65535, or 0 for any free one. ValueError otherwise."""
    if not (text.isascii() and text.isdigit()) or int(text) > 65535:
        raise ValueError(f"bad port {text!r}: a number from 1 to 65535 (0: any free port)")
    return int(text)


class SiteHandler(SimpleHTTPRequestHandler):
    """Static files of `directory` under `sub_path`; 404.html for whatever is missing."""

    sub_path = "/"
    quiet = False
    timeout = IDLE_SECONDS  # socket timeout: StreamRequestHandler applies it to each connection
    gzip = True  # text gzipped for a client that accepts it (send_gzipped); False: always plain

    def send_head(self):
        try:
            return self._send_head()
        except (ValueError, OSError):  # a NUL byte, a path the file system refuses
            self.send_error(HTTPStatus.BAD_REQUEST, "Malformed path")
            return None

    def _inside(self, fs_path: str) -> bool:
        """True where fs_path, symbolic links resolved, lies in the site's folder."""
        root = os.path.realpath(self.directory)
        real = os.path.realpath(fs_path)
        return real == root or real.startswith(root.rstrip(os.sep) + os.sep)

    def _send_head(self):
        path = urlsplit(self.path).path
        if self.sub_path != "/" and path == self.sub_path[:-1]:
            # /sdpa -> /sdpa/, as SimpleHTTPRequestHandler does for folders inside the site
            query = urlsplit(self.path).query
            self.send_response(HTTPStatus.MOVED_PERMANENTLY)
            self.send_header("Location", self.sub_path + (f"?{query}" if query else ""))
            self.send_header("Content-Length", "0")
            self.end_headers()
            return None
        if not path.startswith(self.sub_path):
            self.send_error(HTTPStatus.NOT_FOUND, "Outside the site's sub-path")
            return None
        fs_path = self.translate_path(self.path)
        if "\x00" in fs_path:
            self.send_error(HTTPStatus.BAD_REQUEST, "Malformed path")
            return None
        if not self._inside(fs_path) or (os.path.isdir(fs_path) and not self._inside(
                os.path.join(fs_path, "index.html"))):
            self.send_error(HTTPStatus.NOT_FOUND, "Outside the site's folder")
            return None
        return (self.gzip and send_gzipped(self)) or super().send_head()

    def translate_path(self, path):
        # send_head only lets paths under sub_path through; drop the prefix, keep its last '/'
        path = urlsplit(path).path
        if path.startswith(self.sub_path):
            path = path[len(self.sub_path) - 1 :]
        return super().translate_path(path)

    def list_directory(self, path):
        # a static host does not list folders
        self.send_error(HTTPStatus.NOT_FOUND, "No index.html in this folder")
        return None

    def send_error(self, code, message=None, explain=None):
        page = Path(self.directory) / NOT_FOUND_PAGE
        if code != HTTPStatus.NOT_FOUND or not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.log_error("code %d, message %s", code, message)
        self.send_response(code, message)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):
        if not self.quiet:
            super().log_message(format, *args)


class SiteServer(ThreadingHTTPServer):
    """A thread per connection (daemon threads: Ctrl-C does not wait for them), a long
    backlog, and one log line instead of a traceback for a connection that fails."""

    daemon_threads = True
    request_queue_size = BACKLOG

    def handle_error(self, request, client_address):
        err = sys.exc_info()[1]
        print(f"serve.py: {client_address[0]}:{client_address[1]}: {type(err).__name__}: {err}",
              file=sys.stderr)


# text compresses, so a static host sends it gzipped (GitHub Pages, nginx's gzip on)
GZIP_SUFFIXES = {".html", ".css", ".js", ".json", ".svg", ".xml", ".txt", ".map"}
GZIP_LEVEL = 6  # zlib's default: nearly level 9's size for a fraction of its time
GZIP_CACHE_BYTES = 64 * 2**20  # compressed bytes kept; the whole built site is far less


class GzipCache:
    """Each file compressed once: its gzip bytes, by path, kept while the file's size and
    modification time stay the same (a rebuilt site is compressed again), at most
    `limit` compressed bytes in all (the oldest entries go first)."""

    def __init__(self, limit=GZIP_CACHE_BYTES):
        self.limit = limit
        self.entries = {}  # path -> ((mtime_ns, size), gzip bytes); insertion order = age
        self.lock = threading.Lock()

    def get(self, path: Path) -> bytes:
        stat = path.stat()
        key, version = str(path), (stat.st_mtime_ns, stat.st_size)
        with self.lock:
            found = self.entries.get(key)
            if found and found[0] == version:
                return found[1]
        body = gzip.compress(path.read_bytes(), compresslevel=GZIP_LEVEL, mtime=0)
        with self.lock:
            self.entries.pop(key, None)
            if len(body) <= self.limit:
                self.entries[key] = (version, body)
            while sum(len(b) for _, b in self.entries.values()) > self.limit:
                del self.entries[next(iter(self.entries))]
        return body


GZIPPED = GzipCache()


def send_gzipped(handler: SimpleHTTPRequestHandler):
    """Answer with the file gzip-compressed, as real hosts do, when the client accepts gzip
    and the file is text: send the headers, return the body as a file. None otherwise
    (the handler then serves the file plainly, redirects a folder, or says 404)."""
    accepted = [part.split(";")[0].strip() for part in handler.headers.get("Accept-Encoding", "").split(",")]
    if "gzip" not in accepted:
        return None
    url_path = urlsplit(handler.path).path
    target = Path(handler.translate_path(handler.path))
    if target.is_dir():
        if not url_path.endswith("/"):
            return None  # the handler redirects /en to /en/
        target = target / "index.html"
    elif url_path.endswith("/"):
        return None  # index.html/ is no page
    if target.suffix not in GZIP_SUFFIXES or not target.is_file():
        return None
    body = GZIPPED.get(target)
    handler.send_response(HTTPStatus.OK)
    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
    handler.send_header("Content-Type", kind + ("; charset=utf-8" if kind.startswith("text/") or kind in (
        "application/javascript", "application/json", "image/svg+xml") else ""))
    handler.send_header("Content-Encoding", "gzip")
    handler.send_header("Vary", "Accept-Encoding")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    return io.BytesIO(body)


def make_server(directory, port: int = DEFAULT_PORT, sub_path: str = "/", quiet: bool = False,
                handler: type[SiteHandler] = SiteHandler) -> ThreadingHTTPServer:
    """A server bound to 127.0.0.1:port (0: a free port, see .server_port); not started."""
    sub_path = normalize_sub_path(sub_path)
    configured = type(handler.__name__, (handler,), {"sub_path": sub_path, "quiet": quiet})
    return SiteServer((HOST, port), functools.partial(configured, directory=str(directory)))


def port_is_free(port: int) -> bool:
    """True where 127.0.0.1:port can be listened on now (0 always can)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as http.server does
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


def site_url(port: int, sub_path: str) -> str:
    return f"http://{HOST}:{port}{sub_path}"


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see --help)\n")


def _arg(convert):
    def parse(text):
        try:
            return convert(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = convert.__name__
    return parse


def main(argv=None) -> int:
    parser = _Parser(
        prog="scripts/serve.py",
        description="Serve the built site on 127.0.0.1 like a static host: files only, "
        "the site's 404.html (status 404) for a missing page.",
    )
    parser.add_argument("--port", type=_arg(parse_port), default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")
    parser.add_argument("--sub-path", type=_arg(normalize_sub_path), default="/",
                        help="serve the site under this path, e.g. /sdpa/ (default /)")
    parser.add_argument("--directory", type=Path, default=ROOT / "site",
                        help="the built site (default: site/ of the repository)")
    parser.add_argument("--check", action="store_true",
                        help="check the options, print the URL it would serve, serve nothing")
    parser.add_argument("--check-free", action="store_true",
                        help="with --check: also fail (exit 1) where the port is taken")
    parser.add_argument("--quiet", action="store_true", help="no line per request")
    args = parser.parse_args(argv)

    if args.check:
        if args.check_free and not port_is_free(args.port):
            print(f"{parser.prog}: port {args.port} on {HOST} is in use: stop what listens there, "
                  "or pass another --port (0 picks a free one)", file=sys.stderr)
            return 1
        print(site_url(args.port, args.sub_path))
        return 0
    if not (args.directory / "index.html").is_file():
        print(f"{parser.prog}: no built site in {args.directory} (bash scripts/site.sh --build-only makes it)",
              file=sys.stderr)
        return 1
    try:
        httpd = make_server(args.directory, args.port, args.sub_path, quiet=args.quiet)
    except OSError as exc:
        print(f"{parser.prog}: cannot listen on {HOST}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    url = site_url(httpd.server_port, args.sub_path)
    print(f"Serving {args.directory} at {url} (nb) and {url}en/ (en); Ctrl-C stops", flush=True)
    if not (args.directory / NOT_FOUND_PAGE).is_file():
        print(f"(no {NOT_FOUND_PAGE} there: a missing page gets a plain 404)", flush=True)
    try:
        httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        httpd.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
