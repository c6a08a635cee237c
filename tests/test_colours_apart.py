"""vision.faces.colours_apart: a frame's red faces and white faces fall into two colours.

One light and one exposure light every face of a frame, so the least red face
read red lies well above the most red face read white in a* (relative to the
plate).  When the two are nearer than the width of the undecided band between
the colours, one colour may lie across the boundary and the reader abstains.

Checklist: known values on hand-made readings (apart, too near, one colour
only, empty, None entries, a calibrated rule's band), bad input, and real
pixels: the wrong outcome it was written for, stopped, and shown to be stopped
by this rule.
"""
from __future__ import annotations

import math

import pytest

from vision import faces
from vision.faces import DEFAULT_FACE_RULE, FaceReading, FaceRule, colours_apart
from vision.reader import read_frame
from vision.synth import render_scene


def _face(name: str, delta_a: float) -> FaceReading:
    p = 0.9 if name == "red" else 0.1 if name == "white" else 0.5
    return FaceReading(name, p, delta_a, 0.0, abs(delta_a), 1.0, a_star=delta_a)


BAND = DEFAULT_FACE_RULE.red_min_delta_a - DEFAULT_FACE_RULE.white_max_delta_a


@pytest.mark.parametrize("deltas, want_apart, want_gap", [
    ([("red", 40.0), ("red", 35.0), ("white", 2.0), ("white", -1.0)], True, 33.0),
    ([("red", 19.0), ("red", 17.0), ("white", 12.0), ("white", 14.0)], False, 3.0),  # 823778's faces
    ([("red", 20.0), ("white", 20.0 - BAND)], True, BAND),  # exactly one band apart: apart
    ([("red", 20.0), ("white", 20.0 - BAND + 0.1)], False, BAND - 0.1),
    ([("red", 15.0), ("white", 16.0)], False, -1.0),  # a red less red than a white
])
def test_known_values(deltas, want_apart, want_gap):
    apart, gap = colours_apart([_face(n, d) for n, d in deltas])
    assert apart is want_apart
    assert gap == pytest.approx(want_gap)


@pytest.mark.parametrize("readings", [
    [],
    [None, None],
    [_face("red", 20.0), _face("red", 14.0)],
    [_face("white", 3.0), _face("white", 11.0)],
    [_face("red", 20.0), _face("unknown", 15.0), None],
])
def test_without_both_colours_nothing_to_compare(readings):
    assert colours_apart(readings) == (True, math.inf)


def test_unknown_faces_and_none_are_skipped():
    readings = [_face("red", 30.0), None, _face("unknown", 29.0), _face("white", 5.0)]
    assert colours_apart(readings) == (True, 25.0)


def test_band_comes_from_the_rule():
    readings = [_face("red", 24.0), _face("white", 16.0)]  # 8 apart
    assert colours_apart(readings)[0]  # default band: 6 wide
    wide = FaceRule(red_min_delta_a=22.0, white_max_delta_a=12.0)  # a studio's rule, 10 wide
    assert colours_apart(readings, wide) == (False, 8.0)


def test_bad_rule():
    with pytest.raises(TypeError, match="rule"):
        colours_apart([_face("red", 20.0)], rule={"red_min_delta_a": 18.0})


def test_dark_reds_across_the_boundary_are_not_read(monkeypatch):
    """Real pixels: forced touching scene 823778 (640x480), four dusty dark reds
    under 6,900 K light on pale blue, were read as two reds and two whites."""
    scene = render_scene(823778, "touching", size=(640, 480))
    assert scene.label["red"] == 4
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    assert got.reason.startswith("the faces read red and white are only 3.0 a* apart")
    # the rule is what stops it: without it, the wrong outcome of two reds
    monkeypatch.setattr(faces, "COLOUR_GAP_MIN_BANDS", -1000.0)
    off = read_frame(scene.image)
    assert (off.verdict, off.red) == ("outcome", 2), off.reason


def test_reader_uses_the_profiles_band(monkeypatch):
    """decide measures the gap against the face rule the faces were read
    with: a profile's own rule, not the default."""
    from vision import reader
    from vision.reader import ReaderSettings

    rule = FaceRule(red_min_delta_a=20.0, white_max_delta_a=10.0)

    class Profile:  # the two methods read_frame asks of a profile
        def reader_settings(self):
            return ReaderSettings(face_rule=rule)

        def check_plate(self, ellipse):
            return None

    seen = []

    def spy(readings, face_rule=DEFAULT_FACE_RULE):
        seen.append(face_rule)
        return colours_apart(readings, face_rule)

    monkeypatch.setattr(reader, "colours_apart", spy)
    scene = render_scene(840004, "outcome", size=(640, 480))  # three clear reds and a white
    assert read_frame(scene.image, profile=Profile()).verdict == "outcome"
    assert read_frame(scene.image).verdict == "outcome"
    assert seen == [rule, DEFAULT_FACE_RULE]
