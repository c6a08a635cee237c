"""End to end in headless Chromium: the console on a synthesized clip, an ``uncertain`` round,
the supervisor enters the result on the page, and the signed manual record reaches a settlement
ledger exactly once (through the outbox and an HTTP sink).

Needs Debian's ``chromium`` and ``chromium-driver`` (``apt-get install -y chromium chromium-driver``);
the WebDriver client is a few urllib calls below (no selenium).
"""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from decimal import Decimal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from settlement import Ledger
from settlement.signing import verify
from vision.console_actions import apply_to_ledger
from vision.monitor import MonitorConfig, RoundMonitor
from vision.sources import FolderSource
from vision.synth_clip import render_clip, write_clip

ROOT = Path(__file__).resolve().parents[1]
KEY = b"e2e-console-key-0123456789abcdef"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
SIZE, FPS, REARRANGE_TIMEOUT = (480, 270), 12.5, 1.5
#: Tried in this order; the first clip whose (JPEG) frames end in ``uncertain`` is used.
CANDIDATES = [("overlap_rearrange", s) for s in range(6)] + [("normal", s) for s in range(6)]

pytestmark = pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER),
                                reason="needs chromium and chromedriver (apt-get install -y chromium chromium-driver)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _final(folder) -> list[dict]:
    mon = RoundMonitor(MonitorConfig(require_betting_closed=False, rearrange_timeout_s=REARRANGE_TIMEOUT))
    src = FolderSource(folder, FPS)
    events = []
    while True:
        ok, frame, t = src.read()
        if not ok:
            break
        events += mon.feed(frame, t)
    return [e for e in events if e["event"] in ("outcome", "void", "uncertain", "reshake")]


@pytest.fixture(scope="module")
def uncertain_clip(tmp_path_factory):
    """(folder, label) of the first candidate clip whose round ends ``uncertain`` (deterministic: seed order)."""
    out = tmp_path_factory.mktemp("clips")
    for variant, seed in CANDIDATES:
        clip = render_clip(seed, variant, fps=FPS, size=SIZE)
        folder = write_clip(clip, out, video=False)["folder"]
        final = _final(folder)
        if len(final) == 1 and final[0]["event"] == "uncertain":
            return folder, clip.label["rounds"][0]
    pytest.fail(f"none of {CANDIDATES} ends uncertain")


