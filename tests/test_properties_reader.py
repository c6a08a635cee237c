"""Property-based tests of ``vision.read_frame`` on hostile and mutated frames.

Properties (every example):

* the only exception is the documented :class:`vision.errors.FrameError`;
* the input array is never modified (inputs are made read-only);
* an ``outcome`` has exactly four flat candidates, faces red/white, each
  decisive (p_red >= 0.88 or <= 0.12, the thresholds of the face rule);
* on a labelled frame an ``outcome`` must match the label (its verdict is an
  outcome and the red count is the same), whatever the mutation: noise,
  crops, flips, rotations, channel swaps, low-quality JPEG, greyscale;
* on a painted plate whose discs are not all clearly red or white, there is
  never an outcome.

Deterministic (``derandomize=True``) and budgeted: about 60 s on 2 cores for
the whole file (the reader takes ~0.25 s per frame).
"""
from __future__ import annotations

import functools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from vision.errors import FrameError
from vision.faces import DEFAULT_FACE_RULE as RULE
from vision.reader import read_frame
from vision.synth import render_scene
from vision.types import Reading

ROOT = Path(__file__).resolve().parents[1]
SYNTH_SIZE = (480, 270)
SYNTH_KINDS = ("outcome", "touching", "tilted", "outcome", "stick", "overlap", "three_tokens", "five_tokens",
               "upright", "offplate", "covered", "no_plate", "outcome", "touching")
#: p_red of a face exactly on the red (white) threshold of the default rule
P_RED_DECISIVE = 1.0 / (1.0 + np.exp(-(RULE.red_min_delta_a - 0.5 * (RULE.red_min_delta_a + RULE.white_max_delta_a))
                                    / (0.25 * (RULE.red_min_delta_a - RULE.white_max_delta_a))))
SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large]


@functools.lru_cache(maxsize=1)
def base_frames() -> tuple[tuple[str, np.ndarray, dict], ...]:
    """Labelled frames: synthesized at 480x270 and the studio samples."""
    out = []
    for i, kind in enumerate(SYNTH_KINDS):
        sc = render_scene(4000 + i, kind, size=SYNTH_SIZE)
        out.append((f"render_scene({4000 + i}, {kind!r}, size={SYNTH_SIZE})", sc.image, sc.label))
    for p in sorted((ROOT / "samples" / "studio").glob("*.jpg")):
        out.append((str(p.relative_to(ROOT)), cv2.imread(str(p)), json.loads(p.with_suffix(".json").read_text())))
    for _, img, _ in out:
        img.flags.writeable = False
    return tuple(out)


def check_reading(frame: np.ndarray, label: dict | None = None, what: str = "") -> Reading | None:
    """Run the reader under the properties; None when it refused with FrameError."""
    before = frame.copy()
    if isinstance(frame, np.ndarray):
        frame.flags.writeable = False
    try:
        r = read_frame(frame)
    except FrameError as exc:
        assert str(exc).startswith("frame:"), exc
        return None
    assert np.array_equal(before, frame, equal_nan=frame.dtype.kind == "f"), "read_frame modified its input"
    assert isinstance(r, Reading) and r.verdict != "error"
    if r.verdict == "outcome":
        assert len(r.tokens) == 4 and all(t.face in ("red", "white") for t in r.tokens), (what, r)
        assert r.details.get("candidates") and all(k in ("disc", "faint", "outline") for k in r.details["candidates"]), (what, r)
        for t in r.tokens:
            assert (t.p_red >= P_RED_DECISIVE - 1e-9) if t.face == "red" else (t.p_red <= 1 - P_RED_DECISIVE + 1e-9)
        assert r.red == sum(t.face == "red" for t in r.tokens) and r.confidence >= P_RED_DECISIVE - 1e-9
        if label is not None:
            assert label.get("verdict") == "outcome" and r.red == label.get("red"), (
                f"WRONG OUTCOME on {what}: read red={r.red}, label {label.get('verdict')}/{label.get('red')}")
    return r


