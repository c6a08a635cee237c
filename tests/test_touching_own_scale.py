"""vision.touching_pair.OWN_SCALE_EXEMPT_RULE: a pair measured touching by its own outlines is not
held by the distance rules that distrust the frame's token size.

Two rules of ``vision.reader.decide`` judge a pair's distance in the frame's
token radius because that radius may be wrong: the unmeasured-size bound
(2.4 radii, when no clear face, or only faces beside another, gave the size)
and the split-halves bound by edges (1.9).  A pair whose two faces are whole
circles by their own edge fits, each within a tenth of the frame's radius,
and two of their own radii apart, has measured its own size; the rule leaves
it out of those two bounds when one of its faces at least is a blob (whose
edge fit measures the true edge; two faint faces' fits can run small with
a size measured on faint faces).

Checklist: the switch and the reach (on, off, bad inputs); drawn residuals
(a touching pair whose frame radius is a fifth small is not exempt: its fits
do not confirm that radius; nor a pair with no face found as a blob); real pixels (fresh touching scenes at 1280x720
held by the unmeasured-size bound without the rule and read right with it).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

import vision.touching_pair as tp
from vision.reader import read_frame
from vision.synth import render_scene

S = 200
R = 14.0
PALE = (6.0, -1.0, 4.0)  # a faint white face's difference from a white plate (Lab units)


def touching_residual(seed: int) -> tuple[np.ndarray, tuple, tuple]:
    """Two pale faces of radius ``R`` 2.02 radii apart, blurred, with noise."""
    rng = np.random.default_rng(seed)
    res = np.zeros((S, S, 3), np.float32)
    a = (S / 2 - 1.01 * R, S / 2 + 3.0)
    b = (a[0] + 2.02 * R * math.cos(-0.2), a[1] + 2.02 * R * math.sin(-0.2))
    for cx, cy in (a, b):
        cv2.circle(res, (int(round(cx * 8)), int(round(cy * 8))), int(round(R * 8)), PALE,
                   thickness=cv2.FILLED, lineType=cv2.LINE_AA, shift=3)
    res = cv2.GaussianBlur(res, (0, 0), 1.0)
    res += rng.normal(0.0, 0.4, res.shape).astype(np.float32)
    return res, a, b


def test_reach_and_exempt_follow_the_switch(monkeypatch):
    monkeypatch.setattr(tp, "OWN_SCALE_EXEMPT_RULE", True)
    assert tp.own_scale_reach(2.0, 2.4) == 2.4
    assert tp.own_scale_exempt([True, False, True], [True, True, False]) == [True, False, False]
    monkeypatch.setattr(tp, "OWN_SCALE_EXEMPT_RULE", False)
    assert tp.own_scale_reach(2.0, 2.4) == 2.0
    assert tp.own_scale_exempt([True, False], [True, True]) == [False, False]


@pytest.mark.parametrize("args", [(-0.1, 2.4), (2.0, math.nan), (2.0, -1.0), ("2", 2.4)])
def test_reach_bad_bounds_raise(args):
    with pytest.raises(ValueError, match="bound_radii"):
        tp.own_scale_reach(*args)


@pytest.mark.parametrize("bad", [None, [1, 0], "yes", [True, None]])
def test_exempt_bad_input_raises(bad):
    with pytest.raises(TypeError, match="touching"):
        tp.own_scale_exempt(bad, [True, True])
    with pytest.raises(TypeError, match="anchored"):
        tp.own_scale_exempt([True, True], bad)
    with pytest.raises(ValueError, match="anchored"):
        tp.own_scale_exempt([True, True], [True])


@pytest.mark.parametrize("seed", [11, 12])
def test_pair_exempt_only_when_its_fits_confirm_the_frame_radius(seed, monkeypatch):
    monkeypatch.setattr(tp, "OWN_SCALE_EXEMPT_RULE", True)
    res, a, b = touching_residual(seed)
    found = math.hypot(a[0] - b[0], a[1] - b[1])
    # the frame's radius right: whole fits, two own radii apart: exempt
    ok = tp.touching_pairs(res, [(a, b, found / R)], [a, b], R, tp.own_scale_reach(2.0, 2.4))
    assert tp.own_scale_exempt(ok, [True]) == [True]
    # ... but not when neither face is a blob (two faint fits confirm no size)
    assert tp.own_scale_exempt(ok, [False]) == [False]
    # the frame's radius a fifth small (the size not measured on a clear face): the pair measures
    # 2.5 of it apart, but its fits are 1.25 of it, so it stands for no size and stays judged by the bound
    small = 0.8 * R
    held = tp.touching_pairs(res, [(a, b, min(found / small, 2.39))], [a, b], small, tp.own_scale_reach(2.0, 2.4))
    assert tp.own_scale_exempt(held, [True]) == [False]


def _read(seed: int):
    scene = render_scene(seed, "touching", size=(1280, 720))
    return scene, read_frame(scene.image)


# fresh touching scenes (h7's range) held by the unmeasured-size bound without the rule, each pair with a
# face found as a blob (2164062: a blob half and a faint face 2.06 frame radii apart, fits 0.995/0.985,
# 2.08 own radii; 2164163: a whole blob and a faint face 1.94 apart, fits 1.00/0.92, 2.01 own radii)
@pytest.mark.parametrize("seed", [2164062, 2164163])
def test_touching_scene_read_right_only_with_rule(seed, monkeypatch):
    monkeypatch.setattr(tp, "OWN_SCALE_EXEMPT_RULE", True)
    scene, on = _read(seed)
    assert on.verdict == "outcome" and on.red == scene.label["red"]
    monkeypatch.setattr(tp, "OWN_SCALE_EXEMPT_RULE", False)
    _, off = _read(seed)
    assert off.verdict == "uncertain" and "token size" in off.reason
