"""Drawing a reader verdict onto a frame (for replay's annotated frames and report).

Nothing here decides anything: :func:`draw_reading` draws what an
``xocdia read`` object says.  The input frame is never modified; a new image
is returned.  Line widths and text sizes scale with the frame: they are given
per 1000 pixels of the frame's shorter side, so a drawing looks the same on a
480p and a 4K frame.
"""
from __future__ import annotations

import cv2
import numpy as np

from .replay_accuracy import classify

# -- drawing settings --------------------------------------------------------
#: Plate ellipse colour, BGR.
PLATE_COLOUR_BGR = (255, 220, 0)
#: Plate ellipse line width, px per 1000 px of the shorter side.
PLATE_LINE_PX_PER_1000 = 3.0
#: Token outline colour by face, BGR.
FACE_COLOURS_BGR = {
    "red": (40, 40, 255),
    "white": (255, 255, 255),
    "upright": (0, 200, 255),
    "unknown": (255, 0, 255),
}
#: Token outline line width, px per 1000 px of the shorter side.
TOKEN_LINE_PX_PER_1000 = 3.0
#: Dark under-stroke drawn beneath every outline (so white outlines show on a
#: white plate), BGR, and how much wider it is than the line, px per 1000 px.
OUTLINE_SHADOW_BGR = (0, 0, 0)
OUTLINE_SHADOW_EXTRA_PX_PER_1000 = 2.0
#: Letter drawn beside each token: first letter of its face.
FACE_LETTERS = {"red": "R", "white": "W", "upright": "U", "unknown": "?"}
#: Verdict text colour by verdict, BGR.
VERDICT_COLOURS_BGR = {
    "outcome": (80, 220, 80),
    "rearrange": (0, 170, 255),
    "reshake": (0, 170, 255),
    "covered": (230, 180, 80),
    "no_plate": (200, 200, 200),
    "uncertain": (0, 230, 255),
    "error": (60, 60, 255),
}
#: Colour of the "expected" line when the verdict disagrees with the label, BGR.
MISMATCH_COLOUR_BGR = (60, 60, 255)
#: Colour of the "expected" line when the verdict agrees with the label, BGR.
MATCH_COLOUR_BGR = (200, 200, 200)
#: Colour of the "expected" line for an abstention, another verdict or an
#: error (no money moved on it): amber, BGR.  Red is kept for wrong outcomes.
ABSTAIN_COLOUR_BGR = (40, 200, 250)
#: The word after the "expected" line per bucket of :func:`vision.replay_accuracy.classify`.
BUCKET_WORDS = {"right": "OK", "wrong_outcome": "WRONG OUTCOME", "abstained": "ABSTAINED",
                "other_wrong": "OTHER VERDICT", "errors": "ERROR"}
#: Height of one text line (cap height of the font), px per 1000 px of the shorter side.
TEXT_HEIGHT_PX_PER_1000 = 26.0
#: Smallest text height, px (keeps thumbnails of tiny frames legible).
MIN_TEXT_HEIGHT_PX = 9.0
#: Gap between text lines and around the banner, as a fraction of the text height.
LINE_GAP_FRAC = 0.6
#: Opacity of the dark banner behind the text, 0..1.
BANNER_OPACITY = 0.65
#: Font (OpenCV Hershey fonts draw ASCII only; other characters become '?').
FONT = cv2.FONT_HERSHEY_SIMPLEX
#: Width of report thumbnails, px.
THUMB_WIDTH_PX = 360


def _px(per_1000: float, short_side: int, minimum: float = 1.0) -> int:
    return max(int(round(minimum)), int(round(per_1000 * short_side / 1000.0)))


def _ascii(text: str) -> str:
    return "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in text)


