"""Configuration, event names and small helpers of the round monitor."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .monitor_features import FeatureSettings

#: Every event the monitor emits.
EVENTS = ("idle", "round_started", "shaking", "settled", "revealing", "revealed", "outcome", "rearrange",
          "reshake", "void", "uncertain", "paused", "resumed", "cancelled", "warning", "alarm")

#: Events that end a round (a ``rearrange`` does not: a reading follows it).
FINAL_EVENTS = ("outcome", "void", "uncertain", "reshake", "cancelled")

#: Monitor states (``RoundMonitor.state``).
STATES = ("init", "idle", "covered", "shaking", "settled", "revealing", "revealed", "rearranging")

#: Void codes: the first three are the settlement ledger's ``VOID_REASONS``.
VOID_CODES = {
    "no_shake": "no shake seen between bowl-on and reveal (the dealer forgot to shake)",
    "early_lift": "the bowl was lifted before betting closed",
    "bowl_touched_token": "the bowl touched a token while being lifted",
    "layout_unchanged": "layout unchanged since last round",
    "reveal_not_seen": "camera gap during the lift: the reveal was not seen",
}


@dataclass(frozen=True)
class MonitorConfig:
    """Settings of :class:`vision.monitor.RoundMonitor`; times are seconds of frame time.

    Attributes
    ----------
    table : str
        Table name, the first part of the default round ids.
    stable_frames : int
        An outcome (or rearrange / reshake) needs this many consecutive
        readings that agree (same verdict, counts, token positions and faces).
    stable_min_s : float
        ... and span at least this many seconds (a rearrange or reshake needs
        twice as many readings: they stop the game).
    motion_span_s : float
        Motion is measured against the frame this long before (the previous
        one at 12.5 fps, a few back at 60 fps).
    read_every : int
        After the bowl clears, read one frame in this many.
    reveal_timeout_s : float
        No stable reading this long after the bowl cleared: ``uncertain``.
    rearrange_timeout_s : float
        No stable outcome this long after a ``rearrange``: ``uncertain``.
    pause_after_s, cancel_after_s : float
        No frame for this long: ``paused``; for this long: ``cancelled``.
    require_betting_closed : bool
        True: a reveal before :meth:`RoundMonitor.betting_closed` is void
        (``early_lift``).  False: betting counts as closed when the bowl settles.
    shake_min_s : float
        Seconds of motion while covered that count as a shake.
    settle_s : float
        Seconds without motion that make a covered plate ``settled``.
    cover_guard_s : float
        Motion in the first seconds after the bowl lands is the bowl landing.
    lift_guard_s : float
        Motion in the last seconds before the bowl leaves the plate is the lift.
    occ_on, occ_clear : float
        Occlusion (fraction of the inner plate unlike the bare reference) at
        or above which the bowl is on, below which it has cleared (it has also
        cleared when the occlusion is below ``occ_on``, steady and nothing moves).
    occ_follow_hi : float
        The bowl is followed at the ceiling pixel threshold (fraction of the
        inner plate at ``FeatureSettings.diff_threshold``) only once that
        occlusion has reached this on a still covered frame; below, at the
        noise-relative threshold.  Once followed at the ceiling, the occlusion
        falling under ``occ_on`` means the lift, so the ceiling must see the
        bowl at rest clear of ``occ_on`` by more than the occlusion's spread on
        a still bowl.  A bowl the ceiling sees only around ``occ_on`` (0.36-0.48
        at rest in clips 1300216 normal and 1300225 same_layout, 640x360 at
        25 fps) was taken to lift when the ceiling's occlusion dipped under it
        mid-shake or at rest (a false reveal, or a shake lost to false reveals
        and a false ``no_shake`` void).  Margins (normal clips 1300200-1300219,
        640x360 at 25 fps, ceiling occlusion on still frames of the still
        phase): most bowls 0.94-1.00; three 0.58-0.81 (1300204, 1300205,
        1300214; spread on one still bowl at most 0.18), whichever threshold
        follows them (their noise-relative occlusion is 0.76-1.00) stays over
        ``occ_on``; the two cases at most 0.48, 0.12 under this.
    motion_min, motion_k : float
        A frame is moving when its motion exceeds ``max(motion_min, motion_k *
        noise floor)``, the floor being the median motion of still idle frames.
    stable_tol_r, same_layout_tol_r : float
        Token position tolerances, token radii, for agreeing readings and for
        "layout unchanged since last round".
    touch_move_min_r, touch_match_max_r, touch_min_sightings : float, float, int
        A token seen during the reveal (lift, or before the reading is
        stable) with the other face, or more than ``touch_move_min_r`` (and
        less than ``touch_match_max_r``) token radii from its final place in
        at least ``touch_min_sightings`` readings: touched.
    touch_p_min : float
        Only faces read at least this surely (p_red or 1 - p_red) count as sightings.
    bootstrap_every_s : float
        Until the bare plate has been seen, read one frame this often.
    clock_step_s : float
        A timestamp going back by more than this is a clock step (re-based),
        by less an out-of-order frame (ignored).
    warn_interval_s : float
        The same warning is repeated at most this often (with a count).
    features : FeatureSettings
    """

    table: str = "T1"
    stable_frames: int = 3
    stable_min_s: float = 0.07
    motion_span_s: float = 0.08
    read_every: int = 1
    reveal_timeout_s: float = 1.5
    rearrange_timeout_s: float = 30.0
    pause_after_s: float = 0.5
    cancel_after_s: float = 30.0
    require_betting_closed: bool = True
    shake_min_s: float = 0.5
    settle_s: float = 0.3
    cover_guard_s: float = 0.3
    lift_guard_s: float = 0.4
    occ_on: float = 0.40
    occ_clear: float = 0.30
    occ_follow_hi: float = 0.60
    motion_min: float = 0.6
    motion_k: float = 1.8
    stable_tol_r: float = 0.5
    same_layout_tol_r: float = 0.5
    touch_move_min_r: float = 0.5
    touch_match_max_r: float = 1.5
    touch_min_sightings: int = 2
    touch_p_min: float = 0.9
    bootstrap_every_s: float = 0.5
    clock_step_s: float = 2.0
    warn_interval_s: float = 5.0
    features: FeatureSettings = field(default_factory=FeatureSettings)

    def __post_init__(self) -> None:
        if not isinstance(self.stable_frames, int) or self.stable_frames < 1:
            raise ValueError(f"stable_frames: expected an int >= 1, got {self.stable_frames!r}")
        if not isinstance(self.read_every, int) or self.read_every < 1:
            raise ValueError(f"read_every: expected an int >= 1, got {self.read_every!r}")
        for name in ("reveal_timeout_s", "rearrange_timeout_s", "pause_after_s", "cancel_after_s", "shake_min_s",
                     "settle_s", "bootstrap_every_s", "clock_step_s"):
            v = getattr(self, name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v > 0):
                raise ValueError(f"{name}: expected a positive number, got {v!r}")
        if self.cancel_after_s <= self.pause_after_s:
            raise ValueError("cancel_after_s must exceed pause_after_s")
        if not 0 < self.occ_clear <= self.occ_on < 1:
            raise ValueError("expected 0 < occ_clear <= occ_on < 1")
        if not self.occ_on <= self.occ_follow_hi <= 1:
            raise ValueError("expected occ_on <= occ_follow_hi <= 1")


def jsonable(value: Any) -> Any:
    """Round floats and turn tuples into lists so an event is plain JSON."""
    if isinstance(value, float):
        return round(value, 4) if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def feed_clip(monitor: Any, frames: Any, frame_labels: list, *, betting: str = "auto") -> list[dict]:
    """Feed a clip's frames to ``monitor`` in order, then :meth:`finish`; return every event.

    ``frames`` and ``frame_labels`` are a synthesized clip's (``index`` and
    ``t`` of each label are the frame's).  ``betting``: ``auto`` (the monitor's
    config decides), ``signal`` (``betting_closed`` at each ``settled``),
    ``never`` (no signal).
    """
    if betting not in ("auto", "signal", "never"):
        raise ValueError(f"betting: expected auto, signal or never, got {betting!r}")
    events: list[dict] = []
    for frame, lab in zip(frames, frame_labels):
        evs = monitor.feed(frame, lab["t"], lab["index"])
        events += evs
        if betting == "signal" and any(e["event"] == "settled" for e in evs):
            events += monitor.betting_closed(lab["t"])
    return events + monitor.finish()


__all__ = ["EVENTS", "FINAL_EVENTS", "STATES", "VOID_CODES", "MonitorConfig", "feed_clip", "jsonable"]
