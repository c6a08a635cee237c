"""vision.faces.classify_face: a face more than 21 L darker than the plate is no white.

Fresh forced four flat tokens 257432 (1280x720, cream plate, 6,500 K light,
0.6 stop under-exposed): four dark-red faces, a* 7 at a hue just bluer than
the red range (-35 degrees), measured 23.2-24.5 L darker than the plate.  At
the old white bound (25 L darker) two were read white and the other two took
that colour from them (``alike_in_frame``): an outcome of 0 red on four reds.
No white face of 3,703 of synthesized scenes was even 20 L darker than its
plate; the bound is now 21 (``WHITE_MIN_DELTA_L``), while a dark red is still
read red only past 25 (``DARK_RED_MAX_DELTA_L``), so the band between is
undecided, never a colour.

Checklist: real pixels (the scene now abstains, and at the old bound it was
the wrong outcome), and known values (a face 23 L darker is not white; the
dark-red rule is unchanged).
"""
from __future__ import annotations

from vision import faces
from vision.reader import read_frame
from vision.synth import render_scene


def test_four_dark_reds_under_cool_light_are_not_read_white(monkeypatch):
    scene = render_scene(257432, "outcome", size=(1280, 720))
    assert scene.label["red"] == 4
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "neither clearly red nor white" in got.reason, got.reason
    # the bound is what stops it: at the old bound, the wrong outcome
    monkeypatch.setattr(faces, "WHITE_MIN_DELTA_L", -25.0)
    wrong = read_frame(scene.image)
    assert (wrong.verdict, wrong.red) == ("outcome", 0)


def test_the_bounds_leave_an_undecided_band():
    assert faces.DARK_RED_MAX_DELTA_L < faces.WHITE_MIN_DELTA_L <= -20.0
