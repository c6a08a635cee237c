"""vision.reader.drawn_out_alike: faces the camera drew out all the same way are flat faces.

An outcome needs every flat face round (``OUTCOME_MIN_AXIS_RATIO``): a face
less round may be a token tilted on another or standing.  But a blur along
one direction (motion, or a slanted view stretched back to the plate's top,
which stretches the lens blur with it) draws every face of the frame out the
same way: on forced four flat tokens 150000-151499 (640x480), 10 of the 32
frames stopped by one face's shape had three or four blob faces drawn out
alike (axis ratio 0.81-0.89, directions within 11 degrees).  A face less
round than a flat one passes when at least three blob faces of the frame,
itself among them, point the same way within 15 degrees.

Checklist: known values on candidates (alike, one face its own way, too few
alike, faint finds without a direction, directions across 0/180 degrees, a
face too drawn out), bad input (a direction out of range), and real pixels
(151282 read with the rule and not without it).
"""
from __future__ import annotations

import math

import pytest

from vision import reader
from vision.reader import drawn_out_alike, read_frame
from vision.synth import render_scene
from vision.tokens import Candidate


def face(x: float, ratio: float, angle: float, found_by: str = "blob") -> Candidate:
    kind = "disc" if found_by == "blob" else "faint"
    return Candidate(x=x, y=100.0, radius=15.0, kind=kind, area_px=700.0, axis_ratio=ratio, solidity=0.97,
                     contrast=50.0, found_by=found_by, angle_deg=angle if found_by == "blob" else math.nan)


def test_faces_drawn_out_alike():
    flat = [face(40, 0.83, 25.0), face(80, 0.84, 27.0), face(120, 0.85, 20.0), face(160, 0.845, 31.0)]
    assert all(drawn_out_alike(c, flat) for c in flat)


def test_one_face_drawn_out_its_own_way():
    flat = [face(40, 0.83, 25.0), face(80, 0.84, 27.0), face(120, 0.85, 20.0), face(160, 0.82, 70.0)]
    assert not drawn_out_alike(flat[3], flat)
    assert not drawn_out_alike(flat[0], flat)  # the odd one spoils the common direction


def test_too_few_faces_drawn_out():
    flat = [face(40, 0.83, 25.0), face(80, 0.84, 27.0), face(120, 0.97, 100.0), face(160, 0.99, 3.0)]
    assert not drawn_out_alike(flat[0], flat)


def test_faint_finds_have_no_direction():
    flat = [face(40, 0.83, 25.0), face(80, 0.84, 27.0), face(120, 0.82, 0.0, "disc_filter"),
            face(160, 0.83, 0.0, "disc_filter")]
    assert not drawn_out_alike(flat[0], flat)
    assert not drawn_out_alike(flat[2], flat)


def test_directions_across_zero_are_alike():
    flat = [face(40, 0.83, 176.0), face(80, 0.84, 3.0), face(120, 0.85, 179.0), face(160, 0.99, 90.0)]
    assert drawn_out_alike(flat[0], flat) and drawn_out_alike(flat[1], flat)


def test_barely_drawn_out_faces_do_not_vouch_for_a_much_drawn_out_one():
    """Two faces at 0.90-0.91 (directions poorly fixed) pointing the way of
    one at 0.79: not drawn out by the same amount."""
    flat = [face(40, 0.79, 25.0), face(80, 0.90, 27.0), face(120, 0.91, 20.0), face(160, 0.99, 100.0)]
    assert not drawn_out_alike(flat[0], flat)


def test_a_face_drawn_out_too_far_is_not_passed():
    flat = [face(40, 0.70, 25.0), face(80, 0.84, 27.0), face(120, 0.85, 20.0), face(160, 0.845, 31.0)]
    assert not drawn_out_alike(flat[0], flat)
    # (nor do the others pass beside it: the frame's faces are not drawn out alike)
    assert not drawn_out_alike(flat[1], flat)
    assert drawn_out_alike(flat[1], flat[1:])


@pytest.mark.parametrize("angle", [180.0, -1.0, math.inf])
def test_candidate_direction_out_of_range(angle):
    with pytest.raises(ValueError, match="angle_deg"):
        Candidate(x=10.0, y=10.0, radius=5.0, kind="disc", area_px=80.0, axis_ratio=0.9, solidity=0.95,
                  contrast=40.0, angle_deg=angle)


def test_four_faces_drawn_out_by_the_camera_are_read(monkeypatch):
    """151282 (forced four flat tokens, 640x480): four white faces drawn out
    0.83-0.85, all at 20-31 degrees."""
    scene = render_scene(151282, "outcome", size=(640, 480))
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
    monkeypatch.setattr(reader, "SHARED_ELONGATION_MIN_FACES", 5)
    before = read_frame(scene.image)
    assert before.verdict == "uncertain" and "not clearly a flat face" in before.reason, before.reason


@pytest.mark.parametrize("a, b, expected", [(0.0, 179.0, 1.0), (10.0, 100.0, 90.0), (170.0, 10.0, 20.0),
                                            (45.0, 45.0, 0.0), (0.0, 90.0, 90.0)])
def test_axis_angle_difference_known_values(a, b, expected):
    """Axes, not directions: 0 and 180 deg are one axis, so no two differ by more than 90."""
    from vision.blobshape import axis_angle_diff_deg
    assert axis_angle_diff_deg(a, b) == pytest.approx(expected)
    assert axis_angle_diff_deg(b, a) == pytest.approx(expected)
