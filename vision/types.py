"""Frozen dataclasses handed from one stage of the reader to the next.

Coordinates are (x, y) pixels of the source frame unless a name says
otherwise; angles are degrees.  Each class validates itself in
``__post_init__`` so that a malformed hand-off fails where it is made.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

VERDICTS = ("outcome", "rearrange", "reshake", "covered", "no_plate", "uncertain", "error")
FACES = ("red", "white", "upright", "unknown")


def _finite(name: str, value: float) -> None:
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise ValueError(f"{name}: expected a finite number, got {value!r}")


@dataclass(frozen=True)
class Ellipse:
    """An ellipse in pixel coordinates.

    Attributes
    ----------
    cx, cy : float
        Centre, pixels.
    a, b : float
        Semi-major and semi-minor axes, pixels, ``a >= b > 0``.
    angle_deg : float
        Angle of the major axis from +x towards +y (image rows grow
        downwards), degrees in [0, 180).
    """

    cx: float
    cy: float
    a: float
    b: float
    angle_deg: float

    def __post_init__(self) -> None:
        for name in ("cx", "cy", "a", "b", "angle_deg"):
            _finite(name, getattr(self, name))
        if not (self.a >= self.b > 0):
            raise ValueError(f"a, b: expected a >= b > 0, got a={self.a}, b={self.b}")
        if not (0.0 <= self.angle_deg < 180.0):
            raise ValueError(f"angle_deg: expected [0, 180), got {self.angle_deg}")

    @classmethod
    def from_axes(cls, cx: float, cy: float, ax1: float, ax2: float, angle_deg: float) -> "Ellipse":
        """Build from two semi-axes in any order; the angle belongs to ``ax1``."""
        if ax2 > ax1:
            ax1, ax2 = ax2, ax1
            angle_deg += 90.0
        return cls(float(cx), float(cy), float(ax1), float(ax2), float(angle_deg) % 180.0)

    def to_dict(self) -> dict[str, float]:
        return {
            "cx": round(self.cx, 2),
            "cy": round(self.cy, 2),
            "a": round(self.a, 2),
            "b": round(self.b, 2),
            "angle_deg": round(self.angle_deg, 2),
        }


@dataclass(frozen=True)
class TokenReading:
    """One token as the reader reports it, in source-image pixels.

    Attributes
    ----------
    x, y : float
        Centre of the visible face, pixels.
    radius : float
        Mean radius of the face outline in the source image, pixels.
    face : str
        One of ``red``, ``white``, ``upright``, ``unknown``.
    p_red : float or None
        Probability in [0, 1] that the face is red; None for an upright token.
    """

    x: float
    y: float
    radius: float
    face: str
    p_red: float | None

    def __post_init__(self) -> None:
        _finite("x", self.x)
        _finite("y", self.y)
        _finite("radius", self.radius)
        if self.radius <= 0:
            raise ValueError(f"radius: expected > 0, got {self.radius}")
        if self.face not in FACES:
            raise ValueError(f"face: expected one of {FACES}, got {self.face!r}")
        if self.p_red is not None:
            _finite("p_red", self.p_red)
            if not 0.0 <= self.p_red <= 1.0:
                raise ValueError(f"p_red: expected [0, 1], got {self.p_red}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "x": round(self.x, 2),
            "y": round(self.y, 2),
            "radius": round(self.radius, 2),
            "face": self.face,
            "p_red": None if self.p_red is None else round(self.p_red, 4),
        }


@dataclass(frozen=True)
class Reading:
    """The still-frame reader's verdict on one frame.

    Attributes
    ----------
    verdict : str
        One of :data:`VERDICTS`.
    reason : str
        Human-readable explanation; never empty.
    red, white : int or None
        Face counts; ints summing to 4 for an ``outcome``, None otherwise.
    confidence : float
        In [0, 1]: for an outcome the smallest face margin turned into a
        probability; for other verdicts how sure the reader is of that verdict.
    tokens : tuple of TokenReading
        Every token candidate the reader kept, in source pixels.
    plate : Ellipse or None
        The plate outline in source pixels, None when no plate was found.
    elapsed_ms : float
        Wall time spent in :func:`vision.read_frame`, milliseconds.
    details : dict
        Free-form diagnostics (stage measurements); not part of the contract.
    """

    verdict: str
    reason: str
    red: int | None = None
    white: int | None = None
    confidence: float = 0.0
    tokens: tuple[TokenReading, ...] = ()
    plate: Ellipse | None = None
    elapsed_ms: float = 0.0
    details: dict = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict: expected one of {VERDICTS}, got {self.verdict!r}")
        if not isinstance(self.reason, str) or not self.reason:
            raise ValueError("reason: expected a non-empty string")
        _finite("confidence", self.confidence)
        if not 0.0 <= self.confidence <= 1.0:
            raise ValueError(f"confidence: expected [0, 1], got {self.confidence}")
        if not isinstance(self.tokens, tuple):
            raise TypeError(f"tokens: expected a tuple, got {type(self.tokens).__name__}")
        if self.verdict == "outcome":
            if not (isinstance(self.red, int) and isinstance(self.white, int)):
                raise ValueError("red, white: an outcome needs integer counts")
            if self.red + self.white != 4 or min(self.red, self.white) < 0:
                raise ValueError(f"red, white: expected counts summing to 4, got {self.red}+{self.white}")
            faces = [t.face for t in self.tokens]
            if len(faces) != 4 or any(f not in ("red", "white") for f in faces):
                raise ValueError(f"tokens: an outcome needs four red/white tokens, got {faces}")
            if faces.count("red") != self.red:
                raise ValueError("red: does not match the token faces")
            if self.plate is None:
                raise ValueError("plate: an outcome needs the plate")
        elif self.red is not None or self.white is not None:
            raise ValueError(f"red, white: expected None for verdict {self.verdict!r}")

    @property
    def is_outcome(self) -> bool:
        return self.verdict == "outcome"

    def to_dict(self, source: str | None = None) -> dict[str, Any]:
        """The JSON object of the ``xocdia read`` contract."""
        out: dict[str, Any] = {}
        if source is not None:
            out["source"] = source
        out.update(
            verdict=self.verdict,
            red=self.red,
            white=self.white,
            reason=self.reason,
            confidence=round(self.confidence, 4),
            tokens=[t.to_dict() for t in self.tokens],
            plate=None if self.plate is None else self.plate.to_dict(),
            elapsed_ms=round(self.elapsed_ms, 3),
        )
        return out


def error_reading(reason: str, elapsed_ms: float = 0.0) -> Reading:
    """A Reading with verdict ``error`` (the input could not be read)."""
    return Reading(verdict="error", reason=reason, elapsed_ms=elapsed_ms)
