"""Frame sources for ``xocdia watch``: camera index, RTSP/HTTP URL, video file, folder of frames.

:class:`ThreadedSource` runs the capture on its own thread and hands frames
through a bounded queue, so a camera that hangs, disconnects or floods never
blocks the process: ``get(timeout)`` returns within the timeout.  A live
source that fails to open or stops giving frames is reopened with exponential
back-off (seeded jitter), reported as status items; a file or folder source
simply ends.

Timestamps: live sources stamp frames with the injected monotonic ``clock``
(never the wall clock, which may step); a video file uses its own position
(or, when a ``<stem>.json`` clip label with per-frame ``t`` lies beside it,
those times, so gaps in a clip are real gaps); a folder uses
``<folder>.json``'s ``frames[].t`` when present, else ``index / fps``.
"""
from __future__ import annotations

import json
import queue
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import cv2

from .outbox import Backoff

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


@dataclass
class Item:
    """What :meth:`ThreadedSource.get` returns: a frame (``kind == "frame"``), a status
    (``"status"``: ``reason`` says what happened), or the end (``"eof"``)."""

    kind: str
    t: float = 0.0
    index: int = -1
    frame: Any = None
    reason: str = ""


def _labels_times(path: Path) -> list[float] | None:
    for cand in (path.with_suffix(".json"), path.parent / f"{path.name}.json"):
        if cand.is_file():
            try:
                meta = json.loads(cand.read_text())
                return [float(f["t"]) for f in meta["frames"]]
            except (ValueError, KeyError, TypeError):
                return None
    return None


class FolderSource:
    """Images of a folder in name order."""

    live = False

    def __init__(self, path, fps: float = 25.0):
        self.path = Path(path)
        self.files = sorted(p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        self.times = _labels_times(self.path)
        if self.times is not None and len(self.times) != len(self.files):
            self.times = None
        self.fps = fps
        self.i = 0

    def open(self) -> bool:
        return True

    def read(self) -> tuple[bool, Any, float | None]:
        if self.i >= len(self.files):
            return False, None, None
        p = self.files[self.i]
        frame = cv2.imread(str(p), cv2.IMREAD_COLOR)
        t = self.times[self.i] if self.times else self.i / self.fps
        self.i += 1
        return True, frame, t                     # frame None: unreadable file, passed on as empty

    def close(self) -> None:
        pass


class CaptureSource:
    """cv2.VideoCapture on a camera index, a URL or a video file."""

    def __init__(self, spec: str, fps: float | None = None):
        self.spec = spec
        self.live = spec.isdigit() or "://" in spec
        self.fps = fps
        self.cap = None
        self.i = 0
        self.times = None if self.live else _labels_times(Path(spec))

    def open(self) -> bool:
        target: Any = int(self.spec) if self.spec.isdigit() else self.spec
        self.cap = cv2.VideoCapture(target)
        ok = bool(self.cap.isOpened())
        if ok and not self.live and not self.fps:
            self.fps = self.cap.get(cv2.CAP_PROP_FPS) or 25.0
        return ok

    def read(self) -> tuple[bool, Any, float | None]:
        ok, frame = self.cap.read()
        if not ok:
            return False, None, None
        if self.live:
            t = None
        elif self.times is not None and self.i < len(self.times):
            t = self.times[self.i]
        else:
            t = self.i / float(self.fps or 25.0)
        self.i += 1
        return True, frame, t

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()


def open_source(spec: str, fps: float | None = None):
    """The source for SPEC: a folder, a camera index, a URL or a video file."""
    p = Path(spec)
    if p.is_dir():
        return FolderSource(p, fps or 25.0)
    if not (spec.isdigit() or "://" in spec) and not p.exists():
        raise FileNotFoundError(f"{spec}: no such file, folder, camera index or URL")
    return CaptureSource(spec, fps)


class ThreadedSource:
    """Read a source on a thread into a bounded queue; reconnect a live source with back-off.

    Parameters
    ----------
    source : FolderSource, CaptureSource or anything with ``open/read/close`` and ``live``
    maxsize : int
        Queue bound.  A live source drops the oldest frame when the queue is
        full (and says so); a file source waits (no frame is lost).
    clock : callable
        Monotonic seconds for live timestamps and back-off.
    max_failures : int or None
        Give up (``eof``) after this many failed reconnects; None: never.
    """

    def __init__(self, source, *, maxsize: int = 8, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] | None = None, backoff_base_s: float = 0.5,
                 backoff_max_s: float = 10.0, seed: int = 0, max_failures: int | None = None,
                 read_fail_limit: int = 25):
        self.source = source
        self.q: queue.Queue = queue.Queue(maxsize=maxsize)
        self.clock = clock
        self._stop = threading.Event()
        self._sleep = sleep or (lambda s: self._stop.wait(s))
        self.backoff = Backoff(backoff_base_s, backoff_max_s, seed)
        self.max_failures = max_failures
        self.read_fail_limit = read_fail_limit
        self.dropped = 0
        self._thread = threading.Thread(target=self._run, name="frame-source", daemon=True)

    def start(self) -> "ThreadedSource":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2.0)

    def get(self, timeout: float = 0.2) -> Item | None:
        """The next item, or None when nothing came within ``timeout`` seconds."""
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return None

    # -- the thread ---------------------------------------------------------
    def _put(self, item: Item) -> None:
        live = getattr(self.source, "live", False)
        while not self._stop.is_set():
            try:
                self.q.put(item, timeout=0.1)
                return
            except queue.Full:
                if live and item.kind == "frame":
                    try:
                        self.q.get_nowait()
                        self.dropped += 1
                    except queue.Empty:
                        pass

    def _delay(self, failures: int) -> float:
        return self.backoff.delay(failures)

    def _run(self) -> None:
        src = self.source
        failures = 0
        index = 0
        while not self._stop.is_set():
            try:
                ok = src.open()
            except Exception as exc:  # noqa: BLE001 - a broken backend must not kill the thread
                ok = False
                why = str(exc)
            else:
                why = "cannot open"
            if not ok:
                if not src.live:
                    self._put(Item("status", reason=f"{why}: {getattr(src, 'spec', src)}"))
                    break
                failures += 1
                if self.max_failures is not None and failures > self.max_failures:
                    self._put(Item("status", reason=f"giving up after {failures - 1} reconnects"))
                    break
                d = self._delay(failures)
                self._put(Item("status", reason=f"camera unavailable ({why}); reconnect {failures} in {d:.2f}s"))
                self._sleep(d)
                continue
            if failures:
                self._put(Item("status", reason=f"camera reconnected after {failures} attempt(s)"))
            failures = 0
            bad = 0
            while not self._stop.is_set():
                try:
                    ok, frame, t = src.read()
                except Exception as exc:  # noqa: BLE001
                    ok, frame, t = False, None, None
                    self._put(Item("status", reason=f"read failed: {exc}"))
                if not ok:
                    if not src.live:
                        break
                    bad += 1
                    if bad >= self.read_fail_limit:
                        break                         # reopen
                    self._sleep(0.01)
                    continue
                bad = 0
                if t is None:
                    t = self.clock()
                self._put(Item("frame", t=float(t), index=index, frame=frame))
                index += 1
            try:
                src.close()
            except Exception:  # noqa: BLE001
                pass
            if not src.live:
                break
            failures = 1
            self._put(Item("status", reason="camera stopped giving frames; reconnecting"))
            self._sleep(self._delay(1))
        self._put(Item("eof"))


__all__ = ["CaptureSource", "FolderSource", "Item", "ThreadedSource", "open_source"]
