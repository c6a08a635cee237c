"""vision.reader.decide: a face whose outline a stick cuts into stops an outcome.

Scene 1211133 (natural mix, 640x480; kind stick, label ``uncertain``): a
thin dark-brown rod (0.029 plate radii thick) runs from a brown hand on wood
cloth across a black lacquer rim onto a red face, hiding 13.5 % of it.  The
rod differs from the black lacquer by about 25 Lab units, under the token
search's blob threshold (33 Lab), so it joins no blob and is no object; the
hand is brown on brown wood, so nothing shows outside the plate
(:func:`vision.reader.plate_intrusions` finds no component at all); across
the rim the hand measures 6.7 Lab against the rim band's floor of 8.0 and
the cloth band's of 17.5 (:func:`vision.rim.rim_crossings`).  The four faces
were read as an outcome of 3 red.  The red face's outline, walked out from
its centre, ends at 0.60 token radii where the rod lies over it against a
median of 0.97: a notch 0.37 token radii deep, where true faces read as
outcomes measure at most 0.237 (``FACE_NOTCH_MIN_DEPTH_RADII`` 0.30).

Checklist: real pixels (the scene; the rule shown to be what stops it), a
right outcome whose face is the most notched of the sample and keeps its
outcome, and the measure on drawn discs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision import reader
from vision.reader import face_notch_depth, read_frame
from vision.synth import render_scene

NOTCHED = "a face's outline is notched"


def test_stick_over_a_face_is_not_an_outcome(monkeypatch):
    scene = render_scene(1211133, None, size=(640, 480))
    assert scene.label["kind"] == "stick" and scene.label["verdict"] == "uncertain"
    assert scene.label["stick"]["covers_token"]
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(NOTCHED), got.reason
    depth = float(got.reason.split("notched ")[1].split(" ")[0])
    assert depth >= reader.FACE_NOTCH_MIN_DEPTH_RADII
    # the rule is what stops it: without it, an outcome
    monkeypatch.setattr(reader, "FACE_NOTCH_UNCERTAIN", False)
    off = read_frame(scene.image)
    assert off.verdict == "outcome", off.reason


def test_most_notched_true_face_keeps_its_outcome():
    # four flat tokens; a face notched 0.237 token radii, the most of the
    # 1,944 true blob faces read as outcomes in the rule's sample
    scene = render_scene(1230876, "outcome", size=(640, 480))
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason


def _disc(size: int, cx: float, cy: float, r: float, colour=(30.0, 45.0, 18.0)) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size]
    res = np.zeros((size, size, 3), np.float32)
    res[(xx - cx) ** 2 + (yy - cy) ** 2 <= r * r] = colour
    return res


def test_whole_disc_has_no_notch():
    assert face_notch_depth(_disc(80, 40.0, 40.0, 19.0), 40.0, 40.0, 19.0) < 0.1


def test_rod_over_a_disc_notches_it():
    res = _disc(80, 40.0, 40.0, 19.0)
    yy, xx = np.mgrid[0:80, 0:80]
    # a rod 7 px wide from the lower right, its tip 8 px from the centre
    d = np.abs((xx - 40.0) - (yy - 40.0)) / math.sqrt(2)
    along = ((xx - 40.0) + (yy - 40.0)) / math.sqrt(2)
    res[(d <= 3.5) & (along >= 8.0)] = (14.0, 8.0, 12.0)
    assert face_notch_depth(res, 40.0, 40.0, 19.0) >= reader.FACE_NOTCH_MIN_DEPTH_RADII


def test_bad_token_radius():
    with pytest.raises(ValueError):
        face_notch_depth(_disc(40, 20.0, 20.0, 9.0), 20.0, 20.0, 0.0)
