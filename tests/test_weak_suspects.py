"""vision.weak_suspects: suspects far weaker than every counted face of both colours are explained away.

Fresh scene 2110138 (``outcome``, 640x480, black lacquer): three white faces
and one red counted, all four 51-62 Lab units from the lacquer around them;
the one suspect, 2.1 token radii from the red face and off every true token,
is the lacquer's speckle (its face part 3.7 Lab from the plate around it,
0.07 of the weakest face).  Before the rule the frame was ``uncertain``
("four tokens found but more disc-like evidence on the plate"); with it, the
outcome with the label's red count.

On drawn residuals: a weak disc is explained, one at a third of the weakest
face is not; nothing is judged on a frame of one colour, with a face under
the minimum difference, for a suspect on a counted face or of a speck's
contrast, or with the rule off.
"""
from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
import pytest

from vision import weak_suspects
from vision.reader import read_frame
from vision.synth import render_scene
from vision.weak_suspects import (MAX_SHARE_OF_WEAKEST, MAX_SUSPECT_CONTRAST_LAB, MIN_FACE_DIFF_LAB,
                                  face_difference, unexplained_suspects)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from synth_table import draw_conditions  # noqa: E402

SEED = 2110138
SUSPECT_REASON = "four tokens found but more disc-like evidence"


def _scene():
    return render_scene(SEED, "outcome", size=(640, 480), conditions=draw_conditions(SEED, []))


def test_lacquer_speckle_no_longer_stops_the_outcome(monkeypatch):
    scene = _scene()
    on = read_frame(scene.image)
    assert on.verdict == "outcome"
    assert on.red == scene.label["red"]
    # the rule is what changed the verdict
    monkeypatch.setattr(weak_suspects, "WEAK_SUSPECTS_EXPLAINED", False)
    off = read_frame(scene.image)
    assert off.verdict == "uncertain"
    assert SUSPECT_REASON in off.reason


# ---------------------------------------------------------------------------
# drawn residuals: a 256 px canvas, the plate's radius 128 px, token radius 14 px
# ---------------------------------------------------------------------------
S, R_PLATE, TOKEN_R = 256, 128.0, 14.0
FACES = [(90.0, 100.0), (170.0, 100.0), (90.0, 170.0), (170.0, 170.0)]
RED, WHITE = np.array([-10.0, 40.0, 20.0]), np.array([30.0, 0.0, -5.0])
SPOT = (130.0, 60.0)  # 2.7+ radii from every face


def _canvas(seed: int, colours: list[np.ndarray], spot_lab: np.ndarray | None):
    rng = np.random.default_rng(seed)
    residual = rng.normal(0.0, 1.0, (S, S, 3)).astype(np.float32)
    yy, xx = np.mgrid[0:S, 0:S]
    for (x, y), lab in zip(FACES, colours):
        residual[np.hypot(xx - x, yy - y) < TOKEN_R] += lab.astype(np.float32)
    if spot_lab is not None:
        residual[np.hypot(xx - SPOT[0], yy - SPOT[1]) < TOKEN_R] += spot_lab.astype(np.float32)
    radius_px = np.hypot(xx - S / 2, yy - S / 2).astype(np.float32)
    return residual, radius_px


def _left(residual, radius_px, suspects, colours=("red", "white", "red", "white")):
    return unexplained_suspects(residual, radius_px, R_PLATE, suspects, FACES, list(colours), TOKEN_R)


def test_face_difference_measures_the_disc_against_its_ring():
    residual, radius_px = _canvas(1, [RED, WHITE, RED, WHITE], np.array([6.0, 0.0, 0.0]))
    d = face_difference(residual, radius_px, R_PLATE, *SPOT, TOKEN_R, FACES)
    assert d == pytest.approx(6.0, abs=0.5)
    # a face measured with the other three left out: its own colour
    d_red = face_difference(residual, radius_px, R_PLATE, *FACES[0], TOKEN_R, FACES[1:])
    assert d_red == pytest.approx(float(np.linalg.norm(RED)), rel=0.05)


