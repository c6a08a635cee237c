"""The round monitor: frames in time order -> round events.

States::

    init -> idle -> covered -> shaking -> settled -> revealing -> revealed
                                                                   |-> outcome | void | uncertain
                                                                   |-> rearrange -> rearranging -> outcome | uncertain
                                                                   '-> reshake (the round starts again)

The state follows two cheap features of every frame (motion, and occlusion
of the plate against a bare-plate reference; see :mod:`vision.monitor_features`).
The occlusion is measured at two pixel thresholds: the fixed ceiling
(``FeatureSettings.diff_threshold``) and one that follows the camera noise,
measured while idle on still frames of the bare plate (:data:`NOISE_MIN_FRAMES`).
The noise-relative one starts a round and, for a *faint bowl* (one the ceiling
never saw clearly covering the plate while still, ``MonitorConfig.occ_follow_hi``:
a white bowl on a celadon or white plate), tells when it has gone; where the two
disagree on a still frame (the faint bowl, or tokens that moved under the bowl),
the reader decides whether the plate is bare.  A bowl the ceiling sees clearly
is followed at the ceiling, as before.
The still-frame reader (:func:`vision.read_frame`) runs only to learn the bare
plate, while the bowl is being lifted (to see a token touched) and after the
bowl has cleared, until ``stable_frames`` consecutive readings agree.

Everything is driven by the frames' timestamps ``t`` (seconds), never by the
wall clock, so a clip gives the same events every time.  :meth:`RoundMonitor.tick`
tells the monitor the time when no frame comes (``paused`` / ``cancelled``).
"""
from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .errors import FrameError
from .monitor_events import EVENTS, STATES, VOID_CODES, MonitorConfig, jsonable
from .monitor_features import (Small, diff_threshold, downscale, ellipse_mask, frame_crc, motion, noise_level,
                               occlusion, opening_kernel, reference_difference)
from .monitor_layout import LayoutToken, layout_of
from .monitor_reveal import RevealMixin, _Read
from .types import Reading

COVERED_STATES = ("covered", "shaking", "settled")
#: The camera noise (median of the bare plate's mean reference difference over the last still idle
#: frames, at most 50) sets the occlusion's pixel threshold once this many frames have measured it;
#: before, the fixed ceiling ``FeatureSettings.diff_threshold``.
NOISE_MIN_FRAMES = 5


@dataclass
class _Round:
    round_id: str
    attempt: int
    t_cover: float
    log: deque = field(default_factory=deque)        # (t, dt, moving) while covered
    shake_s: float = 0.0
    shaken: bool = False
    t_last_move: float = -math.inf
    closed_t: float | None = None
    t_lift: float | None = None
    t_clear: float | None = None
    clear_index: int | None = None
    sightings: list = field(default_factory=list)    # layouts read while the bowl was lifting
    reveal_unseen: bool = False
    resync: bool = False                             # frames back after a gap while covered
    t_resync: float = -math.inf
    old: list = field(default_factory=list)          # covered log entries older than the lift guard
    t_settled: float | None = None
    shake_at_settle: float = 0.0
    void: str | None = None                          # void code, once decided
    abstained: bool = False                          # ``uncertain`` said at the clear (never settled); read on for the layout
    before: tuple = ()                               # layout at the rearrange
    outcome_layouts: list = field(default_factory=list)  # distinct layouts of its outcome readings after the clear
    t_wait: float | None = None                      # start of the current reading timeout
    covered_again: int = 0
    o_prev: float = math.nan
    bowl_seen_hi: bool = False                       # the ceiling saw the bowl (occ_follow_hi) on a still covered frame

    @property
    def result_given(self) -> bool:
        """The round's result is already out (a void, or ``uncertain`` at the clear): read on only for its layout."""
        return self.void is not None or self.abstained


def _default_ids(table: str) -> Callable[[float], str]:
    n = [0]

    def next_id(t: float) -> str:
        n[0] += 1
        return f"{table}-{n[0]:06d}"
    return next_id


