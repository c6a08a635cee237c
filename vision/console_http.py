"""The console's HTTP side: a standard-library ``ThreadingHTTPServer`` with JSON endpoints.

GET (read only, never need the token)::

    /                        the page (vision/console_static/index.html)
    /static/<file>           its CSS and JavaScript
    /api/state               monitor state, latest reading, source, outbox counts, security settings
    /api/rounds              the last rounds: status, reason, faces before/after a rearrange,
                             evidence, manual action, delivery state
    /api/audit               the console audit table (actions and refusals), newest first
    /frame.jpg               the latest frame with the reader's overlay (``?after=N`` waits up to 2 s
                             for a frame newer than N)
    /stream.mjpg             the same as an MJPEG stream
    /evidence/<round>.jpg    a round's evidence frame (``-before`` for the frame at a rearrange;
                             ``?overlay=1`` draws the tokens the monitor read)

POST (state-changing; JSON body)::

    /api/rounds/<round_id>/confirm   {"red": 0-4, "by": NAME}
    /api/rounds/<round_id>/void      {"reason": TEXT, "by": NAME}

Every POST must pass :meth:`Security.check`:

* a header ``X-Xocdia-Token`` equal to the token when the console has one
  (``--token-file``; required for any bind address other than loopback);
  without a token (loopback only) a header ``X-Requested-With: xocdia-console``.
  Either custom header makes a cross-site browser request a CORS preflight,
  which this server never approves, so a form or script on another site
  cannot post;
* a ``Host`` header naming this console (loopback names or the bind address,
  with the port): a DNS-rebinding page on loopback is refused;
* an ``Origin`` header, when the browser sends one, equal to ``http://<Host>``;
* ``Content-Type: application/json`` and a body of at most 4 KiB.

A refused request gets 401 (no or wrong token / header) or 403 (host or
origin) and a line in the ``console_audit`` table and on stderr.
"""
from __future__ import annotations

import hmac
import ipaddress
import json
import mimetypes
import re
import sqlite3
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import cv2

from .console_actions import ActionRefused
from .console_live import annotated
from .outbox import OutboxError

STATIC_DIR = Path(__file__).with_name("console_static")
TOKEN_HEADER = "X-Xocdia-Token"
CSRF_HEADER = "X-Requested-With"
CSRF_VALUE = "xocdia-console"
MAX_BODY = 4096
_ROUND_PATH = re.compile(r"^/api/rounds/([A-Za-z0-9._:-]{1,64})/(confirm|void)$")
_EVIDENCE_PATH = re.compile(r"^/evidence/([A-Za-z0-9._:-]{1,64}?)(-before)?\.jpg$")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host.lower() in ("localhost", "localhost."):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


class Security:
    """Who may change state: the token (if any), the allowed Host names, the CSRF header."""

    def __init__(self, host: str, port: int, token: str | None):
        self.host, self.port, self.token = host, port, token
        self.loopback = is_loopback(host)
        if not self.loopback and not token:
            raise ValueError(f"binding to {host} (not loopback) needs a token: give --token-file")

    def allowed_hosts(self) -> set[str]:
        names = {"127.0.0.1", "localhost", "[::1]"}
        if not self.loopback:
            names.add(self.host if ":" not in self.host else f"[{self.host}]")
        return {f"{n}:{self.port}".lower() for n in names} | ({n.lower() for n in names} if self.port == 80 else set())

    def check(self, headers) -> tuple[int, str] | None:
        """None if the request may change state, else (HTTP status, why)."""
        host = (headers.get("Host") or "").strip().lower()
        if not self.loopback and self.host in ("0.0.0.0", "::"):
            host_ok = bool(host)                   # any interface: the token is the guard
        else:
            host_ok = host in self.allowed_hosts()
        if not host_ok:
            return 403, f"Host header {host!r} does not name this console"
        origin = headers.get("Origin")
        if origin is not None and origin.strip().lower() != f"http://{host}":
            return 403, f"cross-site request refused (Origin {origin!r})"
        if self.token is not None:
            given = headers.get(TOKEN_HEADER)
            if not given:
                return 401, f"missing {TOKEN_HEADER} header"
            if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode("utf-8")):
                return 401, f"wrong {TOKEN_HEADER}"
        elif headers.get(CSRF_HEADER) != CSRF_VALUE:
            return 401, f"missing {CSRF_HEADER}: {CSRF_VALUE} header"
        return None


