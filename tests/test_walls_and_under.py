"""A faint face beside blobs: its own side wall, or a face partly under another.

A small dark crescent (``tokens._is_dark_crescent``) is a token's side wall
or shadow, not a token: the face beside it is measured without it, and it
must lie along the rim of a face counted (``tokens._on_rim``), else it stops
an outcome.  A coloured crescent is a face partly under a token (abstain).  A
disc-filter find closer to a blob than touching faces are, with contrast all
round and a face of its own, is a face partly under that blob; beside tokens
lighter than the plate, a find that is only dark (``_dark_not_coloured``) is
their shadow, not a face; on a plate darker than every clear face, any find
that is only dark is its shading (``_split_shading``).

Checklist: known values on constructed blobs (wall, coloured crescent, off
the rim, a solid blob, too large; dark and coloured differences; a dark find
beside lighter and beside darker tokens), real pixels (synthesized scenes
with dark-walled white tokens, shadows beside red tokens on a dark glaze, a
bundled studio overlap).
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from vision import overlap_reason, tokens
from vision.io import load_image
from vision.reader import read_frame
from vision.synth import render_scene
from vision.tokens import _Blob, _is_dark_crescent, _on_rim

from scene_truth import RAISED

S = 320
R_TOKEN = 15.0
FACE_AREA = math.pi * R_TOKEN ** 2
CX, CY = 160.0, 160.0


def crescent(dx: float = 0.0, inner: float = 0.9, outer: float = 1.25, half_angle_deg: float = 70.0) -> np.ndarray:
    """Bool (S, S): the band inner..outer token radii around (CX + dx, CY),
    within ``half_angle_deg`` of straight down."""
    yy, xx = np.mgrid[0:S, 0:S]
    d = np.hypot(xx - CX - dx, yy - CY) / R_TOKEN
    ang = np.degrees(np.arctan2(yy - CY, xx - CX - dx))  # 90 = straight down
    return (d >= inner) & (d <= outer) & (np.abs(ang - 90.0) <= half_angle_deg)


def blob(mask: np.ndarray, solidity: float) -> _Blob:
    rr, cc = np.nonzero(mask)
    return _Blob(x=float(cc.mean()), y=float(rr.mean()), area=float(mask.sum()), major=10.0, minor=4.0,
                 angle_deg=0.0, solidity=solidity, contrast=30.0, crosses_rim=False, mask=mask)


def residual(mask: np.ndarray, lab: tuple[float, float, float]) -> np.ndarray:
    res = np.zeros((S, S, 3), np.float32)
    res[mask] = lab
    return res


def _disc_mask(x: float, y: float) -> np.ndarray:
    yy, xx = np.mgrid[0:S, 0:S]
    return np.hypot(xx - x, yy - y) <= R_TOKEN


def is_wall(res: np.ndarray, b: _Blob) -> bool:
    return _is_dark_crescent(res, b, FACE_AREA) and _on_rim(b, CX, CY, R_TOKEN)


def test_dark_crescent_on_the_rim_is_a_wall():
    m = crescent()
    assert is_wall(residual(m, (-25.0, 2.0, 3.0)), blob(m, 0.45))


@pytest.mark.parametrize("case, lab, dx, solidity", [
    ("red crescent: a red face partly under", (-25.0, 30.0, 10.0), 0.0, 0.45),
    ("dark but coloured more than dark", (-20.0, 18.0, 12.0), 0.0, 0.45),
    ("pale crescent: a white face partly under", (6.0, 0.0, -4.0), 0.0, 0.45),
    ("barely darker than the plate", (-8.0, 0.0, 0.0), 0.0, 0.45),
    ("off this face's rim", (-25.0, 0.0, 0.0), 24.0, 0.45),
    ("solid, not a crescent", (-25.0, 0.0, 0.0), 0.0, 0.9),
])
def test_not_a_wall(case, lab, dx, solidity):
    m = crescent(dx=dx)
    assert not is_wall(residual(m, lab), blob(m, solidity)), case


def test_too_large_to_be_a_wall():
    m = crescent(inner=0.75, outer=1.4, half_angle_deg=179.0)  # a whole ring: more than 0.35 face areas
    assert m.sum() > 0.35 * FACE_AREA
    assert not is_wall(residual(m, (-25.0, 0.0, 0.0)), blob(m, 0.45))


@pytest.mark.parametrize("seed", [1022, 1040, 1052])
def test_white_tokens_with_dark_walls_are_read(seed):
    """Four separated tokens; the white ones show their dark side wall as a
    crescent, which used to be taken for a face partly hidden (rearrange) or
    for a token standing on edge (reshake)."""
    scene = render_scene(seed, "outcome")
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"]


def test_a_wall_arc_beyond_two_radii_is_read_with_its_face_hidden(monkeypatch):
    """Scene 1103 (camera tilted 30 degrees): one white face's wall arc lies
    2.1 face radii from its centre, just beyond the distance at which an arc
    is taken for that face's own, and it is dark on half its circle.  Once
    outlines were judged on their darker half (fresh scene 28115) it was a
    suspect, a known cost; an uneven outline near a kept token is now
    measured with that token hidden (test_shadow_of_kept.py), and the arc,
    the face's own, goes."""
    scene = render_scene(1103, "outcome")
    reading = read_frame(scene.image)
    assert (reading.verdict, reading.red) == ("outcome", scene.label["red"]), reading.reason
    monkeypatch.setattr(tokens, "KEPT_HIDE_RADII", 0.0)
    reading = read_frame(scene.image)
    assert reading.verdict == "uncertain" and "more disc-like evidence" in reading.reason, reading.reason


