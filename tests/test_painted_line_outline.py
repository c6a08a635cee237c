"""A pale face whose edge runs along a painted line of the plate stops an outcome.

Fresh scene 1261179 (five tokens, 1280x720, white porcelain with a painted
red ring at 0.758 of the plate radius, grey white faces) was read as four
reds (a wrong outcome).  The fifth, white face lies 0.622 of the plate
radius out, its edge on the painted line.  The ring model follows the line
only to a ring bin, so the residual keeps it as a light and a dark band of
about 10 L each; across the face's outline there, 2 of 16 sectors read the
band instead of the face's dark edge (14 of 16, 6.2 L).  Its circle reaches
past ``FAINT_SEARCH_RADIUS_FRAC`` (where an uneven arc is no suspect) and no
outline was counted (an arc's floor), so it was dropped.  With the line's
pixels left out (:func:`vision.painted_lines.outline_across_line`, the line
from :func:`vision.painted_lines.painted_line_mask`) the circle closes (16
of 16) and is a suspect: ``outline_faces.PAINTED_LINE_OUTLINE_SUSPECT``.

Checklist: drawn residuals (a circle cut by a line's bands closes without
them; an arc does not; a circle with no line near it is not judged), the
line found in real plate models (a painted ring; none on a plain plate),
real pixels (the scene abstains, and reads the wrong outcome with the rule
switched off), a right outcome on a painted plate where the rule looked,
and bad inputs.
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import outline_faces
from vision.canonical import make_canonical_view
from vision.outline import DEFAULT_OUTLINE_RULE, outline_support
from vision.painted_lines import outline_across_line, painted_line_mask
from vision.plate import find_plate
from vision.reader import read_frame, search_tokens
from vision.synth import render_scene

S = 160
TOKEN_R = 12.0


def _cut_circle(arc: bool = False, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A flat L* residual (noise 0.3 L) with a dark ring (2 px, 6 L) at
    (80, 80), whole or a quarter arc, and a line's light and dark bands
    (+10, -10 L, 2 px each) along its right edge; and the line's mask."""
    rng = np.random.default_rng(seed)
    img = rng.normal(0.0, 0.3, (S, S)).astype(np.float32)
    if arc:
        cv2.ellipse(img, (80, 80), (int(TOKEN_R), int(TOKEN_R)), 0, 200, 290, -6.0, thickness=2)
    else:
        cv2.circle(img, (80, 80), int(TOKEN_R), -6.0, thickness=2)
    img[:, 92:94] += 10.0
    img[:, 94:96] -= 10.0
    line = np.zeros((S, S), bool)
    line[:, 90:98] = True
    return img, line


def test_a_circle_cut_by_a_line_closes_without_it():
    img, line = _cut_circle()
    hidden = np.zeros((S, S), bool)
    # as measured, the line's bands break the circle on its right
    assert all(outline_support(img, 80, 80, f * TOKEN_R)[0] < DEFAULT_OUTLINE_RULE.min_sectors
               for f in (0.9, 1.0, 1.1))
    got = outline_across_line(img, hidden, line, 80, 80, TOKEN_R, DEFAULT_OUTLINE_RULE)
    assert got is not None and got[:2] == (80, 80), got
    # from a peak a pixel or two off the face's centre too
    assert outline_across_line(img, hidden, line, 82, 79, TOKEN_R, DEFAULT_OUTLINE_RULE) is not None


def test_an_arc_by_a_line_does_not_close():
    img, line = _cut_circle(arc=True)
    assert outline_across_line(img, np.zeros((S, S), bool), line, 80, 80, TOKEN_R, DEFAULT_OUTLINE_RULE) is None


def test_no_line_near_the_circle_is_not_judged():
    img, _ = _cut_circle()
    far = np.zeros((S, S), bool)
    far[:, 150:] = True  # a line, but beyond what the circle's test reads
    assert outline_across_line(img, np.zeros((S, S), bool), far, 80, 80, TOKEN_R, DEFAULT_OUTLINE_RULE) is None