def make_handler(console):
    """The request handler class bound to a :class:`vision.console.Console`."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "xocdia-console"
        sys_version = ""
        protocol_version = "HTTP/1.1"

        def log_message(self, fmt, *args):        # quiet: refusals are logged on their own
            if console.verbose:
                super().log_message(fmt, *args)

        # -- replies ------------------------------------------------------
        def _send(self, status: int, body: bytes, ctype: str, extra: dict | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("X-Frame-Options", "DENY")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Content-Security-Policy",
                             "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
                             "connect-src 'self'; frame-ancestors 'none'; form-action 'none'")
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, obj) -> None:
            self._send(status, json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8"),
                       "application/json; charset=utf-8")

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"ok": False, "error": message})

        # -- GET ----------------------------------------------------------
        def do_HEAD(self):
            self.do_GET()

        def do_GET(self):
            url = urlsplit(self.path)
            path, query = url.path, parse_qs(url.query)
            try:
                if path in ("/", "/index.html"):
                    return self._static("index.html")
                if path.startswith("/static/"):
                    return self._static(path[len("/static/"):])
                if path == "/api/state":
                    return self._json(200, console.state_json())
                if path == "/api/rounds":
                    return self._json(200, {"rounds": console.rounds_json()})
                if path == "/api/audit":
                    return self._json(200, {"audit": console.store.audit_log()})
                if path == "/frame.jpg":
                    return self._frame(query)
                if path == "/stream.mjpg":
                    return self._mjpeg()
                m = _EVIDENCE_PATH.match(path)
                if m:
                    return self._evidence(m.group(1), bool(m.group(2)), query.get("overlay") == ["1"])
                return self._error(404, f"no such page: {path}")
            except (BrokenPipeError, ConnectionResetError):
                return None
            except (sqlite3.Error, OutboxError) as exc:
                return self._error(503, f"the outbox cannot be read now: {exc}")

        def _static(self, name: str) -> None:
            if not re.fullmatch(r"[A-Za-z0-9_.-]+", name) or name.startswith("."):
                return self._error(404, "no such file")
            p = STATIC_DIR / name
            if not p.is_file():
                return self._error(404, "no such file")
            ctype = mimetypes.guess_type(p.name)[0] or "application/octet-stream"
            if ctype.startswith("text/") or ctype.endswith("javascript"):
                ctype += "; charset=utf-8"
            self._send(200, p.read_bytes(), ctype)

        def _frame(self, query) -> None:
            after = query.get("after", [None])[0]
            if after is not None and after.lstrip("-").isdigit():
                console.live.wait_frame_after(int(after), 2.0)
            idx, data = console.live.jpeg()
            if data is None:
                return self._error(503, "no frame yet")
            self._send(200, data, "image/jpeg", {"X-Frame-Index": str(idx)})

        def _mjpeg(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
            self.send_header("Cache-Control", "no-store")
            self.send_header("Connection", "close")
            self.end_headers()
            self.close_connection = True
            last = -2
            while not console.stopping.is_set():
                console.live.wait_frame_after(last, 1.0)
                idx, data = console.live.jpeg()
                if data is None or idx == last:
                    continue
                last = idx
                self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                                 + str(len(data)).encode() + b"\r\n\r\n" + data + b"\r\n")
                self.wfile.flush()
                time.sleep(0.05)

        def _evidence(self, round_id: str, before: bool, overlay: bool) -> None:
            p = console.evidence_path(round_id, before)
            if p is None:
                return self._error(404, f"no evidence frame for {round_id}")
            if not overlay:
                return self._send(200, p.read_bytes(), "image/jpeg")
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            rnd = console.live.round(round_id) or {}
            part = (rnd.get("before") or {}) if before else rnd
            ov = {"verdict": ("rearrange" if before else rnd.get("status", "")), "reason": rnd.get("reason", ""),
                  "tokens": part.get("tokens") or [], "plate": rnd.get("plate"),
                  "red": rnd.get("red"), "white": rnd.get("white")}
            ok, buf = cv2.imencode(".jpg", annotated(img, ov, 4096), [cv2.IMWRITE_JPEG_QUALITY, 85]) \
                if img is not None else (False, None)
            if not ok:
                return self._error(500, "cannot draw the evidence frame")
            self._send(200, buf.tobytes(), "image/jpeg")

        # -- POST ---------------------------------------------------------
        def do_POST(self):
            path = urlsplit(self.path).path
            m = _ROUND_PATH.match(path)
            peer = self.client_address[0]
            refused = console.security.check(self.headers)
            length = self.headers.get("Content-Length", "0")
            body = b""
            if length.isdigit() and int(length) <= MAX_BODY:
                body = self.rfile.read(int(length))
            else:
                self.close_connection = True
            if refused is not None:
                status, why = refused
                console.refused(path, peer, why, self.headers.get("Origin"))
                return self._error(status, f"refused: {why}")
            if not m:
                return self._error(404, f"no such action: {path}")
            if not length.isdigit() or int(length) > MAX_BODY:
                return self._error(413, f"body must be JSON of at most {MAX_BODY} bytes")
            if (self.headers.get("Content-Type") or "").split(";")[0].strip() != "application/json":
                return self._error(415, "expected Content-Type: application/json")
            try:
                data = json.loads(body.decode("utf-8"))
                if not isinstance(data, dict):
                    raise ValueError("not an object")
            except (ValueError, UnicodeDecodeError) as exc:
                return self._error(400, f"bad JSON body: {exc}")
            round_id, action = m.group(1), m.group(2)
            try:
                rec = console.act(round_id, action, data, origin=f"web {peer}")
            except ActionRefused as exc:               # StoreError (sqlite locked, disk full...) is 503
                return self._error(exc.status, str(exc))
            except (sqlite3.Error, OutboxError) as exc:
                return self._error(503, f"the outbox cannot be used now, nothing confirmed: {exc}")
            return self._json(200, {"ok": True, "record": rec})

        def do_PUT(self):
            self.do_POST()

        def do_DELETE(self):
            self.do_POST()

    return Handler


class ConsoleServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):  # a client that went away is not news
        exc = sys.exc_info()[1]
        if isinstance(exc, (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)


def make_server(console, host: str, port: int) -> ConsoleServer:
    family_v6 = ":" in host
    cls = ConsoleServer
    if family_v6:
        import socket

        class V6(ConsoleServer):
            address_family = socket.AF_INET6
        cls = V6
    return cls((host, port), make_handler(console))


__all__ = ["CSRF_HEADER", "CSRF_VALUE", "ConsoleServer", "STATIC_DIR", "Security", "TOKEN_HEADER", "is_loopback",
           "make_handler", "make_server"]
