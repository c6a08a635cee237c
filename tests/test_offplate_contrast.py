"""A lit patch of the cloth is no token off the plate (``vision.offplate_contrast``).

Clip 1300130 (every variant, 640x360): the lamp's hotspot on the green cloth
rises above the cloth surface learnt on the frame's border; its top, just
over the not-cloth threshold, breaks into token-sized pieces that read
``reshake: N token(s) off the plate`` on frames of four flat tokens.  A
piece's surrounding cloth deviates 0.75-0.88 as much as the piece; a token
off the plate at most 0.31 (fresh offplate scenes at 640x360 and 1280x720).

Checklist: known values on drawn maps (a find above flat cloth, a patch in a
broad rise, too little cloth to judge), the real clip frame with the rule on
and off, and a faint real token off the plate still found.
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import exposure_outline, offplate_contrast
from vision.offplate_contrast import ring_share, standing_out
from vision.plate import find_plate
from vision.reader import (OFFPLATE_PLATE_MARGIN_FRAC, offplate_blobs, outside_plate_mask, plate_ellipse_mask,
                           read_frame)
from vision.synth import render_scene
from vision.synth_clip import render_clip

H, W = 120, 160


def _maps(find_dev: float, around_dev: float, *, r: float = 6.0, broad: bool = True):
    """A deviation map: a disc of ``find_dev`` at (80, 60), radius ``r``, on cloth of ``around_dev``
    (``broad``) or of 1.5 with ``around_dev`` only in a thin band (not broad); the find is not-cloth."""
    dev = np.full((H, W), 1.5, np.float32)
    if broad:
        dev[:] = around_dev
    found = np.zeros((H, W), np.uint8)
    cv2.circle(found, (80, 60), int(r), 1, -1)
    dev[found > 0] = find_dev
    plate = np.zeros((H, W), np.uint8)
    return dev, found, plate


def test_token_above_flat_cloth_stands_out():
    dev, found, plate = _maps(9.0, 2.0)
    share = ring_share(dev, found, plate, 80.0, 60.0, 6.0)
    assert share == pytest.approx(2.0 / 9.0, rel=1e-3)
    assert standing_out([(80.0, 60.0, 6.0)], dev, found, plate, 1.0) == [(80.0, 60.0, 6.0)]


def test_patch_in_a_broad_rise_is_dropped():
    dev, found, plate = _maps(8.5, 7.0)
    assert ring_share(dev, found, plate, 80.0, 60.0, 6.0) == pytest.approx(7.0 / 8.5, rel=1e-3)
    assert standing_out([(80.0, 60.0, 6.0)], dev, found, plate, 1.0) == []
    # source pixels at half the work scale: the same find
    assert standing_out([(160.0, 120.0, 12.0)], dev, found, plate, 0.5) == []


def test_no_cloth_around_keeps_the_find():
    dev, found, plate = _maps(8.5, 7.0)
    plate[:] = 1   # all around is plate: nothing to compare with
    assert math.isnan(ring_share(dev, found, plate, 80.0, 60.0, 6.0))
    assert standing_out([(80.0, 60.0, 6.0)], dev, found, plate, 1.0) == [(80.0, 60.0, 6.0)]


def test_rule_off_keeps_every_find(monkeypatch):
    dev, found, plate = _maps(8.5, 7.0)
    monkeypatch.setattr(offplate_contrast, "OFFPLATE_RING_TEST", False)
    assert standing_out([(80.0, 60.0, 6.0)], dev, found, plate, 1.0) == [(80.0, 60.0, 6.0)]


@pytest.fixture(scope="module")
def hotspot_frame():
    clip = render_clip(1300130, "normal", fps=25, size=(640, 360))
    label = clip.label["rounds"][-1]
    assert clip.frame_labels[124]["phase"] == "revealed"
    assert [t["state"] for t in label["tokens_R"]] == ["flat"] * 4   # all four lie flat on the plate
    return clip.frames[124], label["red"]


def test_hotspot_frame_reads_its_outcome(hotspot_frame, monkeypatch):
    frame, red = hotspot_frame
    # its well is at the sensor's ceiling: with the ceiling-outline clearing off (the default since the
    # twenty-ninth round) the frame abstains on the over-exposure, not on tokens off the plate ...
    r = read_frame(frame)
    assert r.verdict == "uncertain" and r.reason.startswith("the plate is over-exposed"), r.reason
    # ... and with the clearing on, the hotspot's pieces are no tokens off the plate: the outcome
    monkeypatch.setattr(exposure_outline, "CEILING_OUTLINE_CLEAR", True)
    r = read_frame(frame)
    assert r.verdict == "outcome", r.reason
    assert r.red == red


def test_rule_off_reads_tokens_off_the_plate(hotspot_frame, monkeypatch):
    monkeypatch.setattr(offplate_contrast, "OFFPLATE_RING_TEST", False)
    r = read_frame(hotspot_frame[0])
    assert r.verdict == "reshake", r.reason
    assert "off the plate" in r.reason


def test_faint_token_off_the_plate_still_found():
    # fresh offplate scene 1650086 at 640x360: a token on beige cloth only 8.7 spreads off it,
    # the faintest found; the cloth around it 2.2
    scene = render_scene(1650086, "offplate", size=(640, 360))
    off, = [t for t in scene.label["tokens"] if t.get("state") == "offplate"]
    plate = find_plate(scene.image)
    outside = outside_plate_mask(plate)
    area = math.pi * off["radius"] ** 2 * plate.ellipse.b / plate.ellipse.a
    finds = offplate_blobs(plate, area, outside)
    grown = plate_ellipse_mask(plate, 1.0 + OFFPLATE_PLATE_MARGIN_FRAC)
    kept = standing_out(finds, plate.cloth_deviation, outside, grown, plate.work_scale)
    assert any(math.hypot(x - off["x"], y - off["y"]) < off["radius"] for x, y, _ in kept), (finds, off)
