"""The synthesizer's painted plate decorations (``plate_decor``): speckle, rings, motif.

Checklist: smoke, shapes, bad input table, the plain plate unchanged, known
values (a cobalt ring is blue where the label puts it), determinism.
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import synth_paint as sp
from vision.synth import DECOR_COLOURS, DECOR_PALETTES, DECORS, render_scene

SIZE = (480, 360)


def test_plain_is_the_scene_without_the_condition():
    for seed in (3, 4):
        plain = render_scene(seed, "outcome", size=SIZE)
        named = render_scene(seed, "outcome", size=SIZE, conditions={"plate_decor": "plain"})
        np.testing.assert_array_equal(plain.image, named.image)
        assert "decor" not in plain.label and "decor" not in named.label
        assert "plate_decor" not in plain.label["conditions"]


@pytest.mark.parametrize("decor", [d for d in DECORS if d != "plain"])
def test_decor_paints_the_plate_only(decor):
    seed = 21
    cond = {"jpeg_quality": None}
    plain = render_scene(seed, "outcome", size=SIZE, conditions=cond)
    deco = render_scene(seed, "outcome", size=SIZE, conditions={**cond, "plate_decor": decor})
    assert deco.image.shape == plain.image.shape and deco.image.dtype == np.uint8
    assert deco.label["decor"]["kind"] == decor
    assert deco.label["conditions"]["decor_colour"] in DECOR_PALETTES[decor]
    assert deco.label["tokens"] == plain.label["tokens"]  # the layout does not move
    diff = np.abs(deco.image.astype(int) - plain.image.astype(int)).max(axis=2) > 0
    assert diff.any()
    p = deco.label["plate"]
    # every changed pixel lies on the plate (its outer rim ellipse grown by 3 px)
    on_plate = np.zeros(diff.shape, np.uint8)
    cv2.ellipse(on_plate, (int(round(p["cx"])), int(round(p["cy"]))),
                (int(math.ceil(p["a"])) + 3, int(math.ceil(p["b"])) + 3), p["angle_deg"], 0, 360, 1, -1)
    assert not (diff & (on_plate == 0)).any()


def test_cobalt_ring_lies_where_the_label_says():
    cond = {"plate_decor": "rings", "decor_colour": "cobalt", "tilt_deg": 0.0, "jpeg_quality": None,
            "noise_sigma": 0.5, "blur": "none", "glaze": "white_porcelain", "kelvin": 5500.0,
            "exposure_stops": -0.3}
    sc = render_scene(8, "outcome", size=(640, 640), conditions=cond)
    rings = sc.label["decor"]["rings_R"]
    p = sc.label["plate"]
    img = sc.image.astype(np.float32)
    blueness = img[..., 0] - img[..., 2]  # B - R, BGR
    r = rings[0]
    on, off = [], []
    for ang in np.linspace(0, 2 * math.pi, 48, endpoint=False):
        samples = []
        for dr in np.linspace(-0.015, 0.015, 13):
            x = p["cx"] + (r + dr) * p["a"] * math.cos(ang)
            y = p["cy"] + (r + dr) * p["b"] * math.sin(ang)
            samples.append(blueness[int(round(y)), int(round(x))])
        on.append(max(samples))
        x = p["cx"] + (r - 0.05) * p["a"] * math.cos(ang)
        y = p["cy"] + (r - 0.05) * p["b"] * math.sin(ang)
        off.append(blueness[int(round(y)), int(round(x))])
    # tokens hide a few directions; the median looks past them
    assert np.median(on) > np.median(off) + 20


def test_decor_is_deterministic():
    a = render_scene(5, None, size=SIZE, conditions={"plate_decor": "motif"})
    b = render_scene(5, None, size=SIZE, conditions={"plate_decor": "motif"})
    np.testing.assert_array_equal(a.image, b.image)
    assert a.label == b.label


@pytest.mark.parametrize("cond, key", [
    ({"plate_decor": "paisley"}, "plate_decor"),
    ({"plate_decor": "rings", "decor_colour": "pink"}, "decor_colour"),
])
def test_bad_decor_conditions_are_named(cond, key):
    with pytest.raises(ValueError, match=key):
        render_scene(1, "outcome", size=SIZE, conditions=cond)


@pytest.mark.parametrize("kind", ["speckle", "rings", "motif"])
def test_decor_coverage_shapes_and_range(kind):
    cov, info = sp.decor_coverage(kind, np.random.default_rng(7), sp.PlateModel())
    assert cov.shape == (sp.DECOR_TEXELS, sp.DECOR_TEXELS) and cov.dtype == np.float32
    assert 0.0 <= cov.min() and cov.max() <= 1.0
    share = float((cov > 0.5).mean())
    assert 0.0 < share < 0.2  # paint on the plate, never the whole plate
    assert info["kind"] == kind
    # nothing is painted beyond the plate (radius 1): the texture's corners are bare
    t = sp.DECOR_TEXELS
    yy, xx = np.mgrid[0:t, 0:t]
    rho = np.hypot(xx - (t - 1) / 2, yy - (t - 1) / 2) / ((t - 1) / 2)
    assert cov[rho > 1.01].max() == 0.0


def test_decor_coverage_refuses_an_unknown_kind():
    with pytest.raises(ValueError, match="kind"):
        sp.decor_coverage("plain", np.random.default_rng(0), sp.PlateModel())


def test_decor_checks_its_fields():
    t = sp.DECOR_TEXELS
    with pytest.raises(ValueError, match="coverage"):
        sp.Decor(np.zeros((8, 8), np.float32), np.ones(3, np.float32))
    with pytest.raises(ValueError, match="albedo"):
        sp.Decor(np.zeros((t, t), np.float32), np.ones(4, np.float32))


def test_every_palette_colour_is_known():
    for kind, names in DECOR_PALETTES.items():
        assert kind in DECORS
        assert set(names) <= set(DECOR_COLOURS)