def test_studio_white_partly_under_red_is_a_rearrange(samples_studio_dir):
    """s1_005: a white token partly under a red one, its centre 1.8 token
    radii from the red one's; it was read as three tokens (reshake)."""
    label = json.loads((samples_studio_dir / "s1_005_overlap.json").read_text())
    assert label["verdict"] == "rearrange"
    reading = read_frame(load_image(samples_studio_dir / "s1_005_overlap.jpg"))
    assert reading.verdict == "rearrange", reading.reason


def test_a_wall_without_its_face_stops_the_outcome(monkeypatch):
    """Seed 1052 reads right with its wall; had the face beside the wall been
    missed, the wall would stand unexplained: never an outcome."""
    import vision.tokens as tokens
    scene = render_scene(1052, "outcome")
    monkeypatch.setattr(tokens, "WALL_FACE_KINDS", ())  # no face may carry a wall
    reading = read_frame(scene.image)
    assert reading.verdict == "uncertain", reading.reason
    assert "fifth" in reading.reason


@pytest.mark.parametrize("diff, expected", [
    ((-17.0, -0.3, 2.1), True),    # a shadow on a dark glaze
    ((-25.0, 8.0, 10.0), True),    # a shadow, a little warm
    ((-12.0, 0.0, 0.0), False),    # a white face in shade on a pale plate: not dark enough
    ((-40.0, 45.0, 20.0), False),  # a red face on a pale plate: coloured
    ((20.0, 40.0, 30.0), False),   # a red face on a dark plate: lighter
])
def test_dark_not_coloured(diff, expected):
    from vision.tokens import _dark_not_coloured
    assert _dark_not_coloured(np.array(diff, np.float32)) is expected


@pytest.mark.parametrize("seed, red", [(1097, 4), (1765, 3)])
def test_shadow_beside_a_token_is_not_a_face_partly_under_it(seed, red, monkeypatch):
    """Tuning seeds: the dark shadow between a red token and the well's wall
    (about 16 L darker than the glaze, no colour) was read as a face partly
    under that token (rearrange).  Two rules now see it (the local one in
    ``_partly_under`` and the frame-wide ``_split_shading``); the
    test shows the verdict with both and without either.  On 1765's black
    lacquer the shadow's colour difference is also the white face's turned
    round, so ``_drop_leans`` is switched off for the second reading (it is
    tested on this seed in tests/test_plate_leans.py)."""
    import vision.tokens as tokens
    scene = render_scene(seed, conditions=RAISED)
    assert scene.label["verdict"] == "outcome" and scene.label["red"] == red
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == red
    # both rules that judge such a dark find off: the local one in
    # _partly_under and the frame-wide one (_split_shading); either
    # alone reads these seeds
    monkeypatch.setattr(tokens, "_dark_not_coloured", lambda diff, min_dark_l=0.0: False)
    monkeypatch.setattr(tokens, "LEAN_KINDS", ())
    monkeypatch.setattr(overlap_reason, "EXTRA_FIND_UNCERTAIN", False)  # (else: uncertain, a find beside four)
    assert read_frame(scene.image).verdict == "rearrange"


def test_dark_find_is_a_shadow_only_beside_tokens_lighter_than_the_plate():
    """A find 1.9 radii from one blob (their discs overlap a little; the
    find's is painted last), and only dark.
    Beside a token lighter than the plate (a dark glaze) it is its shadow;
    beside a darker one (a red token on a white plate) it may be a white
    face in that token's shade, judged by colour direction as before."""
    from vision.tokens import _partly_under
    disc = _disc_mask(CX, CY)
    fx, fy = int(CX + 1.9 * R_TOKEN), int(CY)
    find = _disc_mask(fx, fy)
    for blob_lab, expected in (((22.0, 47.0, 41.0), False), ((-10.0, 40.0, 10.0), True)):
        res = np.zeros((S, S, 3), np.float32)
        res[disc] = blob_lab
        res[find] = (-17.0, 0.0, 2.0)
        b = _Blob(x=CX, y=CY, area=float(disc.sum()), major=30.0, minor=30.0, angle_deg=0.0, solidity=1.0,
                  contrast=50.0, crosses_rim=False, mask=disc)
        assert _partly_under(res, res, fx, fy, R_TOKEN, [b], 8) is expected, blob_lab


