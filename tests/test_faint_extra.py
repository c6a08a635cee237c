"""vision.faint_extra: finds beyond four faces, far fainter than they are, make a frame uncertain, not a reshake.

On black lacquer the well's wall is lit unevenly and the plate model follows
it only in part; the disc filter (``faint``) and the ring filter
(``outline``) found disc-sized patches of it, or a face's shadow on the
glaze, as fifth tokens.  Scenes 1716050 and 1716194 (``outcome``, 1280x720,
``glaze=black_lacquer``, ``kelvin=2700:3800``): four flat tokens read
``reshake``, "5 (6) tokens on the plate, not 4"; the extras stood 3.6 and
9.7 Lab units out against 53.4 and 73.0 for the weakest of the four faces.
A real fifth token may be that faint too (scene 1750085, ``five_tokens``:
16.8 against 42.0), so the frame is not read: it is ``uncertain``, check for
a fifth token.  A fifth token as clear as the four stays a ``reshake``.

Checklist: real pixels (the rule shown to be what changes the verdict, the
extras off every true token), the reason names the counts and contrasts, a
clear fifth token keeps its reshake, a faint real fifth token is never an
outcome; known values for the rule's edges (a blob extra, an extra at the
ratio, four finds only).
"""
from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import pytest

from vision import faint_extra
from vision.candidates import Candidate
from vision.faint_extra import FAINT_EXTRA_MAX_REL_CONTRAST, faint_extras
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

EXTRA = re.compile(r"(\d) tokens found, (\d) far fainter than the other four \(contrast (\d+\.\d) against "
                   r"(\d+\.\d) Lab units\): check for a fifth token")


def _scene(seed: int, kind: str):
    """The scene ``seed`` of ``kind`` as ``synth_table`` renders it under :data:`BLACK_WARM`."""
    conditions = synth_table.draw_conditions(seed, BLACK_WARM)
    return render_scene(seed, kind, size=SIZE_PX, conditions=conditions)


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
    assert float(m.group(3)) < FAINT_EXTRA_MAX_REL_CONTRAST * float(m.group(4))
    # the rule is what changes the verdict
    monkeypatch.setattr(faint_extra, "FAINT_EXTRA_UNCERTAIN", False)
    off = read_frame(scene.image)
    assert off.verdict == "reshake" and off.reason == f"{found} tokens on the plate, not 4", off.reason


def test_clear_fifth_token_stays_a_reshake():
    # five_tokens on the same lacquer: the fifth a blob as clear as the four (58.6 against 60.9 Lab units)
    scene = _scene(1750000, "five_tokens")
    assert len(scene.label["tokens"]) == 5
    got = read_frame(scene.image)
    assert got.verdict == "reshake" and got.reason == "5 tokens on the plate, not 4", got.reason
    assert _off_truth(got, scene) == 0


def test_faint_real_fifth_token_is_no_outcome():
    # the price: a real fifth token found by the disc filter at 0.40 of the fourth face's contrast
    scene = _scene(1750085, "five_tokens")
    assert len(scene.label["tokens"]) == 5
    got = read_frame(scene.image)
    m = EXTRA.match(got.reason)
    assert got.verdict == "uncertain" and m is not None and m.group(1) == "5", got.reason
    assert _off_truth(got, scene) == 0


def _cand(contrast: float, kind: str = "disc") -> Candidate:
    """A face of ``contrast`` Lab units (position and shape play no part in the rule)."""
    return Candidate(x=0.0, y=0.0, radius=10.0, kind=kind, area_px=314.0, axis_ratio=1.0, solidity=1.0,
                     contrast=contrast, found_by="blob" if kind == "disc" else "disc_filter")


#: Contrasts of four clear faces, Lab units; the weakest is the one extras are measured against.
FOUR_FACES_LAB = (70.0, 65.0, 60.0, 40.0)


def test_rule_edges():
    four = [_cand(c) for c in FOUR_FACES_LAB]
    weakest = min(FOUR_FACES_LAB)
    extras, against = faint_extras(four)
    assert extras == [] and math.isnan(against)
    faint = _cand(0.2 * weakest, "faint")
    outline = _cand(0.1 * weakest, "outline")
    assert faint_extras(four + [faint, outline]) == ([faint, outline], weakest)
    # a blob extra, however faint, is not judged by this rule
    assert faint_extras(four + [_cand(0.2 * weakest)])[0] == []
    # an extra at the ratio is a fifth face as far as this rule goes
    assert faint_extras(four + [_cand(FAINT_EXTRA_MAX_REL_CONTRAST * weakest, "faint")])[0] == []
    # one faint extra beside a clear fifth: the clear one stays counted, so nothing here
    assert faint_extras(four + [faint, _cand(0.9 * weakest, "faint")])[0] == []
