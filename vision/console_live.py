"""The console's live side: source -> monitor -> watcher on a thread, and what the page shows.

:class:`LiveState` holds, under one lock, the latest frame with the reader's
latest reading (for the overlay), the monitor state, the last events and a
log of the last rounds with their evidence frames.  :class:`ConsoleLoop` is
``xocdia watch``'s wiring (:class:`vision.watch_cli.Watcher`, its round ids,
the outbox and deliverer) on a background thread; the watcher's event log is
the :class:`LiveState`.

Evidence: the reader's outcomes are saved by the watcher as
``<evidence>/<round_id>.jpg`` (the reveal frame).  For a ``void``,
``uncertain`` or unfinished round the console saves the frame that ended it
under the same name, and for a ``rearrange`` the frame at the rearrange as
``<round_id>-before.jpg``: that is the evidence a supervisor's action names.
"""
from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque

import cv2
import numpy as np

from .annotate import draw_reading
from .outbox import CONFIRMABLE, VOIDABLE
from .records import save_evidence

#: Final events of a round (after which the monitor starts a new one).
FINAL = ("outcome", "void", "uncertain", "reshake", "cancelled")
#: Round statuses on which a supervisor may act: a result only on CONFIRMABLE (the reader could not settle
#: it), a void on VOIDABLE (a monitor void or cancel is never turned into a payout).
ACTIONABLE = VOIDABLE
MAX_ROUNDS = 50
MAX_EVENTS = 200


def _faces(tokens) -> list[str]:
    return [str(t.get("face")) for t in tokens or ()]


