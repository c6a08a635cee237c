"""A round that abstained at the clear must not make the monitor forget the round before's layout.

Clip 1300651 same_layout (640x360, 25 fps): round 0 is an outcome (red 4); as the
bowl comes for round 1 the tokens on the bare plate change (the plate shows its
pre-round layout, red 2, frame 148), which starts a round (T1-000002) that
"clears" two frames later with no bowl over the plate.  It was never seen at rest
under the bowl, so it abstains (``uncertain``, manual confirmation) and reads on
for its layout: red 2, read stable.  Before, that layout *replaced* the last one,
so the real round 1 that followed (T1-000003, covered, shaken, settled, lifted)
revealed round 0's layout again (the ``same_layout`` variant: void,
``layout_unchanged``) and was compared with red 2 only: an outcome red=4 on a void
round, the one failure that pays money wrongly.  Now an abstained round adds its
layouts to the round before's (``RevealMixin._note_layouts``).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from monitor_clips import final_events, run_clip
from vision.monitor import MonitorConfig, RoundMonitor, _Round
from vision.monitor_layout import layout_of
from vision.monitor_reveal import LAST_LAYOUTS_MAX, RevealMixin, _Read
from vision.types import Ellipse, Reading, TokenReading

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import clip_table  # noqa: E402

SEED, VARIANT, FPS, SIZE = 1300651, "same_layout", 25, (640, 360)


def _judge(clip, events):
    per_round = clip_table.split_rounds(events, clip.label)
    truth = [{"expected": r["expected"], "red": r["red"]} for r in clip.label["rounds"]]
    truth[-1]["code"] = clip_table.VOID_CODE[VARIANT]
    return [clip_table.classify(t, evs) for t, evs in zip(truth, per_round)], per_round


def test_clip_1300651_same_layout_is_void_not_paid():
    clip, events, _ = run_clip(SEED, VARIANT, fps=FPS, size=SIZE)
    assert clip.label["rounds"][1]["expected"] == "void"
    results, per_round = _judge(clip, events)
    assert results == ["right", "right"]
    assert [e["event"] for e in per_round[1]] == ["uncertain", "void"]   # the phantom round, then round 1
    assert per_round[1][-1]["code"] == "layout_unchanged"
    assert [e["event"] for e in final_events(events)].count("outcome") == 1
    # the phantom round and the real one are two monitor rounds: the void has a round of its own
    assert per_round[1][0]["round_id"] != per_round[1][1]["round_id"]


def test_clip_1300651_replacing_the_layouts_pays_the_void_round(monkeypatch):
    # the rule before: every round's layouts replace the last ones; the clip's round 1 is then wrong
    def replace(self, layouts):
        self._last_layouts = tuple(lay for lay in layouts if lay)

    monkeypatch.setattr(RevealMixin, "_note_layouts", replace)
    clip, events, _ = run_clip(SEED, VARIANT, fps=FPS, size=SIZE)
    results, per_round = _judge(clip, events)
    assert results[1] == "wrong"
    assert [e["event"] for e in per_round[1]] == ["uncertain", "outcome"]


# -- the rule itself, on readings ------------------------------------------------------------------------------

PLATE = Ellipse(320.0, 180.0, 120.0, 100.0, 10.0)


def _outcome(faces, dx=0.0):
    spots = [(290.0 + dx, 160.0), (350.0 + dx, 160.0), (290.0 + dx, 205.0), (350.0 + dx, 205.0)]
    toks = tuple(TokenReading(x, y, 14.0, f, 0.97 if f == "red" else 0.03) for (x, y), f in zip(spots, faces))
    red = list(faces).count("red")
    return Reading("outcome", "four flat tokens", red=red, white=4 - red, confidence=0.9, tokens=toks, plate=PLATE)


A = _outcome(["red", "red", "red", "red"])
B = _outcome(["red", "white", "white", "red"], dx=-30.0)


def _end_stable(mon, rid, reading, *, abstained=False, void=None):
    """A round ``rid`` whose reveal reads ``reading`` stable; return its events."""
    mon._rnd = _Round(rid, 1, t_cover=0.0)
    mon._rnd.t_clear, mon._rnd.clear_index, mon._rnd.shaken = 1.0, 10, True
    mon._rnd.abstained, mon._rnd.void = abstained, void
    mon.state = "revealed"
    mon._run = [_Read(10 + i, 1.0 + 0.04 * i, reading, np.zeros((4, 4, 3), np.uint8)) for i in range(3)]
    return mon._stable(None, 1.1, 12)


def test_abstained_round_keeps_the_round_before_first():
    mon = RoundMonitor(MonitorConfig())
    assert [e["event"] for e in _end_stable(mon, "T1-1", A)][0] == "outcome"
    _end_stable(mon, "T1-2", B, abstained=True)
    assert mon._last_layouts == (layout_of(A), layout_of(B))
    assert _end_stable(mon, "T1-3", A)[0]["code"] == "layout_unchanged"


def test_round_watched_at_rest_still_replaces_the_layouts():
    mon = RoundMonitor(MonitorConfig())
    _end_stable(mon, "T1-1", A)
    _end_stable(mon, "T1-2", B, void="no_shake")             # a void round seen at rest: its layout is the last
    assert mon._last_layouts == (layout_of(B),)
    assert _end_stable(mon, "T1-3", A)[0]["event"] == "outcome"


def test_abstained_rounds_keep_at_most_the_limit_and_never_drop_the_first():
    mon = RoundMonitor(MonitorConfig())
    _end_stable(mon, "T1-0", A)
    others = [_outcome(["white", "white", "white", "white"], dx=-40.0 + 8.0 * k) for k in range(LAST_LAYOUTS_MAX + 3)]
    for k, r in enumerate(others):
        _end_stable(mon, f"T1-{k + 1}", r, abstained=True)
    assert len(mon._last_layouts) == LAST_LAYOUTS_MAX
    assert mon._last_layouts[0] == layout_of(A)
    assert mon._last_layouts[-1] == layout_of(others[-1])