def _fit(text: str, width_px: int, scale: float, thickness: int) -> str:
    """Cut ``text`` (with '...') so it fits in ``width_px``."""
    if cv2.getTextSize(text, FONT, scale, thickness)[0][0] <= width_px:
        return text
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if cv2.getTextSize(text[:mid] + "...", FONT, scale, thickness)[0][0] <= width_px:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo] + "..."


def _wrap(text: str, width_px: int, scale: float, thickness: int, max_lines: int) -> list[str]:
    words, lines, cur = text.split(), [], ""
    for w in words:
        cand = f"{cur} {w}".strip()
        if cv2.getTextSize(cand, FONT, scale, thickness)[0][0] <= width_px or not cur:
            cur = cand
        else:
            lines.append(cur)
            cur = w
    if cur:
        lines.append(cur)
    if len(lines) > max_lines:
        lines = lines[:max_lines - 1] + [" ".join(lines[max_lines - 1:])]
    return [_fit(line, width_px, scale, thickness) for line in lines]


def verdict_line(reading: dict) -> str:
    verdict = str(reading.get("verdict"))
    text = verdict.upper()
    if verdict == "outcome":
        text += f"  {reading.get('red')} red / {reading.get('white')} white"
    conf = reading.get("confidence")
    if isinstance(conf, (int, float)) and verdict != "error":
        text += f"  (conf {conf:.2f})"
    return text


def expected_line(reading: dict, label: dict) -> tuple[str, str]:
    """Text describing the label and how the reading fares against it, and that bucket.

    The bucket is :func:`vision.replay_accuracy.classify`'s (``right``,
    ``wrong_outcome``, ``abstained``, ``other_wrong``, ``errors``), the
    one the replay table counts the frame in; the text ends with its word
    (:data:`BUCKET_WORDS`), so an abstention is not called wrong.

    Raises ValueError when ``label`` has no verdict (nothing to compare).
    """
    verdict = label.get("verdict")
    if verdict is None:
        raise ValueError(f"label: expected a verdict, got {label!r}")
    want = f"expected {verdict}" + (f" {label.get('red')} red" if verdict == "outcome" else "")
    kind = label.get("kind")
    if kind and kind != verdict:
        want += f"  [{kind}]"
    bucket = classify(reading, label)
    return f"{want}  {BUCKET_WORDS[bucket]}", bucket


def expected_colour(bucket: str) -> tuple[int, int, int]:
    """BGR colour of the "expected" line for a bucket of :func:`expected_line`:
    red for a wrong outcome only, grey when right, amber otherwise."""
    if bucket not in BUCKET_WORDS:
        raise ValueError(f"bucket: expected one of {sorted(BUCKET_WORDS)}, got {bucket!r}")
    return {"right": MATCH_COLOUR_BGR, "wrong_outcome": MISMATCH_COLOUR_BGR}.get(bucket, ABSTAIN_COLOUR_BGR)


