"""A pale face touching a counted token is judged on the outline that token leaves visible.

The outline search blanks every counted token (to 1.3 radii) so that its own
edge does not make a second circle.  A pale face touching it loses the
sectors of its outline that face it, and sat at the edge of the 15-of-16
sector rule: the bundled studio render s0_014 (three pale faces on white
porcelain, two of them touching) read right, but shifted by half a pixel it
read "3 tokens".  ``outline_support(..., hidden=...)`` leaves sectors hidden
by a counted token out of the test (they count as dark, up to
``OUTLINE_MAX_UNMEASURED_SECTORS``, and only when every sector seen is dark),
and ``_outline_faces`` accepts a closed outline so measured.

Checklist: known values on a drawn circle (nothing hidden, a neighbour's
sectors hidden, too much hidden, an empty hidden mask, a circle that is not
dark where it is seen), bad input shapes, real pixels (the studio render as
it is and shifted), and the rule shown to be what reads the shifted frame.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import outline, reader
from vision.io import load_image
from vision.outline import OUTLINE_MAX_UNMEASURED_SECTORS, OUTLINE_SECTORS, outline_support
from vision.reader import read_frame
from vision.outline import DEFAULT_OUTLINE_RULE
from vision.outline_faces import _closed_outline

S = 160
R = 15.0
C = 80
STUDIO = Path(__file__).resolve().parents[1] / "samples" / "studio"


def dark_circle(depth_l: float = 4.0, seed: int = 3) -> np.ndarray:
    """Lightness (S, S) float32: seeded noise (sigma 0.3 L), a pale face of
    radius R at (C, C) a little darker than the plate (-1 L, its own
    shading), and a 2 px dark ring (its edge) around it."""
    rng = np.random.default_rng(seed)
    light = rng.normal(0.0, 0.3, (S, S)).astype(np.float32)
    face = np.zeros((S, S), np.uint8)
    cv2.circle(face, (C, C), int(R), 1, thickness=cv2.FILLED)
    light[face > 0] -= 1.0
    ring = np.zeros((S, S), np.uint8)
    cv2.circle(ring, (C, C), int(R), 1, thickness=2)
    light[ring > 0] -= depth_l
    return light


def hidden_towards(angle_deg: float, dist_radii: float, radius_radii: float = 1.3) -> np.ndarray:
    """A hidden disc (a counted token blanked to ``radius_radii``) whose centre
    lies ``dist_radii`` token radii from (C, C) towards ``angle_deg``."""
    t = math.radians(angle_deg)
    x, y = C + dist_radii * R * math.cos(t), C + dist_radii * R * math.sin(t)
    mask = np.zeros((S, S), np.uint8)
    cv2.circle(mask, (int(round(x)), int(round(y))), int(round(radius_radii * R)), 1, thickness=cv2.FILLED)
    return mask.astype(bool)


def blank(light: np.ndarray, hidden: np.ndarray) -> np.ndarray:
    out = light.copy()
    out[hidden] = 0.0
    return out


def test_a_whole_dark_circle_is_closed_with_or_without_a_mask():
    light = dark_circle()
    plain = outline_support(light, C, C, R)
    assert plain[0] == OUTLINE_SECTORS and plain[1] > 2.0 and plain[2] > 0.5
    # an all-False mask gives the same numbers, bit for bit
    assert outline_support(light, C, C, R, np.zeros((S, S), bool)) == plain
    # so does a mask hiding only pixels the test never reads (the face's
    # centre, inside the inner side), which takes the visible-pixel path
    centre = np.zeros((S, S), np.uint8)
    cv2.circle(centre, (C, C), int(0.3 * R), 1, thickness=cv2.FILLED)
    assert outline_support(light, C, C, R, centre.astype(bool)) == plain


def test_sectors_hidden_by_a_touching_token_count_as_dark():
    hidden = hidden_towards(0.0, 2.0)  # a token touching the face on its right
    light = blank(dark_circle(), hidden)
    plain_sectors = outline_support(light, C, C, R)[0]
    assert plain_sectors < 15  # blanked to the plate, those sectors are not darker than their sides
    n, contrast, evenness = outline_support(light, C, C, R, hidden)
    assert n == OUTLINE_SECTORS and contrast > 2.0 and evenness > 0.5


def test_a_circle_hidden_too_much_cannot_close():
    hidden = hidden_towards(0.0, 1.2, radius_radii=1.3)  # most of its right half under the token
    light = blank(dark_circle(), hidden)
    n, _, _ = outline_support(light, C, C, R, hidden)
    assert n <= OUTLINE_SECTORS - OUTLINE_MAX_UNMEASURED_SECTORS - 1


def test_hidden_sectors_count_only_when_every_seen_sector_is_dark():
    hidden = hidden_towards(0.0, 2.0)
    light = dark_circle()
    # one sector opposite the neighbour is not dark: plain plate there
    t = np.deg2rad(180.0)
    patch = np.zeros((S, S), np.uint8)
    cv2.circle(patch, (int(round(C + R * np.cos(t))), int(round(C + R * np.sin(t)))), 6, 1, thickness=cv2.FILLED)
    light[patch > 0] = 0.0
    n, _, _ = outline_support(blank(light, hidden), C, C, R, hidden)
    assert n <= OUTLINE_SECTORS - 2  # the hidden sectors do not make up for it
    assert not _closed_outline(DEFAULT_OUTLINE_RULE, *outline_support(blank(light, hidden), C, C, R, hidden))


def test_a_mask_that_is_not_bool_is_refused():
    with pytest.raises(ValueError, match="hidden"):
        outline_support(dark_circle(), C, C, R, hidden_towards(0.0, 2.0).astype(np.uint8))


def test_hidden_sectors_do_not_make_a_circle_of_an_arc():
    # only the left half of the ring is dark; the right half is plain plate
    light = dark_circle()
    light[:, C + 1:] = np.random.default_rng(4).normal(0.0, 0.3, (S, S - C - 1)).astype(np.float32)
    hidden = hidden_towards(0.0, 2.0)
    got = outline_support(blank(light, hidden), C, C, R, hidden)
    assert not _closed_outline(DEFAULT_OUTLINE_RULE, *got)
    # the same with the whole ring dark is a closed outline
    assert _closed_outline(DEFAULT_OUTLINE_RULE, *outline_support(blank(dark_circle(), hidden), C, C, R, hidden))


def test_a_mask_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="hidden"):
        outline_support(dark_circle(), C, C, R, np.zeros((S - 1, S), bool))


def _studio(name: str) -> tuple[np.ndarray, dict]:
    return load_image(STUDIO / f"{name}.jpg"), json.loads((STUDIO / f"{name}.json").read_text())


def _shifted_half_px(frame: np.ndarray) -> np.ndarray:
    m = np.float32([[1, 0, 0.5], [0, 1, 0.5]])
    return cv2.warpAffine(frame, m, (frame.shape[1], frame.shape[0]), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REPLICATE)


def test_touching_pale_faces_read_the_same_shifted_by_half_a_pixel(monkeypatch):
    frame, label = _studio("s0_014_touching")
    want = ("outcome", label["red"])
    for image in (frame, _shifted_half_px(frame)):
        got = read_frame(image)
        assert (got.verdict, got.red) == want, got.reason
    # without the hidden sectors the shifted frame loses a touching face
    monkeypatch.setattr(outline, "OUTLINE_MAX_UNMEASURED_SECTORS", -1)
    before = read_frame(_shifted_half_px(frame))
    # (left as disc-like evidence beside three: a check by hand, reader.FEWER_WITH_SUSPECT_UNCERTAIN)
    assert before.verdict == "uncertain" and before.reason.startswith(
        "3 tokens found but more disc-like evidence"), before.reason
    monkeypatch.setattr(reader, "FEWER_WITH_SUSPECT_UNCERTAIN", False)
    assert read_frame(_shifted_half_px(frame)).reason == "3 tokens on the plate, not 4"
