"""Fault injection for the round monitor and delivery: a sink down for minutes (fake clock), the
outbox's disk full (sqlite error injected), a kill between write and send, clocks stepping back,
duplicated / out-of-order / empty frames, a camera that will not open."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

from monitor_clips import clip_frames, final_events
from test_outbox import KEY, FakeSink, outcome_event
from vision.monitor import MonitorConfig, RoundMonitor
from vision.outbox import Backoff, Deliverer, FileSink, Outbox
from vision.sources import Item, ThreadedSource
from vision.watch_cli import Watcher

REPO = Path(__file__).resolve().parent.parent


class Clock:
    def __init__(self, t=1000.0):
        self.t = t

    def __call__(self):
        return self.t


def add(ob, rid):
    return ob.add(rid, lambda seq: {"round_id": rid, "seq": seq})


def test_sink_down_for_minutes_loses_and_duplicates_nothing(tmp_path):
    ob = Outbox(tmp_path / "o.db")
    clock, sink, evs = Clock(), FakeSink(), []
    d = Deliverer(ob, sink, backoff=Backoff(0.5, 30.0, seed=1), clock=clock, on_event=evs.append)
    sink.down = True
    add(ob, "R0")
    attempts = 0
    for k in range(600):                 # ten minutes of a dead sink, one pump per second
        clock.t += 1.0
        if k % 120 == 0:
            add(ob, f"R{k // 120 + 1}")  # rounds keep coming
        before = len(evs)
        d.pump()
        attempts += len(evs) > before
    assert sink.got == []
    assert 10 <= attempts <= 40          # backed off: not 600 attempts, and never gave up
    assert any(e["event"] == "alarm" and e["kind"] == "sink_down" for e in evs)
    assert ob.stats()["pending"] == 6
    sink.down = False
    clock.t += 31.0
    assert d.pump() == 6
    assert [r["round_id"] for r in sink.got] == [f"R{i}" for i in range(6)]
    assert any(e.get("kind") == "sink_recovered" for e in evs)
    clock.t += 100
    assert d.pump() == 0 and len(sink.got) == 6


class FullDisk:
    """A sqlite3 connection whose writes fail with SQLITE_FULL while ``full`` is set."""

    def __init__(self, path):
        self.c = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.full = False

    def execute(self, sql, *args):
        if self.full and sql.split()[0].upper() in ("BEGIN", "INSERT", "UPDATE"):
            raise sqlite3.OperationalError("database or disk is full")
        return self.c.execute(sql, *args)

    def executescript(self, sql):
        return self.c.executescript(sql)

    def close(self):
        self.c.close()


class StubMonitor:
    def evidence(self, rid):
        return np.zeros((30, 40, 3), np.uint8), ["e" * 64]


class ListLog:
    def __init__(self):
        self.rows = []

    def write(self, ev):
        self.rows.append(json.loads(json.dumps(ev)))


def test_outbox_disk_full_alarm_then_nothing_lost(tmp_path):
    holder = {}

    def connect(path):
        holder["c"] = FullDisk(path)
        return holder["c"]

    ob = Outbox(tmp_path / "o.db", connect=connect)
    sink, log = FakeSink(), ListLog()
    d = Deliverer(ob, sink, clock=Clock())
    w = Watcher(StubMonitor(), ob, d, log, key=KEY, evidence_dir=tmp_path / "ev", profile_sha256=None)
    holder["c"].full = True
    w.handle([outcome_event("T1-20260101-000001", 1)])
    w.handle([outcome_event("T1-20260101-000002", 2)])
    alarms = [e for e in log.rows if e["event"] == "alarm"]
    assert len(alarms) == 1 and "disk is full" in alarms[0]["reason"] and alarms[0]["kind"] == "outbox_write"
    assert len(w.held) == 2
    d.pump()
    assert sink.got == []                          # nothing is sent before it is stored
    outs = [e for e in log.rows if e["event"] == "outcome"]
    assert [e["seq"] for e in outs] == [None, None]
    holder["c"].full = False                       # space is back
    w.flush_held()
    assert w.held == [] and any(e.get("kind") == "outbox_ok" for e in log.rows)
    d.pump()
    assert [r["round_id"] for r in sink.got] == ["T1-20260101-000001", "T1-20260101-000002"]
    assert [r["red"] for r in sink.got] == [1, 2]


def test_disk_full_while_marking_a_delivery_resends_once_deduplicated(tmp_path):
    holder = {}
    ob = Outbox(tmp_path / "o.db", connect=lambda p: holder.setdefault("c", FullDisk(p)))
    add(ob, "R1")
    file_sink = FileSink(tmp_path / "out.jsonl")
    clock, evs = Clock(), []
    d = Deliverer(ob, file_sink, clock=clock, on_event=evs.append)
    holder["c"].full = True
    d.pump()                                       # sent, but the ack cannot be written
    assert any(e["event"] == "alarm" and e["kind"] == "outbox_write" for e in evs)
    holder["c"].full = False
    clock.t += 10
    d.pump()
    assert ob.stats()["acked"] == 1
    assert len((tmp_path / "out.jsonl").read_text().splitlines()) == 1


KILL_SCRIPT = textwrap.dedent("""
    import os, signal, sys
    from vision.outbox import Outbox, Deliverer, FileSink
    db, out, mode = sys.argv[1], sys.argv[2], sys.argv[3]
    ob = Outbox(db)
    ob.add("R1", lambda seq: {"round_id": "R1", "seq": seq})
    ob.add("R2", lambda seq: {"round_id": "R2", "seq": seq})
    if mode == "before_send":
        os.kill(os.getpid(), signal.SIGKILL)
    class KillAfterSend(FileSink):
        def send(self, rec):
            super().send(rec)
            os.kill(os.getpid(), signal.SIGKILL)      # sent, never marked
    Deliverer(ob, KillAfterSend(out)).pump()
