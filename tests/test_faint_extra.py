"""vision.faint_extra: finds beyond four faces, far fainter than they are, make a frame uncertain, not a reshake.

On black lacquer the well's wall is lit unevenly and the plate model follows
it only in part; the disc filter (``faint``) and the ring filter
(``outline``) found disc-sized patches of it, or a face's shadow on the
glaze, as fifth tokens.  Scenes 1716050 and 1716194 (``outcome``, 1280x720,
``glaze=black_lacquer``, ``kelvin=2700:3800``): four flat tokens read
``reshake``, "5 (6) tokens on the plate, not 4"; the extras' face parts
differed from the lacquer by 13.5 and 17.5 Lab units, against a median of
56.6 and 92.1 for the four faces.  A fifth token is not known to be absent
there, so the frame is not read: it is ``uncertain``, check for a fifth
token.  A fifth token as clear as the four stays a ``reshake``; so does one
found by its outline whose face is as far from the plate as the four
(1752336, 640x480), and a red fifth paler than the white faces but redder
than the plate (1750085: 19.6 against 41.8, a* well above the glaze's).

Checklist: real pixels (the rule shown to be what changes the verdict, the
extras off every true token), the reason names the counts and contrasts, a
clear fifth token keeps its reshake, so does a pale red one; known values
for the rule's edges (a blob extra, an extra at the share, a red extra, a
face darker than the plate, four finds only).
"""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from vision import count_check, faint_extra
from vision.candidates import Candidate
from vision.faint_extra import FAINT_EXTRA_MAX_DELTA_A, FAINT_EXTRA_MAX_REL_CORE, faint_extras
from vision.reader import read_frame
from vision.synth import render_scene

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import synth_table  # noqa: E402

#: Conditions of the sweep that found the false fifth finds.
BLACK_WARM = [("glaze", "black_lacquer"), ("kelvin", (2700.0, 3800.0))]

#: Frame size of those scenes, pixels.
SIZE_PX = (1280, 720)

#: A find this close to a true token's centre (token radii) is that token.
SAME_TOKEN_RADII = 0.5

EXTRA = re.compile(r"(\d) tokens found, (\d) far paler than the other four on a darker plate \(colour "
                   r"(\d+\.\d) against (\d+\.\d) Lab units\): check for a fifth token")


def _scene(seed: int, kind: str, size: tuple[int, int] = SIZE_PX, conditions=BLACK_WARM):
    """The scene ``seed`` of ``kind`` as ``synth_table`` renders it under ``conditions``."""
    return render_scene(seed, kind, size=size, conditions=synth_table.draw_conditions(seed, conditions))


def _off_truth(got, scene) -> int:
    """How many of the reading's tokens lie on no true token."""
    truth = scene.label["tokens"]
    return sum(min(math.hypot(t.x - u["x"], t.y - u["y"]) / u["radius"] for u in truth) >= SAME_TOKEN_RADII
               for t in got.tokens)


@pytest.mark.parametrize("seed, found, extras", [(1716050, 5, 1), (1716194, 6, 2)])
def test_faint_extras_on_lacquer_abstain(monkeypatch, seed, found, extras):
    scene = _scene(seed, "outcome")
    assert scene.label["kind"] == "outcome" and len(scene.label["tokens"]) == 4
    got = read_frame(scene.image)
    assert got.verdict == "uncertain", got.reason
    m = EXTRA.match(got.reason)
    assert m is not None, got.reason
    assert (int(m.group(1)), int(m.group(2))) == (found, extras) == (len(got.tokens), _off_truth(got, scene))
    assert float(m.group(3)) < FAINT_EXTRA_MAX_REL_CORE * float(m.group(4))
    # the rule is what changes the verdict
    monkeypatch.setattr(faint_extra, "FAINT_EXTRA_UNCERTAIN", False)
    off = read_frame(scene.image)
    if found > count_check.RESHAKE_MAX_TOKENS:  # six counted: the implausible-count rule abstains too
        assert off.verdict == "uncertain" and off.reason.startswith(f"{found} token(s) found, not 4"), off.reason
        monkeypatch.setattr(count_check, "IMPLAUSIBLE_COUNT_UNCERTAIN", False)
        off = read_frame(scene.image)
    assert off.verdict == "reshake" and off.reason == f"{found} tokens on the plate, not 4", off.reason


def test_clear_fifth_token_stays_a_reshake():
    # five_tokens on the same lacquer: the fifth a blob as clear as the four (58.6 against 60.9 Lab units)
    scene = _scene(1750000, "five_tokens")
    assert len(scene.label["tokens"]) == 5
    got = read_frame(scene.image)
    assert got.verdict == "reshake" and got.reason == "5 tokens on the plate, not 4", got.reason
    assert _off_truth(got, scene) == 0