def _view(seed, kind, size, conditions):
    scene = render_scene(seed, kind, size=size, conditions=conditions)
    plate = find_plate(scene.image)
    view, search = search_tokens(make_canonical_view(scene.image, plate.ellipse, plate.halved))
    return scene, view, search


def test_painted_ring_is_found_in_the_plate_model():
    scene, view, search = _view(1261179, "five_tokens", (1280, 720),
                                {"plate_decor": "rings"})
    mask = painted_line_mask(view, search.token_radius_px)
    rings = np.unique(np.rint(view.radius_px[mask] / view.plate_radius_px * 1000))
    assert mask.any()
    painted = scene.label["decor"]["rings_R"][0]
    # every ring marked lies on the painted one (its width and the margin)
    assert np.all(np.abs(rings / 1000 - painted) <= 0.05), rings


def test_a_plain_plate_has_no_painted_line():
    _, view, search = _view(1261179, "five_tokens", (1280, 720),
                            {"plate_decor": "plain"})
    assert not painted_line_mask(view, search.token_radius_px).any()


def _design_scene():
    # the sweep's conditions (scripts/synth_table.py --condition
    # plate_decor=speckle,rings,motif) drew rings for this seed
    return render_scene(1261179, "five_tokens", size=(1280, 720), conditions={"plate_decor": "rings"})


def test_a_fifth_face_along_a_painted_ring_stops_an_outcome(monkeypatch):
    scene = _design_scene()
    assert scene.label["kind"] == "five_tokens" and scene.label["decor"]["rings_R"] == [pytest.approx(0.7576,
                                                                                                      abs=1e-3)]
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "fifth token" in got.reason, got.reason
    # the rule is what stops it: without it, the wrong outcome
    monkeypatch.setattr(outline_faces, "PAINTED_LINE_OUTLINE_SUSPECT", False)
    assert read_frame(scene.image).verdict == "outcome"


@pytest.mark.parametrize("token_r", [0.0, -3.0, math.nan, math.inf, "12"])
def test_painted_line_mask_bad_token_radius(token_r):
    _, view, _ = _view(1261179, "five_tokens", (640, 480), {"plate_decor": "rings"})
    with pytest.raises(ValueError):
        painted_line_mask(view, token_r)


BAD_ACROSS = [
    # lightness, hidden, line, token_r
    (np.zeros((S,), np.float32), np.zeros((S,), bool), np.zeros((S,), bool), TOKEN_R),
    (np.zeros((S, S), np.float32), np.zeros((S, S - 1), bool), np.zeros((S, S), bool), TOKEN_R),
    (np.zeros((S, S), np.float32), np.zeros((S, S), bool), np.zeros((S, 8), bool), TOKEN_R),
    (np.zeros((S, S), np.float32), np.zeros((S, S), np.uint8), np.zeros((S, S), bool), TOKEN_R),
    (np.zeros((S, S), np.float32), np.zeros((S, S), bool), np.zeros((S, S), np.float32), TOKEN_R),
    (np.zeros((S, S), np.float32), np.zeros((S, S), bool), np.zeros((S, S), bool), 2.0),
    (np.zeros((S, S), np.float32), np.zeros((S, S), bool), np.zeros((S, S), bool), math.nan),
]


@pytest.mark.parametrize("lightness, hidden, line, token_r", BAD_ACROSS)
def test_outline_across_line_bad_input(lightness, hidden, line, token_r):
    with pytest.raises(ValueError):
        outline_across_line(lightness, hidden, line, 80, 80, token_r, DEFAULT_OUTLINE_RULE)


def test_four_flat_tokens_on_a_painted_ring_still_read(monkeypatch):
    """The rule's reach: a right outcome on painted rings (fresh scene 1292351,
    1024x768, four whites) where six outline peaks were judged across the
    line, none closing, still reads its outcome."""
    scene = render_scene(1292351, "outcome", size=(1024, 768), conditions={"plate_decor": "rings"})
    calls = []

    def counted(*args, **kwargs):
        got = outline_across_line(*args, **kwargs)
        calls.append(got)
        return got

    monkeypatch.setattr(outline_faces, "outline_across_line", counted)
    got = read_frame(scene.image)
    assert calls and all(c is None for c in calls), calls
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