class RoundMonitor(RevealMixin):
    """Consume frames in time order; return round events (JSON-ready dicts).

    Parameters
    ----------
    config : MonitorConfig, optional
    profile : calibration profile, optional
        Passed to the reader.
    round_ids : callable (t) -> str, optional
        Makes a new round id (the watcher uses the outbox's persisted
        counter); default ``<table>-<n>`` counted in memory.
    reader : callable (frame, profile) -> Reading, optional
        Default :func:`vision.read_frame`.

    Every event is ``{"event", "round_id", "frame", "t", "reason", ...}``.
    """

    def __init__(self, config: MonitorConfig | None = None, *, profile=None,
                 round_ids: Callable[[float], str] | None = None,
                 reader: Callable[..., Reading] | None = None):
        self.cfg = config or MonitorConfig()
        self.profile = profile
        self._new_id = round_ids or _default_ids(self.cfg.table)
        if reader is None:
            from .reader import read_frame
            reader = read_frame
        self._reader = reader
        self.state = "init"
        self.trace: list[tuple[int, float, str, int | None, str]] = []   # (frame, t, verdict, red, state) per reading
        self.reads = 0
        self._rnd: _Round | None = None
        self._ref: Small | None = None
        self._inner: np.ndarray | None = None
        self._outer: np.ndarray | None = None
        self._kernel: np.ndarray | None = None
        self._prev: Small | None = None
        self._hist: deque = deque(maxlen=16)          # (t, small) of recent frames, for the motion
        self._last_t: float | None = None
        self._last_crc: int | None = None
        self._offset = 0.0
        self._dt = 0.04
        self._paused = False
        self._cancelled = False
        self._frames = 0
        self._index = -1
        self._floor: deque = deque(maxlen=50)
        self._noise: deque = deque(maxlen=50)         # mean reference difference of still idle frames
        self._diff: np.ndarray | None = None          # this frame's reference difference
        self._o_hi = math.nan                         # this frame's occlusion at the ceiling threshold
        self._read_cache: tuple[int, Reading | None] | None = None   # (frame index, reading) of the last read
        self._cover_count = 0
        self._next_boot = -math.inf
        self._run: list[_Read] = []
        # the last round's layout(s), for "layout unchanged since last round": one for a round read
        # stable; for a round that gave up, every distinct layout its outcome readings showed
        self._last_layouts: tuple[tuple[LayoutToken, ...], ...] = ()
        self._reshake: tuple[str, int] | None = None
        self._warned: dict[str, list] = {}
        self._evidence: dict[str, tuple[np.ndarray, list[str]]] = {}
        self._boot_warned = False

    # ------------------------------------------------------------------ API
    @property
    def round_id(self) -> str | None:
        """The round in progress, or None."""
        return None if self._rnd is None else self._rnd.round_id

    def betting_closed(self, t: float) -> list[dict]:
        """Betting closed at frame time ``t`` for the round in progress."""
        if self._rnd is None:
            return self._warn("betting", t + self._offset, "betting closed while no round is in progress: ignored")
        if self._rnd.closed_t is None:
            self._rnd.closed_t = float(t) + self._offset
        return []

    def evidence(self, round_id: str) -> tuple[np.ndarray, list[str]] | None:
        """(reveal frame, SHA-256 of every reveal frame) of an outcome; removed once taken."""
        return self._evidence.pop(round_id, None)

    def tick(self, t: float) -> list[dict]:
        """The time is now ``t`` (same clock as the frames) and no frame has come."""
        if self._last_t is None or not _finite(t):
            return []
        return self._gap_events(float(t) + self._offset, resumed=False)

    def feed(self, frame: Any, t: float, index: int | None = None) -> list[dict]:
        """Consume one frame taken at time ``t`` (seconds); return the events it causes.

        An empty or unreadable frame, a frame out of time order, or the same
        pixels twice give a ``warning`` and are otherwise ignored.
        """
        self._frames += 1
        idx = self._frames - 1 if index is None else int(index)
        if not _finite(t):
            return self._warn("bad_time", self._last_t or 0.0, f"frame {idx}: timestamp {t!r} is not a number: ignored",
                              frame=idx)
        if not isinstance(frame, np.ndarray) or frame.size == 0 or frame.ndim not in (2, 3) \
                or min(frame.shape[:2]) < 16:
            shape = getattr(frame, "shape", None)
            return self._warn("empty", float(t), f"empty or unusable frame from the camera ({shape}): ignored",
                              frame=idx)
        t = float(t) + self._offset
        events: list[dict] = []
        if self._last_t is not None and t <= self._last_t:
            back = self._last_t - t
            if back <= self.cfg.clock_step_s:
                return self._warn("order", t, f"frame {idx} at t={t:.3f}s is not after the last frame "
                                  f"({self._last_t:.3f}s): out of order or duplicated, ignored", frame=idx)
            self._offset += back + self._dt
            t += back + self._dt
            events += self._warn("clock", t, f"clock stepped back {back:.3f}s: timestamps re-based", frame=idx,
                                 step_s=back)
        try:
            crc = frame_crc(frame)
        except (TypeError, ValueError, BufferError):
            crc = None
        if crc is not None and crc == self._last_crc:
            self._last_t = t
            return events + self._warn("duplicate", t, f"frame {idx} has the same pixels as the previous one: "
                                       "duplicated frame ignored", frame=idx)
        self._last_crc = crc
        self._index = idx
        if self._last_t is not None:
            gap = t - self._last_t
            events += self._gap_events(t, resumed=True)
            if gap < self.cfg.pause_after_s:
                self._dt = 0.8 * self._dt + 0.2 * gap
        dt = min(t - self._last_t, 4 * self._dt) if self._last_t is not None else self._dt
        self._last_t = t
        try:
            small = downscale(_bgr(frame), self.cfg.features)
        except (FrameError, ValueError, TypeError) as exc:
            return events + self._warn("unreadable", t, f"frame {idx} cannot be used: {exc}", frame=idx)
        if self._ref is not None and self._ref.bgr.shape != small.bgr.shape:
            events += self._warn("size", t, f"frame size changed to {frame.shape[1]}x{frame.shape[0]}: "
                                 "learning the bare plate again", frame=idx)
            self._ref = self._inner = self._outer = None
            self._prev = None
            self._noise.clear()
            if self.state in ("idle",):
                self.state = "init"
        m = motion(self._motion_ref(t), small, self._outer)
        self._diff = reference_difference(self._ref, small)
        fs = self.cfg.features
        o = occlusion(self._ref, small, self._inner, fs, self._kernel, threshold=self.diff_threshold(), diff=self._diff)
        self._o_hi = occlusion(self._ref, small, self._inner, fs, self._kernel, threshold=fs.diff_threshold,
                               diff=self._diff)
        self._prev = small
        self._hist.append((t, small))
        events += self._step(frame, small, t, idx, m, o, dt)
        return events

    def finish(self) -> list[dict]:
        """The source has ended: a warning if a round was in progress."""
        if self._rnd is None or self._last_t is None:
            return []
        return [self._ev("warning", self._last_t, "the source ended during the round (state "
                         f"{self.state}): no result", kind="source_ended")]

    # ------------------------------------------------------------ internals
    def _ev(self, event: str, t: float, reason: str, *, round_id: Any = ..., frame: Any = ..., **extra) -> dict:
        assert event in EVENTS
        rid = (None if self._rnd is None else self._rnd.round_id) if round_id is ... else round_id
        out = {"event": event, "round_id": rid, "frame": self._index if frame is ... else frame,
               "t": round(float(t), 4), "reason": reason, "state": self.state}
        out.update(jsonable(extra))
        return out

    def _warn(self, kind: str, t: float, reason: str, **extra) -> list[dict]:
        w = self._warned.get(kind)
        if w is not None and t - w[0] < self.cfg.warn_interval_s and t >= w[0]:
            w[1] += 1
            return []
        repeats = 0 if w is None else w[1]
        self._warned[kind] = [t, 0]
        frame = extra.pop("frame", ...)
        return [self._ev("warning", t, reason, frame=frame, kind=kind, suppressed=repeats, **extra)]

    def _motion_ref(self, t: float) -> Small | None:
        """The recent frame about ``motion_span_s`` before ``t`` (so motion means the same at 12.5 and 60 fps)."""
        if self._prev is None:
            self._hist.clear()
            return None
        span = self.cfg.motion_span_s
        best = None
        for t0, sm in self._hist:
            if t0 <= t - span + 0.25 * self._dt:
                best = sm
        return best if best is not None else self._hist[0][1] if self._hist else self._prev

    def diff_threshold(self) -> float:
        """The occlusion's pixel threshold now (8-bit levels, three channels summed)."""
        noise = float(np.median(self._noise)) if len(self._noise) >= NOISE_MIN_FRAMES else math.nan
        return diff_threshold(noise, self.cfg.features)

    def _threshold(self) -> float:
        floor = float(np.median(self._floor)) if self._floor else self.cfg.motion_min / self.cfg.motion_k
        return max(self.cfg.motion_min, self.cfg.motion_k * floor)

    def _read(self, frame: np.ndarray, t: float, idx: int) -> Reading | None:
        if self._read_cache is not None and self._read_cache[0] == idx:
            return self._read_cache[1]             # this frame was read already (the bowl check, then the reveal)
        self._read_cache = None
        try:
            r = self._reader(frame, self.profile)
        except (FrameError, ValueError) as exc:
            self._pending_warn = f"frame {idx}: the reader refused it: {exc}"
            return None
        self.reads += 1
        self.trace.append((idx, t, r.verdict, r.red, self.state))
        self._read_cache = (idx, r)
        return r

    def _bowl_occlusion(self, frame, t: float, idx: int, m: float, o_lo: float) -> float:
        """The occlusion that says whether the bowl is over the plate, while a round is covered or revealing.

        ``o_lo`` is the noise-relative occlusion, ``self._o_hi`` the ceiling's (never larger).  A bowl the
        ceiling saw clearly (``o_hi >= occ_follow_hi``) on a still covered frame is followed at the ceiling
        (as before the noise-relative threshold).  A faint bowl is followed at ``o_lo``; where the two disagree (``o_hi < occ_on <=
        o_lo``) on a still frame, the disagreement is a faint bowl or tokens that moved under the bowl,
        and the reader decides: a reading of the tokens (outcome, rearrange or reshake; not an
        ``uncertain`` one, which a faint bowl's reflections can give: clip 1300024 normal, 480x270 at
        12.5 fps) gives ``o_hi``, anything else ``o_lo``.  While something moves, ``o_lo`` (the bowl is
        taken to be there until still).
        """
        cfg, rnd, o_hi = self.cfg, self._rnd, self._o_hi
        if self.state in COVERED_STATES and o_hi >= cfg.occ_follow_hi and m <= self._threshold():
            rnd.bowl_seen_hi = True
        if rnd.bowl_seen_hi or not o_hi < cfg.occ_on <= o_lo:
            return o_hi if rnd.bowl_seen_hi else o_lo
        if self.state == "revealing":
            return o_hi                            # the bowl was seen going: only tokens can differ now
        if m > self._threshold():
            return o_lo
        r = self._read(frame, t, idx)
        return o_hi if r is not None and r.plate is not None and r.verdict in ("outcome", "rearrange", "reshake") \
            else o_lo

    def _learn_plate(self, small: Small, reading: Reading) -> None:
        fs = self.cfg.features
        self._ref = small
        self._inner = ellipse_mask(small.grey.shape, reading.plate, small.scale, fs.inner_frac)
        self._outer = ellipse_mask(small.grey.shape, reading.plate, small.scale, fs.motion_frac)
        self._kernel = opening_kernel(reading.plate, small.scale, fs)

    # -- gaps -------------------------------------------------------------
    def _gap_events(self, t: float, *, resumed: bool) -> list[dict]:
        cfg, last = self.cfg, self._last_t
        gap = t - last
        out: list[dict] = []
        if gap > cfg.pause_after_s and not self._paused:
            self._paused = True
            out.append(self._ev("paused", last + cfg.pause_after_s, f"no frame for {cfg.pause_after_s:g}s",
                                frame=None, last_frame=self._index if not resumed else None))
        if gap > cfg.cancel_after_s and self._paused and not self._cancelled:
            self._cancelled = True
            if self._rnd is not None:
                out.append(self._ev("cancelled", last + cfg.cancel_after_s,
                                    f"camera lost for more than {cfg.cancel_after_s:g}s: round cancelled, "
                                    "all bets refunded", frame=None))
                self._rnd = None
                self._reshake = None
        if resumed and self._paused:
            out.append(self._ev("resumed", t, f"frames back after {gap:.2f}s: reading the round again from scratch",
                                gap_s=gap))
            self._after_gap()
        return out

    def _after_gap(self) -> None:
        self._paused = False
        long_gap, self._cancelled = self._cancelled, False
        self._prev = None
        self._cover_count = 0
        self._run = []
        if long_gap:
            # gone longer than the cancel limit: the camera may have moved, learn the bare plate again
            self._rnd = None
            self._ref = self._inner = self._outer = self._kernel = None
            self._noise.clear()
            self.state = "init"
            self._next_boot = -math.inf
            return
        if self._rnd is None:
            if self.state not in ("init", "idle"):
                self.state = "idle"
            return
        rnd = self._rnd
        if self.state in COVERED_STATES:
            rnd.resync = True                   # was the lift seen?  only if the bowl is seen still first
            rnd.t_last_move = math.inf
        elif self.state == "revealing":
            rnd.reveal_unseen = True
        elif self.state in ("revealed", "rearranging"):
            rnd.t_wait = None                   # the timeout restarts with the next frame

    # -- the state machine --------------------------------------------------
    def _step(self, frame, small: Small, t: float, idx: int, m: float, o: float, dt: float) -> list[dict]:
        self._pending_warn = None
        if self.state == "init":
            out = self._bootstrap(frame, small, t, idx, m)
        elif self.state == "idle":
            out = self._idle(small, t, idx, m, o)
        elif self.state in COVERED_STATES:
            out = self._covered(frame, small, t, idx, m, self._bowl_occlusion(frame, t, idx, m, o), dt)
        elif self.state == "revealing":
            out = self._revealing(frame, small, t, idx, m, self._bowl_occlusion(frame, t, idx, m, o))
        else:
            out = self._reading(frame, small, t, idx, m, self._o_hi)
        if self._pending_warn:
            out += self._warn("reader", t, self._pending_warn)
        return out

    def _bootstrap(self, frame, small: Small, t: float, idx: int, m: float) -> list[dict]:
        if t < self._next_boot:
            return []
        self._next_boot = t + self.cfg.bootstrap_every_s
        r = self._read(frame, t, idx)
        if r is None:
            return []
        if _bare(r):
            self._learn_plate(small, r)
            if r.verdict == "outcome":
                self._last_layouts = (layout_of(r),)
            self.state = "idle"
            return [self._ev("idle", t, "plate visible, no round", round_id=None,
                             plate=r.plate.to_dict(), layout_known=bool(self._last_layouts))]
        if r.verdict == "covered" and not self._boot_warned:
            self._boot_warned = True
            return self._warn("boot", t, "the bowl is on the plate: waiting to see the plate uncovered")
        if r.plate is None:
            # the monitor cannot follow a plate the reader does not find (a black lacquer plate on black
            # cloth, clip 1300002: "nothing on the table differs from the cloth"); say so, at most every
            # warn_interval_s, rather than wait in silence
            return self._warn("boot_no_plate", t, f"the reader finds no plate ({r.reason}): waiting to see the "
                              "bare plate")
        return []

    def _idle(self, small: Small, t: float, idx: int, m: float, o: float) -> list[dict]:
        cfg = self.cfg
        if o >= cfg.occ_on:
            self._cover_count += 1
            if self._cover_count >= 2:
                return self._start_round(t)
            return []
        self._cover_count = 0
        if o < cfg.occ_clear:
            self._floor.append(m)
            if m <= self._threshold() and self._ref is not None:
                self._noise.append(noise_level(self._diff, self._inner))
                self._ref = Small(0.9 * self._ref.bgr + 0.1 * small.bgr, self._ref.grey, self._ref.scale)
        return []

    def _start_round(self, t: float) -> list[dict]:
        if self._reshake is not None:
            rid, attempt = self._reshake[0], self._reshake[1] + 1
        else:
            rid, attempt = self._new_id(t), 1
        self._reshake = None
        self._rnd = _Round(rid, attempt, t_cover=t - self._dt)
        self._cover_count = 0
        self.state = "covered"
        return [self._ev("round_started", t, "bowl on the plate" + (" (re-shake)" if attempt > 1 else ""),
                         attempt=attempt)]

    def _covered(self, frame, small, t: float, idx: int, m: float, o: float, dt: float) -> list[dict]:
        cfg, rnd = self.cfg, self._rnd
        if o < cfg.occ_on:
            if rnd.resync:
                rnd.reveal_unseen = True
            return self._begin_reveal(frame, small, t, idx, m, o)
        moving = m > self._threshold()
        rnd.log.append((t, dt, moving))
        if rnd.resync:
            if rnd.t_last_move == math.inf:
                rnd.t_last_move = rnd.t_resync = t
            if moving:
                rnd.t_resync = t
            elif t - rnd.t_resync >= cfg.settle_s:
                rnd.resync = False
        if moving:
            rnd.t_last_move = t
        out: list[dict] = []
        # shake evidence: moving frames once they are older than the lift guard
        while rnd.log and rnd.log[0][0] <= t - cfg.lift_guard_s:
            t0, d0, mv0 = rnd.log.popleft()
            if mv0 and t0 > rnd.t_cover + cfg.cover_guard_s:
                rnd.shake_s += d0
            rnd.old.append((t0, d0, mv0))
        again = self.state == "settled" and moving and rnd.shake_s - rnd.shake_at_settle >= cfg.shake_min_s
        if (rnd.shake_s >= cfg.shake_min_s and not rnd.shaken) or again:
            out += self._shaking(t)
        still_for = t - max(rnd.t_last_move, rnd.t_cover + cfg.cover_guard_s)
        need = cfg.settle_s if self.state == "shaking" else max(cfg.settle_s, cfg.lift_guard_s)
        if self.state != "settled" and not moving and still_for >= need:
            recent = sum(d for t0, d, mv in rnd.log if mv and t0 > rnd.t_cover + cfg.cover_guard_s)
            if not rnd.shaken and rnd.shake_s + recent >= cfg.shake_min_s:
                rnd.shake_s += recent
                rnd.log.clear()
                out += self._shaking(t)
            self.state = "settled"
            rnd.t_settled, rnd.shake_at_settle = t, rnd.shake_s
            if not cfg.require_betting_closed and rnd.closed_t is None:
                rnd.closed_t = t
            out.append(self._ev("settled", t, "bowl on the plate, still", shaken=rnd.shaken,
                                shake_s=rnd.shake_s))
        return out

    def _shaking(self, t: float) -> list[dict]:
        rnd = self._rnd
        rnd.shaken = True
        self.state = "shaking"
        return [self._ev("shaking", t, f"bowl and plate moving ({rnd.shake_s:.2f}s of motion)", shake_s=rnd.shake_s)]

    def _begin_reveal(self, frame, small, t: float, idx: int, m: float, o: float) -> list[dict]:
        cfg, rnd = self.cfg, self._rnd
        # the lift began with the last unbroken run of moving frames (at most lift_guard_s long)
        hist = rnd.old + list(rnd.log)
        start = t
        for t0, _, mv in reversed(hist):
            if not mv:
                break
            start = t0
        rnd.t_lift = max(start, t - cfg.lift_guard_s)
        rnd.shake_s = sum(d for t0, d, mv in hist if mv and rnd.t_cover + cfg.cover_guard_s < t0 < rnd.t_lift)
        rnd.shaken = rnd.shake_s >= cfg.shake_min_s
        self.state = "revealing"
        out = [self._ev("revealing", t, "bowl lifting", t_lift=rnd.t_lift, shake_s=rnd.shake_s)]
        return out + self._revealing(frame, small, t, idx, m, o)

    def _revealing(self, frame, small, t: float, idx: int, m: float, o: float) -> list[dict]:
        cfg, rnd = self.cfg, self._rnd
        if o >= cfg.occ_on:
            rnd.covered_again += 1
            if rnd.covered_again >= 3:
                self.state = "covered"
                rnd.covered_again = 0
                return self._warn("bowl_back", t, "the bowl went back over the plate during the reveal")
        else:
            rnd.covered_again = 0
        steady = o < cfg.occ_on and abs(o - rnd.o_prev) < 0.03 and m <= self._threshold()
        rnd.o_prev = o
        if o < cfg.occ_clear or steady:
            return self._clear(frame, small, t, idx, m, o)
        r = self._read(frame, t, idx)
        if r is not None and r.plate is not None and o < cfg.occ_on:
            rnd.sightings.append((idx, r, False))
        return []

    def _end_round(self, small: Small, t: float) -> list[dict]:
        self._rnd = None
        self._run = []
        self.state = "idle"
        self._cover_count = 0
        if self._ref is not None and self._ref.bgr.shape == small.bgr.shape:
            self._ref = small                      # the plate as the round left it
        return [self._ev("idle", t, "round over: plate visible, no round", round_id=None)]


def _bare(r: Reading) -> bool:
    """The reading sees the bare plate: a plate and a verdict on its tokens (or at least three tokens)."""
    bare = r.verdict in ("outcome", "rearrange", "reshake") or (r.verdict == "uncertain" and len(r.tokens) >= 3)
    return r.plate is not None and bare


def _finite(t: Any) -> bool:
    return isinstance(t, (int, float)) and not isinstance(t, bool) and math.isfinite(t)


def _bgr(frame: np.ndarray) -> np.ndarray:
    from .io import to_bgr8
    return to_bgr8(frame, name="frame")


__all__ = ["EVENTS", "STATES", "VOID_CODES", "MonitorConfig", "RoundMonitor"]
