"""The painted-line mask found once per frame and painted only where it is read.

:func:`vision.painted_lines.painted_line_mask` used to select the plate
model's pixels within the reach, sum each 1 px ring's colour by
``np.bincount`` and paint the whole canvas, on every frame where an outline
peak was judged across a line (1.5-1.9 ms), although the caller read it only
around the peaks judged, and on most frames only whether any pixel was set.
:class:`vision.painted_lines.PaintedLines` sums the rings over a box of the
plate model with each ring's pixels in the same order (the last rings, partly
inside, from their own pixels), and paints a box: it must give the very
same mask (bit for bit), on the whole canvas or cut to any box, and
:func:`vision.outline_faces` the very same answers.  ``_old_painted_line_mask``
below is the function it replaced, verbatim.

Checklist: real synthesized views at several token radii and plate designs
(painted rings, plain, speckle, motif), views whose model is made to have
many lines, lines at the reach's end and none at all, a radius grid that is
not the canvas geometry's, boxes on every edge and empty ones, the window
:func:`outline_across_line` reads, the reader's answers with the old mask,
and bad inputs.
"""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from vision import outline_faces
from vision.canonical import CanonicalView, make_canonical_view
from vision.outline import DEFAULT_OUTLINE_RULE
from vision.painted_lines import (PAINTED_LINE_MARGIN_PX, PAINTED_LINE_MAX_RADIUS_FRAC, PAINTED_LINE_MIN_DELTA_E,
                                  PAINTED_LINE_WINDOW_RADII, PaintedLines, across_line_window, outline_across_line,
                                  painted_line_mask)
from vision.plate import find_plate
from vision.reader import read_frame, search_tokens
from vision.synth import render_scene


