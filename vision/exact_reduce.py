"""NumPy's own reductions, bit for bit, without their per-call overhead.

The outline test (:mod:`vision.outline`) takes the float32 mean of the ring
and of the sides of each of 16 sectors around a circle, hundreds of times a
frame, and a 25th percentile of the 16 sector contrasts.  One ``ndarray.mean``
of a dozen values costs a few microseconds of Python around a sub-microsecond
sum; here the same sums are done for every sector at once, in the order NumPy
adds them, so every result has the same bits as the one-by-one calls.

What is reproduced (NumPy 2.x, checked by ``tests/test_exact_reduce.py``):

* ``np.add.reduce`` of a contiguous 1-D float32 array of ``n`` values is
  ``0.0 + pairwise(a)``, where ``pairwise`` adds fewer than 8 values one after
  the other from 0.0, up to ``PAIRWISE_BLOCK_VALUES`` values in 8 running
  sums (lane ``j`` takes ``a[j], a[j + 8], ...``) combined as
  ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))`` with the last
  ``n % 8`` values then added in turn, and more values by halves (not
  reproduced: such a segment falls back to ``np.add.reduce`` itself).
* ``ndarray.mean`` of float32 is that sum divided by the count as an intp in
  float64, rounded back to float32.
* ``np.percentile(d, q)`` (method ``"linear"``) of ``n >= 2`` finite float64
  values is ``a + (b - a) * g`` for ``g < 0.5``, else ``b - (b - a) * (1 - g)``,
  where ``a, b`` are the sorted values at ``floor(v)`` and ``floor(v) + 1``,
  ``v = (n - 1) * (q / 100)`` and ``g = v - floor(v)``.

Padding: a lane or a remainder a segment does not fill adds ``-0.0``, which
leaves every float32 value as it is (``x + (-0.0) == x`` bit for bit, for
``x = -0.0`` too).  A segment of fewer than 8 values then starts from ``-0.0``
instead of ``0.0``: the running sums differ at most in the sign of a zero, and
the final ``0.0 +`` makes that zero ``+0.0`` as in NumPy.
"""
from __future__ import annotations

import math

import numpy as np

#: Values NumPy's float pairwise summation adds in one block of 8 running sums;
#: longer segments are split in halves there (here: summed by NumPy itself).
PAIRWISE_BLOCK_VALUES = 128
#: Running sums (lanes) of NumPy's pairwise summation.
PAIRWISE_LANES = 8


