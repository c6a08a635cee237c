"""What ``xocdia replay`` reads: SOURCE arguments expanded into a stream of frames.

A SOURCE is an image file, a folder (searched recursively, sorted by relative
path, for images and videos), a glob pattern (``'shots/**/*.jpg'``; matches
are sorted and each is handled like a SOURCE) or a video file (every frame,
or every k-th with ``stride``).  Expanding the arguments lists paths only;
frames are decoded one at a time as the stream is consumed, so memory does
not grow with the number of frames.

Labels: ``NAME.json`` beside ``NAME.jpg`` (or in a labels folder, at the same
relative path or by file name).  A video's label ``CLIP.json`` is either one
label for every frame, or ``{"frames": [label-or-null, ...]}`` indexed by the
video's frame index.
"""
from __future__ import annotations

import glob
import json
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from .io import IMAGE_SUFFIXES

#: File suffixes (lower case) read as videos; everything else is read as an image.
VIDEO_SUFFIXES = (".avi", ".mp4", ".mov", ".mkv", ".webm", ".m4v", ".mpg", ".mpeg", ".wmv", ".ts")
_GLOB_CHARS = re.compile(r"[*?\[]")


class SourceError(ValueError):
    """A SOURCE argument that matches nothing (a usage error); names it."""


@dataclass(frozen=True)
class Unit:
    """One file to replay: an image or a video.

    Attributes
    ----------
    path : Path
        The file.
    kind : str
        ``image`` or ``video``.
    root : Path or None
        The folder SOURCE it was found in (for relative label paths), else None.
    """

    path: Path
    kind: str
    root: Path | None = None


@dataclass
class Task:
    """One frame to read (or an error row to emit), as sent to a worker.

    ``array`` is set for video frames (the decoded BGR frame), None for images
    (the worker loads ``path`` itself).  ``error`` set means no frame: the
    worker returns an error row with that reason.
    """

    seq: int
    source: str
    path: str
    name: str
    frame: int | None = None
    timestamp_ms: float | None = None
    array: np.ndarray | None = None
    error: str | None = None
    label: dict | None = None

    def slim(self) -> "Task":
        """A copy without the frame pixels (what the parent keeps while a worker reads)."""
        return Task(self.seq, self.source, self.path, self.name, self.frame, self.timestamp_ms, None, self.error,
                    self.label)


def is_video(path: Path) -> bool:
    return path.suffix.lower() in VIDEO_SUFFIXES


def _folder_units(folder: Path) -> list[Unit]:
    found = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for fn in filenames:
            suffix = os.path.splitext(fn)[1].lower()
            if suffix in IMAGE_SUFFIXES or suffix in VIDEO_SUFFIXES:
                found.append(Path(dirpath) / fn)
    found.sort(key=lambda p: p.relative_to(folder).as_posix())
    return [Unit(p, "video" if is_video(p) else "image", folder) for p in found]


def expand_sources(sources: list[str]) -> list[Unit]:
    """Expand SOURCE arguments into image and video files, in order.

    Raises
    ------
    SourceError
        A SOURCE is missing, is a folder with no image or video in it, or is a
        glob that matches nothing; the message names it.
    """
    units: list[Unit] = []
    for src in sources:
        p = Path(src)
        if p.is_dir():
            found = _folder_units(p)
            if not found:
                raise SourceError(f"{src}: folder holds no image or video "
                                  f"({', '.join(IMAGE_SUFFIXES + VIDEO_SUFFIXES)})")
            units.extend(found)
        elif p.exists():
            units.append(Unit(p, "video" if is_video(p) else "image", None))
        elif _GLOB_CHARS.search(src):
            matches = sorted(glob.glob(src, recursive=True))
            sub: list[Unit] = []
            for m in matches:
                mp = Path(m)
                if mp.is_dir():
                    sub.extend(_folder_units(mp))
                elif mp.suffix.lower() in IMAGE_SUFFIXES or is_video(mp):
                    sub.append(Unit(mp, "video" if is_video(mp) else "image", None))
            if not sub:
                raise SourceError(f"{src}: glob matches no image, video or folder")
            units.extend(sub)
        else:
            raise SourceError(f"{src}: no such file, folder or glob match")
    return units


# ---------------------------------------------------------------------------
# labels
# ---------------------------------------------------------------------------
class LabelFinder:
    """Finds the label of a frame; ``labels_dir`` None means beside the file.

    A label file that is not valid JSON (or not an object) is reported once
    on stderr and the frame counts as unlabelled.
    """

    def __init__(self, labels_dir: str | os.PathLike | None) -> None:
        self.labels_dir = None if labels_dir is None else Path(labels_dir)
        self._video_cache: tuple[Path, Any] | None = None
        self.bad_files: list[str] = []

    def _candidates(self, unit: Unit) -> list[Path]:
        if self.labels_dir is None:
            return [unit.path.with_suffix(".json")]
        out = []
        if unit.root is not None:
            out.append(self.labels_dir / unit.path.relative_to(unit.root).with_suffix(".json"))
        out.append(self.labels_dir / (unit.path.stem + ".json"))
        return out

    def _load(self, unit: Unit) -> Any:
        for cand in self._candidates(unit):
            if cand.is_file():
                try:
                    data = json.loads(cand.read_text(encoding="utf-8"))
                except (OSError, ValueError) as exc:
                    self._bad(f"{cand}: not a readable JSON label ({exc})")
                    return None
                if not isinstance(data, dict):
                    self._bad(f"{cand}: a label must be a JSON object")
                    return None
                return data
        return None

    def _bad(self, msg: str) -> None:
        self.bad_files.append(msg)
        print(f"xocdia replay: warning: {msg}; frame counted as unlabelled", file=sys.stderr)

    def label_for(self, unit: Unit, frame: int | None = None) -> dict | None:
        """The label dict of an image, or of frame ``frame`` of a video."""
        if unit.kind == "image":
            data = self._load(unit)
            return data if data is not None and "verdict" in data else None
        if self._video_cache is None or self._video_cache[0] != unit.path:
            self._video_cache = (unit.path, self._load(unit))
        data = self._video_cache[1]
        if data is None:
            return None
        frames = data.get("frames")
        if isinstance(frames, list):
            if frame is None or not 0 <= frame < len(frames):
                return None
            item = frames[frame]
            return item if isinstance(item, dict) and "verdict" in item else None
        return data if "verdict" in data else None