def draw_reading(frame: np.ndarray, reading: dict, label: dict | None = None) -> np.ndarray:
    """Draw a reader verdict on a copy of ``frame``.

    Parameters
    ----------
    frame : ndarray, uint8, (H, W, 3)
        BGR frame; not modified.
    reading : dict
        An ``xocdia read`` object: ``verdict``, ``reason``, ``red``,
        ``white``, ``confidence``, ``tokens`` (``x, y, radius, face``),
        ``plate`` (``cx, cy, a, b, angle_deg`` or None).
    label : dict or None
        Optional expected ``verdict`` / ``red`` / ``kind``, drawn as a third
        line marked with the replay bucket's word (OK, WRONG OUTCOME in red,
        ABSTAINED, OTHER VERDICT or ERROR in amber).

    Returns
    -------
    ndarray, uint8, (H, W, 3): a new image.
    """
    if not (isinstance(frame, np.ndarray) and frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3):
        raise ValueError(f"frame: expected a BGR uint8 (H, W, 3) array, got "
                         f"{getattr(frame, 'dtype', type(frame).__name__)} {getattr(frame, 'shape', '')}")
    out = frame.copy()
    h, w = out.shape[:2]
    short = min(h, w)
    shadow_extra = _px(OUTLINE_SHADOW_EXTRA_PX_PER_1000, short)

    plate = reading.get("plate")
    if plate:
        centre = (int(round(plate["cx"])), int(round(plate["cy"])))
        axes = (max(1, int(round(plate["a"]))), max(1, int(round(plate["b"]))))
        thick = _px(PLATE_LINE_PX_PER_1000, short)
        cv2.ellipse(out, centre, axes, float(plate["angle_deg"]), 0, 360, OUTLINE_SHADOW_BGR,
                    thick + shadow_extra, cv2.LINE_AA)
        cv2.ellipse(out, centre, axes, float(plate["angle_deg"]), 0, 360, PLATE_COLOUR_BGR, thick, cv2.LINE_AA)

    text_h = max(MIN_TEXT_HEIGHT_PX, TEXT_HEIGHT_PX_PER_1000 * short / 1000.0)
    scale = cv2.getFontScaleFromHeight(FONT, int(round(text_h)), 1)
    text_thick = max(1, int(round(text_h / 14)))
    tok_thick = _px(TOKEN_LINE_PX_PER_1000, short)
    for tok in reading.get("tokens") or ():
        colour = FACE_COLOURS_BGR.get(tok.get("face"), FACE_COLOURS_BGR["unknown"])
        c = (int(round(tok["x"])), int(round(tok["y"])))
        r = max(1, int(round(tok["radius"])))
        cv2.circle(out, c, r, OUTLINE_SHADOW_BGR, tok_thick + shadow_extra, cv2.LINE_AA)
        cv2.circle(out, c, r, colour, tok_thick, cv2.LINE_AA)
        letter = FACE_LETTERS.get(tok.get("face"), "?")
        org = (c[0] + int(0.75 * r), c[1] - int(0.75 * r))
        cv2.putText(out, letter, org, FONT, scale * 0.8, OUTLINE_SHADOW_BGR, text_thick + 2, cv2.LINE_AA)
        cv2.putText(out, letter, org, FONT, scale * 0.8, colour, text_thick, cv2.LINE_AA)

    gap = int(round(LINE_GAP_FRAC * text_h))
    width = w - 2 * gap
    lines: list[tuple[str, tuple[int, int, int]]] = []
    verdict = str(reading.get("verdict"))
    lines.append((_fit(_ascii(verdict_line(reading)), width, scale, text_thick),
                  VERDICT_COLOURS_BGR.get(verdict, (255, 255, 255))))
    for part in _wrap(_ascii(str(reading.get("reason") or "")), width, scale * 0.8, text_thick, 2):
        lines.append((part, (235, 235, 235)))
    if label is not None and label.get("verdict") is not None:
        text, bucket = expected_line(reading, label)
        lines.append((_fit(_ascii(text), width, scale, text_thick), expected_colour(bucket)))

    line_h = int(round(text_h)) + gap
    banner_h = min(h, gap + line_h * len(lines))
    roi = out[:banner_h]
    roi[:] = (roi.astype(np.float32) * (1.0 - BANNER_OPACITY)).astype(np.uint8)
    y = gap + int(round(text_h))
    for i, (text, colour) in enumerate(lines):
        s = scale if i == 0 or colour != (235, 235, 235) else scale * 0.8
        cv2.putText(out, text, (gap, y), FONT, s, colour, text_thick, cv2.LINE_AA)
        y += line_h
    return out


def thumbnail(image: np.ndarray, width_px: int = THUMB_WIDTH_PX) -> np.ndarray:
    """A copy of ``image`` scaled to ``width_px`` wide (never enlarged)."""
    h, w = image.shape[:2]
    if w <= width_px:
        return image.copy()
    new_h = max(1, int(round(h * width_px / w)))
    return cv2.resize(image, (width_px, new_h), interpolation=cv2.INTER_AREA)