def _old_painted_line_mask(view: CanonicalView, token_r: float) -> np.ndarray:
    """vision.painted_lines.painted_line_mask before the box (verbatim, main at 37df1a9)."""
    if not (isinstance(token_r, (int, float)) and math.isfinite(token_r) and token_r > 0):
        raise ValueError(f"token_r: expected a positive number of pixels, got {token_r!r}")
    radius = view.radius_px
    reach = PAINTED_LINE_MAX_RADIUS_FRAC * view.plate_radius_px
    inside = radius < reach + PAINTED_LINE_MARGIN_PX + token_r
    ring = np.rint(radius[inside]).astype(np.intp)
    n = int(ring.max()) + 1 if ring.size else 0
    mask = np.zeros(radius.shape, bool)
    if n < 3:
        return mask
    count = np.bincount(ring, minlength=n).astype(np.float64)
    have = count > 0
    model = view.background[inside]
    profile = np.stack([np.bincount(ring, model[:, k], minlength=n) for k in range(3)], axis=1)
    profile = profile[have] / count[have, None]
    rings = np.flatnonzero(have)
    window = 2 * int(math.ceil(PAINTED_LINE_WINDOW_RADII * token_r / 2)) + 1
    # the running median, the profile's ends repeated
    padded = np.pad(profile, ((window // 2, window // 2), (0, 0)), mode="edge")
    level = np.median(np.lib.stride_tricks.sliding_window_view(padded, window, axis=0), axis=-1)
    off = np.linalg.norm(profile - level, axis=1)
    lines = rings[(off >= PAINTED_LINE_MIN_DELTA_E) & (rings <= reach)]
    if lines.size == 0:
        return mask
    near = np.zeros(n + int(PAINTED_LINE_MARGIN_PX) + 2, bool)
    near[lines] = True
    # each line ring grown by the margin (rings are 1 px: a margin of m px marks m rings each way)
    grown = near.copy()
    for step in range(1, int(math.floor(PAINTED_LINE_MARGIN_PX)) + 1):
        grown[step:] |= near[:-step]
        grown[:-step] |= near[step:]
    all_rings = np.rint(radius).astype(np.intp)
    mask = grown[np.minimum(all_rings, grown.size - 1)] & (all_rings < grown.size - 1)
    return mask


_VIEWS: dict = {}


def _view(seed, kind, size, decor):
    key = (seed, kind, size, decor)
    if key not in _VIEWS:
        scene = render_scene(seed, kind, size=size, conditions={"plate_decor": decor})
        plate = find_plate(scene.image)
        view, search = search_tokens(make_canonical_view(scene.image, plate.ellipse, plate.halved))
        _VIEWS[key] = (view, search.token_radius_px)
    return _VIEWS[key]


SCENES = [
    (1261179, "five_tokens", (1280, 720), "rings"),
    (1261179, "five_tokens", (1280, 720), "plain"),
    (1292351, "outcome", (1024, 768), "rings"),
    (1292351, "outcome", (1024, 768), "speckle"),
    (7003, "touching", (960, 540), "motif"),
    (7015, "three_tokens", (640, 480), "rings"),
]

BOXES = [(0, 320, 0, 320), (0, 1, 0, 1), (319, 320, 319, 320), (100, 180, 20, 90), (0, 60, 250, 320),
         (290, 320, 0, 320), (150, 151, 0, 320), (0, 320, 160, 161), (40, 40, 10, 90), (5, 90, 77, 77)]


def _assert_same(view, token_r, peaks=((160, 160),)):
    want = _old_painted_line_mask(view, token_r)
    got = painted_line_mask(view, token_r)
    assert got.dtype == bool and got.shape == want.shape and np.array_equal(got, want)
    lines = PaintedLines(view, token_r)
    assert lines.any() == bool(want.any())
    s = want.shape[0]
    for y0, y1, x0, x1 in BOXES:
        y1, x1 = min(y1, s), min(x1, s)
        box = (min(y0, y1), y1, min(x0, x1), x1)
        cut = lines.mask(box)
        assert cut.dtype == bool and np.array_equal(cut, want[box[0]:box[1], box[2]:box[3]]), box
        assert np.array_equal(painted_line_mask(view, token_r, box), cut)
    for x, y in peaks:
        y0, y1, x0, x1 = across_line_window(x, y, token_r, want.shape)
        around = lines.around(x, y, token_r)
        assert np.array_equal(around[y0:y1, x0:x1], want[y0:y1, x0:x1])
        around[y0:y1, x0:x1] = False
        assert not around.any()
    return want


@pytest.mark.parametrize("scene", SCENES)
@pytest.mark.parametrize("scale", [1.0, 0.5, 1.7, "int"])
def test_mask_is_the_old_one_on_real_views(scene, scale):
    view, token_r = _view(*scene)
    token_r = int(round(token_r)) if scale == "int" else token_r * scale
    _assert_same(view, token_r, peaks=((160, 160), (60, 230), (2, 3), (318, 160), (250, 90)))


def test_the_painted_scene_has_lines_and_the_plain_one_none():
    assert _assert_same(*_view(*SCENES[0])).any()
    assert not _assert_same(*_view(*SCENES[1])).any()


def _with_profile(view, values, noise=0.0, seed=0):
    """``view`` whose plate model is ``values`` (Lab, one per 1 px ring
    from the centre, the last repeated), plus noise off the rings."""
    rings = np.minimum(np.rint(view.radius_px).astype(np.intp), len(values) - 1)
    background = np.asarray(values, np.float32)[rings]
    if noise:
        background = background + np.random.default_rng(seed).normal(0, noise, background.shape).astype(np.float32)
    return dataclasses.replace(view, background=np.ascontiguousarray(background, np.float32))


@pytest.mark.parametrize("seed", range(6))
def test_mask_is_the_old_one_on_many_lines(seed):
    view, token_r = _view(*SCENES[0])
    rng = np.random.default_rng(seed)
    n = 240
    values = np.tile([80.0, 2.0, 5.0], (n, 1)) + rng.normal(0, 0.5, (n, 3))
    for r in rng.choice(n, 12, replace=False):  # lines anywhere, some at the reach's end and beyond
        values[r:r + rng.integers(1, 5)] += rng.normal(0, 9.0, 3)
    values[[117, 118, 119, 120, 121, 131, 136, 140, 150]] += [12.0, -3.0, 4.0]
    lines_view = _with_profile(view, values, noise=float(rng.uniform(0, 3)), seed=seed)
    for token_r_ in (token_r, 3.0, 9, 40.0, 400.0):
        _assert_same(lines_view, token_r_, peaks=((160, 160), (40, 40), (300, 200)))


def test_a_radius_grid_of_its_own_gives_the_same_mask():
    view, token_r = _view(*SCENES[0])
    own = dataclasses.replace(view, radius_px=view.radius_px.copy())  # writable: not the geometry's, not cached
    assert np.array_equal(painted_line_mask(own, token_r), _old_painted_line_mask(own, token_r))
    shifted = dataclasses.replace(view, radius_px=(view.radius_px * 0.9 + 3.3).astype(np.float32))
    _assert_same(shifted, token_r)


def test_no_ring_within_the_reach_is_an_empty_mask():
    view, _ = _view(*SCENES[0])
    far = dataclasses.replace(view, radius_px=(view.radius_px + 500.0).astype(np.float32))
    for v, r in ((far, 12.0), (dataclasses.replace(view, plate_radius_px=0.5), 0.01)):
        got = painted_line_mask(v, r)
        assert got.shape == (320, 320) and not got.any()
        assert not PaintedLines(v, r).any() and PaintedLines(v, r).mask((0, 0, 0, 0)).shape == (0, 0)
        assert np.array_equal(got, _old_painted_line_mask(v, r))


def test_an_empty_box_is_an_empty_mask():
    view, token_r = _view(*SCENES[0])
    lines = PaintedLines(view, token_r)
    assert lines.any()
    for box, shape in (((0, 0, 0, 320), (0, 320)), ((10, 200, 7, 7), (190, 0)), ((320, 320, 320, 320), (0, 0))):
        got = lines.mask(box)
        assert got.shape == shape and got.dtype == bool


BAD_BOXES = [(-1, 10, 0, 10), (0, 321, 0, 10), (0, 10, 5, 4), (10, 5, 0, 10), (0, 10.0, 0, 10), ("0", 10, 0, 10),
             (0, 10, 0), (0, 10, 0, 10, 0), (0, 10, 0, 321)]


@pytest.mark.parametrize("box", BAD_BOXES)
def test_bad_box(box):
    view, token_r = _view(*SCENES[0])
    with pytest.raises(ValueError):
        painted_line_mask(view, token_r, box)


@pytest.mark.parametrize("bad", [math.nan, -1.0])
def test_bad_radius_grid(bad):
    """A radius grid no canonical view has (a NaN or negative distance) is
    refused (the old mask raised on a negative one, inside np.bincount)."""
    view, token_r = _view(*SCENES[0])
    radius = view.radius_px.copy()
    radius[7, 9] = bad
    with pytest.raises(ValueError):
        painted_line_mask(dataclasses.replace(view, radius_px=radius), token_r)


@pytest.mark.parametrize("token_r", [0.0, -3.0, math.nan, math.inf, "12", None])
def test_painted_lines_bad_token_radius(token_r):
    view, _ = _view(*SCENES[0])
    with pytest.raises(ValueError):
        PaintedLines(view, token_r)


@pytest.mark.parametrize("seed, kind, size, decor", [(1261179, "five_tokens", (1280, 720), "rings"),
                                                     (1292351, "outcome", (1024, 768), "rings")])
def test_the_reader_judges_each_peak_as_with_the_whole_mask(monkeypatch, seed, kind, size, decor):
    """Every peak judged across a line (the reader's own calls): the answer
    with the mask painted around it is the answer with the whole old mask."""
    scene = render_scene(seed, kind, size=size, conditions={"plate_decor": decor})
    judged = []
    made = []
    real = outline_faces.PaintedLines

    class Recorded(real):
        def __init__(self, view, token_r):
            super().__init__(view, token_r)
            made.append(_old_painted_line_mask(view, token_r))

    def across(lightness, hidden, line, x, y, token_r, rule):
        got = outline_across_line(lightness, hidden, line, x, y, token_r, rule)
        assert got == outline_across_line(lightness, hidden, made[-1], x, y, token_r, rule)
        judged.append(got)
        return got

    monkeypatch.setattr(outline_faces, "PaintedLines", Recorded)
    monkeypatch.setattr(outline_faces, "outline_across_line", across)
    read_frame(scene.image)
    assert judged and made


def _cut_circle(seed=0, s=160, token_r=12.0):
    """A flat L* residual with a dark ring at (80, 80) and a line's light and
    dark bands along its right edge (as tests/test_painted_line_outline.py)."""
    import cv2
    rng = np.random.default_rng(seed)
    img = rng.normal(0.0, 0.3, (s, s)).astype(np.float32)
    cv2.circle(img, (80, 80), int(token_r), -6.0, thickness=2)
    img[:, 92:94] += 10.0
    img[:, 94:96] -= 10.0
    line = np.zeros((s, s), bool)
    line[:, 90:98] = True
    return img, line


@pytest.mark.parametrize("x, y", [(80, 80), (82, 79), (78, 83), (95, 80), (30, 30), (150, 150)])
@pytest.mark.parametrize("token_r", [12.0, 9.3, 15.55])
def test_outline_across_line_reads_the_line_only_in_its_window(x, y, token_r):
    """Line pixels outside :func:`across_line_window` change nothing (the
    answer, its contrast to the last bit included)."""
    img, line = _cut_circle()
    hidden = np.zeros(img.shape, bool)
    hidden[70:75, 60:64] = True
    y0, y1, x0, x1 = across_line_window(x, y, token_r, img.shape)
    inside = np.zeros(img.shape, bool)
    inside[y0:y1, x0:x1] = True
    rng = np.random.default_rng(int(x * 1000 + y))
    junk = (rng.random(img.shape) < 0.5) & ~inside
    want = outline_across_line(img, hidden, line, x, y, token_r, DEFAULT_OUTLINE_RULE)
    for other in (line & inside, (line & inside) | junk, line | junk):
        assert outline_across_line(img, hidden, other, x, y, token_r, DEFAULT_OUTLINE_RULE) == want