def compact_label(label: dict | None) -> dict | None:
    """The fields of a label replay uses: kind, verdict, red."""
    if label is None:
        return None
    return {"kind": str(label.get("kind") or label.get("verdict")), "verdict": label.get("verdict"),
            "red": label.get("red")}


# ---------------------------------------------------------------------------
# frames
# ---------------------------------------------------------------------------
def _safe(stem: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", stem)[:60] or "frame"


def video_frame_count(path: Path) -> int:
    """Frames the container says it holds (0 when it does not say)."""
    import cv2

    cap = cv2.VideoCapture(str(path))
    try:
        n = cap.get(cv2.CAP_PROP_FRAME_COUNT) if cap.isOpened() else 0
    finally:
        cap.release()
    return int(n) if n and math.isfinite(n) and n > 0 else 0


#: A video ends after this many frames in a row that cannot be decoded.
MAX_CONSECUTIVE_BAD_FRAMES = 8


def iter_video(path: Path, stride: int = 1) -> Iterator[tuple[int, float | None, np.ndarray | None, str | None]]:
    """Yield ``(index, timestamp_ms, frame, error)`` for every ``stride``-th frame.

    A frame that cannot be decoded gives one item whose ``frame`` is None and
    whose ``error`` names the frame; reading goes on while the container says
    more frames follow (a corrupt middle loses only its own frames), and ends
    after ``MAX_CONSECUTIVE_BAD_FRAMES`` failures in a row with one item that
    says where it stopped.  A file that cannot be opened gives one such item
    with index 0.  Never raises for a bad file.
    """
    import cv2

    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        cap.release()
        yield 0, None, None, f"{path}: cannot open video (not a video, corrupt, or an unsupported codec)"
        return
    try:
        fps = cap.get(cv2.CAP_PROP_FPS)
        fps = fps if fps and math.isfinite(fps) and fps > 0 else None
        raw_count = cap.get(cv2.CAP_PROP_FRAME_COUNT)
        expected = int(raw_count) if raw_count and math.isfinite(raw_count) and raw_count > 0 else 0
        idx = 0
        good = 0
        bad_run = 0
        last_good = -1
        pending: list[int] = []
        while True:
            want = idx % stride == 0
            try:
                if want:
                    ok, frame = cap.read()
                    ok = ok and frame is not None and frame.size > 0
                else:
                    ok, frame = cap.grab(), None
            except cv2.error:
                ok, frame = False, None
            if not ok:
                # Held back: frames that fail with nothing decodable after
                # them are a truncated tail, reported once below.
                if want:
                    pending.append(idx)
                bad_run += 1
                if idx + 1 >= expected or bad_run > MAX_CONSECUTIVE_BAD_FRAMES:
                    break
                idx += 1
                continue
            for bad in pending:
                yield bad, None, None, f"{path}: frame {bad} of {expected} could not be decoded (corrupt frame)"
            pending = []
            bad_run = 0
            last_good = idx
            good += 1
            if want:
                ts = cap.get(cv2.CAP_PROP_POS_MSEC)
                if not (ts is not None and math.isfinite(ts) and ts >= 0 and (ts > 0 or idx == 0)):
                    ts = idx * 1000.0 / fps if fps else None
                yield idx, (None if ts is None else round(float(ts), 3)), frame, None
            idx += 1
    finally:
        cap.release()
    if good == 0:
        yield 0, None, None, (f"{path}: no frame could be decoded"
                              + (f" of {expected} expected" if expected else "") + " (corrupt or truncated video)")
    elif expected and last_good + 1 < expected:
        yield last_good + 1, None, None, (f"{path}: truncated video: no frame after index {last_good} "
                                          f"of {expected} expected")


def count_frames(units: list[Unit], stride: int = 1) -> int:
    """Expected number of rows (for the progress bar): 1 per image, frames/stride per video."""
    n = 0
    for u in units:
        if u.kind == "image":
            n += 1
        else:
            n += max(1, math.ceil(video_frame_count(u.path) / stride))
    return n


def iter_tasks(units: list[Unit], labels: LabelFinder | None, stride: int = 1) -> Iterator[Task]:
    """One :class:`Task` per image, per kept video frame, and per video error."""
    seq = 0
    for u in units:
        src = str(u.path)
        if u.kind == "image":
            label = labels.label_for(u) if labels else None
            yield Task(seq, src, src, f"{seq:06d}_{_safe(u.path.stem)}", label=compact_label(label))
            seq += 1
            continue
        for idx, ts, frame, error in iter_video(u.path, stride):
            label = labels.label_for(u, idx) if labels and error is None else None
            yield Task(seq, src, src, f"{seq:06d}_{_safe(u.path.stem)}_f{idx:06d}", frame=idx, timestamp_ms=ts,
                       array=frame, error=error, label=compact_label(label))
            seq += 1
