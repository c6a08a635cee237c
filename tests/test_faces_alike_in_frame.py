"""vision.faces.alike_in_frame: an undecided face of the colour of a decided face of its frame takes that colour.

Warm light tints white faces yellow; on a gold, pale-blue or black glaze some
pass ``WHITE_MAX_CHROMA`` and are undecided, while others of the same frame
(less tinted, or less lit) stay inside it and read white.  One frame cannot
show whether the light or a thing is yellow, but a white token beside it
can.  Likewise a dim red face just outside a red bound beside a red face
read as red.  A face within ``ALIKE_MAX_DELTA_E`` (and a* within
``ALIKE_MAX_DELTA_A``) of the decided faces of one colour takes that colour.
A yellow thing unlike the frame's whites, a dark face (for white), or a face
like both colours stays undecided.

Checklist: known values (the bounds, the lightness bounds, decided faces
left alone, no decided face in the frame, a face like both colours, None
entries kept in place, no chain through a face just decided, the input not
changed), and real pixels (synthesized scenes: the right outcome, and
abstention with the rule off; labels are how the scenes were made).
"""
from __future__ import annotations

import math

import pytest

import vision.faces as faces
import vision.reader as reader
import vision.warm_white as warm_white
from vision.faces import FaceReading, alike_in_frame
from vision.reader import read_frame
from vision.synth import render_scene

from scene_truth import assert_tokens_are_their_true_faces


def face(name: str, lab: tuple[float, float, float], delta_l: float = 5.0, p_red: float = 0.01) -> FaceReading:
    lightness, a, b = lab
    return FaceReading(name, p_red, a, delta_l, math.hypot(a, b), -1.0 if name == "unknown" else 2.0,
                       a_star=a, plate_a_star=0.0, l_star=lightness, b_star=b)


WHITE = face("white", (86.0, 8.0, 20.0), p_red=0.02)


def test_a_face_like_the_white_becomes_white():
    # warm-lit whites of scene 150652 measured 1.3-4.3 Lab units apart
    got = alike_in_frame([WHITE, face("unknown", (85.0, 10.0, 23.0)), face("red", (50.0, 45.0, 30.0), p_red=0.99)])
    assert [f.face for f in got] == ["white", "white", "red"]
    assert got[1].p_red == WHITE.p_red
    assert got[1].margin == pytest.approx(min(8.0 - math.dist((85, 10, 23), (86, 8, 20)), 4.0 - 2.0))
    assert got[0] is WHITE and got[2].face == "red"


@pytest.mark.parametrize("lab, turns_white", [
    ((86.0 + 7.9, 8.0, 20.0), True),            # 7.9 apart, a* equal
    ((86.0 + 8.1, 8.0, 20.0), False),           # just past the distance bound
    ((86.0, 8.0 + 4.0, 20.0), True),            # a* at its bound
    ((86.0, 8.0 + 4.5, 20.0), False),           # a* past its bound, though 4.5 apart only
    ((86.0, -6.0, 54.0), False),                # a pale-yellow thing (the reverted rule's case)
    ((80.0, 23.0, 14.0), False),                # a washed-out red: a* 15 from the white
])
def test_the_bounds(lab, turns_white):
    got = alike_in_frame([WHITE, face("unknown", lab)])[1]
    assert (got.face == "white") is turns_white, got


def test_the_lightness_bounds_still_hold():
    dark_by_plate = face("unknown", (86.0, 8.0, 21.0), delta_l=faces.WHITE_MIN_DELTA_L - 1.0)
    dark_itself = face("unknown", (faces.WHITE_MIN_L - 1.0, 8.0, 20.0))
    white_dark = face("white", (faces.WHITE_MIN_L + 2.0, 8.0, 20.0))
    assert alike_in_frame([WHITE, dark_by_plate])[1].face == "unknown"
    assert alike_in_frame([white_dark, dark_itself])[1].face == "unknown"


RED = face("red", (50.0, 20.0, 8.0), delta_l=-30.0, p_red=0.97)


def test_a_face_like_a_red_becomes_red():
    """A dim red just outside a bound (scene 152041: 0.8 Lab units from a red of its frame)."""
    got = alike_in_frame([RED, face("unknown", (51.0, 19.0, 8.5), delta_l=-29.0), WHITE])
    assert [f.face for f in got] == ["red", "red", "white"]
    assert got[1].p_red == RED.p_red


def test_the_white_lightness_bounds_do_not_apply_to_red():
    dark = face("unknown", (46.0, 21.0, 7.0), delta_l=faces.WHITE_MIN_DELTA_L - 5.0)
    assert alike_in_frame([RED, dark])[1].face == "red"


def test_a_face_like_both_colours_stays_undecided():
    """A white and a red of one frame 10 apart (never seen: true ones are 39 or more apart)."""
    white = face("white", (60.0, 12.0, 8.0))
    red = face("red", (60.0, 20.0, 14.0), p_red=0.9)
    middle = face("unknown", (60.0, 16.0, 11.0))
    assert alike_in_frame([white, red, middle])[2].face == "unknown"


def test_nothing_to_compare():
    undecided = face("unknown", (85.0, 10.0, 23.0))
    assert alike_in_frame([undecided, face("red", (50.0, 45.0, 30.0))])[0].face == "unknown"
    assert alike_in_frame([]) == []
    got = alike_in_frame([None, WHITE, None, face("unknown", (85.0, 10.0, 23.0))])
    assert got[0] is None and got[2] is None and got[3].face == "white"


def test_no_chain_through_a_face_just_made_white():
    """Each undecided face is compared with the whites as read: b is 6 from
    the white, c 6 from b but 12 from the white, so c stays undecided."""
    b = face("unknown", (86.0, 8.0, 26.0))
    c = face("unknown", (86.0, 8.0, 32.0))
    got = alike_in_frame([WHITE, b, c])
    assert [f.face for f in got] == ["white", "white", "unknown"]


def test_the_input_is_not_changed():
    readings = [WHITE, face("unknown", (85.0, 10.0, 23.0))]
    alike_in_frame(readings)
    assert readings[1].face == "unknown"


@pytest.mark.parametrize("seed", [
    150040, 150185, 150652, 151439,  # warm-lit white faces beyond the chroma bound
    150067, 150944, 151342,          # dim dark-red faces just outside a red bound
])
def test_scenes_read_right(monkeypatch, seed, washed_out_rule_off):
    # (150040 and 150652 are four whites at the ceiling in red, which abstain with no red in
    # view since the fourteenth round: that rule off here, this test is about alike_in_frame)
    """Real pixels (640x480, forced four flat tokens): the right outcome,
    every token its true face; with the rule off the frame abstains on
    undecided faces."""
    scene = render_scene(seed, "outcome", size=(640, 480))
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"]
    assert_tokens_are_their_true_faces(reading, scene)
    monkeypatch.setattr(reader, "alike_in_frame", lambda readings: list(readings))
    # (a warm white beside a dark plate is read by vision.warm_white without a white beside it: off too)
    monkeypatch.setattr(warm_white, "WARM_WHITE_RULE", False)
    off = read_frame(scene.image)
    assert off.verdict == "uncertain" and "neither clearly red nor white" in off.reason, off.reason