class WebDriver:
    """Just enough W3C WebDriver over urllib: a session, navigation, elements, clicks, keys."""

    def __init__(self, driver: str, browser: str, profile_dir: str):
        self.port = _free_port()
        self.proc = subprocess.Popen([driver, f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        end = time.monotonic() + 20
        while True:
            try:
                if self._call("GET", "/status")["ready"]:
                    break
            except (OSError, urllib.error.URLError):
                pass
            if time.monotonic() > end:
                raise RuntimeError("chromedriver did not start")
            time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": browser, "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                                        "--disable-background-networking", "--disable-component-update",
                                        "--disable-sync", "--no-first-run", f"--user-data-dir={profile_dir}",
                                        "--window-size=1280,1000"]}}}}
        self.session = self._call("POST", "/session", caps)["sessionId"]

    def _call(self, method: str, path: str, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.loads(r.read())["value"]
        except urllib.error.HTTPError as exc:
            raise RuntimeError(f"webdriver {method} {path}: {exc.code} {exc.read()[:300]!r}") from None

    def cmd(self, method: str, path: str, body=None):
        return self._call(method, f"/session/{self.session}{path}", body)

    def get(self, url: str) -> None:
        self.cmd("POST", "/url", {"url": url})

    def find_all(self, css: str) -> list[str]:
        return [next(iter(e.values())) for e in self.cmd("POST", "/elements", {"using": "css selector", "value": css})]

    def wait_for(self, css: str, timeout: float) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            found = self.find_all(css)
            if found:
                return found[0]
            time.sleep(0.2)
        raise AssertionError(f"no {css!r} on the page within {timeout}s")

    def click(self, el: str) -> None:
        self.cmd("POST", f"/element/{el}/click", {})

    def type(self, el: str, text: str) -> None:
        self.cmd("POST", f"/element/{el}/value", {"text": text})

    def text(self, el: str) -> str:
        return self.cmd("GET", f"/element/{el}/text")

    def quit(self) -> None:
        try:
            self.cmd("DELETE", "")
        except Exception:  # noqa: BLE001
            pass
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


class SettlementReceiver:
    """An HTTP sink on 127.0.0.1 that applies every record it gets to a settlement ledger."""

    def __init__(self, ledger_path):
        self.ledger_path, self.posts, self.errors = ledger_path, [], []
        recv = self

        class H(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                recv.posts.append((self.headers.get("Idempotency-Key"), body))
                try:
                    with Ledger(recv.ledger_path, hmac_key=KEY) as ledger:     # one connection per thread
                        apply_to_ledger(ledger, body, KEY)
                    code = 200
                except Exception as exc:  # noqa: BLE001 - the test looks at it
                    recv.errors.append(repr(exc))
                    code = 422
                self.send_response(code)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/records"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def _json(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def test_supervisor_confirms_an_uncertain_round_in_chromium(uncertain_clip, tmp_path):
    folder, label = uncertain_clip
    key_file = tmp_path / "hmac.key"
    key_file.write_bytes(KEY)
    ledger = Ledger(tmp_path / "ledger.db", table_min=Decimal("1"), table_max=Decimal("1000"), hmac_key=KEY)
    ledger.add_player("alice")
    receiver = SettlementReceiver(tmp_path / "ledger.db")
    ready = tmp_path / "url"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("XOCDIA_HMAC_KEY", None)
    console = subprocess.Popen(
        [sys.executable, "-m", "vision", "console", "--source", folder, "--fps", str(FPS), "--speed", "3",
         "--betting", "auto", "--port", "0", "--ready-file", str(ready), "--key-file", str(key_file), "--outbox", str(tmp_path / "o.db"),
         "--evidence", str(tmp_path / "evidence"), "--sink", receiver.url,
         "--rearrange-timeout", str(REARRANGE_TIMEOUT)],
        cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=open(tmp_path / "console.err", "wb"))
    driver = None
    try:
        end = time.monotonic() + 20
        while not ready.exists():
            assert console.poll() is None, (tmp_path / "console.err").read_text()
            assert time.monotonic() < end, "the console did not start"
            time.sleep(0.1)
        url = ready.read_text().strip()
        driver = WebDriver(CHROMEDRIVER, CHROMIUM, tempfile.mkdtemp(dir=tmp_path))
        driver.get(url)
        driver.type(driver.wait_for("#by", 10), "e2e-supervisor")

        # the studio's game server opens the round and takes a bet as soon as the console names it
        end = time.monotonic() + 30
        rid = None
        while rid is None and time.monotonic() < end:
            rounds = _json(url + "api/rounds")["rounds"]
            rid = rounds[0]["round_id"] if rounds else None
            time.sleep(0.1)
        assert rid, "no round started"
        ledger.open_round(rid)
        ledger.place_bet(rid, "alice", "even", Decimal("10"))
        ledger.close_betting(rid)

        card = f'article[data-round="{rid}"][data-status="uncertain"]'
        driver.wait_for(card + " button.confirm", 40)
        assert driver.find_all(f'article[data-round="{rid}"] .thumbs img'), "no evidence frame shown"
        driver.click(driver.wait_for(f'{card} select.red option[value="{label["red"]}"]', 5))
        driver.click(driver.wait_for(card + " button.confirm", 5))
        msg = driver.wait_for("#message.ok", 10)
        assert "seq" in driver.text(msg)
        driver.wait_for(f'article[data-round="{rid}"] .result .done', 10)
        assert not driver.find_all(card + " button.confirm"), "the action is still offered after it was taken"

        end = time.monotonic() + 15
        while ledger.round(rid)["state"] != "settled" and time.monotonic() < end:
            time.sleep(0.1)
        assert ledger.round(rid)["state"] == "settled", receiver.errors
        # a second action on the round is refused (the page's POST, as a browser would send it)
        req = urllib.request.Request(url + f"api/rounds/{rid}/void", method="POST",
                                     data=json.dumps({"reason": "no_shake", "by": "x"}).encode(),
                                     headers={"Content-Type": "application/json",
                                              "X-Requested-With": "xocdia-console"})
        with pytest.raises(urllib.error.HTTPError) as exc:
            urllib.request.urlopen(req, timeout=10)
        assert exc.value.code == 409
        time.sleep(1.0)                                  # give a duplicate delivery the chance to show
    finally:
        if driver is not None:
            driver.quit()
        console.terminate()
        try:
            console.wait(15)
        except subprocess.TimeoutExpired:
            console.kill()
        receiver.close()

    assert receiver.errors == []
    mine = [body for key, body in receiver.posts if key == rid]
    assert len(mine) == 1                                # delivered once
    rows = ledger._conn.execute("SELECT source, by, red, record_json FROM settlements WHERE round_id = ?",
                                (rid,)).fetchall()
    assert len(rows) == 1                                # settled once
    source, by, red, record_json = rows[0]
    record = json.loads(record_json)
    assert (source, by, red) == ("manual", "e2e-supervisor", label["red"])
    assert verify(record, KEY) and record["evidence"].endswith(f"{rid}.jpg") and Path(record["evidence"]).is_file()
    bet = ledger.history("alice")[0]
    assert bet["result"] == ("win" if label["red"] % 2 == 0 else "lose")
    ledger.close()
