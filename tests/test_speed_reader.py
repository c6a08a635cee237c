"""The decision stage's faster off-plate checks give the same results as the plain code.

References: ``offplate_blobs`` and ``plate_intrusions`` before the speed work
(round 3), verbatim.  No timing here.
"""
from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import reader as R
from vision.io import load_image
from vision.plate import find_plate
from vision.synth import render_scene

REPO = Path(__file__).resolve().parent.parent
#: Synthesized scenes with things off the plate or reaching onto it.
SYNTH = tuple((9200 + i, kind) for i, kind in enumerate(("offplate", "stick", "outcome") * 3))


def ref_offplate_blobs(plate, token_area_src_px, outside=None):
    s = plate.work_scale
    mask = R.outside_plate_mask(plate) if outside is None else outside
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    expected = token_area_src_px * s * s
    out = []
    for i in range(1, n):
        area = stats[i, cv2.CC_STAT_AREA]
        bw, bh = stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]
        if not (R.OFFPLATE_AREA_RANGE[0] * expected <= area <= R.OFFPLATE_AREA_RANGE[1] * expected):
            continue
        if min(bw, bh) < 0.35 * max(bw, bh):
            continue
        out.append((float(cents[i][0] / s), float(cents[i][1] / s), float(math.sqrt(area / math.pi) / s)))
    return out


def ref_plate_intrusions(plate, token_area_src_px, outside=None):
    s = plate.work_scale
    outside = R.outside_plate_mask(plate) if outside is None else outside
    band = R.plate_ellipse_mask(plate, 1.0 + R.INTRUSION_BAND_FRAC) & (1 - R.plate_ellipse_mask(
        plate, 1.0 + R.OFFPLATE_PLATE_MARGIN_FRAC))
    n, labels, stats, cents = cv2.connectedComponentsWithStats(outside, connectivity=8)
    token_area = token_area_src_px * s * s
    token_diam = 2.0 * math.sqrt(token_area / math.pi)
    out = []
    for i in range(1, n):
        comp = labels == i
        if not (comp & (band > 0)).any():
            continue
        length = float(max(stats[i, cv2.CC_STAT_WIDTH], stats[i, cv2.CC_STAT_HEIGHT]))
        if (stats[i, cv2.CC_STAT_AREA] > R.OFFPLATE_AREA_RANGE[1] * token_area
                or length > R.INTRUSION_MIN_LENGTH_DIAMS * token_diam):
            out.append((float(cents[i][0] / s), float(cents[i][1] / s), length / s))
    return out


@pytest.fixture(scope="module")
def plates():
    frames = [load_image(p) for p in sorted((REPO / "samples" / "studio").glob("*.jpg"))]
    frames += [render_scene(seed, kind, size=(1280, 720)).image for seed, kind in SYNTH]
    return [p for p in map(find_plate, frames) if p.found]


def test_offplate_checks_same(plates, monkeypatch):
    # the reference is the component-statistics version this speed work
    # replaced, from before the off-plate shape test (its own tests:
    # tests/test_offplate_shape.py), so that test is off here
    monkeypatch.setattr(R, "OFFPLATE_MIN_AXIS_RATIO_OF_PLATE", 0.0)
    found = 0
    for plate in plates:
        outside = R.outside_plate_mask(plate)
        for frac in (0.05, 0.13, 0.2):
            area = math.pi * (frac * plate.ellipse.b) ** 2
            for given in (outside, None):
                got = R.offplate_blobs(plate, area, given)
                assert got == ref_offplate_blobs(plate, area, given)
                reach = R.plate_intrusions(plate, area, given)
                assert reach == ref_plate_intrusions(plate, area, given)
                found += len(got) + len(reach)
    assert found > 0


def test_kept_not_cloth_mask_same_as_recomputed(plates):
    from dataclasses import replace

    from vision.plate import not_cloth_mask
    for plate in plates:
        want = not_cloth_mask(plate.cloth_deviation, plate.cloth_lightness)
        assert plate.not_cloth is not None and not plate.not_cloth.flags.writeable
        assert plate.not_cloth.dtype == want.dtype and np.array_equal(plate.not_cloth, want)
        # the mask outside the plate, from the kept mask and recomputed (no mask kept)
        got = R.outside_plate_mask(plate)
        again = R.outside_plate_mask(replace(plate, not_cloth=None))
        assert got.dtype == again.dtype and np.array_equal(got, again)


def test_saturated_room_same_as_axis_sum():
    from vision import exposure as E
    from vision.canonical import make_canonical_view

    def ref_clipped(bgr):
        return (bgr >= E.SATURATED_MIN_LEVEL).sum(axis=2, dtype=np.uint8)

    checked = 0
    for path in sorted((REPO / "samples" / "studio").glob("*.jpg"))[::4]:
        frame = load_image(path)
        plate = find_plate(frame)
        if not plate.found:
            continue
        view = make_canonical_view(frame, plate.ellipse)
        for lift in (0, 40, 80):  # brighter: more of the plate at the ceiling
            bgr = np.clip(view.bgr.astype(np.int16) + lift, 0, 255).astype(np.uint8)
            clipped = np.zeros(bgr.shape[:2], np.uint8)
            for plane in cv2.split(bgr):
                clipped += (plane >= E.SATURATED_MIN_LEVEL).view(np.uint8)
            assert np.array_equal(clipped, ref_clipped(bgr))
            room = E.saturated_room(bgr, view.radius_px, view.plate_radius_px, [(160.0, 160.0)], 10.0)
            # the function as before, from the axis sum (of the median levels, SATURATED_MEDIAN_PX)
            levels = cv2.medianBlur(bgr, E.SATURATED_MEDIAN_PX) if E.SATURATED_MEDIAN_PX > 1 else bgr
            want_room = (ref_clipped(levels) >= E.SATURATED_MIN_CHANNELS) & (
                view.radius_px < E.SATURATED_WELL_FRAC * view.plate_radius_px)
            if not want_room.any():
                assert room == 0.0
                continue
            want_room = want_room.astype(np.uint8)
            cv2.circle(want_room, (160, 160), int(round(E.SATURATED_FOUND_RADII * 10.0)), 0, thickness=cv2.FILLED)
            dist = cv2.distanceTransform(want_room, cv2.DIST_L2, cv2.DIST_MASK_PRECISE)
            assert room == float(dist.max()) / 10.0
            checked += 1
    assert checked > 0


def test_decide_with_the_callers_covered_evidence_same():
    """``read_frame`` passes the bowl's cues it measured before taking out the
    shading to ``decide``: the shading model leaves the colours they read."""
    from vision.canonical import make_canonical_view
    frames = [load_image(p) for p in sorted((REPO / "samples" / "studio").glob("*.jpg"))[::3]]
    frames += [render_scene(9300 + i, kind, size=(1280, 720)).image for i, kind in enumerate(("covered", "outcome"))]
    for frame in frames:
        plate = find_plate(frame)
        if not plate.found:
            continue
        view = make_canonical_view(frame, plate.ellipse)
        evidence = R.covered_evidence(view)
        flat, search = R.search_tokens(view)
        assert flat.lab is view.lab and R.covered_evidence(flat) == evidence
        assert repr(R.decide(flat, search, plate, evidence=evidence)) == repr(R.decide(flat, search, plate))
