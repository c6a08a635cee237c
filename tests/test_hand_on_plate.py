"""A hand lying on the plate, over part of a face: never an outcome.

The case (twenty-fifth round): on black lacquer lit from one side, the
plate model leaves a wide ring of colour difference in the well, so the blob
search's threshold (``tokens.blob_threshold``: five robust standard
deviations of the plate's colour difference above its median) rises above
every face's contrast and above the hand's.  No blob is found at all; the
four faces are found by the disc filter alone, and the hand, which crosses
neither the rim nor the cloth, is seen by nothing.  ``reader.BLIND_BLOB_SEARCH_UNCERTAIN``:
such a frame is ``uncertain``.
"""
from __future__ import annotations

import json

import cv2
import pytest

from vision import read_frame
from vision import reader, tokens
from vision.canonical import make_canonical_view
from vision.plate import find_plate
from vision.reader import ReaderSettings, search_tokens
from vision.synth import render_scene

WOOD_LACQUER = {"glaze": "black_lacquer", "cloth": "wood"}


def _scene():
    return render_scene(1514331, "stick", size=(800, 600), conditions=WOOD_LACQUER)


def test_the_blob_search_is_blind_there():
    # what makes the case: measured, so a change to the plate model that
    # lowers the threshold shows here first (then the xfail below may pass)
    scene = _scene()
    assert scene.label["stick"]["mode"] == "hand" and scene.label["stick"]["covers_token"]
    plate = find_plate(scene.image)
    view = make_canonical_view(scene.image, plate.ellipse, plate.halved)
    flat, search = search_tokens(view, ReaderSettings())
    faces = search.candidates
    assert len(faces) == 4 and all(c.found_by == "disc_filter" for c in faces)
    assert tokens.blob_threshold(flat) > max(c.contrast for c in faces)


@pytest.mark.parametrize("seed, reason", [
    # 1514331: a hand wholly on the plate; the smooth plate model
    # (reader.SMOOTH_PLATE_MODEL) does not fit there either (the hand and a
    # sharp gloss spoil it), so the blind search's rule still judges it
    (1514331, "varies too much to see a hand"),
    # 1492046: a brown hand over the rim and a red face (its colour is not the
    # table's, so the hidden-rim rule does not see it); on the smooth plate
    # model the blob search sees the hand itself
    (1492046, "something larger than a token on the plate"),
])
def test_hand_on_the_plate_over_a_face_is_not_an_outcome(seed, reason, monkeypatch):
    scene = render_scene(seed, "stick", size=(800, 600), conditions=WOOD_LACQUER)
    assert scene.label["stick"]["mode"] == "hand" and scene.label["stick"]["covers_token"]
    # (1492046's red face is also notched toward a rim streak, FAINT_NOTCH_TO_RIM_UNCERTAIN: off here)
    monkeypatch.setattr(reader, "FAINT_NOTCH_TO_RIM_UNCERTAIN", False)
    # the hand is also a colour the plate does not have, joined to the red face
    # (reader.JOINED_COLOUR_UNCERTAIN, tests/test_joined_colour.py): it stops
    # both as well, on either plate model; off here, the rules this is about judged
    joined = read_frame(scene.image)
    assert joined.verdict == "uncertain", joined.reason
    monkeypatch.setattr(reader, "JOINED_COLOUR_UNCERTAIN", False)
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and reason in got.reason, got.reason
    monkeypatch.setattr(reader, "SMOOTH_PLATE_MODEL", False)
    rings = read_frame(scene.image)
    assert rings.verdict == "uncertain" and "varies too much to see a hand" in rings.reason, rings.reason
    monkeypatch.setattr(reader, "BLIND_BLOB_SEARCH_UNCERTAIN", False)
    before = read_frame(scene.image)
    assert before.verdict == "outcome", before.reason  # what it read before the rule
    monkeypatch.setattr(reader, "JOINED_COLOUR_UNCERTAIN", True)
    alone = read_frame(scene.image)  # the rings, without the blind search's rule
    assert alone.verdict == "uncertain" and "a colour the plate does not have" in alone.reason, alone.reason


def test_the_same_scene_without_the_hand_keeps_its_outcome():
    # 1492046's table without the hand: the plate model fits well enough that
    # the blob search sees the faces
    scene = render_scene(1492046, "outcome", size=(800, 600), conditions=WOOD_LACQUER)
    got = read_frame(scene.image)
    assert got.verdict == "outcome" and got.red == scene.label["red"], got.reason


def test_faint_faces_on_a_plate_the_model_fits_keep_their_outcome(studio_dir):
    # studio 1's four white faces on a pale plate: every face under the blob
    # threshold, but the threshold is its floor, BLOB_MIN_DELTA_E (the plate
    # model fits, and a hand would show as a blob): the rule leaves them
    path = studio_dir / "s1_002_outcome.jpg"
    label = json.loads(path.with_suffix(".json").read_text())
    frame = cv2.imread(str(path))
    plate = find_plate(frame)
    flat, search = search_tokens(make_canonical_view(frame, plate.ellipse, plate.halved), ReaderSettings())
    assert tokens.blob_threshold(flat) == tokens.BLOB_MIN_DELTA_E
    assert max(c.contrast for c in search.candidates) < tokens.BLOB_MIN_DELTA_E
    got = read_frame(frame)
    assert got.verdict == "outcome" and got.red == label["red"], got.reason


def test_four_dark_reds_the_blob_search_cannot_see_are_not_read(monkeypatch):
    # found by the rule's own A/B: four dark reds on black lacquer, every face
    # under the blob threshold, read as four whites before the rule
    scene = render_scene(1530088, "outcome", size=(800, 600), conditions={"glaze": "black_lacquer"})
    assert scene.label["red"] == 4
    # on the smooth plate model (threshold 19.7 Lab, within
    # SMOOTH_PLATE_MAX_THRESHOLD_LAB) the faces are seen against the plate
    # beside them, 14-17 a* redder: neither clearly red nor white, and an arc
    # of the well's wall is an object; either way no outcome
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    monkeypatch.setattr(reader, "SMOOTH_PLATE_MODEL", False)
    rings = read_frame(scene.image)
    assert rings.verdict == "uncertain" and "varies too much" in rings.reason, rings.reason
    monkeypatch.setattr(reader, "BLIND_BLOB_SEARCH_UNCERTAIN", False)
    before = read_frame(scene.image)
    assert before.verdict == "outcome" and before.red != 4, before.reason  # the wrong outcome it read
