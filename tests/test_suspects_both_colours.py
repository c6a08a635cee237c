"""vision.tokens._both_colours_contrast and the suspect floor it sets.

On a frame whose clear faces show both colours, a fifth face of either colour
differs from the plate about as much as the counted faces of its colour do, so
disc evidence far weaker than every clear face (a quarter, with the plate's
room below the sensor's ceiling taken into account) is plate texture, not a
fifth token (on forced four flat tokens 390000-390399 at 1280x720, 15 of the
138 abstentions were "more disc-like evidence on the plate"; the rule turns 3
of them into the right outcome, 0 wrong, and changes no reading of 2,300
forced five- and three-token and overlap scenes).

Checklist: known values on drawn residuals, the empty case, the kinds that
count, and synthesized scenes read end to end (labels from how each was made)
with the rule on and off.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from vision import tokens as T
from vision.discs import sector_support
from vision.reader import read_frame
from vision.tokens import Candidate

from drawn_residuals import TOKEN_R, residual_with

RED = (-25.0, 40.0, 15.0)    # a red face on a pale plate
WHITE = (20.0, -2.0, -10.0)  # a white face on a tinted plate
MUTED = (-5.0, 12.0, 2.0)    # between the two: neither clearly red nor white


def cand(x: float, y: float, kind: str = "disc", found_by: str = "blob") -> Candidate:
    return Candidate(x, y, TOKEN_R, kind, math.pi * TOKEN_R ** 2, 1.0, 1.0, 40.0, found_by=found_by)


def test_weakest_clear_face_when_both_colours_show():
    res = residual_with([(40, 40, RED), (120, 40, WHITE), (80, 120, RED)])
    got = T._both_colours_contrast(res, [cand(40, 40), cand(120, 40), cand(80, 120)], TOKEN_R)
    white = sector_support(res, 120.0, 40.0, TOKEN_R)[1]
    red = sector_support(res, 40.0, 40.0, TOKEN_R)[1]
    assert white < red
    assert got == pytest.approx(white)
    assert got == pytest.approx(float(np.linalg.norm(WHITE)), rel=0.05)


@pytest.mark.parametrize("faces, why", [
    ([(40, 40, RED), (120, 40, RED)], "red faces only"),
    ([(40, 40, WHITE), (120, 40, WHITE)], "white faces only"),
    ([(40, 40, RED), (120, 40, MUTED)], "a face between red and white is neither"),
])
def test_one_colour_only_gives_no_floor(faces, why):
    res = residual_with(faces)
    assert T._both_colours_contrast(res, [cand(x, y) for x, y, _ in faces], TOKEN_R) == 0.0, why


def test_only_clear_blob_discs_count():
    res = residual_with([(40, 40, RED), (120, 40, WHITE)])
    for white in (cand(120, 40, "faint", "disc_filter"), cand(120, 40, "outline", "outline"),
                  cand(120, 40, "disc", "disc_filter")):
        assert T._both_colours_contrast(res, [cand(40, 40), white], TOKEN_R) == 0.0


def test_empty_inputs():
    res = residual_with([])
    assert T._both_colours_contrast(res, [], TOKEN_R) == 0.0
    assert T._both_colours_contrast(res, [cand(40, 40)], TOKEN_R) == 0.0


@pytest.mark.parametrize("seed, red", [
    (390123, 2),  # gold: two red and two white clear faces, a 3.2 Lab speck between them
    (390110, 3),  # black lacquer: three red and one white, a 7.8 Lab patch of gloss
])
def test_four_flat_scenes_read_with_the_floor_and_abstain_without(seed, red, monkeypatch):
    from vision.synth import render_scene
    scene = render_scene(seed, "outcome", size=(1280, 720))
    assert scene.label["red"] == red
    reading = read_frame(scene.image)
    assert (reading.verdict, reading.red) == ("outcome", red), reading.reason
    monkeypatch.setattr(T, "BOTH_COLOURS_SUSPECT_REL_CONTRAST", 0.0)
    without = read_frame(scene.image)
    assert without.verdict == "uncertain" and "more disc-like evidence" in without.reason


@pytest.mark.parametrize("seed, size", [
    (407454, (1280, 720)),  # fifth token seen only as 3.3 Lab of disc evidence
    (407404, (1280, 720)),  # 5.5 Lab
    (408488, (640, 480)),   # 3.3 Lab
])
def test_a_weak_fifth_face_still_stops_an_outcome(seed, size, monkeypatch):
    """Forced five tokens whose fifth is seen only as weak suspect evidence,
    below a quarter of any red face: on these (and on all 22 such scenes of
    407000-407599 at 1280x720 and 408000-408599 at 640x480) the clear faces
    show one colour only, so the rule is not in force and the evidence
    still stops an outcome."""
    from vision.synth import render_scene
    seen: list[float] = []
    measure = T._both_colours_contrast

    def recording(*args, **kwargs):
        seen.append(measure(*args, **kwargs))
        return seen[-1]

    monkeypatch.setattr(T, "_both_colours_contrast", recording)
    scene = render_scene(seed, "five_tokens", size=size)
    reading = read_frame(scene.image)
    assert reading.verdict == "uncertain" and "more disc-like evidence" in reading.reason, reading.reason
    assert all(v == 0.0 for v in seen), seen
