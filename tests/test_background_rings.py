"""vision.canonical: a ring that tokens fill more than half of takes its plate pixels' level.

The background model is one median per ring around the plate's centre.  Four
tokens side by side near the centre can cover more than half of a ring; its
median is then a token's colour, and the bare plate in that ring differs from
the model like a ring of the opposite colour.

Checklist: known values on a drawn plate (four red discs on a ring) and on
single rings (each branch of the rule), the empty case (a bare plate:
nothing replaced), and the drawn frames read end to end by the reader.
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import canonical as C
from vision.reader import read_frame
from vision.types import Ellipse

PLATE_BGR = (212, 218, 224)
RED_BGR = (45, 40, 185)
CLOTH_BGR = (40, 90, 30)
W, H = 1280, 720
CX, CY, RADIUS_PX = 640.0, 360.0, 300.0


def drawn_frame(ring_frac: float, token_frac: float, n_tokens: int) -> np.ndarray:
    """A flat plate with ``n_tokens`` red discs (radius ``token_frac`` of the
    plate's) evenly spaced on the circle of ``ring_frac`` plate radii."""
    frame = np.full((H, W, 3), CLOTH_BGR, np.uint8)
    cv2.circle(frame, (int(CX), int(CY)), int(RADIUS_PX), PLATE_BGR, thickness=-1, lineType=cv2.LINE_AA)
    for k in range(n_tokens):
        t = 2 * math.pi * k / n_tokens + 0.3
        centre = (int(round(CX + ring_frac * RADIUS_PX * math.cos(t))),
                  int(round(CY + ring_frac * RADIUS_PX * math.sin(t))))
        cv2.circle(frame, centre, int(round(token_frac * RADIUS_PX)), RED_BGR, thickness=-1, lineType=cv2.LINE_AA)
    return frame


def plate_between_tokens(view: C.CanonicalView, ring_frac: float, token_frac: float) -> np.ndarray:
    """Plate pixels of the rings the tokens cross that lie clear of every token (bool mask)."""
    r = view.radius_px / view.plate_radius_px
    band = np.abs(r - ring_frac) < 0.5 * token_frac
    clear = view.lab[..., 1] < 20  # a* of the plate ~0, of the red discs ~50
    return band & cv2.erode(clear.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool)


PLATE = Ellipse(CX, CY, RADIUS_PX, RADIUS_PX, 0.0)


def test_rings_filled_by_tokens_take_the_plate_level():
    # four discs of 0.17 R on the circle of 0.36 R cover ~60 % of the rings through their centres
    view = C.make_canonical_view(drawn_frame(0.36, 0.17, 4), PLATE)
    sel = plate_between_tokens(view, 0.36, 0.17)
    assert sel.sum() > 500
    # the plate there is the plate: without the rule it differs by a red face's contrast (~50)
    assert np.percentile(view.delta_e[sel], 99) < 3.0
    # and the red discs keep their full contrast
    r = view.radius_px / view.plate_radius_px
    red = (view.lab[..., 1] > 40) & (np.abs(r - 0.36) < 0.05)
    assert red.sum() > 500 and np.median(view.delta_e[red]) > 40


def first_profile(view: C.CanonicalView) -> np.ndarray:
    """The per-ring medians before the rule (what the background was built from, less the rule's changes)."""
    geo = C._canvas_geometry(C.CANVAS_PX)
    return np.stack([np.median(view.lab.reshape(-1, 3)[geo.ring_pixels[i]], axis=0) for i in range(geo.n_bins)])


def test_rings_covered_less_than_half_keep_their_own_median():
    view = C.make_canonical_view(drawn_frame(0.5, 0.12, 4), PLATE)  # ~31 % of the rings through the centres
    geo = C._canvas_geometry(C.CANVAS_PX)
    assert C._levels_where_tokens_dominate(view.lab, first_profile(view), geo) is None
    sel = plate_between_tokens(view, 0.5, 0.12)
    assert np.percentile(view.delta_e[sel], 99) < 3.0


def test_bare_plate_replaces_nothing():
    view = C.make_canonical_view(drawn_frame(0.4, 0.1, 0), PLATE)
    geo = C._canvas_geometry(C.CANVAS_PX)
    assert C._levels_where_tokens_dominate(view.lab, first_profile(view), geo) is None
    inside = view.radius_px < 0.9 * view.plate_radius_px
    assert view.delta_e[inside].max() < 2.0


def ring_lab(colours: list[tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """A canvas Lab image whose every ring inside the tracked radius is the plate
    (L 80), except ring 30: ``colours`` as (share of its pixels, L)."""
    geo = C._canvas_geometry(C.CANVAS_PX)
    lab = np.zeros((C.CANVAS_PX, C.CANVAS_PX, 3), np.float32)
    lab.reshape(-1, 3)[:, 0] = 80.0
    pixels = geo.ring_pixels[30]
    start = 0
    for share, lightness in colours:
        n = int(round(share * pixels.size))
        lab.reshape(-1, 3)[pixels[start:start + n], 0] = lightness
        start += n
    profile = np.stack([np.median(lab.reshape(-1, 3)[geo.ring_pixels[i]], axis=0) for i in range(geo.n_bins)])
    return lab, profile


@pytest.mark.parametrize("colours, want_l", [
    # 70 % token (L 40), 30 % plate: the ring's median is the token's; it takes the plate's
    ([(0.7, 40.0), (0.3, 80.0)], 80.0),
    # 80 % token: the plate's 20 % is below BACKGROUND_MIN_PLATE_SHARE: a ring of its own colour
    ([(0.8, 40.0), (0.2, 80.0)], 40.0),
    # a glaze line: the whole ring darker; kept as measured
    ([(1.0, 60.0)], 60.0),
    # within BACKGROUND_MAX_DELTA_E of the level: the plate's own shading, kept
    ([(0.7, 70.0), (0.3, 80.0)], 70.0),
])
def test_known_rings(colours, want_l):
    geo = C._canvas_geometry(C.CANVAS_PX)
    lab, profile = ring_lab(colours)
    out = C._levels_where_tokens_dominate(lab, profile, geo)
    got = profile if out is None else out
    assert got[30, 0] == pytest.approx(want_l)
    others = np.arange(geo.n_bins) != 30
    np.testing.assert_array_equal(got[others], profile[others])


@pytest.mark.parametrize("ring_frac, token_frac", [(0.3, 0.15), (0.35, 0.16), (0.36, 0.17), (0.4, 0.18)])
def test_four_tokens_filling_rings_read_end_to_end(ring_frac, token_frac):
    """Real pixels through the whole reader: four red discs side by side on a
    ring were read "covered" or "something larger than a token" while the
    model took the rings they fill for the plate (the label is how the
    frame was drawn: four red faces)."""
    reading = read_frame(drawn_frame(ring_frac, token_frac, 4))
    assert reading.verdict == "outcome", reading.reason
    assert (reading.red, reading.white) == (4, 0)
