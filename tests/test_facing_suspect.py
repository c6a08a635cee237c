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

from vision import reader
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


def test_touching_pink_fifth_on_lacquer_is_not_an_outcome(monkeypatch):
    """Fresh 1400185 (five tokens 800x600, black lacquer with a cobalt ring,
    defocus, the fifth a pinkish red touching a white, 2.00 true radii apart):
    no blob (the blob threshold is 62.9 Lab), all four faces found are faint
    disc-filter finds; the red's peak (8 of 8 sectors, 20.8 Lab) lies 1.89
    measured radii from the white, but its region on its own colour direction
    takes in that lighter white (1.93 face areas, axis ratio 0.68).  Judged
    with the white's disc blanked (``tokens.TOUCHING_SUSPECT_FAINT_BLANKED``)
    it is one face (1.03 face areas, axis ratio 0.91), a suspect; without
    that rule four read 2 red."""
    scene = render_scene(1400185, "five_tokens", size=(800, 600),
                         conditions={"fifth_place": "touching", "plate_decor": "rings"})
    assert len(scene.label["tokens"]) == 5 and scene.label["verdict"] == "reshake"
    got = read_frame(scene.image)
    assert got.verdict != "outcome", got.reason
    # (on the smooth plate model, reader.SMOOTH_PLATE_MODEL, its blob search
    # blind on the rings, the pink fifth and the white it touches are one
    # blob, an object on the plate: uncertain.  On the rings, as found:)
    assert got.verdict == "uncertain" and "larger than a token on the plate" in got.reason, got.reason
    monkeypatch.setattr(reader, "SMOOTH_PLATE_MODEL", False)
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "more disc-like evidence" in got.reason, got.reason
    # (BLIND_BLOB_SEARCH_UNCERTAIN, its faces under the blob search's threshold, stops it too: off here)
    monkeypatch.setattr(reader, "BLIND_BLOB_SEARCH_UNCERTAIN", False)
    monkeypatch.setattr(tokens, "TOUCHING_SUSPECT_FAINT_BLANKED", False)
    off = read_frame(scene.image)  # five tokens: any outcome is wrong
    assert off.verdict == "outcome" and off.red == 2, off.reason
