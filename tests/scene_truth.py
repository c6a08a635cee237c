"""Test helper: compare a reading's tokens with the synthesized scene's label (how the scene was made)."""
from __future__ import annotations

import math

#: The overlaps of scenes found before the synthesizer drew leaning ones
#: (2026-12-04): the upper token raised flat.  Tests naming such a seed pass
#: it as ``conditions=RAISED`` so that the seed shows what it did.
RAISED = {"overlap_style": "raised"}


def assert_tokens_are_their_true_faces(reading, scene) -> None:
    """Each token read lies within its nearest labelled token's radius and
    reads that token's face."""
    truth = scene.label["tokens"]
    for tok in reading.tokens:
        nearest = min(truth, key=lambda t: math.hypot(t["x"] - tok.x, t["y"] - tok.y))
        assert math.hypot(nearest["x"] - tok.x, nearest["y"] - tok.y) < nearest["radius"], (tok, nearest)
        assert tok.face == nearest["face"], (tok, nearest)