""")


@pytest.mark.parametrize("mode", ["before_send", "after_send"])
def test_killed_between_write_and_send(tmp_path, mode):
    db, out = tmp_path / "o.db", tmp_path / "out.jsonl"
    r = subprocess.run([sys.executable, "-c", KILL_SCRIPT, str(db), str(out), mode], cwd=REPO, timeout=60)
    assert r.returncode == -9
    ob = Outbox(db)
    assert ob.stats()["pending"] == 2
    Deliverer(ob, FileSink(out), clock=Clock()).pump()
    rows = [json.loads(line)["round_id"] for line in out.read_text().splitlines()]
    assert rows == ["R1", "R2"]
    assert ob.stats() == {"pending": 0, "acked": 2, "rejected": 0}


def test_deliverer_clock_stepping_back_does_not_starve(tmp_path):
    ob = Outbox(tmp_path / "o.db")
    add(ob, "R1")
    clock, sink = Clock(5000.0), FakeSink()
    d = Deliverer(ob, sink, backoff=Backoff(1.0, 8.0), clock=clock)
    sink.down = True
    for _ in range(6):
        clock.t += 10
        d.pump()
    sink.down = False
    clock.t -= 3600                                # NTP steps the clock back an hour
    d.pump()
    clock.t += 8.5                                 # at most one full back-off later
    d.pump()
    assert [r["round_id"] for r in sink.got] == ["R1"]


def _feed(mon, frames, times, idx=None):
    out = []
    for i, (f, t) in enumerate(zip(frames, times)):
        out += mon.feed(f, t, i if idx is None else idx[i])
    return out


def test_duplicated_and_out_of_order_frames_are_ignored_with_warnings():
    clip, frames = clip_frames(4, "normal")
    times = [lab["t"] for lab in clip.frame_labels]
    clean = _feed(RoundMonitor(MonitorConfig(require_betting_closed=False)), frames, times)
    fr, ts = [], []
    for i, (f, t) in enumerate(zip(frames, times)):
        fr.append(f)
        ts.append(t)
        if i % 7 == 3:
            fr.append(f)                           # the same frame delivered twice (same t)
            ts.append(t)
        if i % 11 == 5:
            fr.append(f.copy())                    # a stale buffer: same pixels, a new timestamp
            ts.append(t + 0.01)
        if i % 13 == 6 and i > 0:
            fr.append(frames[i - 1])               # a late frame from the past
            ts.append(times[i - 1])
    mon = RoundMonitor(MonitorConfig(require_betting_closed=False, warn_interval_s=0.001))
    noisy = _feed(mon, fr, ts)
    kinds = {e.get("kind") for e in noisy if e["event"] == "warning"}
    assert {"order", "duplicate"} <= kinds
    key = [(e["event"], e.get("red")) for e in final_events(noisy)]
    assert key == [(e["event"], e.get("red")) for e in final_events(clean)]
    assert len([e for e in noisy if e["event"] == "round_started"]) == 1


def test_monitor_clock_stepping_back_is_rebased():
    clip, frames = clip_frames(5, "normal")  # a clip read as an outcome (tests/test_monitor.py)
    times = [lab["t"] for lab in clip.frame_labels]
    stepped = [t if i < 8 else t - 100.0 for i, t in enumerate(times)]   # in idle, the clock jumps back 100 s
    mon = RoundMonitor(MonitorConfig(require_betting_closed=False))
    evs = _feed(mon, frames, stepped)
    assert any(e.get("kind") == "clock" for e in evs)
    assert "paused" not in [e["event"] for e in evs]
    assert final_events(evs)[0]["event"] == "outcome"


def test_empty_frames_from_the_camera_warn_and_never_crash():
    clip, frames = clip_frames(5, "normal")  # a clip read as an outcome (tests/test_monitor.py)
    mon = RoundMonitor(MonitorConfig(require_betting_closed=False, warn_interval_s=0.5))
    evs = []
    junk = [None, np.zeros((0, 0, 3), np.uint8), np.zeros((4, 4, 3), np.uint8), "not a frame",
            np.full((270, 480, 3), np.nan, np.float32), np.zeros((270, 480, 5), np.uint8)]
    for i, lab in enumerate(clip.frame_labels):
        if i % 4 == 2:
            evs += mon.feed(junk[i % len(junk)], lab["t"] - 0.001, -1)
        evs += mon.feed(frames[i], lab["t"], i)
    evs += mon.feed(frames[-1], float("nan"))
    warns = [e for e in evs if e["event"] == "warning"]
    assert warns and all(isinstance(e["reason"], str) for e in warns)
    assert final_events(evs)[0]["event"] == "outcome"


class DeadCamera:
    live = True
    spec = "rtsp://camera.invalid/stream"

    def __init__(self):
        self.opens = 0

    def open(self):
        self.opens += 1
        return False

    def read(self):  # pragma: no cover - never opened
        return False, None, None

    def close(self):
        pass


class EmptyCamera:
    live = True

    def __init__(self):
        self.n = 0

    def open(self):
        return True

    def read(self):
        self.n += 1
        return True, (None if self.n % 2 else np.zeros((0, 0, 3), np.uint8)), None

    def close(self):
        pass


def test_camera_reconnects_with_backoff_and_never_blocks():
    cam = DeadCamera()
    delays = []
    src = ThreadedSource(cam, sleep=lambda s: (delays.append(s), time.sleep(0.001)), backoff_base_s=0.5,
                         backoff_max_s=4.0, max_failures=8).start()
    items = []
    t0 = time.monotonic()
    while True:
        it = src.get(timeout=0.05)
        assert time.monotonic() - t0 < 10
        if it is None:
            continue
        items.append(it)
        if it.kind == "eof":
            break
    src.stop()
    assert cam.opens == 9
    assert all(0.25 <= d <= 4.0 for d in delays) and max(delays) > 2.0
    assert sum(1 for i in items if i.kind == "status") >= 8


def test_camera_returning_empty_frames_gives_warnings():
    src = ThreadedSource(EmptyCamera(), clock=Clock(), maxsize=4).start()
    mon = RoundMonitor(MonitorConfig(warn_interval_s=0.0))
    evs = []
    for _ in range(20):
        it = src.get(timeout=1.0)
        assert isinstance(it, Item)
        if it.kind == "frame":
            evs += mon.feed(it.frame, it.t, it.index)
    src.stop()
    assert evs and all(e["event"] == "warning" and e["kind"] == "empty" for e in evs)
    assert mon.state == "init"