def test_fifth_outline_with_a_clear_face_stays_a_reshake():
    # the fifth found by the ring filter (its ring 14.8 deep) on a face 62 Lab units from the lacquer
    scene = _scene(1752336, "five_tokens", size=(640, 480), conditions=[("glaze", "black_lacquer")])
    assert len(scene.label["tokens"]) == 5
    got = read_frame(scene.image)
    assert got.verdict == "reshake" and got.reason == "5 tokens on the plate, not 4", got.reason
    assert _off_truth(got, scene) == 0


def test_paler_red_fifth_token_stays_a_reshake():
    # a real fifth token, a red face in warm dim light paler than the white faces beside it (its face
    # part 19.6 Lab units from the lacquer, 0.47 of the faces' median) but redder than the plate by more
    # than FAINT_EXTRA_MAX_DELTA_A: the rule leaves it counted
    scene = _scene(1750085, "five_tokens")
    assert len(scene.label["tokens"]) == 5
    got = read_frame(scene.image)
    assert got.verdict == "reshake" and got.reason == "5 tokens on the plate, not 4", got.reason
    assert _off_truth(got, scene) == 0


#: Canvas of the drawn residual, pixels; token radius on it, pixels.
CANVAS_PX, TOKEN_R_PX = 200, 10.0

#: Lightness of four clear faces above the plate, L* units; the faces' median is 62.5.
FOUR_FACES_L = (70.0, 65.0, 60.0, 40.0)


def _drawn(faces: list[tuple[float, str]], red_a: float = 0.0) -> tuple[list[Candidate], np.ndarray]:
    """Finds in a row on a residual that is zero but for each find's disc of
    ``TOKEN_R_PX`` at its L* difference, with their kinds; the last find also
    ``red_a`` a* units redder than the plate."""
    residual = np.zeros((CANVAS_PX, CANVAS_PX, 3), np.float32)
    cands = []
    for i, (dl, kind) in enumerate(faces):
        x, y = 20.0 + 30.0 * (i % 6), 30.0 + 60.0 * (i // 6)
        yy, xx = np.ogrid[:CANVAS_PX, :CANVAS_PX]
        residual[(xx - x) ** 2 + (yy - y) ** 2 < TOKEN_R_PX ** 2, 0] = dl
        if i == len(faces) - 1:
            residual[(xx - x) ** 2 + (yy - y) ** 2 < TOKEN_R_PX ** 2, 1] = red_a
        cands.append(Candidate(x=x, y=y, radius=TOKEN_R_PX, kind=kind, area_px=math.pi * TOKEN_R_PX ** 2,
                               axis_ratio=1.0, solidity=1.0, contrast=abs(dl),
                               found_by="blob" if kind == "disc" else "disc_filter"))
    return cands, residual


def test_rule_edges():
    four = [(dl, "disc") for dl in FOUR_FACES_L]
    median = float(np.median(FOUR_FACES_L))
    cands, res = _drawn(four)
    extras, _, against = faint_extras(cands, res, TOKEN_R_PX)
    assert extras == [] and math.isnan(against)
    cands, res = _drawn(four + [(0.2 * median, "faint"), (0.1 * median, "outline")])
    extras, pale, against = faint_extras(cands, res, TOKEN_R_PX)
    assert extras == cands[4:] and pale == pytest.approx(0.2 * median) and against == pytest.approx(median)
    # a blob extra, however pale, is not judged by this rule
    cands, res = _drawn(four + [(0.2 * median, "disc")])
    assert faint_extras(cands, res, TOKEN_R_PX)[0] == []
    # an extra at the share is a fifth face as far as this rule goes
    cands, res = _drawn(four + [(FAINT_EXTRA_MAX_REL_CORE * median + 0.1, "faint")])
    assert faint_extras(cands, res, TOKEN_R_PX)[0] == []
    # a pale extra beside a clear fifth: the clear one stays counted
    cands, res = _drawn(four + [(0.2 * median, "faint"), (0.9 * median, "faint")])
    assert faint_extras(cands, res, TOKEN_R_PX)[0] == []
    # an extra as red as a dim red face: a fifth face as far as this rule goes
    cands, res = _drawn(four + [(0.1 * median, "faint")], red_a=FAINT_EXTRA_MAX_DELTA_A)
    assert faint_extras(cands, res, TOKEN_R_PX)[0] == []
    cands, res = _drawn(four + [(0.1 * median, "faint")], red_a=0.5 * FAINT_EXTRA_MAX_DELTA_A)
    assert faint_extras(cands, res, TOKEN_R_PX)[0] == cands[4:]
    # a face darker than the plate (a red on a pale glaze): not a dark plate, the rule stays out
    cands, res = _drawn([(dl, "disc") for dl in FOUR_FACES_L[:3]] + [(-40.0, "disc"), (0.2 * median, "faint")])
    assert faint_extras(cands, res, TOKEN_R_PX)[0] == []
