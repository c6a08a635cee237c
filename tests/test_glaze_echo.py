"""vision.reader.decide: a faint white of the glaze's own colour, found again round its ring, stops an outcome.

Scene 809675 (natural mix, 640x480; three reds on a gold plate under
5,007 K, a reshake): the disc filter found a patch of the plate beside a
broad specular highlight near the well's edge, 4 L darker than the plate and
yellower (b* 52 against 43), read it white and completed a count of four.  A
white token on white porcelain under warm light is as coloured (darker and
yellower than the plate), so colour alone does not tell them; but a token is
one place, and the patch's difference from the plate recurs round the same
ring of the well (``GLAZE_ECHO_MIN_RING_SHARE``), where no true white face's
did (76 of 1,527 faint true whites as dark and as much of the plate's
colour: 75 at ring share 0, one at 0.088).

Checklist: real pixels (the scene; the rule shown to be what stops it), and
a right outcome whose faint ivory white on white porcelain under warm light
is judged by the colour test and keeps its outcome.
"""
from __future__ import annotations

import math

import numpy as np

from vision import reader
from vision.reader import read_frame
from vision.synth import render_scene

GLAZE_ECHO = "a white face found faintly is darker than the plate and of the glaze's own colour"


def _faces_judged_by_colour(monkeypatch, scene):
    """The reading of ``scene`` and its white faces that the rule's colour test
    judges (faint, darker than the plate, of the plate's colour)."""
    seen: list = []
    orig = reader._glaze_echoes

    def spy(view, cands, faces, face_r):
        for c, f in zip(cands, faces):
            if f is None or f.face != "white" or c.found_by == "blob" or f.delta_l >= 0:
                continue
            plate = np.array([f.plate_a_star, f.plate_b_star])
            diff = np.array([f.a_star, f.b_star]) - plate
            if (np.linalg.norm(plate) >= reader.GLAZE_ECHO_MIN_PLATE_CHROMA_LAB
                    and plate @ diff >= reader.GLAZE_ECHO_MIN_COSINE * np.linalg.norm(plate) * np.linalg.norm(diff)):
                seen.append(f)
        return orig(view, cands, faces, face_r)

    monkeypatch.setattr(reader, "_glaze_echoes", spy)
    got = read_frame(scene.image)
    monkeypatch.setattr(reader, "_glaze_echoes", orig)
    return got, seen


def test_patch_of_gold_glaze_is_not_read_as_a_white_face(monkeypatch):
    scene = render_scene(809675, None, size=(640, 480))
    assert scene.label["kind"] == "three_tokens" and scene.label["verdict"] == "reshake"
    assert scene.label["conditions"]["glaze"] == "gold"
    got = read_frame(scene.image)
    assert got.verdict == "uncertain" and got.reason.startswith(GLAZE_ECHO), got.reason
    share = float(got.reason.split("recurs on ")[1].split("%")[0]) / 100
    assert share >= reader.GLAZE_ECHO_MIN_RING_SHARE
    # the white face judged is no token: over two token radii from every true one
    white = next(t for t in got.tokens if t.face == "white")
    assert all(math.hypot(white.x - t["x"], white.y - t["y"]) > 2 * t["radius"] for t in scene.label["tokens"])
    # the rule is what stops it: without it, the wrong outcome
    monkeypatch.setattr(reader, "GLAZE_ECHO_UNCERTAIN", False)
    off = read_frame(scene.image)
    assert (off.verdict, off.red) == ("outcome", 3), off.reason


def test_faint_ivory_white_on_warm_porcelain_keeps_its_outcome(monkeypatch):
    """Forced four flat tokens 1221783 (640x480, white porcelain, ivory whites,
    3,492 K; the ``--condition glaze=white_porcelain,gold,cream
    --condition white_style=ivory,warm --condition kelvin=2700:4000`` A/B set):
    its faint ivory whites are 5-7 L darker than the plate and 6-9 b* yellower,
    along the plate's own colour, as the case's patch is; none recurs round its
    ring, and the outcome stands."""
    conditions = {"glaze": "white_porcelain", "white_style": "ivory", "kelvin": 3492.4723}
    scene = render_scene(1221783, "outcome", size=(640, 480), conditions=conditions)
    got, judged = _faces_judged_by_colour(monkeypatch, scene)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
    # the colour test alone would stop it: a white face darker than the plate and of its colour
    assert judged, "the white face is not judged by the colour test: the case shows nothing"
    monkeypatch.setattr(reader, "GLAZE_ECHO_MIN_RING_SHARE", 0.0)
    assert read_frame(scene.image).reason.startswith(GLAZE_ECHO)
