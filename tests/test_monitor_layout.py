"""vision.monitor_layout.to_plate: plate units that depend on the plate ellipse only, not on how its fit names the axes.

Before, (u, v) were taken along the fit's own axes: an angle is defined modulo
180 degrees and a near-circular plate's angle is arbitrary, so the same layout
read in two rounds could come out turned (same_layout clip 1300023 at 640x360,
25 fps: plate angle 177.2 then 6.6 degrees, the layout turned by 170 degrees, and
the second round, the same layout, was an outcome instead of a void).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from monitor_clips import final_events, run_clip
from vision.monitor import MonitorConfig, RoundMonitor, _Round
from vision.monitor_layout import layout_of, to_plate
from vision.monitor_reveal import _Read
from vision.types import Ellipse, Reading, TokenReading

POINTS = [(300.0, 200.0), (341.0, 150.5), (260.0, 231.0), (333.3, 190.0)]


@pytest.mark.parametrize("a, b, angles", [(120.0, 80.0, (179.9, 0.1)), (100.0, 99.8, (177.0, 40.0, 95.0)),
                                           (90.0, 60.0, (0.0, 179.95))])
def test_nearly_the_same_ellipse_gives_nearly_the_same_units(a, b, angles):
    # the same axis across the wrap of [0, 180), or a near circle at any angle
    names = [Ellipse(310.0, 190.0, a, b, angle) for angle in angles]
    for x, y in POINTS:
        got = [to_plate(e, x, y) for e in names]
        for u, v in got[1:]:
            assert math.hypot(u - got[0][0], v - got[0][1]) < 0.01


def test_ellipse_goes_to_the_unit_circle():
    e = Ellipse(310.0, 190.0, 120.0, 80.0, 20.0)
    th = math.radians(e.angle_deg)
    for k in range(12):
        phi = 2 * math.pi * k / 12
        x = e.cx + e.a * math.cos(phi) * math.cos(th) - e.b * math.sin(phi) * math.sin(th)
        y = e.cy + e.a * math.cos(phi) * math.sin(th) + e.b * math.sin(phi) * math.cos(th)
        assert math.hypot(*to_plate(e, x, y)) == pytest.approx(1.0, abs=1e-9)


def test_near_circle_fits_with_other_angles_agree():
    # clip 1300023's two fits of the same plate (rounds 0 and 1)
    e0 = Ellipse(141.00, 226.86, 100.60, 100.45, 177.16)
    e1 = Ellipse(140.92, 226.84, 100.47, 100.42, 6.60)
    for x, y in [(111.0, 172.0), (162.0, 203.0), (115.0, 210.0), (168.0, 265.0)]:
        (u0, v0), (u1, v1) = to_plate(e0, x, y), to_plate(e1, x, y)
        assert math.hypot(u0 - u1, v0 - v1) < 0.01   # a token radius is ~0.13


def test_same_layout_clip_with_a_near_circular_plate_is_void():
    clip, events, _ = run_clip(1300023, "same_layout", fps=25, size=(640, 360))
    final = final_events(events)
    assert [f["event"] for f in final] == ["outcome", "void"]
    assert final[0]["red"] == clip.label["rounds"][0]["red"]
    assert final[1]["code"] == "layout_unchanged"


# -- a round that gives up still leaves its layout(s) for the next round's "layout unchanged" check --------------
#
# Before, only a stable reading set the last layout: clip 1300010 same_layout (640x360, 25 fps) gave up on round 0
# (seven outcome readings of one layout, none three in a row among "tokens overlap" and uncertain readings), and
# round 1, the same layout (the dealer did not shake), was settled as an outcome: a missed void.

PLATE = Ellipse(320.0, 180.0, 120.0, 100.0, 10.0)
SPOTS = [(290.0, 160.0), (350.0, 160.0), (290.0, 205.0), (350.0, 205.0)]


def _outcome(faces, spots=SPOTS, plate=PLATE):
    toks = tuple(TokenReading(x, y, 14.0, f, 0.97 if f == "red" else 0.03) for (x, y), f in zip(spots, faces))
    red = list(faces).count("red")
    return Reading("outcome", "four flat tokens", red=red, white=4 - red, confidence=0.9, tokens=toks, plate=plate)


A = _outcome(["red", "red", "red", "white"])
B = _outcome(["red", "white", "red", "red"])                          # other faces at the same spots
A_NUDGED = _outcome(["red", "red", "red", "white"], [(x + 2.0, y - 1.0) for x, y in SPOTS])
C = _outcome(["white", "white", "red", "white"], [(300.0, 150.0), (345.0, 185.0), (280.0, 215.0), (360.0, 220.0)])


def _monitor_in_round(state="revealed"):
    mon = RoundMonitor(MonitorConfig())
    mon._rnd = _Round("T1-000001", 1, t_cover=0.0)
    mon._rnd.t_clear = mon._rnd.t_wait = 0.0
    mon._rnd.shaken = True
    mon.state = state
    return mon


def _give_up_after(readings, last=()):
    """Feed ``readings`` as the reveal's reads (none stable), then an uncertain one past the timeout; return the monitor."""
    mon = _monitor_in_round()
    mon._last_layouts = last
    queue = list(readings) + [Reading("uncertain", "still no agreement", plate=PLATE)]
    mon._reader = lambda frame, profile: queue.pop(0)
    frame = np.zeros((4, 4, 3), np.uint8)
    events = []
    for i in range(len(readings)):
        events += mon._reading(frame, None, 0.1 * i, i, 0.0, 0.0)
    events += mon._reading(frame, None, mon.cfg.reveal_timeout_s + 1.0, 99, 0.0, 0.0)
    assert [e["event"] for e in events] == ["uncertain", "idle"]
    return mon


