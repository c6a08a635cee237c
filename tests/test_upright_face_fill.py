"""A bar found as a token on edge that is a face lying flat, or too short for a token's diameter
(vision.upright_doubt: FACE_FILL_RULE, SHORT_BAR_RULE)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import vision.upright_doubt as ud
from scripts.synth_table import draw_conditions, parse_condition
from vision.reader import read_frame
from vision.synth import render_scene

R = 15.0  # token radius of the drawn views, px
PLATE = (80.0, 0.0, 5.0)
FACE = (45.0, 45.0, 25.0)
CONTRAST = float(np.linalg.norm(np.subtract(FACE, PLATE)))


def _plate(size: int = 200, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    lab = np.empty((size, size, 3), np.float32)
    lab[:] = PLATE
    return lab + rng.normal(0.0, 1.0, lab.shape).astype(np.float32)


def _disc(lab: np.ndarray, x: float, y: float, r: float, colour=FACE) -> None:
    yy, xx = np.mgrid[:lab.shape[0], :lab.shape[1]]
    lab[(xx - x) ** 2 + (yy - y) ** 2 <= r * r] = colour


def _bar(lab: np.ndarray, x: float, y: float, angle: float, length: float, thick: float, colour=FACE) -> None:
    yy, xx = np.mgrid[:lab.shape[0], :lab.shape[1]]
    ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    along = (xx - x) * ux + (yy - y) * uy
    across = -(xx - x) * uy + (yy - y) * ux
    lab[(np.abs(along) <= length / 2) & (np.abs(across) <= thick / 2)] = colour


@pytest.mark.parametrize("angle, off", [(0.0, 0.0), (30.0, 0.3), (120.0, -0.3), (75.0, 0.15)])
def test_a_face_measured_as_a_bar_fills_the_disc(angle, off):
    # a whole face; the "bar" is its part beside the cut, its centre off the face's across the axis
    lab = _plate(seed=1)
    ux, uy = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    _disc(lab, 100.0, 100.0, R)
    bx, by = 100.0 + off * R * uy, 100.0 - off * R * ux
    share = ud.face_fill_share(lab, bx, by, angle, 1.5 * R, CONTRAST, R)
    assert share >= ud.FACE_FILL_MIN_SHARE, share
    area = 1.5 * R * 0.8 * R * math.pi / 4
    assert ud.upright_doubt(lab, lab - PLATE, bx, by, angle, area, 0.55, CONTRAST, [], [], R, 10.0) == "face"
    # from a camera tilted so far that a standing token's face could fill the disc, or of unknown tilt,
    # the face-fill doubt is not asked
    # unless the bar is shorter than a standing face's diameter
    steep = ud.FACE_FILL_MAX_VIEW_DEG - ud.FACE_FILL_FIELD_MARGIN_DEG + 1.0
    assert ud.upright_doubt(lab, lab - PLATE, bx, by, angle, area, 0.55, CONTRAST, [], [], R, steep) == "face"
    assert ud.upright_doubt(lab, lab - PLATE, bx, by, angle, area, 0.55, CONTRAST, [], [], R) is None
    long_area = 1.9 * R * 1.0 * R * math.pi / 4  # 1.9 radii long, 1.0 thick
    assert ud.upright_doubt(lab, lab - PLATE, bx, by, angle, long_area, 1.0 / 1.9, CONTRAST, [], [], R,
                            steep) is None
    assert ud.upright_doubt(lab, lab - PLATE, bx, by, angle, long_area, 1.0 / 1.9, CONTRAST, [], [], R,
                            0.0) == "face"


@pytest.mark.parametrize("thick_radii", [0.25, 0.6, 1.0])
def test_a_token_on_edge_does_not_fill_the_disc(thick_radii):
    # a diameter-long bar, from the rim's thickness to a face seen from 45 degrees off the vertical
    lab = _plate(seed=2)
    _bar(lab, 100.0, 100.0, 40.0, 2 * R, thick_radii * R)
    share = ud.face_fill_share(lab, 100.0, 100.0, 40.0, 2 * R, CONTRAST, R)
    assert share < ud.FACE_FILL_MIN_SHARE, share
    area = 2 * R * thick_radii * R * math.pi / 4
    assert ud.upright_doubt(lab, lab - PLATE, 100.0, 100.0, 40.0, area, thick_radii / 2, CONTRAST, [], [], R,
                            0.0) is None


def test_a_bar_beside_a_face_of_another_colour_is_not_that_face():
    # a token on edge whose bar is red, beside a white face: the face's pixels are not the bar's colour
    lab = _plate(seed=3)
    _disc(lab, 100.0, 100.0 + 1.3 * R, R, colour=(95.0, 0.0, 2.0))
    _bar(lab, 100.0, 100.0, 0.0, 2 * R, 0.3 * R)
    assert ud.face_fill_share(lab, 100.0, 100.0, 0.0, 2 * R, CONTRAST, R) < 0.5


def test_too_short_a_bar_is_doubted_and_the_switches_work(monkeypatch):
    lab = _plate(seed=4)
    _bar(lab, 100.0, 100.0, 0.0, 0.8 * R, 0.3 * R)
    area, ratio = 0.8 * R * 0.3 * R * math.pi / 4, 0.3 / 0.8
    assert ud.upright_doubt(lab, lab - PLATE, 100.0, 100.0, 0.0, area, ratio, CONTRAST, [], [], R) == "short"
    monkeypatch.setattr(ud, "SHORT_BAR_RULE", False)
    assert ud.upright_doubt(lab, lab - PLATE, 100.0, 100.0, 0.0, area, ratio, CONTRAST, [], [], R) is None
    face = _plate(seed=5)
    _disc(face, 100.0, 100.0, R)
    area = 1.5 * R * 0.8 * R * math.pi / 4
    assert ud.upright_doubt(face, face - PLATE, 100.0, 100.0, 0.0, area, 0.55, CONTRAST, [], [], R, 0.0) == "face"
    monkeypatch.setattr(ud, "FACE_FILL_RULE", False)
    assert ud.upright_doubt(face, face - PLATE, 100.0, 100.0, 0.0, area, 0.55, CONTRAST, [], [], R, 0.0) is None


def test_a_face_turned_to_the_camera_fills_the_disc_only_when_seen_steeply():
    # a standing token's face squarely to the camera: an ellipse of semi-axes 1 and tan(view angle) radii
    def share(view_deg: float) -> float:
        lab = _plate(seed=8)
        yy, xx = np.mgrid[:200, :200]
        b = math.tan(math.radians(view_deg))
        lab[((xx - 100) / R) ** 2 + ((yy - 100) / (b * R)) ** 2 <= 1.0] = FACE
        return ud.face_fill_share(lab, 100.0, 100.0, 0.0, 2 * R, CONTRAST, R)
    assert share(ud.FACE_FILL_MAX_VIEW_DEG - 2.0) < ud.FACE_FILL_MIN_SHARE
    assert share(45.0) >= ud.FACE_FILL_MIN_SHARE
    assert ud.camera_tilt_deg(100.0, 100.0) == 0.0
    assert ud.camera_tilt_deg(100.0, 50.0) == pytest.approx(60.0)
    with pytest.raises(ValueError, match="semi_minor"):
        ud.camera_tilt_deg(100.0, 0.0)


def test_face_fill_edge_cases_and_bad_arguments():
    lab = _plate(seed=6)
    _disc(lab, 100.0, 100.0, R)
    assert ud.face_fill_share(lab, 100.0, 100.0, float("nan"), 1.5 * R, CONTRAST, R) == 0.0
    # a bar at the canvas's corner: only the disc's pixels inside the view count
    corner = _plate(seed=7)
    _disc(corner, 0.0, 0.0, R)
    assert ud.face_fill_share(corner, 2.0, 2.0, 45.0, 1.5 * R, CONTRAST, R) >= ud.FACE_FILL_MIN_SHARE
    with pytest.raises(TypeError, match="lab"):
        ud.face_fill_share([[1.0]], 1.0, 1.0, 0.0, 10.0, 5.0, R)
    with pytest.raises(ValueError, match="lab"):
        ud.face_fill_share(np.zeros((5, 5), np.float32), 1.0, 1.0, 0.0, 10.0, 5.0, R)
    with pytest.raises(ValueError, match="token_r"):
        ud.face_fill_share(lab, 1.0, 1.0, 0.0, 10.0, 5.0, 0.0)
    with pytest.raises(ValueError, match="contrast"):
        ud.face_fill_share(lab, 1.0, 1.0, 0.0, 10.0, -1.0, R)


def _scene(seed, kind, size, conds=()):
    specs = [parse_condition(c) for c in conds]
    return render_scene(seed, kind, size=size, conditions=draw_conditions(seed, specs))


@pytest.mark.parametrize("seed, kind, size, conds", [
    # a face of an overlap measured as a bar, from a gentle camera
    (2173430, "overlap", (1024, 768), ()),
    # four flat tokens, under-exposed: one face measured as a bar
    (2173623, "outcome", (640, 480), ("exposure_stops=-1:-0.5",)),
    # a face of a touching pair measured as a short bar, from a camera tilted 25-40 degrees
    (2175894, "touching", (1280, 720), ("tilt_deg=25:40",)),
])
def test_a_face_lying_flat_is_no_reshake(monkeypatch, seed, kind, size, conds):
    scene = _scene(seed, kind, size, conds)
    assert scene.label["verdict"] != "reshake"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "is a face lying flat" in got.reason, got.reason
    monkeypatch.setattr(ud, "FACE_FILL_RULE", False)
    assert read_frame(scene.image).reason.endswith("standing on edge")


@pytest.mark.parametrize("seed, size, conds", [
    (2174335, (640, 480), ()),
    (2175000, (640, 480), ("tilt_deg=25:40",)),
    (2175201, (1280, 720), ("tilt_deg=25:40",)),
])
def test_tokens_on_edge_keep_their_reshake(seed, size, conds):
    scene = _scene(seed, "upright", size, conds)
    assert scene.label["verdict"] == "reshake"
    got = read_frame(scene.image)
    assert got.verdict == "reshake" and got.reason.endswith("standing on edge"), got.reason
