"""Coordinate grids of a box, without ``np.ogrid``'s index machinery."""
from __future__ import annotations

import numpy as np


def open_grid(y0: int, y1: int, x0: int, x1: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.ogrid[y0:y1, x0:x1]``: the box's rows and columns, to broadcast.

    The same arrays (int64 values ``y0 .. y1 - 1`` as a column and ``x0 ..
    x1 - 1`` as a row) from two ``np.arange`` calls: ``np.ogrid`` builds them
    through its slice-parsing ``__getitem__``, about 20 µs a call, and the
    token search and the face tests ask for some twenty boxes a frame.

    Parameters
    ----------
    y0, y1, x0, x1 : int
        The box, end-exclusive, pixels.

    Returns
    -------
    rows : ndarray, int64, (y1 - y0, 1)
    cols : ndarray, int64, (1, x1 - x0)
    """
    return np.arange(y0, y1)[:, None], np.arange(x0, x1)[None, :]