def pairwise_layout(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Where each value of consecutive segments goes in NumPy's pairwise summation.

    Parameters
    ----------
    counts : ndarray, int, (K,)
        Values per segment; the segments lie one after the other in a 1-D
        array of ``counts.sum()`` values.

    Returns
    -------
    (blocks, rest) or None
        ``blocks``: intp (K, B, ``PAIRWISE_LANES``), the position of the value
        that block ``i``, lane ``j`` of segment ``k`` adds; ``rest``: intp
        (K, ``PAIRWISE_LANES - 1``), the positions of the values added one by
        one after the lanes are combined.  Unused places hold ``counts.sum()``
        (the padding value's position, see :func:`segment_sums_f32`).  None
        when a segment is longer than ``PAIRWISE_BLOCK_VALUES``.
    """
    counts = np.asarray(counts, dtype=np.intp)
    if counts.ndim != 1 or (counts < 0).any():
        raise ValueError(f"counts: expected a 1-D array of counts >= 0, got {counts!r}")
    if counts.max(initial=0) > PAIRWISE_BLOCK_VALUES:
        return None
    total = int(counts.sum())
    k = counts.size
    starts = np.cumsum(counts) - counts
    n_blocks = counts // PAIRWISE_LANES  # 0 below 8 values: all are added one by one
    seg = np.repeat(np.arange(k), counts)
    pos = np.arange(total) - starts[seg]
    in_blocks = pos < PAIRWISE_LANES * n_blocks[seg]
    blocks = np.full((k, max(int(n_blocks.max(initial=0)), 1), PAIRWISE_LANES), total, np.intp)
    p = pos[in_blocks]
    blocks[seg[in_blocks], p // PAIRWISE_LANES, p % PAIRWISE_LANES] = np.flatnonzero(in_blocks)
    rest = np.full((k, PAIRWISE_LANES - 1), total, np.intp)
    out = ~in_blocks
    rest[seg[out], pos[out] - PAIRWISE_LANES * n_blocks[seg[out]]] = np.flatnonzero(out)
    return blocks, rest


def segment_sums_f32(values: np.ndarray, counts: np.ndarray,
                     layout: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """``[np.add.reduce(seg) for seg in segments]`` of float32 values, bit for bit.

    Parameters
    ----------
    values : ndarray, float32, (N,)
        The segments one after the other (``N = counts.sum()``).
    counts : ndarray, int, (K,)
        Values per segment.
    layout : tuple or None
        :func:`pairwise_layout` of ``counts`` when already known.

    Returns
    -------
    ndarray, float32, (K,)
        Each segment's sum as ``np.add.reduce`` gives it (0.0 when empty).
    """
    values = np.asarray(values)
    counts = np.asarray(counts, dtype=np.intp)
    if values.dtype != np.float32 or values.ndim != 1 or values.size != int(counts.sum()):
        raise ValueError(f"values: expected float32 (counts.sum(),), got {values.dtype} {values.shape}")
    if layout is None:
        layout = pairwise_layout(counts)
    if layout is None:  # a segment NumPy sums by halves: NumPy itself
        ends = np.cumsum(counts)
        return np.array([np.add.reduce(values[e - n:e]) for e, n in zip(ends, counts)], dtype=np.float32)
    blocks, rest = layout
    padded = np.empty(values.size + 1, np.float32)
    padded[:-1] = values
    padded[-1] = -0.0
    got = padded[blocks]
    lanes = got[:, 0].copy()
    for i in range(1, got.shape[1]):
        lanes += got[:, i]
    s = ((lanes[:, 0] + lanes[:, 1]) + (lanes[:, 2] + lanes[:, 3])) + (
        (lanes[:, 4] + lanes[:, 5]) + (lanes[:, 6] + lanes[:, 7]))
    tail = padded[rest]
    for j in range(tail.shape[1]):
        s += tail[:, j]
    return np.add(np.float32(0.0), s)


def segment_means_f32(values: np.ndarray, counts: np.ndarray,
                      layout: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """``[seg.mean() for seg in segments]`` of float32 values, bit for bit.

    As :func:`segment_sums_f32`, each sum then divided by its count (an intp)
    in float64 and rounded to float32, as ``ndarray.mean`` does.  An empty
    segment gives NaN (where ``mean`` warns and gives NaN too).

    Returns
    -------
    ndarray, float32, (K,)
    """
    counts = np.asarray(counts, dtype=np.intp)
    sums = segment_sums_f32(values, counts, layout).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.true_divide(sums, counts).astype(np.float32)


def percentile_linear(values: list[float], q: float) -> float:
    """``float(np.percentile(values, q))`` (method ``"linear"``), bit for bit, for a short list.

    Parameters
    ----------
    values : list of float
        Finite values (NumPy's own for fewer than 2, any non-finite or any
        zero: the order of a -0.0 and a 0.0 after NumPy's partition is not
        that of ``sorted``).
    q : float
        Percentile, 0 to 100.

    Returns
    -------
    float
    """
    n = len(values)
    if n < 2 or not all(math.isfinite(v) and v != 0.0 for v in values) or not 0 <= q <= 100:
        return float(np.percentile(values, q))
    v = (n - 1) * float(np.true_divide(q, 100))
    i = math.floor(v)
    if i + 1 >= n:  # q = 100: NumPy takes the last value
        return float(np.percentile(values, q))
    s = sorted(values)
    a, b = s[i], s[i + 1]
    g = v - i
    diff = b - a
    return b - diff * (1 - g) if g >= 0.5 else a + diff * g


#: ``np.nanmedian`` along an axis of a multi-dimensional array shorter than
#: this sorts a masked array (its "small" path, reproduced by
#: :func:`nanmedian_last_axis`); longer axes take another path.
NANMEDIAN_SMALL_AXIS_MAX = 600


def nanmedian_last_axis(values: np.ndarray) -> np.ndarray:
    """``np.nanmedian(values, axis=-1, keepdims=True)``, bit for bit, without masked arrays.

    NumPy sorts each row as a masked array (NaN masked, sorted last), takes
    the ``(k - 1) // 2``-th and ``k // 2``-th of its ``k`` valid values, and
    returns their masked sum (from 0.0) divided by 2.0; here the same from a
    plain ``np.sort`` (NaN last).  NumPy's own for anything else: not a
    float64 array of 2 or more dimensions with rows of 1 to
    ``NANMEDIAN_SMALL_AXIS_MAX - 1`` values, any infinite value (its order
    against the masked values is NumPy's business), any -0.0, or a row with
    no valid value (NumPy warns and gives NaN).

    Parameters
    ----------
    values : ndarray, float64, (..., n)

    Returns
    -------
    ndarray, float64, (..., 1)
    """
    values = np.asarray(values)
    if (values.dtype != np.float64 or values.ndim < 2 or not 0 < values.shape[-1] < NANMEDIAN_SMALL_AXIS_MAX
            or np.isinf(values).any()):
        return np.nanmedian(values, axis=-1, keepdims=True)
    counts = values.shape[-1] - np.count_nonzero(np.isnan(values), axis=-1, keepdims=True)
    zeros = values == 0
    if not counts.all() or (zeros.any() and np.signbit(values[zeros]).any()):
        # (a -0.0 beside a 0.0 may sort either way)
        return np.nanmedian(values, axis=-1, keepdims=True)
    ordered = np.sort(values, axis=-1)
    high = counts // 2
    low = np.where(counts % 2 == 1, high, high - 1)
    total = np.add(0.0, np.take_along_axis(ordered, low, axis=-1))
    total += np.take_along_axis(ordered, high, axis=-1)
    return np.true_divide(total, 2.0, out=total)