def test_weak_disc_explained_and_a_third_of_the_weakest_kept():
    weak = (SPOT[0], SPOT[1], 3.5)
    residual, radius_px = _canvas(2, [RED, WHITE, RED, WHITE], np.array([2.0, 0.0, 0.0]))
    assert _left(residual, radius_px, [weak]) == []
    weakest = float(np.linalg.norm(WHITE))
    third = np.array([weakest / 3, 0.0, 0.0])
    assert third[0] > MAX_SHARE_OF_WEAKEST * weakest
    residual, radius_px = _canvas(2, [RED, WHITE, RED, WHITE], third)
    assert _left(residual, radius_px, [weak]) == [weak]


def test_nothing_judged_without_both_clear_colours():
    weak = (SPOT[0], SPOT[1], 3.5)
    residual, radius_px = _canvas(3, [RED] * 4, np.array([2.0, 0.0, 0.0]))
    assert _left(residual, radius_px, [weak], ["red"] * 4) == [weak]
    # a white face too close to the plate's colour: the white direction is not measured
    faint_white = np.array([0.6 * MIN_FACE_DIFF_LAB, 0.0, 0.0])
    residual, radius_px = _canvas(3, [RED, faint_white, RED, WHITE], np.array([1.0, 0.0, 0.0]))
    assert _left(residual, radius_px, [weak]) == [weak]
    # an undecided face
    residual, radius_px = _canvas(3, [RED, WHITE, RED, WHITE], np.array([1.0, 0.0, 0.0]))
    assert _left(residual, radius_px, [weak], ("red", "white", "unknown", "white")) == [weak]


def test_suspect_on_a_face_or_of_a_specks_contrast_stays(monkeypatch):
    residual, radius_px = _canvas(4, [RED, WHITE, RED, WHITE], None)
    on_face = (FACES[1][0] + 0.5 * TOKEN_R, FACES[1][1], 3.5)
    speck = (SPOT[0], SPOT[1], MAX_SUSPECT_CONTRAST_LAB + 1.0)
    weak = (SPOT[0], SPOT[1], 3.5)
    assert _left(residual, radius_px, [on_face, speck, weak]) == [on_face, speck]
    monkeypatch.setattr(weak_suspects, "WEAK_SUSPECTS_EXPLAINED", False)
    assert _left(residual, radius_px, [weak]) == [weak]


def test_bad_arguments_raise():
    residual, radius_px = _canvas(5, [RED, WHITE, RED, WHITE], None)
    with pytest.raises(ValueError, match="face_colours"):
        unexplained_suspects(residual, radius_px, R_PLATE, [(SPOT[0], SPOT[1], 3.0)], FACES, ["red"], TOKEN_R)
    with pytest.raises(ValueError, match="residual"):
        face_difference(residual[..., 0], radius_px, R_PLATE, *SPOT, TOKEN_R, [])
    with pytest.raises(ValueError, match="plate_radius_px"):
        face_difference(residual, radius_px, 0.0, *SPOT, TOKEN_R, [])
    with pytest.raises(ValueError, match="token_r"):
        face_difference(residual, radius_px, R_PLATE, *SPOT, -1.0, [])
    assert math.isfinite(face_difference(residual, radius_px, R_PLATE, *SPOT, TOKEN_R, FACES))


def test_suspect_off_a_real_faces_centre_stays():
    # a fifth face as clear as the whites, its suspect peak a token radius off its centre
    residual, radius_px = _canvas(6, [RED, WHITE, RED, WHITE], WHITE)
    off_centre = (SPOT[0] + TOKEN_R, SPOT[1], 3.5)
    assert _left(residual, radius_px, [off_centre]) == [off_centre]
    # with no face there it is explained
    residual, radius_px = _canvas(6, [RED, WHITE, RED, WHITE], None)
    assert _left(residual, radius_px, [off_centre]) == []
