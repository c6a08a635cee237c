"""The fifth token's placement of a ``five_tokens`` scene (``fifth_place``): free, touching, wall.

Checklist: every scene without the key as before (digests from main's code),
smoke, bad input table naming the key, known values (the fifth's measured gap
to its nearest neighbour and to the wall's foot, in the label's token
positions, on a camera looking straight down), determinism.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from vision.synth import (FIFTH_PLACES, FIFTH_TOUCH_RADII, FIFTH_WALL_GAP_RADII, KINDS, SPOT_SEP_RADII,
                          render_scene)
from vision.synth_paint import PlateModel

SIZE = (480, 360)
DIGEST_SIZE = (192, 144)
#: SHA-256 (first 16 hex digits) of image bytes, JPEG bytes and sorted-key JSON
#: label of ``render_scene(seed, kind, size=DIGEST_SIZE)``, computed once with
#: main's code at 621f0f0 (before ``fifth_place`` existed), on this machine's
#: OpenCV/NumPy; ``:decor`` adds ``plate_decor=rings``.
MAIN_DIGESTS = {
    "outcome:1": "fd47d70afd1b4445",
    "outcome:2": "ea79f50f34f5d451",
    "outcome:3": "fbcb63a8f1425142",
    "touching:1": "7cb18c0d3f481383",
    "touching:2": "36360c87e82aa60c",
    "touching:3": "c2b597ed9cd3b91f",
    "tilted:1": "500f10311001c19c",
    "tilted:2": "9f7060e5e75d42c8",
    "tilted:3": "1dc02d91a0a8b3b0",
    "overlap:1": "9b50e6f49f514f81",
    "overlap:2": "77da8a5f8095c3fa",
    "overlap:3": "3727d11dcc71f35d",
    "upright:1": "3040444030ea5c43",
    "upright:2": "c9a1b27d124584a4",
    "upright:3": "df5f089349433a7d",
    "offplate:1": "7c3dadb3a02f81df",
    "offplate:2": "470b2a12d536c021",
    "offplate:3": "667efc30f86d46dc",
    "three_tokens:1": "bd31ffb319f7e43d",
    "three_tokens:2": "35e5b7182240c186",
    "three_tokens:3": "ef54a075974efbc1",
    "five_tokens:1": "e9dd4b9191dfec43",
    "five_tokens:2": "0b3e8bccb38083cf",
    "five_tokens:3": "aa3170db40c4061b",
    "covered:1": "2e2b07ae35c39f56",
    "covered:2": "aa9b74771f418a74",
    "covered:3": "67c5176ebda3d28b",
    "stick:1": "68e60bd85e317dea",
    "stick:2": "511b4423bc93eeda",
    "stick:3": "0826eb3cd5e16f64",
    "no_plate:1": "03f2f5c30145b068",
    "no_plate:2": "5100bc9e943106e7",
    "no_plate:3": "bb84b79074d979fb",
    "None:1": "ee33392ae8ff1bb9",
    "None:2": "35aa620342a8f251",
    "None:3": "2e856d38f49be342",
    "five_tokens:1:decor": "4e18754fda38ffe3",
    "five_tokens:2:decor": "8cad196e2dd80aad",
    "five_tokens:3:decor": "4bf521b02ef5db8f",
}
#: A camera looking straight down on the plate's centre: the table plane is
#: seen up to scale, so pixel distances over the label's token radius are
#: table distances in token radii.
STRAIGHT_DOWN = {"tilt_deg": 0.0, "offset_x_frac": 0.0, "offset_y_frac": 0.0, "distance_R": 9.0,
                 "jpeg_quality": None}


def digest(scene) -> str:
    h = hashlib.sha256(scene.image.tobytes())
    h.update(scene.jpeg_bytes or b"")
    h.update(json.dumps(scene.label, sort_keys=True).encode())
    return h.hexdigest()[:16]


def test_every_scene_without_the_key_is_main_s():
    got = {}
    for kind in KINDS + (None,):
        for seed in (1, 2, 3):
            got[f"{kind}:{seed}"] = digest(render_scene(seed, kind, size=DIGEST_SIZE))
    for seed in (1, 2, 3):
        got[f"five_tokens:{seed}:decor"] = digest(render_scene(seed, "five_tokens", size=DIGEST_SIZE,
                                                               conditions={"plate_decor": "rings"}))
    assert got == MAIN_DIGESTS


def test_free_is_the_scene_without_the_key():
    for seed in (3, 4):
        plain = render_scene(seed, "five_tokens", size=SIZE)
        free = render_scene(seed, "five_tokens", size=SIZE, conditions={"fifth_place": "free"})
        np.testing.assert_array_equal(plain.image, free.image)
        assert plain.label["tokens"] == free.label["tokens"]
        assert "fifth_place" not in plain.label["conditions"]
        assert "fifth_gap_radii" not in free.label["conditions"]


@pytest.mark.parametrize("place", ["touching", "wall"])
def test_placed_fifth_renders_a_reshake_with_five_flat_tokens(place):
    s = render_scene(12, "five_tokens", size=SIZE, conditions={"fifth_place": place})
    assert s.image.dtype == np.uint8 and s.image.shape == (360, 480, 3)
    lab = s.label
    json.dumps(lab)
    assert lab["verdict"] == "reshake" and lab["red"] is None and lab["white"] is None
    assert len(lab["tokens"]) == 5 and all(t["state"] == "flat" for t in lab["tokens"])
    c = lab["conditions"]
    assert c["fifth_place"] == place
    if place == "touching":
        assert FIFTH_TOUCH_RADII[0] - 1e-3 <= c["fifth_gap_radii"] <= FIFTH_TOUCH_RADII[1] + 1e-3
    else:
        assert -1e-3 <= c["fifth_wall_gap_radii"] <= FIFTH_WALL_GAP_RADII + 1e-3
        assert c["fifth_gap_radii"] >= SPOT_SEP_RADII - 1e-3


def _measured(scene):
    """(the fifth's centre gap to its nearest neighbour, the gap from its edge to
    the wall's foot), token radii, from the label's pixel positions."""
    toks, p = scene.label["tokens"], scene.label["plate"]
    xy = np.array([[t["x"], t["y"]] for t in toks])
    r_px = float(np.mean([t["radius"] for t in toks]))
    gap = float(np.min(np.linalg.norm(xy[:4] - xy[4], axis=1))) / r_px
    # the plate label is the outer rim (radius 1), seen from a little nearer than the tokens' tops
    rho_px = float(np.hypot(xy[4, 0] - p["cx"], xy[4, 1] - p["cy"]))
    wall = (PlateModel().well_R * p["a"] - rho_px) / r_px - 1.0
    four = min(float(np.linalg.norm(xy[i] - xy[j])) for i in range(4) for j in range(i + 1, 4)) / r_px
    return gap, wall, four


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_touching_fifth_is_measured_touching(seed):
    s = render_scene(seed, "five_tokens", size=(640, 640), conditions={**STRAIGHT_DOWN, "fifth_place": "touching"})
    gap, _, four = _measured(s)
    assert FIFTH_TOUCH_RADII[0] - 0.05 <= gap <= FIFTH_TOUCH_RADII[1] + 0.05
    assert gap == pytest.approx(s.label["conditions"]["fifth_gap_radii"], abs=0.03)
    assert four >= SPOT_SEP_RADII - 0.05  # the other four stay apart as in a free scene


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_wall_fifth_is_measured_at_the_wall_s_foot(seed):
    s = render_scene(seed, "five_tokens", size=(640, 640), conditions={**STRAIGHT_DOWN, "fifth_place": "wall"})
    gap, wall, _ = _measured(s)
    assert -0.08 <= wall <= FIFTH_WALL_GAP_RADII + 0.08
    assert wall == pytest.approx(s.label["conditions"]["fifth_wall_gap_radii"], abs=0.03)
    assert gap >= SPOT_SEP_RADII - 0.05


def test_free_fifth_is_not_at_the_wall_nor_touching():
    """What the condition is for: a free scene keeps 2.4 radii between centres."""
    s = render_scene(2, "five_tokens", size=(640, 640), conditions=STRAIGHT_DOWN)
    gap, _, four = _measured(s)
    assert min(gap, four) >= SPOT_SEP_RADII - 0.05


@pytest.mark.parametrize("cond, kind", [
    ({"fifth_place": "edge"}, "five_tokens"),
    ({"fifth_place": None}, "five_tokens"),
    ({"fifth_place": "touching"}, "outcome"),
    ({"fifth_place": "wall"}, "three_tokens"),
    ({"fifth_place": "wall"}, "touching"),
])
def test_bad_fifth_place_is_named(cond, kind):
    with pytest.raises(ValueError, match="fifth_place"):
        render_scene(1, kind, size=SIZE, conditions=cond)


def test_free_is_allowed_for_every_kind():
    render_scene(1, "outcome", size=(96, 96), conditions={"fifth_place": "free"})


@pytest.mark.parametrize("place", FIFTH_PLACES)
def test_fifth_place_is_deterministic(place):
    a = render_scene(5, "five_tokens", size=SIZE, conditions={"fifth_place": place})
    b = render_scene(5, "five_tokens", size=SIZE, conditions={"fifth_place": place})
    np.testing.assert_array_equal(a.image, b.image)
    assert a.label == b.label


def test_placement_leaves_the_scene_s_other_draws_alone():
    """The fifth's spot has its own stream: conditions and the four tokens' faces
    are those of the free scene with the same seed."""
    free = render_scene(7, "five_tokens", size=SIZE)
    wall = render_scene(7, "five_tokens", size=SIZE, conditions={"fifth_place": "wall"})
    cf = {k: v for k, v in wall.label["conditions"].items() if not k.startswith("fifth_")}
    assert cf == free.label["conditions"]
    assert sorted(t["face"] for t in wall.label["tokens"]) == sorted(t["face"] for t in free.label["tokens"])
