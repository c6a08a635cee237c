"""Lab residuals drawn by hand for the token-search tests (labels from the drawing)."""
from __future__ import annotations

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
