"""Pale faces on a pale plate whose outline is uneven (lit from one side).

A white token on a white plate lit from one side shows a dark shadow arc on
one side and a pale rim on the other: its outline is closed but uneven.  The
token search counts such an outline when the face inside it differs from the
plate all round (``outline_faces.OUTLINE_FACED_MIN_SECTORS``), and reports a strong
open arc as a suspect once pale faces are counted by their outlines
(``outline_faces.OUTLINE_REL_ARC_CONTRAST``).

Checklist: known values on painted frames (counted with a face, not counted
without one, a fifth arc stops the outcome), real pixels (bundled studio
renders, a synthesized five-token scene).
"""
from __future__ import annotations

import json
import math

import cv2
import numpy as np
import pytest

import vision.count_check as count_check
import vision.outline_faces as outline_faces
import vision.tokens as tokens
import vision.reader as reader
from vision.io import load_image
from vision.reader import read_frame
from vision.synth import render_scene

PLATE_BGR = (222, 226, 228)
FACE_BGR = (216, 220, 222)       # a shade darker than the plate (about 2 L units)
SHADOW_BGR = (172, 176, 178)     # the shadow arc below the face
RIM_BGR = (236, 240, 242)        # the lit rim above it
CENTRES = [(540, 280), (740, 290), (560, 450), (730, 440), (640, 190)]


def side_lit_scene(n_white: int = 3, face_bgr=FACE_BGR, arc_only: tuple[int, ...] = (), seed: int = 3) -> np.ndarray:
    """One red token and ``n_white`` white ones on a white plate, BGR uint8 (720, 1280, 3).

    Each white token: a face ``face_bgr``, a dark arc on its lower side and a
    pale rim on its upper side; the ones listed in ``arc_only`` (indices into
    the white tokens) have the arcs but no face of their own.
    """
    img = np.zeros((720, 1280, 3), np.uint8)
    img[:] = (60, 120, 50)
    cv2.circle(img, (640, 360), 260, PLATE_BGR, -1)
    cv2.circle(img, CENTRES[0], 30, (40, 40, 200), -1, lineType=cv2.LINE_AA)
    for i, (x, y) in enumerate(CENTRES[1:1 + n_white]):
        if i not in arc_only:
            cv2.circle(img, (x, y), 30, face_bgr, -1, lineType=cv2.LINE_AA)
        cv2.ellipse(img, (x, y), (31, 31), 0, 20, 160, SHADOW_BGR, 3, lineType=cv2.LINE_AA)
        cv2.ellipse(img, (x, y), (30, 30), 0, 200, 340, RIM_BGR, 2, lineType=cv2.LINE_AA)
    rng = np.random.default_rng(seed)
    return np.clip(img.astype(np.float32) + rng.normal(0.0, 2.0, img.shape), 0, 255).astype(np.uint8)


def test_uneven_outline_with_a_pale_face_is_counted():
    reading = read_frame(side_lit_scene())
    assert reading.verdict == "outcome", reading.reason
    assert (reading.red, reading.white) == (1, 3)


def test_uneven_outline_alone_is_not_enough(monkeypatch):
    # the same frame without the face test: the shadow makes the outlines too
    # uneven for the outline rule, and the frame is not read
    monkeypatch.setattr(outline_faces, "OUTLINE_FACED_MIN_SECTORS", tokens.OUTLINE_SECTORS + 1)
    assert read_frame(side_lit_scene()).verdict != "outcome"


def test_arcs_without_a_face_are_not_tokens(monkeypatch):
    # shadow arcs and rims drawn where no face differs from the plate: only the red token counts
    # (the arcs stay disc-like evidence: one token counted beside them is a check by
    # hand, reader.FEWER_WITH_SUSPECT_UNCERTAIN; without that rule, a reshake on the count)
    reading = read_frame(side_lit_scene(face_bgr=PLATE_BGR))
    assert reading.verdict == "uncertain", reading.reason
    assert reading.reason.startswith("1 tokens found but more disc-like evidence"), reading.reason
    assert [t.face for t in reading.tokens] == ["red"]
    monkeypatch.setattr(reader, "FEWER_WITH_SUSPECT_UNCERTAIN", False)
    # (a count of one: since the thirtieth round a check by hand as well, vision.count_check)
    one = read_frame(side_lit_scene(face_bgr=PLATE_BGR))
    assert one.verdict == "uncertain" and one.reason.startswith("1 token(s) found, not 4"), one.reason
    monkeypatch.setattr(count_check, "IMPLAUSIBLE_COUNT_UNCERTAIN", False)
    assert read_frame(side_lit_scene(face_bgr=PLATE_BGR)).verdict == "reshake"


def test_a_fifth_pale_token_seen_only_by_its_arc_stops_the_outcome():
    # four tokens counted, a fifth shows only its shadow arc: never an outcome
    reading = read_frame(side_lit_scene(n_white=4, arc_only=(3,)))
    assert reading.verdict == "uncertain", reading.reason
    assert "fifth" in reading.reason
    # with its face as well it is counted: five tokens, a reshake
    assert read_frame(side_lit_scene(n_white=4)).verdict == "reshake"


def test_the_open_arc_rule_is_what_stops_it(monkeypatch):
    # without the open-arc suspect rule the same frame reads as four tokens:
    # the rule, not chance, stops the outcome above
    monkeypatch.setattr(outline_faces, "OUTLINE_REL_ARC_CONTRAST", math.inf)
    reading = read_frame(side_lit_scene(n_white=4, arc_only=(3,)))
    assert reading.verdict == "outcome" and (reading.red, reading.white) == (1, 3)


@pytest.mark.parametrize("name", ["s0_014_touching", "s0_023_outcome"])
def test_studio_white_on_white_read_right(samples_studio_dir, name):
    """Studio renders whose white tokens show a shadow arc on one side only."""
    label = json.loads((samples_studio_dir / f"{name}.json").read_text())
    reading = read_frame(load_image(samples_studio_dir / f"{name}.jpg"))
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == label["red"]


def test_five_white_tokens_one_seen_by_its_shadow_is_not_an_outcome():
    """Seed 6435: five white tokens on a white plate; four close their
    outlines, the fifth shows a strong open arc.  Read as four whites it
    would be a wrong outcome."""
    scene = render_scene(6435)
    assert scene.label["kind"] == "five_tokens"
    assert read_frame(scene.image).verdict != "outcome"