# --------------------------------------------------------------------------- random arrays
@st.composite
def random_arrays(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    dtype = draw(st.sampled_from(["uint8", "uint8", "uint16", ">u2", "float32", "float64", "int8", "int32", "bool"]))
    h = draw(st.sampled_from([0, 1, 31, 32, 33, 64, 270]))
    w = draw(st.sampled_from([0, 1, 32, 48, 480, 2000]))
    ch = draw(st.sampled_from([None, 1, 2, 3, 3, 4, 5]))
    shape = (h, w) if ch is None else (h, w, ch)
    content = draw(st.sampled_from(["zeros", "max", "noise", "stripes", "discs", "nan"]))
    hi = 65535 if dtype in ("uint16", ">u2") else 255
    if content == "zeros":
        a = np.zeros(shape)
    elif content == "max":
        a = np.full(shape, hi)
    elif content == "stripes":
        a = np.broadcast_to(((np.arange(w) // 7) % 2 * hi).reshape(1, w, *([1] if ch else [])), shape).copy()
    elif content == "discs" and h >= 32 and w >= 32 and ch in (3, 4):
        a = np.zeros(shape, np.float64) + rng.integers(0, 60)
        for _ in range(rng.integers(1, 8)):
            c = tuple(float(v) for v in rng.integers(0, 256, ch))
            cv2.circle(a, (int(rng.integers(0, w)), int(rng.integers(0, h))), int(rng.integers(2, 60)), c, -1)
        a = a * hi / 255
    else:
        a = rng.random(shape) * hi
    a = a.astype(np.dtype(dtype).newbyteorder("=") if dtype != ">u2" else np.dtype(">u2"))
    if content == "nan" and a.dtype.kind == "f" and a.size:
        a.flat[rng.integers(0, a.size)] = np.nan
    return a


@settings(derandomize=True, deadline=None, max_examples=60, suppress_health_check=SLOW_OK)
@given(random_arrays())
def test_random_arrays_only_raise_frame_error(arr):
    check_reading(arr)


# --------------------------------------------------------------------------- mutations of labelled frames
def _jpeg(img: np.ndarray, q: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    assert ok
    return cv2.imdecode(buf, cv2.IMREAD_COLOR)


MUTATIONS = {
    "noise": lambda img, rng, k: np.clip(img + rng.normal(0, 3 + 25 * k, img.shape), 0, 255).astype(np.uint8),
    "salt": lambda img, rng, k: np.where(rng.random(img.shape[:2])[..., None] < 0.02 * k, 255, img).astype(np.uint8),
    "crop": lambda img, rng, k: img[int(k * 0.3 * img.shape[0]):img.shape[0] - int(rng.random() * 0.3 * img.shape[0]),
                                    int(rng.random() * 0.3 * img.shape[1]):img.shape[1] - int(k * 0.3 * img.shape[1])],
    "flip": lambda img, rng, k: img[::-1] if k < 0.33 else img[:, ::-1] if k < 0.66 else img[::-1, ::-1],
    "rotate90": lambda img, rng, k: np.rot90(img, 1 + int(k * 2.99)),
    "swap_rb": lambda img, rng, k: img[:, :, ::-1],
    "swap_gb": lambda img, rng, k: img[:, :, [1, 0, 2]],
    "grey": lambda img, rng, k: cv2.cvtColor(img, cv2.COLOR_BGR2GRAY),
    "jpeg": lambda img, rng, k: _jpeg(np.ascontiguousarray(img), 3 + int(k * 30)),
    "dark": lambda img, rng, k: (img * (0.15 + 0.5 * k)).astype(np.uint8),
    "bright": lambda img, rng, k: np.clip(img * (1.3 + 1.5 * k), 0, 255).astype(np.uint8),
    "blur": lambda img, rng, k: cv2.GaussianBlur(np.ascontiguousarray(img), (0, 0), 0.5 + 4 * k),
    "downscale": lambda img, rng, k: cv2.resize(np.ascontiguousarray(img), None, fx=0.2 + 0.6 * k, fy=0.2 + 0.6 * k,
                                                interpolation=cv2.INTER_AREA),
}


@settings(derandomize=True, deadline=None, max_examples=120, suppress_health_check=SLOW_OK)
@given(st.integers(0, len(SYNTH_KINDS) + 7), st.lists(st.tuples(st.sampled_from(sorted(MUTATIONS)),
                                                                 st.floats(0, 1)), min_size=1, max_size=3),
       st.integers(0, 2**32 - 1))
def test_mutated_frames_never_give_a_wrong_outcome(index, steps, seed):
    name, img, label = base_frames()[index % len(base_frames())]
    rng = np.random.default_rng(seed)
    out = img
    for m, k in steps:
        if out.ndim == 2 and m not in ("noise", "crop", "flip", "rotate90", "dark", "bright", "blur", "downscale"):
            continue
        out = MUTATIONS[m](out, rng, k)
    check_reading(out, label, f"{name} mutated by {steps} (seed {seed})")


# --------------------------------------------------------------------------- information-destroying mutations
@pytest.mark.parametrize("mutation", ["swap_rb", "grey"])
def test_destroyed_colour_never_gives_a_wrong_outcome(mutation):
    """Swapping B and R turns red faces blue; greyscale removes colour.  The
    reader must not give an outcome whose red count differs from the label
    (and greyscale must abstain).  A blue face called "white" with confidence
    would be a wrong outcome; what it does is recorded in the report."""
    seen = []
    for name, img, label in base_frames():
        r = check_reading(MUTATIONS[mutation](img, None, 0.0), label, f"{name} {mutation}")
        seen.append((name, r.verdict, r.red))
        if mutation == "grey":
            assert r.verdict in ("uncertain", "no_plate"), (name, r)
    assert seen


# --------------------------------------------------------------------------- painted plates
PAINT = {"red": (36, 32, 200), "white": (232, 236, 236),
         # not a token colour: must never make an outcome
         "green": (40, 160, 30), "blue": (200, 40, 30), "yellow": (40, 200, 230), "black": (25, 25, 25),
         "grey": (128, 128, 128), "cyan": (210, 200, 40), "purple": (160, 40, 140)}


def painted_plate(seed: int, colours: list[str]) -> np.ndarray:
    """A 480x270 frame: a pale plate on a dark cloth with ``len(colours)``
    separated discs painted in the PAINT colours; reproducible from its arguments."""
    rng = np.random.default_rng(seed)
    n, (w, h) = len(colours), (480, 270)
    img = np.empty((h, w, 3), np.uint8)
    img[:] = rng.integers(20, 90, 3)
    cx, cy, a = w / 2 + rng.uniform(-30, 30), h / 2 + rng.uniform(-10, 10), rng.uniform(90, 120)
    b = a * rng.uniform(0.7, 1.0)
    cv2.ellipse(img, (int(cx), int(cy)), (int(a), int(b)), 0, 0, 360, tuple(int(v) for v in rng.integers(215, 245, 3)),
                -1, cv2.LINE_AA)
    r = a * 0.13
    spots: list[tuple[float, float]] = []
    while len(spots) < n:
        t, rho = rng.uniform(0, 2 * np.pi), a * 0.55 * np.sqrt(rng.random())
        p = (cx + rho * np.cos(t), cy + rho * np.sin(t) * b / a)
        if all(np.hypot(p[0] - q[0], p[1] - q[1]) > 3 * r for q in spots):
            spots.append(p)
    for (x, y), c in zip(spots, colours):
        cv2.ellipse(img, (int(x), int(y)), (int(r), int(r * b / a)), 0, 0, 360, PAINT[c], -1, cv2.LINE_AA)
        cv2.ellipse(img, (int(x), int(y)), (int(r), int(r * b / a)), 0, 0, 360, (60, 60, 60), 1, cv2.LINE_AA)
    return np.clip(img + rng.normal(0, 2, img.shape), 0, 255).astype(np.uint8)


def painted_label(colours: list[str]) -> dict:
    if len(colours) == 4 and set(colours) <= {"red", "white"}:
        return {"verdict": "outcome", "red": colours.count("red")}
    return {"verdict": "not an outcome: " + ",".join(colours)}


@settings(derandomize=True, deadline=None, max_examples=30, suppress_health_check=SLOW_OK)
@given(st.integers(0, 2**32 - 1), st.integers(3, 5).flatmap(
    lambda n: st.lists(st.sampled_from(["red", "white"]), min_size=n, max_size=n)))
def test_painted_red_and_white_discs_outcome_only_when_four(seed, colours):
    check_reading(painted_plate(seed, colours), painted_label(colours), f"painted_plate({seed}, {colours})")


# A face that is neither red nor white (black, grey, green, yellow, cyan, blue,
# purple) must never give an outcome: the face rule checks hue, chroma and
# lightness, not a* alone (this was a finding of this suite, now fixed).
@pytest.mark.parametrize("seed, colours", [
    (1, ["black"] * 4), (1, ["green"] * 4), (1, ["grey"] * 4), (1, ["yellow"] * 4), (1, ["cyan"] * 4),
    (1, ["blue"] * 4), (1, ["purple"] * 4),
    (3, ["red", "red", "black", "white"]), (3, ["red", "grey", "white", "white"]), (3, ["red", "blue", "white", "white"]),
])
def test_painted_off_colour_disc_is_never_an_outcome(seed, colours):
    check_reading(painted_plate(seed, colours), painted_label(colours), f"painted_plate({seed}, {colours})")


@settings(derandomize=True, deadline=None, max_examples=15, phases=[Phase.generate], suppress_health_check=SLOW_OK)
@given(st.integers(0, 2**32 - 1), st.lists(st.sampled_from(sorted(PAINT)), min_size=4, max_size=4))
def test_painted_plates_of_any_colour_outcome_only_for_red_and_white(seed, colours):
    check_reading(painted_plate(seed, colours), painted_label(colours), f"painted_plate({seed}, {colours})")
