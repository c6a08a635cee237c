"""vision.reader.decide: a faint face notched toward a streak across the rim stops an outcome.

Fresh scene 1492230 (stick 800x600, black lacquer glaze, wood cloth; label
``uncertain``, a rod over a token, stick mode rod+hand): a pale rod 0.016
plate radii thick, defocused by 2 px (JPEG 53), from a hand far off a small
plate, runs across the rim onto a white face.  All four faces are found only
faintly, so the notch rule of blob faces does not judge them.  Across the rim
the rod measures 0.85 of the rim band's floor and 0.50 of the cloth band's
(:func:`vision.rim.rim_crossings`; the joint rule needs 0.7 of both); on the
wood it differs from the grain by about 5 Lab, so :func:`vision.face_bar.cloth_bars`
finds nothing; over the rim band the bar holds 0.58 of the line (the bevel's
shading crosses the rod's lightness; ``face_bar.MIN_SHARE`` 0.7), so
:func:`vision.face_bar.rim_face_bar` finds none; :mod:`vision.thin_rod`'s
unmixing is never reached (no line passes the shares).  The faces were read
as an outcome of 1 red.  The white face's outline is notched 0.44 token
radii deep, 0.32 at angles whose ray meets the rim's streak
(:func:`vision.rim.rim_streaks`).

Checklist: real pixels (the scene; the rule shown to be what stops it), four
flat faces found faintly on the case's glaze and cloth that keep their
outcome, drawn discs and streaks for the measure, bad inputs.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision import reader
from vision.reader import faint_notch_to_rim, read_frame
from vision.synth import render_scene
from vision.canonical import make_canonical_view
from vision.plate import find_plate
from vision.rim import rim_streaks

FAINT_NOTCH = "a faint face's outline is notched"


def test_rod_onto_a_faint_face_is_not_an_outcome(monkeypatch):
    scene = render_scene(1492230, "stick", size=(800, 600), conditions={"cloth": "wood", "glaze": "black_lacquer"})
    assert scene.label["verdict"] == "uncertain" and scene.label["stick"]["covers_token"]
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(FAINT_NOTCH), got.reason
    assert set(got.details["candidates"]) == {"faint"}
    # the rule is what stops it: without it, an outcome of 1 red (a rod lies over a face)
    monkeypatch.setattr(reader, "FAINT_NOTCH_TO_RIM_UNCERTAIN", False)
    off = read_frame(scene.image)
    assert (off.verdict, off.red) == ("outcome", 1), off.reason



def test_faint_faces_beside_a_rim_streak_keep_their_outcome(monkeypatch):
    # fresh four flat 1520531, the case's glaze and cloth: four faces found
    # faintly and a streak across the rim (the rim's own texture), but no face
    # notched more than 0.11 token radii
    scene = render_scene(1520531, "outcome", size=(800, 600), conditions={"cloth": "wood", "glaze": "black_lacquer"})
    # (its faces are under the blob search's threshold, which BLIND_BLOB_SEARCH_UNCERTAIN
    # stops on its own, tests/test_hand_on_plate.py: off here, this is about the notch)
    monkeypatch.setattr(reader, "BLIND_BLOB_SEARCH_UNCERTAIN", False)
    # on the smooth plate model (reader.SMOOTH_PLATE_MODEL) its faces are
    # blobs, not faint, and the notch rule does not judge them; on the rings here, as found
    on_smooth = read_frame(scene.image)
    assert set(on_smooth.details["candidates"]) != {"faint"}, on_smooth.reason
    monkeypatch.setattr(reader, "SMOOTH_PLATE_MODEL", False)
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
    assert set(got.details["candidates"]) == {"faint"}
    plate = find_plate(scene.image)
    view = make_canonical_view(scene.image, plate.ellipse, plate.halved)
    r = got.details["token_radius_px"]
    assert rim_streaks(view, r, plate.frame_size).any()

CANVAS = 320
PLATE_R = 128.0
TOKEN_R = 17.0
C = CANVAS / 2.0 - 0.5
FACE_AT = (138.0, 112.0)


def _notched_face(toward_deg: float) -> np.ndarray:
    """A residual with a face at FACE_AT, a rod 4 px wide cut into it from the
    given direction (degrees, canvas axes) to 3 px short of its centre."""
    yy, xx = np.mgrid[0:CANVAS, 0:CANVAS].astype(np.float64)
    res = np.zeros((CANVAS, CANVAS, 3), np.float32)
    fx, fy = FACE_AT
    res[(xx - fx) ** 2 + (yy - fy) ** 2 <= TOKEN_R ** 2] = (40.0, 0.0, 2.0)
    ux, uy = math.cos(math.radians(toward_deg)), math.sin(math.radians(toward_deg))
    along = (xx - fx) * ux + (yy - fy) * uy
    across = np.abs(-(xx - fx) * uy + (yy - fy) * ux)
    res[(across <= 2.0) & (along >= 3.0)] = (8.0, 4.0, 8.0)
    return res


def _streak(at_deg: float, half_deg: float = 6.0) -> np.ndarray:
    yy, xx = np.mgrid[0:CANVAS, 0:CANVAS].astype(np.float64)
    rad = np.hypot(xx - C, yy - C)
    ang = np.degrees(np.arctan2(yy - C, xx - C))
    off = (ang - at_deg + 180.0) % 360.0 - 180.0
    return (rad >= 0.88 * PLATE_R) & (rad <= 0.97 * PLATE_R) & (np.abs(off) <= half_deg)


def _rim_angle_of_ray(deg: float) -> float:
    fx, fy = FACE_AT
    ux, uy = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    for s in np.arange(0.0, 2 * PLATE_R):
        if math.hypot(fx + s * ux - C, fy + s * uy - C) >= 0.925 * PLATE_R:
            return math.degrees(math.atan2(fy + s * uy - C, fx + s * ux - C))
    raise AssertionError


def test_notch_toward_a_rim_streak():
    got = faint_notch_to_rim(_notched_face(-90.0), _streak(_rim_angle_of_ray(-90.0)), *FACE_AT, TOKEN_R, PLATE_R)
    assert got >= reader.FACE_NOTCH_MIN_DEPTH_RADII


def test_notch_away_from_the_streak_or_no_streak():
    res = _notched_face(-90.0)
    # the streak on the rim's other side, and none at all
    assert faint_notch_to_rim(res, _streak(_rim_angle_of_ray(90.0)), *FACE_AT, TOKEN_R, PLATE_R) == 0.0
    assert faint_notch_to_rim(res, np.zeros((CANVAS, CANVAS), bool), *FACE_AT, TOKEN_R, PLATE_R) == 0.0


def test_whole_face_toward_a_streak_has_no_notch():
    res = _notched_face(-90.0)
    fx, fy = FACE_AT
    yy, xx = np.mgrid[0:CANVAS, 0:CANVAS]
    res[(xx - fx) ** 2 + (yy - fy) ** 2 <= TOKEN_R ** 2] = (40.0, 0.0, 2.0)
    assert faint_notch_to_rim(res, _streak(_rim_angle_of_ray(-90.0)), *FACE_AT, TOKEN_R, PLATE_R) == 0.0


@pytest.mark.parametrize("token_r, plate_r", [(0.0, PLATE_R), (float("nan"), PLATE_R), (TOKEN_R, -1.0)])
def test_bad_radii(token_r, plate_r):
    with pytest.raises(ValueError):
        faint_notch_to_rim(_notched_face(-90.0), _streak(-100.0), *FACE_AT, token_r, plate_r)