class LiveState:
    """Everything the page shows, guarded by a lock.  ``write(ev)`` is the watcher's event log."""

    def __init__(self, *, evidence_dir, forward=None, jpeg_quality: int = 80, max_width: int = 960):
        self.lock = threading.Lock()
        self.evidence_dir = evidence_dir
        self.forward = forward                     # another log (EventLog) that gets every event too
        self.jpeg_quality, self.max_width = jpeg_quality, max_width
        self.frame: np.ndarray | None = None
        self.frame_index = -1
        self.frame_t: float | None = None
        self.reading: dict | None = None
        self.reading_index = -1
        self.plate: dict | None = None
        self.monitor_state = "init"
        self.round_id: str | None = None
        self.frames_seen = 0
        self.source_status = "starting"
        self.events: deque = deque(maxlen=MAX_EVENTS)
        self.rounds: OrderedDict[str, dict] = OrderedDict()
        self._jpeg: tuple[int, bytes] | None = None
        self.changed = threading.Condition(self.lock)

    # -- the watcher's log --------------------------------------------------
    def write(self, ev: dict) -> None:
        if self.forward is not None:
            self.forward.write(ev)
        with self.lock:
            self.events.append(ev)
            rid = ev.get("round_id")
            name = ev.get("event")
            rnd = self.rounds.get(rid) if rid is not None else None
            if rnd is None:
                if rid is None or name not in ("round_started", "rearrange") + FINAL:
                    self.changed.notify_all()
                    return
                rnd = self.rounds[rid] = {"round_id": rid, "status": "in_progress", "reason": "",
                                          "t_started": ev.get("t"), "t_final": None, "red": None, "white": None,
                                          "code": None, "evidence": None, "before": None, "after": None,
                                          "tokens": [], "plate": None, "seq": None, "events": []}
                while len(self.rounds) > MAX_ROUNDS:
                    self.rounds.popitem(last=False)
            rnd["events"].append(name)
            if name in ("shaking", "settled", "revealing", "revealed", "round_started") and rnd["status"] in (
                    "in_progress", "reshake"):
                rnd["status"] = "in_progress"
                rnd["reason"] = ev.get("reason", "")
            elif name == "rearrange":
                rnd["status"] = "rearrange"
                rnd["reason"] = ev.get("reason", "")
                rnd["before"] = {"faces": _faces(ev.get("tokens")), "tokens": ev.get("tokens") or [],
                                 "evidence": ev.get("before_evidence")}
            elif name in FINAL:
                rnd["status"] = name
                rnd["reason"] = ev.get("reason", "")
                rnd["t_final"] = ev.get("t")
                rnd["code"] = ev.get("code")
                if name == "outcome":
                    rnd["red"], rnd["white"] = ev.get("red"), ev.get("white")
                    rnd["seq"] = ev.get("seq")
                rnd["tokens"] = ev.get("tokens") or []
                rnd["plate"] = ev.get("plate")
                if ev.get("evidence"):
                    rnd["evidence"] = ev["evidence"]
                if rnd["before"] is not None:
                    rnd["after"] = {"faces": _faces(ev.get("tokens")), "tokens": ev.get("tokens") or []}
            elif name == "warning" and ev.get("kind") == "source_ended":
                rnd["status"] = "unfinished"
                rnd["reason"] = ev.get("reason", "")
                if ev.get("evidence"):
                    rnd["evidence"] = ev["evidence"]
            self.changed.notify_all()

    # -- the loop's side ------------------------------------------------------
    def note_frame(self, frame: np.ndarray, index: int, t: float, monitor_state: str, round_id) -> None:
        with self.lock:
            self.frame, self.frame_index, self.frame_t = frame, index, t
            self.monitor_state, self.round_id = monitor_state, round_id
            self.frames_seen += 1
            self.changed.notify_all()

    def note_reading(self, reading: dict, index: int) -> None:
        with self.lock:
            self.reading, self.reading_index = reading, index
            if reading.get("plate"):
                self.plate = reading["plate"]

    def save_round_frame(self, frame, round_id: str, suffix: str = "") -> str | None:
        """Save ``frame`` as the round's evidence (``<round_id><suffix>.jpg``); the path, or None on failure."""
        if frame is None or not self.evidence_dir:
            return None
        try:
            import os
            return os.path.abspath(save_evidence(frame, self.evidence_dir, f"{round_id}{suffix}"))
        except (OSError, ValueError, cv2.error):
            return None

    # -- the page's side --------------------------------------------------------
    def wait_frame_after(self, index: int, timeout: float) -> None:
        """Block until a frame newer than ``index`` has come (or ``timeout`` seconds)."""
        end = time.monotonic() + timeout
        with self.lock:
            while self.frame_index <= index and self.source_status in ("starting", "running"):
                left = end - time.monotonic()
                if left <= 0:
                    return
                self.changed.wait(left)

    def overlay_dict(self) -> dict:
        """What to draw on the live frame: the reader's reading if it is of a recent frame, else the state."""
        fresh = self.reading is not None and 0 <= self.frame_index - self.reading_index <= 12
        if fresh:
            return self.reading
        rid = f"round {self.round_id}, " if self.round_id else ""
        if self.reading is None:
            return {"verdict": self.monitor_state, "reason": f"{rid}no reading yet", "tokens": [], "plate": self.plate}
        last = self.reading
        return {"verdict": self.monitor_state, "tokens": last.get("tokens") or [], "plate": last.get("plate"),
                "reason": f"{rid}last reading (frame {self.reading_index}): {last.get('verdict')}: "
                          f"{last.get('reason')}"}

    def jpeg(self) -> tuple[int, bytes | None]:
        """(frame index, JPEG bytes) of the latest frame with the overlay; encoded once per frame."""
        with self.lock:
            frame, idx = self.frame, self.frame_index
            if frame is None:
                return -1, None
            if self._jpeg is not None and self._jpeg[0] == idx:
                return self._jpeg
            overlay = self.overlay_dict()
        img = annotated(frame, overlay, self.max_width)
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, self.jpeg_quality])
        data = buf.tobytes() if ok else None
        with self.lock:
            self._jpeg = (idx, data)
        return idx, data

    def snapshot(self) -> dict:
        with self.lock:
            ov = self.overlay_dict()
            return {"state": self.monitor_state, "round_id": self.round_id, "frame": self.frame_index,
                    "t": self.frame_t, "frames_seen": self.frames_seen, "source_status": self.source_status,
                    "reading": {k: ov.get(k) for k in ("verdict", "reason", "red", "white", "confidence")},
                    "last_events": [e for e in list(self.events)[-12:]]}

    def rounds_list(self) -> list[dict]:
        with self.lock:
            out = []
            for rnd in reversed(self.rounds.values()):
                r = {k: v for k, v in rnd.items() if k != "events"}
                r["events"] = list(rnd["events"][-12:])
                out.append(r)
            return out

    def round(self, round_id: str) -> dict | None:
        with self.lock:
            rnd = self.rounds.get(round_id)
            return None if rnd is None else dict(rnd)


