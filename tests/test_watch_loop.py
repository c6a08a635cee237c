"""The frame loop shared by ``xocdia watch`` and the console: betting-close stamping on a live camera,
the console's betting default, and one back-off for sources and delivery."""
from __future__ import annotations

import io
import threading
import time

import numpy as np

from vision.cli import build_parser
from vision.outbox import Backoff
from vision.sources import ThreadedSource
from vision.watch_cli import _stdin_lines, frame_loop


class LiveCamera:
    """A live source: 40 frames, one every 5 ms, stamped by ThreadedSource with time.monotonic()."""

    live = True

    def __init__(self, n=40):
        self.n, self.i = n, 0

    def open(self):
        return True

    def read(self):
        if self.i >= self.n:
            raise RuntimeError("unplugged")
        self.i += 1
        time.sleep(0.005)
        return True, np.zeros((32, 32, 3), np.uint8), None

    def close(self):
        pass


class SlowMonitor:
    """Reads take 40 ms (so frames queue up); betting closes on the 5th frame, as a stdin line would."""

    round_id = "R-1"

    def __init__(self, closes):
        self.closes = closes
        self.fed: list[float] = []
        self.closed_at: list[float] = []
        self.arrived = None

    def feed(self, frame, t, index):
        self.fed.append(t)
        time.sleep(0.04)
        if len(self.fed) == 5:
            q, lock = self.closes
            with lock:
                self.arrived = time.monotonic()
                q.append(self.arrived)
        return []

    def betting_closed(self, t):
        self.closed_at.append(t)
        return []

    def tick(self, t):
        return []


class NullWatcher:
    def handle(self, events):
        pass

    def flush_held(self):
        pass


def test_live_betting_close_is_stamped_with_its_arrival_not_the_lagging_frame_time():
    closes = ([], threading.Lock())
    mon = SlowMonitor(closes)
    src = ThreadedSource(LiveCamera(), max_failures=0).start()
    stop = threading.Event()
    threading.Timer(1.5, stop.set).start()
    try:
        frame_loop(src, mon, NullWatcher(), io.StringIO(), live=True, closes=closes, stop=stop)
    finally:
        src.stop()
    assert mon.closed_at == [mon.arrived]
    assert mon.fed[4] < mon.arrived - 0.03                 # the last frame read was taken well before the close


def test_file_source_close_keeps_the_last_frame_time():
    class Folder(LiveCamera):
        live = False

        def read(self):
            if self.i >= self.n:
                return False, None, None
            self.i += 1
            return True, np.full((32, 32, 3), self.i, np.uint8), self.i / 25.0

    closes = ([], threading.Lock())
    mon = SlowMonitor(closes)
    src = ThreadedSource(Folder(8)).start()
    try:
        frame_loop(src, mon, NullWatcher(), io.StringIO(), live=False, closes=closes)
    finally:
        src.stop()
    assert mon.closed_at == [mon.fed[4]]


def test_stdin_close_is_stamped_on_arrival_with_the_monotonic_clock(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("hello\nbetting_closed\n"))
    q, before = [], time.monotonic()
    _stdin_lines(q, threading.Lock())
    assert len(q) == 1 and before <= q[0] <= time.monotonic()


def test_console_defaults_to_betting_from_stdin_like_watch():
    assert build_parser().parse_args(["console"]).betting == "stdin"
    assert build_parser().parse_args(["watch", "0"]).betting == "stdin"


def test_sources_and_delivery_share_one_backoff():
    a, b = ThreadedSource(LiveCamera(), backoff_base_s=0.5, backoff_max_s=10.0, seed=3), Backoff(0.5, 10.0, 3)
    assert [a._delay(n) for n in range(1, 8)] == [b.delay(n) for n in range(1, 8)]
