"""Test helpers: compare a reading with the synthesized scene's label (how the scene was made), and show a rule is what decides a scene."""
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


def lone_suspect_radii(image) -> float:
    """Read ``image``'s tokens (plate, canonical view, token search): four
    candidates and one suspect must be found; returns the suspect's distance
    from the nearest candidate, token radii."""
    from vision.canonical import make_canonical_view
    from vision.plate import find_plate
    from vision.reader import search_tokens

    view = make_canonical_view(image, find_plate(image).ellipse)
    _, search = search_tokens(view)
    assert len(search.candidates) == 4, search.candidates
    (sx, sy, _), = search.suspects
    return min(math.hypot(sx - c.x, sy - c.y) for c in search.candidates) / search.token_radius_px


def up_face_reds(scene) -> int:
    """The number of labelled tokens whose up-face is red (whatever their state)."""
    return sum(t["face"] == "red" for t in scene.label["tokens"])


def assert_wrong_outcome_without(monkeypatch, scene, **reader_settings) -> None:
    """With ``vision.reader``'s ``reader_settings`` set (a rule turned off),
    ``scene`` reads as four flat tokens with its up-faces' red count: the
    wrong outcome the rule stops (the scene's label is not that outcome)."""
    from vision import reader

    for name, value in reader_settings.items():
        monkeypatch.setattr(reader, name, value)
    off = reader.read_frame(scene.image)
    assert off.verdict == "outcome", off.reason
    assert off.red == up_face_reds(scene)


def assert_read_then_held(monkeypatch, scene, reason_part: str, **reader_settings) -> None:
    """``scene`` reads its labelled outcome; with ``vision.reader``'s
    ``reader_settings`` set (a rule's bound moved), it reads ``uncertain``
    with ``reason_part`` in its reason: the rule looks at this scene."""
    from vision import reader

    got = reader.read_frame(scene.image)
    assert (got.verdict, got.red) == ("outcome", scene.label["red"]), got.reason
    for name, value in reader_settings.items():
        monkeypatch.setattr(reader, name, value)
    got = reader.read_frame(scene.image)
    assert got.verdict == "uncertain" and reason_part in got.reason, got.reason