def annotated(frame: np.ndarray, overlay: dict, max_width: int = 960) -> np.ndarray:
    """``frame`` scaled to at most ``max_width`` wide with the reading drawn (tokens coloured by face)."""
    img = frame
    if img.ndim == 2:
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    elif img.shape[2] == 4:
        img = cv2.cvtColor(img, cv2.COLOR_BGRA2BGR)
    if img.dtype != np.uint8:
        img = np.clip(img, 0, 255).astype(np.uint8)
    s = 1.0
    if img.shape[1] > max_width:
        s = max_width / img.shape[1]
        img = cv2.resize(img, (max_width, int(round(img.shape[0] * s))), interpolation=cv2.INTER_AREA)
    ov = dict(overlay)
    if s != 1.0:
        ov["tokens"] = [dict(t, x=t["x"] * s, y=t["y"] * s, radius=t["radius"] * s) for t in ov.get("tokens") or ()]
        if ov.get("plate"):
            p = ov["plate"]
            ov["plate"] = dict(p, cx=p["cx"] * s, cy=p["cy"] * s, a=p["a"] * s, b=p["b"] * s)
    try:
        return draw_reading(img, ov)
    except (KeyError, TypeError, ValueError, cv2.error):
        return img


class ConsoleLoop:
    """``xocdia watch``'s loop on a thread: frames -> monitor -> watcher (records, outbox, delivery) -> LiveState.

    ``speed``: a file or folder source is played at ``speed`` times its own
    frame rate (1 = real time, so the page shows it as filmed); 0 = as fast as
    the reader goes.  A live camera is never paced.
    """

    def __init__(self, source, monitor, watcher, state: LiveState, *, speed: float = 1.0, closes=None):
        self.source, self.monitor, self.watcher, self.state = source, monitor, watcher, state
        self.speed = speed
        self.closes = closes                      # (list, lock) of betting_closed signals, or None
        self.done = threading.Event()
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="console-loop", daemon=True)

    def start(self) -> "ConsoleLoop":
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _final_frames(self, events: list[dict], frame) -> None:
        """Save the frame that ended a void/uncertain round (or showed a rearrange) as its evidence."""
        for ev in events:
            rid = ev.get("round_id")
            if rid is None:
                continue
            if ev["event"] in ("void", "uncertain"):
                ev["evidence"] = self.state.save_round_frame(frame, rid)
            elif ev["event"] == "rearrange":
                ev["before_evidence"] = self.state.save_round_frame(frame, rid, "-before")

    def _run(self) -> None:
        from .sources import ThreadedSource
        from .watch_cli import frame_loop
        src = self.source
        live = getattr(src, "live", False)
        threaded = ThreadedSource(src).start()
        mon, watcher, state = self.monitor, self.watcher, self.state
        pacing = {"wall": None, "frame": None}
        state.source_status = "running"

        def pace(item, last_t) -> bool:
            if live or self.speed <= 0:
                return False
            now = time.monotonic()
            if pacing["wall"] is None or last_t is None or item.t < last_t:
                pacing["wall"], pacing["frame"] = now, item.t
            wait = pacing["wall"] + (item.t - pacing["frame"]) / self.speed - now
            return wait > 0 and self._stop.wait(min(wait, 2.0))

        def on_frame(item) -> None:
            state.note_frame(item.frame, item.index, item.t, mon.state, mon.round_id)

        def on_events(events, item) -> None:
            self._final_frames(events, item.frame)
            with state.lock:
                state.monitor_state, state.round_id = mon.state, mon.round_id

        try:
            _, last_frame = frame_loop(threaded, mon, watcher, state, live=live, closes=self.closes,
                                       stop=self._stop, pace=pace, on_frame=on_frame, on_events=on_events)
            ended = mon.finish()
            for ev in ended:
                if ev.get("kind") == "source_ended" and ev.get("round_id"):
                    ev["evidence"] = state.save_round_frame(last_frame, ev["round_id"])
            watcher.handle(ended)
            state.source_status = "ended"
        except BaseException as exc:  # noqa: BLE001 - shown on the page and printed by the CLI
            self.error = exc
            state.source_status = f"failed: {exc}"
        finally:
            threaded.stop()
            watcher.flush_held()
            self.done.set()


__all__ = ["ACTIONABLE", "CONFIRMABLE", "ConsoleLoop", "VOIDABLE", "FINAL", "LiveState", "annotated"]
