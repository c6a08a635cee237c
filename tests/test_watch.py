"""xocdia watch end to end: a frame folder, signed records, and a SIGKILL during HTTP delivery."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import pytest

from monitor_clips import clip_frames
from settlement import verify
from settlement.records import validate_outcome_record
from vision.cli import build_parser

REPO = Path(__file__).resolve().parent.parent
KEY = "0123456789abcdef0123"


def write_folder(out: Path, parts, gap_s: float = 8.0, first: int | None = None) -> Path:
    """Frames of several synthesized clips one after the other in one folder (``gap_s`` without frames
    between clips: longer than --cancel-after, so the watcher learns each new table), with ``<folder>.json``
    giving every frame's time."""
    out.mkdir(parents=True)
    times, t0, i = [], 0.0, 0
    for seed, variant in parts:
        clip, frames = clip_frames(seed, variant)
        labels = clip.frame_labels[:first] if first else clip.frame_labels
        for lab, frame in zip(labels, frames):
            cv2.imwrite(str(out / f"{i:06d}.png"), frame)
            times.append({"index": i, "t": round(t0 + lab["t"], 4)})
            i += 1
        t0 = times[-1]["t"] + gap_s
    (out.parent / f"{out.name}.json").write_text(json.dumps({"frames": times}))
    return out


def watch_cmd(source, tmp, sink, *extra):
    return [sys.executable, "-m", "vision", "watch", str(source), "--betting", "auto", "--sink", sink,
            "--events", str(tmp / "events.jsonl"), "--outbox", str(tmp / "outbox.db"), "--evidence",
            str(tmp / "evidence"), "--cancel-after", "5", "--retry-base", "0.05", "--retry-max", "0.5",
            "--drain-timeout", "20", *extra]


def events(tmp):
    p = tmp / "events.jsonl"
    return [json.loads(line) for line in p.read_text().splitlines()] if p.exists() else []


def test_watch_parser_registered():
    args = build_parser().parse_args(["watch", "0", "--sink", "stdout"])
    assert args._module == "vision.watch_cli" and args.source == "0"


def test_watch_refuses_without_key(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "XOCDIA_HMAC_KEY"}
    r = subprocess.run(watch_cmd(tmp_path, tmp_path, "stdout"), env=env, cwd=REPO, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 2 and "XOCDIA_HMAC_KEY" in r.stderr


class Collector(BaseHTTPRequestHandler):
    """Counts POSTs by Idempotency-Key: the first is stored (200), later ones answered 409."""

    store: dict = {}
    posts: dict = {}
    hold_first = threading.Event()      # set: the first request is being held
    release = threading.Event()
    lock = threading.Lock()

    def do_POST(self):  # noqa: N802
        key = self.headers["Idempotency-Key"]
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with self.lock:
            self.posts[key] = self.posts.get(key, 0) + 1
            first_ever = not self.store and not self.hold_first.is_set()
            dup = key in self.store
            if not dup:
                self.store[key] = body
            if first_ever:
                self.hold_first.set()
        if first_ever:
            self.release.wait(60)           # the watcher is killed while waiting for this answer
        self.send_response(409 if dup else 200)
        self.end_headers()

    def log_message(self, *a):
        pass


@pytest.fixture()
def server():
    Collector.store, Collector.posts = {}, {}
    Collector.hold_first, Collector.release = threading.Event(), threading.Event()
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    th = threading.Thread(target=srv.serve_forever, daemon=True)
    th.start()
    yield srv
    Collector.release.set()
    srv.shutdown()


def test_sigkill_during_http_delivery_then_restart_delivers_each_once(tmp_path, server):
    # (clips 5 and 7: clip 6's plate is near the sensor's ceiling, and since the ceiling's room is
    # measured on median levels, exposure.SATURATED_MEDIAN_PX, its reveal reads uncertain by turns)
    folder = write_folder(tmp_path / "frames", [(5, "normal"), (7, "normal"), (7, "same_layout")])
    url = f"http://127.0.0.1:{server.server_address[1]}/outcomes"
    env = dict(os.environ, XOCDIA_HMAC_KEY=KEY)
    proc = subprocess.Popen(watch_cmd(folder, tmp_path, url), env=env, cwd=REPO, stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        # wait until the watcher has made every outcome (the first one is stuck in delivery)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            outs = [e for e in events(tmp_path) if e["event"] == "outcome"]
            if len(outs) >= 3 and Collector.hold_first.is_set():
                break
            assert proc.poll() is None, proc.stderr.read().decode()
            time.sleep(0.1)
        else:
            pytest.fail("the watcher did not produce 3 outcomes in time")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    Collector.release.set()
    outcome_ids = [e["round_id"] for e in events(tmp_path) if e["event"] == "outcome"]
    assert len(outcome_ids) == 3 and len(set(outcome_ids)) == 3
    # restart on a source with no round: what was not acknowledged is delivered again
    idle = write_folder(tmp_path / "idle", [(4, "normal")], first=5)
    r = subprocess.run(watch_cmd(idle, tmp_path, url), env=env, cwd=REPO, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert sorted(Collector.store) == sorted(outcome_ids)       # every outcome delivered ...
    assert all(n >= 1 for n in Collector.posts.values())
    for rid, rec in Collector.store.items():                    # ... once, signed, valid
        validate_outcome_record(rec, round_id=rid)
        assert verify(rec, KEY.encode())
        assert Path(rec["evidence"]).is_file()
    assert Collector.posts[outcome_ids[0]] == 2                 # the one in flight at the kill was sent again
    seqs = [Collector.store[rid]["seq"] for rid in outcome_ids]
    assert seqs == sorted(seqs) and len(set(seqs)) == 3
    restart = events(tmp_path)
    assert any(e.get("kind") == "redelivery" for e in restart)
