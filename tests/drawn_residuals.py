"""Lab residuals drawn by hand for the token-search tests (labels from the drawing)."""
from __future__ import annotations

import cv2
import numpy as np

#: Token radius and canvas side of the drawn residuals, canonical pixels.
TOKEN_R = 12.0
SIZE = 200


def residual_with(discs: list[tuple[float, float, tuple[float, float, float]]]) -> np.ndarray:
    """A Lab residual (float32, (SIZE, SIZE, 3)), zero but for discs of
    ``TOKEN_R`` at (x, y) filled with the given (dL, da, db)."""
    res = np.zeros((SIZE, SIZE, 3), np.float32)
    rr, cc = np.mgrid[:SIZE, :SIZE]
    for x, y, lab in discs:
        res[(cc - x) ** 2 + (rr - y) ** 2 < TOKEN_R ** 2] = lab
    return res


def blob_centre(res: np.ndarray, x: float, y: float, level: float) -> tuple[float, float]:
    """The centroid (x, y) of the region of ``res`` over ``level`` in L* (channel 0)
    connected to the pixel (x, y): where a blob finder puts the face."""
    mask = (res[..., 0] > level).astype(np.uint8)
    _, labels = cv2.connectedComponents(mask)
    ys, xs = np.nonzero(labels == labels[int(round(y)), int(round(x))])
    return float(xs.mean()), float(ys.mean())
