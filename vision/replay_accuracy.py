"""Accuracy of reader verdicts against labels: the per-kind table and the confusion table.

Reused by ``xocdia replay --labels`` (and meant for ``calibrate --check``).

Every labelled frame falls in exactly one bucket:

``right``
    verdict equals the label verdict, and for an outcome the red count equals;
``wrong_outcome``
    the reader said ``outcome`` but the red count differs from the label, or
    the label verdict is not ``outcome`` (the dangerous mistake: money moves);
``abstained``
    the reader said ``uncertain`` and the label did not;
``errors``
    the reader said ``error`` (the frame could not be read);
``other_wrong``
    any other verdict that differs from the label (e.g. ``rearrange`` on an
    outcome scene).

So ``n = right + wrong_outcome + abstained + errors + other_wrong``.
Frames without a label are counted in ``unlabelled`` and nowhere else.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from .types import VERDICTS

BUCKETS = ("right", "wrong_outcome", "abstained", "errors", "other_wrong")
#: Kinds listed first, in this order; any other kind follows alphabetically.
KIND_ORDER = ("outcome", "touching", "tilted", "stick", "overlap", "upright", "offplate", "three_tokens",
              "five_tokens", "covered", "no_plate")
#: Column of the confusion table for an outcome whose red count is wrong.
WRONG_RED = "outcome (wrong red)"


def classify(row: dict, label: dict | None) -> str | None:
    """The bucket of one frame (see the module docstring); None when unlabelled."""
    if label is None or label.get("verdict") is None:
        return None
    verdict = row.get("verdict")
    expected = label.get("verdict")
    if verdict == "outcome":
        if expected == "outcome" and row.get("red") == label.get("red"):
            return "right"
        return "wrong_outcome"
    if verdict == expected:
        return "right"
    if verdict == "uncertain":
        return "abstained"
    if verdict == "error":
        return "errors"
    return "other_wrong"


def is_wrong_outcome(row: dict, label: dict | None) -> bool:
    return classify(row, label) == "wrong_outcome"


def _kind_key(kind: str) -> tuple[int, str]:
    return (KIND_ORDER.index(kind), "") if kind in KIND_ORDER else (len(KIND_ORDER), kind)


def _pct(num: int, den: int) -> float | None:
    return round(100.0 * num / den, 1) if den else None


class AccuracyCounter:
    """Accumulates rows one at a time (constant memory per kind); see :func:`accuracy_table`."""

    def __init__(self) -> None:
        self.kinds: dict[str, Counter] = {}
        self.confusion: dict[str, Counter] = {}
        self.verdicts: Counter = Counter()
        self.frames = 0
        self.unlabelled = 0

    def add(self, row: dict, label: dict | None) -> str | None:
        """Count one frame; returns its bucket (None when unlabelled)."""
        self.frames += 1
        verdict = str(row.get("verdict"))
        self.verdicts[verdict] += 1
        bucket = classify(row, label)
        if bucket is None:
            self.unlabelled += 1
            return None
        kind = str(label.get("kind") or label.get("verdict"))
        c = self.kinds.setdefault(kind, Counter())
        c["n"] += 1
        c[bucket] += 1
        col = WRONG_RED if (verdict == "outcome" and label.get("verdict") == "outcome"
                            and bucket == "wrong_outcome") else verdict
        self.confusion.setdefault(str(label.get("verdict")), Counter())[col] += 1
        return bucket

    def table(self) -> dict[str, Any]:
        """The accuracy dict (JSON-serialisable)."""
        def line(c: Counter) -> dict[str, Any]:
            out: dict[str, Any] = {"n": c["n"]}
            for b in BUCKETS:
                out[b] = c[b]
            out["right_pct"] = _pct(c["right"], c["n"])
            return out

        kinds = {k: line(self.kinds[k]) for k in sorted(self.kinds, key=_kind_key)}
        total = Counter()
        for c in self.kinds.values():
            total.update(c)
        rows_order = [v for v in VERDICTS if v in self.confusion] + sorted(set(self.confusion) - set(VERDICTS))
        cols_present = set().union(*self.confusion.values()) if self.confusion else set()
        col_order = [v for v in ("outcome", WRONG_RED) + VERDICTS[1:] if v in cols_present]
        col_order += sorted(cols_present - set(col_order))
        return {
            "frames": self.frames,
            "verdicts": {v: self.verdicts[v] for v in VERDICTS if self.verdicts[v]}
            | {v: n for v, n in sorted(self.verdicts.items()) if v not in VERDICTS},
            "labelled": self.frames - self.unlabelled,
            "unlabelled": self.unlabelled,
            "kinds": kinds,
            "total": line(total),
            "confusion": {"rows": rows_order, "columns": col_order,
                          "counts": {r: {c: self.confusion[r][c] for c in col_order} for r in rows_order}},
        }


def accuracy_table(rows: Iterable[dict], labels: Iterable[dict | None]) -> dict[str, Any]:
    """Per-kind accuracy and the confusion table of reader rows against labels.

    Parameters
    ----------
    rows : iterable of dict
        ``xocdia read`` objects (at least ``verdict`` and ``red``).
    labels : iterable of dict or None
        The label of each row, in the same order (at least ``kind``,
        ``verdict``, ``red``); None for an unlabelled frame.

    Returns
    -------
    dict
        ``frames``, ``verdicts`` (count per reader verdict), ``labelled``,
        ``unlabelled``, ``kinds`` (kind -> ``n``, ``right``, ``right_pct``,
        ``wrong_outcome``, ``abstained``, ``errors``, ``other_wrong``),
        ``total`` (same fields over all kinds), ``confusion`` (``rows``: label
        verdicts, ``columns``: reader verdicts, ``counts[row][column]``).
    """
    counter = AccuracyCounter()
    rows, labels = list(rows), list(labels)
    if len(rows) != len(labels):
        raise ValueError(f"rows, labels: expected the same length, got {len(rows)} and {len(labels)}")
    for row, label in zip(rows, labels):
        counter.add(row, label)
    return counter.table()


_COLUMNS = (("n", "n"), ("right", "right"), ("right_pct", "right %"), ("wrong_outcome", "wrong outcome"),
            ("abstained", "abstained"), ("errors", "errors"), ("other_wrong", "other wrong"))


def format_table(table: dict[str, Any]) -> str:
    """The per-kind table of :func:`accuracy_table` as aligned text (no trailing newline)."""
    header = ["kind"] + [title for _, title in _COLUMNS]
    body = []
    for kind, line in list(table["kinds"].items()) + [("TOTAL", table["total"])]:
        cells = [kind]
        for key, _ in _COLUMNS:
            v = line[key]
            cells.append("-" if v is None else (f"{v:.1f}" if isinstance(v, float) else str(v)))
        body.append(cells)
    widths = [max(len(r[i]) for r in [header] + body) for i in range(len(header))]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(widths[0]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(cells))

    lines = [fmt(header), "  ".join("-" * w for w in widths)]
    lines += [fmt(r) for r in body[:-1]]
    lines += ["  ".join("-" * w for w in widths), fmt(body[-1])]
    if table.get("unlabelled"):
        lines.append(f"({table['unlabelled']} frame(s) without a label are not in this table)")
    return "\n".join(lines)


def format_verdicts(table: dict[str, Any]) -> str:
    """One line of counts per reader verdict."""
    parts = [f"{v} {n}" for v, n in table["verdicts"].items()]
    return f"{table['frames']} frame(s): " + (", ".join(parts) if parts else "none")