def _stable_after(mon, reading):
    """The next round reads ``reading`` stable; return its final event."""
    mon._rnd = _Round("T1-000002", 1, t_cover=10.0)
    mon._rnd.t_clear, mon._rnd.clear_index, mon._rnd.shaken = 12.0, 300, True
    mon.state = "revealed"
    mon._run = [_Read(300 + i, 12.0 + 0.04 * i, reading, np.zeros((4, 4, 3), np.uint8)) for i in range(3)]
    return mon._stable(None, 12.1, 302)[0]


def test_give_up_remembers_every_distinct_outcome_layout():
    overlap = Reading("rearrange", "tokens overlap", plate=PLATE)
    unsure = Reading("uncertain", "more disc-like evidence", plate=PLATE)
    mon = _give_up_after([A, overlap, A_NUDGED, unsure, B, overlap, A])
    assert mon._last_layouts == (layout_of(A), layout_of(B))   # A_NUDGED is A within same_layout_tol_r
    assert _stable_after(mon, A_NUDGED)["code"] == "layout_unchanged"
    mon = _give_up_after([A, overlap, B])
    assert _stable_after(mon, B)["code"] == "layout_unchanged"
    mon = _give_up_after([A, overlap, B])
    assert _stable_after(mon, C)["event"] == "outcome"
    assert mon._last_layouts == (layout_of(C),)                 # a stable round leaves its one layout


def test_give_up_without_an_outcome_reading_keeps_the_round_before():
    overlap = Reading("rearrange", "tokens overlap", plate=PLATE)
    mon = _give_up_after([overlap, Reading("uncertain", "more disc-like evidence", plate=PLATE), overlap],
                         last=(layout_of(C),))
    assert mon._last_layouts == (layout_of(C),)
    mon = _give_up_after([overlap, overlap])
    assert mon._last_layouts == ()
    assert _stable_after(mon, A)["event"] == "outcome"


def test_void_round_that_gives_up_also_remembers():
    mon = _monitor_in_round()
    mon._rnd.void = "no_shake"
    mon._rnd.outcome_layouts = [layout_of(B)]
    assert [e["event"] for e in mon._give_up(None, 5.0, None)] == ["idle"]
    assert _stable_after(mon, B)["code"] == "layout_unchanged"


