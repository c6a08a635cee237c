"""vision.tokens: a suppressed peak beside a clear face, judged with the sectors facing that face unmeasured.

Fresh scene 1374948 at 800x600 (five tokens, painted rings, the fifth placed
touching; truth 4 red 1 white): the only white face, 5.4 Lab from the cream
plate at its centre and crossed by a cobalt ring, lost its disc-filter peak
to a stronger one (its shadow and the ring) that was then dropped; its own
peak lies within ``SUSPECT_EXCLUSION_RADII`` of the red touching it, and the
red's claimed pixels blank its ring on that side.  Without
``tokens.FACING_SUSPECTS_STAY`` the frame read 4 red as an outcome.
"""
from __future__ import annotations

import pytest

from vision import tokens
from vision.reader import read_frame
from vision.synth import render_scene

from scene_truth import assert_wrong_outcome_without, lone_suspect_radii


def _scene():
    return render_scene(1374948, "five_tokens", size=(800, 600),
                        conditions={"fifth_place": "touching", "plate_decor": "rings"})


def test_facing_suspect_stops_the_outcome(monkeypatch):
    scene = _scene()
    assert len(scene.label["tokens"]) == 5
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "more disc-like evidence" in got.reason, got.reason
    monkeypatch.setattr(tokens, "FACING_SUSPECTS_STAY", False)
    assert_wrong_outcome_without(monkeypatch, scene)


def test_the_suspect_lies_between_the_bounds():
    d = lone_suspect_radii(_scene().image)
    assert tokens.FACING_SUSPECT_MIN_RADII <= d < tokens.SUSPECT_EXCLUSION_RADII


def test_support_facing_clear_leaves_claimed_sectors_out():
    import numpy as np

    s, r = 121, 10.0
    yy, xx = np.mgrid[0:s, 0:s]
    residual = np.zeros((s, s, 3), np.float32)
    residual[np.hypot(xx - 60, yy - 60) < r] = (8.0, 0.0, 0.0)
    claimed = np.zeros((s, s), bool)
    n_measured, n_pass, contrast = tokens._support_facing_clear(residual, claimed, 60.0, 60.0, r)
    assert (n_measured, n_pass) == (8, 8) and contrast > 3
    claimed[:, 70:] = True  # a face beside it on the right
    n_measured, n_pass, _ = tokens._support_facing_clear(residual, claimed, 60.0, 60.0, r)
    assert n_pass == n_measured and 4 <= n_measured < 8


@pytest.mark.xfail(strict=True, reason=(
    "known gap: fresh 1400185 (five tokens 800x600, black lacquer with a cobalt ring, defocus, the fifth a "
    "pinkish red touching a white, 2.00 true radii apart): all four faces found are the disc filter's faint "
    "finds (no blob face), the token radius from edges is 14.3 canvas px, so the missed red lies 1.75 measured "
    "radii from the white it touches; it is neither counted nor a suspect, and four tokens read 2 red"))
def test_touching_pink_fifth_on_lacquer_is_not_an_outcome():
    scene = render_scene(1400185, "five_tokens", size=(800, 600),
                         conditions={"fifth_place": "touching", "plate_decor": "rings"})
    assert len(scene.label["tokens"]) == 5 and scene.label["verdict"] == "reshake"
    got = read_frame(scene.image)
    assert got.verdict != "outcome", got.reason
