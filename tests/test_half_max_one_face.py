"""vision.blobshape.half_max_radius: the token radius is one face's, not a touching pair's.

The token radius is measured on the clear discs, each cut at half its own
peak.  On a noisy plate the blob threshold can lie above that half peak
(black lacquer: 46.2 Lab), and a face touching the clear one, fainter than
the threshold but above half the clear face's peak, joins its region there:
fresh scene 1374880 at 800x600 (five tokens, the fifth, dark red, touching
the only white face) measured 21.3 px on the white's blob of 14.0 px (true
face 15.2), every face was judged at 1.4 times its size, the fifth taken for
the white's own wall, and four read as an outcome (3 red 1 white).  A region
as long as two faces is not one face's disc (``HALF_MAX_MIN_AXIS_RATIO``):
the blob's own size is used.

Checklist: known values on drawn blobs (one face alone measures its radius;
a face touching a fainter one above its half peak measures one face, and two
without the rule), and real pixels (1374880 not an outcome, its radius within
10% of the true one; an outcome of four without the rule).
"""
from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision import reader
from vision import blobshape
from vision.blobshape import half_max_radius
from vision.reader import read_frame, search_tokens
from vision.canonical import make_canonical_view
from vision.plate import find_plate
from vision.synth import render_scene

R = 15.0
S = 200
FLOOR = 46.0  # the blob threshold, above half the clear face's peak


def drawn(discs: list[tuple[float, float, float]]) -> tuple[np.ndarray, np.ndarray]:
    """A delta-E canvas of discs (x, y, contrast) of radius R, softly blurred,
    and the blob above FLOOR holding the first disc's centre."""
    de = np.zeros((S, S), np.float32)
    for x, y, contrast in discs:
        cv2.circle(de, (int(round(x)), int(round(y))), int(R), float(contrast), -1)
    de = cv2.GaussianBlur(de, (0, 0), 1.5)
    n, labels = cv2.connectedComponents((de > FLOOR).astype(np.uint8), connectivity=8)
    x0, y0 = discs[0][:2]
    return de, labels == labels[int(y0), int(x0)]


def test_one_face_alone_measures_its_radius():
    de, blob = drawn([(100, 100, 72.0)])
    assert half_max_radius(de, blob) == pytest.approx(R, rel=0.1)


def test_face_touching_a_fainter_one_measures_one_face(monkeypatch):
    # the clear face (peak 72, half 36) touches a face of 44: under FLOOR,
    # over the half peak
    discs = [(100, 100, 72.0), (100 + 2 * R - 1, 100, 44.0)]
    de, blob = drawn(discs)
    assert half_max_radius(de, blob) <= 1.1 * R
    monkeypatch.setattr(blobshape, "HALF_MAX_ONE_FACE", False)
    assert half_max_radius(de, blob) >= 1.2 * R  # the pair's region, as before


SCENE = dict(seed=1374880, kind="five_tokens", size=(800, 600),
             conditions={"fifth_place": "touching", "plate_decor": "rings"})


@pytest.fixture(scope="module")
def scene():
    return render_scene(**SCENE)


def _radius(scene) -> tuple[float, float]:
    plate = find_plate(scene.image)
    view = make_canonical_view(scene.image, plate.ellipse, plate.halved)
    _, search = search_tokens(view)
    return search.token_radius_px, scene.label["token_radius_frac"] * view.plate_radius_px


def test_touching_fifth_on_black_lacquer_is_no_outcome(scene):
    measured, true = _radius(scene)
    assert search_radius_ok(measured, true)
    reading = read_frame(scene.image)
    assert reading.verdict != "outcome", reading.reason


def search_radius_ok(measured: float, true: float) -> bool:
    return abs(measured - true) <= 0.1 * true


def test_touching_fifth_without_the_rule_reads_four(scene, monkeypatch):
    monkeypatch.setattr(blobshape, "HALF_MAX_ONE_FACE", False)
    # (BLIND_BLOB_SEARCH_UNCERTAIN, its faces under the blob search's threshold, stops it too: off here)
    monkeypatch.setattr(reader, "BLIND_BLOB_SEARCH_UNCERTAIN", False)
    measured, true = _radius(scene)
    assert measured >= 1.3 * true
    assert read_frame(scene.image).verdict == "outcome"
