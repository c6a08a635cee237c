"""Where the plate is near the sensor's ceiling, a fainter face still counts as evidence.

Fresh scene 78102 (640x480, five white faces on an over-exposed pale-blue
plate): the four counted faces measured 10.9-16.7 Lab where the plate is
L* 87-92; the fifth lay on the plate's highlight, L* 97.8, where a white face
can be at most 2.2 L lighter than the plate, and measured 4.2 Lab, under the
floor relative to the faint faces (0.4 of 10.9): the reader read four whites.
That floor is now taken of the plate's room below the ceiling
(``LIGHTNESS_CEILING_L``) where that is less than the faintest face.

Checklist: constructed views (a fifth face under the relative floor is left
out on a plate with room, a suspect on a plate at the ceiling, and left out
again with the rule off), real pixels (78102 with the rule on and off).
"""
from __future__ import annotations

import math

import cv2
import numpy as np

from test_all_faint_floor import FIFTH, FOUR, _near_fifth
from test_faces_by_the_wall import R, _at, faces_at, view_with
from vision import exposure, faint_extra, tokens
from vision.canonical import CanonicalView
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import find_tokens

#: the fifth face: 3 Lab from the plate, under 0.4 of the faint faces (8.7 Lab)
FAINTER_FIFTH = (1.2, 0.0, -2.8)
#: the plate's lightness around the fifth face when it lies on a highlight
HIGHLIGHT_L = 98.5


def view_of(on_highlight: bool) -> CanonicalView:
    """Four faint pale faces on a cream plate (L* 80) and a fainter fifth; with
    ``on_highlight`` the plate is ``HIGHLIGHT_L`` light within two token radii
    of the fifth (the residual is the same)."""
    base = view_with(faces_at(*FOUR))
    res = base.residual.copy()
    fifth = cv2.GaussianBlur(faces_at(FIFTH).astype(np.float32), (0, 0), 1.0)
    res += fifth[..., None] * np.asarray(FAINTER_FIFTH, np.float32)
    background = base.background.copy()
    if on_highlight:
        fx, fy = _at(*FIFTH)
        rr, cc = np.mgrid[:res.shape[0], :res.shape[1]]
        background[np.hypot(cc - fx, rr - fy) < 2.0 * 0.11 * R, 0] = HIGHLIGHT_L
    return CanonicalView(bgr=base.bgr, lab=background + res, background=background, residual=res,
                         delta_e=np.sqrt((res ** 2).sum(axis=2)).astype(np.float32), radius_px=base.radius_px,
                         to_canonical=base.to_canonical, plate_radius_px=base.plate_radius_px)


def test_the_fifth_is_under_the_relative_floor():
    found = find_tokens(view_of(on_highlight=False))
    assert [c.kind for c in found.candidates] == ["faint"] * 4
    weakest = min(c.contrast for c in found.candidates)
    assert tokens.SUSPECT_MIN_CONTRAST_ALL_FAINT < math.hypot(*FAINTER_FIFTH)
    assert math.hypot(*FAINTER_FIFTH) < tokens.SUSPECT_REL_CONTRAST_ALL_FAINT * weakest
    assert tokens.LIGHTNESS_CEILING_L - HIGHLIGHT_L < weakest


def test_on_a_plate_with_room_the_relative_floor_holds():
    assert not _near_fifth(find_tokens(view_of(on_highlight=False)).suspects)


def test_at_the_ceiling_the_fifth_is_a_suspect(monkeypatch):
    assert _near_fifth(find_tokens(view_of(on_highlight=True)).suspects)
    monkeypatch.setattr(tokens, "LIGHTNESS_CEILING_L", math.inf)
    assert not _near_fifth(find_tokens(view_of(on_highlight=True)).suspects)


def test_scene_78102_is_not_read_as_four_whites(monkeypatch, size_by_scan_alone, washed_out_rule_off):
    # (its whites are at the ceiling in red, which stops the outcome too: that rule off here)
    scene = render_scene(78102, size=(640, 480))
    assert scene.label["kind"] == "five_tokens"
    assert all(t["face"] == "white" for t in scene.label["tokens"])
    # sized by its faint faces (tenth round) all five are found; the fifth, faint and far paler than the
    # four on their darker plate, is one the false-fifth rule (vision.faint_extra) asks to check
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "far paler than the other four" in got.reason, got.reason
    # that rule off (it judges counts above four), the right reshake, as this rule was found
    monkeypatch.setattr(faint_extra, "FAINT_EXTRA_UNCERTAIN", False)
    assert read_frame(scene.image).verdict == "reshake"
    size_by_scan_alone()  # as the rule was found
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and "more disc-like evidence" in got.reason, got.reason
    monkeypatch.setattr(tokens, "LIGHTNESS_CEILING_L", math.inf)
    # (its plate is also at the ceiling in two channels, which stops it too: that rule off here)
    monkeypatch.setattr(exposure, "SATURATED_MIN_CHANNELS", 3)
    got = read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", 0)