def without_shading(res: np.ndarray, cands: list, reference: list | None = None) -> list:
    """What find_tokens keeps of ``cands``: all of them unless the plate is
    darker than every clear face (of ``reference``, else of ``cands``), then
    those that are not shading."""
    from vision.tokens import _plate_darker_than_faces, _split_shading
    if not _plate_darker_than_faces(res, cands if reference is None else reference):
        return cands
    return _split_shading(res, cands, R_TOKEN)[0]


@pytest.mark.parametrize("clear_lab, find_lab, kept", [
    ((40.0, 50.0, 30.0), (-8.0, 1.0, -2.0), False),   # dark glaze, faces lighter: a dark find is shading
    ((40.0, 50.0, 30.0), (-8.0, 20.0, 5.0), True),    # ... but a coloured one may be a face
    ((40.0, 50.0, 30.0), (-3.0, 0.0, 0.0), True),     # ... and one barely darker is judged as before
    ((-30.0, 45.0, 20.0), (-8.0, 1.0, -2.0), True),   # a pale glaze (the red face darker): as before
])
def test_dark_find_on_a_plate_darker_than_the_faces_is_shading(clear_lab, find_lab, kept):
    from vision.tokens import Candidate
    res = np.zeros((S, S, 3), np.float32)
    res[_disc_mask(CX, CY)] = clear_lab
    fx, fy = CX + 4 * R_TOKEN, CY
    res[_disc_mask(fx, fy)] = find_lab
    clear = Candidate(CX, CY, R_TOKEN, "disc", FACE_AREA, 1.0, 1.0, 60.0)
    find = Candidate(fx, fy, R_TOKEN, "faint", FACE_AREA, 1.0, 1.0, 8.0, found_by="disc_filter")
    got = without_shading(res, [clear, find])
    assert got == ([clear, find] if kept else [clear])
    # a second clear face darker than the plate: the plate is not darker than every face
    dark_face = Candidate(CX, CY + 4 * R_TOKEN, R_TOKEN, "disc", FACE_AREA, 1.0, 1.0, 60.0)
    res2 = res.copy()
    res2[_disc_mask(CX, CY + 4 * R_TOKEN)] = (-30.0, 45.0, 20.0)
    assert without_shading(res2, [clear, dark_face, find]) == [clear, dark_face, find]
    # an outline find judged against the kept candidates
    outline = Candidate(fx, fy, R_TOKEN, "outline", FACE_AREA, 1.0, 1.0, 4.0, found_by="outline")
    assert without_shading(res, [outline], reference=[clear]) == ([outline] if kept else [])
    assert without_shading(res, []) == []


def test_shading_band_on_a_dark_glaze_is_not_a_token(monkeypatch):
    """Tuning seed 1664 (tilted, four red tokens, lit from one side): dark
    bands of the glaze that the ring model leaves were found as faces partly
    under or beside the tokens (rearrange)."""
    import vision.tokens as tokens
    scene = render_scene(1664, conditions=RAISED)
    reading = read_frame(scene.image)
    assert reading.verdict == "outcome", reading.reason
    assert reading.red == scene.label["red"] == 4
    monkeypatch.setattr(tokens, "SHADING_FIND_MIN_DARK_L", np.inf)
    monkeypatch.setattr(overlap_reason, "EXTRA_FIND_UNCERTAIN", False)  # (else: uncertain, a find beside four)
    assert read_frame(scene.image).verdict == "rearrange"


def test_face_in_a_local_shadow_is_kept():
    """A pale face inside a shadow (a hand's, the bowl's edge): darker than
    the plate model by 8 L, but 12 L lighter than the shadow around it."""
    from vision.tokens import Candidate
    res = np.zeros((S, S, 3), np.float32)
    res[_disc_mask(CX, CY)] = (40.0, 50.0, 30.0)
    fx, fy = CX + 4 * R_TOKEN, CY
    yy, xx = np.mgrid[0:S, 0:S]
    res[np.hypot(xx - fx, yy - fy) <= 2.5 * R_TOKEN] = (-20.0, 0.0, 0.0)  # the shadow
    res[_disc_mask(fx, fy)] = (-8.0, 0.5, -1.0)                             # the face in it
    clear = Candidate(CX, CY, R_TOKEN, "disc", FACE_AREA, 1.0, 1.0, 60.0)
    find = Candidate(fx, fy, R_TOKEN, "faint", FACE_AREA, 1.0, 1.0, 8.0, found_by="disc_filter")
    assert without_shading(res, [clear, find]) == [clear, find]
    # the same find where the ring around it is as dark as it: shading, dropped
    res[np.hypot(xx - fx, yy - fy) <= 2.5 * R_TOKEN] = (-8.0, 0.5, -1.0)
    assert without_shading(res, [clear, find]) == [clear]