def test_same_layout_clip_after_a_round_that_gave_up_is_void():
    clip, events, _ = run_clip(1300010, "same_layout", fps=25, size=(640, 360))
    final = final_events(events)
    assert clip.label["rounds"][1]["same_layout_as_previous"]
    assert final[0]["event"] == "uncertain"                     # round 0: no stable reading (abstained, not wrong)
    assert (final[1]["event"], final[1].get("code")) == ("void", "layout_unchanged")


# -- a round that ends uncertain because a face changed during the rearrange leaves its layout too ---------------

def test_face_changed_in_the_rearrange_remembers_the_layout():
    mon = _monitor_in_round("rearranging")
    mon._last_layouts = (layout_of(C),)
    mon._rnd.before = layout_of(A)
    mon._run = [_Read(i, 5.0 + 0.04 * i, B, np.zeros((4, 4, 3), np.uint8)) for i in range(3)]   # A with a face turned
    events = mon._stable(None, 5.1, 2)
    assert [e["event"] for e in events] == ["uncertain", "idle"]
    assert "a face changed during the rearrange" in events[0]["reason"]
    assert mon._last_layouts == (layout_of(B),)
    assert _stable_after(mon, B)["code"] == "layout_unchanged"
    assert _stable_after(mon, C)["event"] == "outcome"


# -- a round that abstains at the clear (never seen at rest) is read on for its layout ----------------------------
#
# Before, the round ended at the clear unread: clip 1300225 same_layout (640x360, 25 fps) took the shake for a round
# that never settled, abstained at the clear, and never read round 0's reveal; round 1, the same layout, was settled.

def _abstained_at_clear():
    mon = _monitor_in_round()
    mon._rnd.shaken, mon._rnd.t_settled = False, None
    mon._rnd.t_lift = 0.0
    mon._reader = lambda frame, profile: Reading("uncertain", "no read yet", plate=PLATE)
    events = mon._clear(np.zeros((4, 4, 3), np.uint8), None, 0.0, 0, 0.0, 0.0)
    assert [(e["event"], e.get("kind")) for e in events] == [("revealed", None), ("uncertain", "never_settled")]
    assert mon.state == "revealed" and mon._rnd is not None                  # not ended: read on
    return mon


def test_round_abstained_at_the_clear_notes_its_stable_layout_without_a_second_result():
    mon = _abstained_at_clear()
    mon._run = [_Read(i, 0.5 + 0.04 * i, A, np.zeros((4, 4, 3), np.uint8)) for i in range(3)]
    assert [e["event"] for e in mon._stable(None, 0.6, 2)] == ["idle"]      # no outcome for an abstained round
    assert mon._last_layouts == (layout_of(A),)
    assert _stable_after(mon, A_NUDGED)["code"] == "layout_unchanged"


def test_round_abstained_at_the_clear_that_gives_up_says_nothing_more():
    mon = _abstained_at_clear()
    mon._rnd.outcome_layouts = [layout_of(B)]
    assert [e["event"] for e in mon._give_up(None, 5.0, None)] == ["idle"]
    assert _stable_after(mon, B)["code"] == "layout_unchanged"


def test_same_layout_clip_1300225_is_void():
    # since the ceiling follows only a bowl it sees clearly (MonitorConfig.occ_follow_hi), round 0 is no longer
    # taken to lift mid-shake: it is read (its outcome), and round 1 is still voided
    clip, events, _ = run_clip(1300225, "same_layout", fps=25, size=(640, 360))
    assert clip.label["rounds"][1]["same_layout_as_previous"]
    final = final_events(events)
    assert not any(e["event"] == "outcome" for e in final[1:])
    assert final[0]["event"] in ("outcome", "uncertain")
    if final[0]["event"] == "outcome":
        assert final[0]["red"] == clip.label["rounds"][0]["red"]
    assert (final[-1]["event"], final[-1].get("code")) == ("void", "layout_unchanged")
