"""``xocdia replay SOURCE... [--profile P] [--labels [DIR]] [--out OUTDIR] [--workers N] [--stride K]``

Replays images, folders, globs and videos through the still-frame reader and
writes, in OUTDIR (default ``out/replay``):

``results.jsonl``
    one ``xocdia read`` object per frame, in input order, written and flushed
    line by line (so an interrupted run leaves a valid file of what was done),
    plus ``frame`` and ``timestamp_ms`` for video frames, ``annotated`` (the
    annotated frame, relative to OUTDIR, or null for an error row) and, with
    ``--labels``, ``label`` (``kind``, ``verdict``, ``red``; null if none).
``annotated/``
    every frame with the plate, the token outlines coloured by face, the
    verdict and the reason drawn on it.
``summary.json``
    counts per verdict and, with labels, the per-kind accuracy table and the
    confusion table (:func:`accuracy_table`).
``report.html``
    a page with the counts, the tables, and every frame that was not an
    outcome or was wrong, with its thumbnail (``thumbs/``) and reason.

Exit codes: 0 ok; 1 when an outcome is wrong (an outcome whose red count
differs from the label, or an outcome on a scene whose label is not an
outcome; needs ``--labels``); 2 usage error (bad argument, a SOURCE that
matches nothing, a bad profile); 130 interrupted (Ctrl-C or SIGTERM; results.jsonl,
summary.json and report.html then hold what was done).  Errors (corrupt
files, truncated videos) never stop a run and do not change the exit code:
they are rows with verdict ``error``, counted in the table and listed in the
report.
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any, Iterable, Iterator

from .io import DEFAULT_MAX_PIXELS
from .replay_accuracy import AccuracyCounter, accuracy_table, format_table, format_verdicts  # noqa: F401 (re-export)
from .replay_sources import LabelFinder, SourceError, Task, count_frames, expand_sources, iter_tasks

#: Default output folder.
DEFAULT_OUT = "out/replay"
#: Tasks in flight per worker (bounds memory: at most workers x this many frames are held at once).
INFLIGHT_PER_WORKER = 3
#: JPEG quality of the annotated frames and thumbnails, 0..100.
ANNOTATED_JPEG_QUALITY = 88
THUMB_JPEG_QUALITY = 80
#: Most entries listed (with thumbnails) in report.html; the rest are counted, and are in results.jsonl.
#: Consecutive frames of a video with the same verdict (and label) are one entry.
MAX_REPORT_ITEMS = 1000
#: Longest wait for one frame from a worker before it becomes an error row, seconds
#: (a worker that dies mid-frame would otherwise leave the run waiting for ever).
FRAME_TIMEOUT_S = 300.0
#: Progress bar refresh interval, seconds.
PROGRESS_INTERVAL_S = 0.2

_EPILOG = """\
SOURCE is an image, a folder (searched recursively, sorted), a glob (quote it:
'shots/**/*.jpg') or a video (.avi .mp4 .mov .mkv ...; every frame, or every
K-th with --stride).  Labels: NAME.json beside NAME.jpg (or in DIR) with at
least kind, verdict, red; a video's CLIP.json is one label for all frames or
{"frames": [label, ...]}.

exit codes:
  0    done; no wrong outcome
  1    with --labels: at least one wrong outcome (an outcome whose red count
       differs from the label, or an outcome on a scene labelled otherwise)
  2    usage error: bad option, a SOURCE that matches nothing, a bad profile
  130  interrupted (Ctrl-C or SIGTERM): results.jsonl, summary.json and report.html hold
       the frames read so far
Corrupt images and truncated videos never stop a run and do not fail it: they
become rows with verdict "error", counted in the table and listed in the report.
"""


# ---------------------------------------------------------------------------
# CLI
# ---------------------------------------------------------------------------
def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = _EPILOG
    parser.add_argument("sources", nargs="+", metavar="SOURCE", help="image, folder, glob or video")
    parser.add_argument("--profile", metavar="PROFILE.json", default=None, help="studio profile from xocdia calibrate")
    parser.add_argument("--labels", metavar="DIR", nargs="?", const="", default=None,
                        help="compare with labels: NAME.json beside each image (no DIR; put --labels after the "
                             "SOURCEs or write --labels=) or in DIR; prints the per-kind table and exits 1 on any "
                             "wrong outcome")
    parser.add_argument("--out", metavar="OUTDIR", default=DEFAULT_OUT, help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--workers", metavar="N", type=_positive_int, default=1,
                        help="read frames in N processes (results stay in input order; default 1)")
    parser.add_argument("--stride", metavar="K", type=_positive_int, default=1,
                        help="read every K-th frame of a video (default 1: every frame)")
    parser.add_argument("--max-pixels", type=int, default=DEFAULT_MAX_PIXELS,
                        help=f"refuse images larger than this, by their header (default {DEFAULT_MAX_PIXELS})")


# ---------------------------------------------------------------------------
# the per-frame work (runs in a worker process, or in-process with --workers 1)
# ---------------------------------------------------------------------------
_STATE: dict[str, Any] = {}


def _setup(profile_path: str | None, outdir: str, max_pixels: int) -> None:
    from .read_cli import load_profile_arg

    _STATE.update(profile=load_profile_arg(profile_path), outdir=Path(outdir), max_pixels=max_pixels)


def _init_worker(profile_path: str | None, outdir: str, max_pixels: int) -> None:
    import cv2

    cv2.setNumThreads(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and terminates the pool
    _setup(profile_path, outdir, max_pixels)


def needs_listing(row: dict, label: dict | None) -> bool:
    """Whether report.html lists the frame: not an outcome, or a wrong one."""
    from .replay_accuracy import is_wrong_outcome

    return row.get("verdict") != "outcome" or is_wrong_outcome(row, label)


def _row(task: Task, reading) -> dict:
    """The results.jsonl row of one task: source, frame and timestamp (video), the read fields."""
    body = reading.to_dict(source=task.source)
    row: dict[str, Any] = {"source": body.pop("source")}
    if task.frame is not None:
        row["frame"] = task.frame
        row["timestamp_ms"] = task.timestamp_ms
    row.update(body)
    row["annotated"] = None
    return row


def _error_row(task: Task, reason: str) -> dict:
    from .types import error_reading

    return _row(task, error_reading(reason))


def process_task(task: Task) -> tuple[dict, str | None]:
    """Read one frame; write its annotated frame (and thumbnail when the report
    lists it).  Returns ``(row, thumbnail path relative to OUTDIR or None)``.
    Never raises (anything unexpected becomes an error row)."""
    try:
        return _process_task(task)
    except Exception as exc:  # noqa: BLE001 - one frame must never stop the run
        where = task.path if task.frame is None else f"{task.path} frame {task.frame}"
        return _error_row(task, f"{where}: internal error in replay: {type(exc).__name__}: {exc}"), None


def _process_task(task: Task) -> tuple[dict, str | None]:
    import cv2

    from .annotate import draw_reading, thumbnail
    from .errors import FrameError
    from .io import load_image, to_bgr8
    from .reader import read_frame
    from .types import error_reading

    outdir: Path = _STATE["outdir"]
    t0 = time.perf_counter()
    frame = None
    if task.error is not None:
        reading = error_reading(task.error)
    else:
        try:
            if task.array is not None:
                frame = to_bgr8(task.array, name=f"{task.path} frame {task.frame}")
            else:
                frame = load_image(task.path, max_pixels=_STATE["max_pixels"])
            reading = read_frame(frame, profile=_STATE["profile"])
        except FrameError as exc:
            reading = error_reading(str(exc), elapsed_ms=(time.perf_counter() - t0) * 1e3)
        except Exception as exc:  # noqa: BLE001 - one bad frame must not stop the others
            where = task.path if task.frame is None else f"{task.path} frame {task.frame}"
            reading = error_reading(f"{where}: internal error while reading: {type(exc).__name__}: {exc}",
                                    elapsed_ms=(time.perf_counter() - t0) * 1e3)
    row = _row(task, reading)
    thumb_rel = None
    if frame is not None and reading.verdict != "error":
        try:
            drawn = draw_reading(frame, row, task.label)
            rel = f"annotated/{task.name}.jpg"
            if not cv2.imwrite(str(outdir / rel), drawn, [cv2.IMWRITE_JPEG_QUALITY, ANNOTATED_JPEG_QUALITY]):
                raise OSError(f"cannot write {outdir / rel}")
            row["annotated"] = rel
            if needs_listing(row, task.label):
                thumb_rel = f"thumbs/{task.name}.jpg"
                cv2.imwrite(str(outdir / thumb_rel), thumbnail(drawn), [cv2.IMWRITE_JPEG_QUALITY, THUMB_JPEG_QUALITY])
        except (OSError, ValueError, cv2.error) as exc:
            print(f"xocdia replay: warning: {task.name}: annotation not written ({exc})", file=sys.stderr)
    return row, thumb_rel


def ordered_results(pool, tasks: Iterable[Task], inflight: int) -> Iterator[tuple[Task, tuple[dict, str | None]]]:
    """Run ``tasks`` on ``pool`` keeping input order, with at most ``inflight``
    tasks submitted and not yet collected (``Pool.imap`` would pull the whole
    input into its queue; this keeps memory flat)."""
    import multiprocessing as mp

    pending: deque = deque()

    def collect():
        t, res = pending.popleft()
        try:
            return t, res.get(timeout=FRAME_TIMEOUT_S)
        except mp.TimeoutError:
            where = t.path if t.frame is None else f"{t.path} frame {t.frame}"
            return t, (_error_row(t, f"{where}: no answer from the worker within {FRAME_TIMEOUT_S:.0f} s "
                                     "(worker crashed or hung)"), None)

    for task in tasks:
        pending.append((task.slim(), pool.apply_async(process_task, (task,))))
        while len(pending) >= inflight:
            yield collect()
    while pending:
        yield collect()


# ---------------------------------------------------------------------------
# progress
# ---------------------------------------------------------------------------
class Progress:
    """``count/total  rate  ETA`` on one refreshed stderr line, only when stderr is a terminal."""

    def __init__(self, total: int, stream=None, enabled: bool | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.total = max(total, 0)
        self.done = 0
        self.t0 = time.monotonic()
        self._last = 0.0

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self._last >= PROGRESS_INTERVAL_S or self.done >= self.total):
            self._last = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = max(now - self.t0, 1e-9)
        rate = self.done / elapsed
        total = max(self.total, self.done)
        eta = (total - self.done) / rate if rate > 0 else 0.0
        width = 28
        fill = int(width * self.done / total) if total else width
        bar = "#" * fill + "-" * (width - fill)
        mins, secs = divmod(int(round(eta)), 60)
        self.stream.write(f"\r[{bar}] {self.done}/{total}  {rate:5.1f} frames/s  ETA {mins:d}:{secs:02d} ")
        self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()


# ---------------------------------------------------------------------------
# the run
# ---------------------------------------------------------------------------
def _prepare_outdir(outdir: Path) -> None:
    for sub in ("annotated", "thumbs"):
        d = outdir / sub
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob("*.jpg"):  # frames of an earlier run into the same OUTDIR
            old.unlink()


def _raise_interrupt(signum, frame):  # noqa: ARG001
    raise KeyboardInterrupt


@contextlib.contextmanager
def _interrupts_deferred():
    """Hold Ctrl-C and SIGTERM back while one frame's row is written and counted.

    An interrupt between writing a row to results.jsonl and counting it left
    summary.json one frame short of the file (seen under load: 2 counted, 3
    written).  For the few statements that write, count and list one row,
    each of the two signals whose handler is a Python one (Ctrl-C's
    KeyboardInterrupt, SIGTERM's :func:`_raise_interrupt`) is only noted; on
    leaving, the handlers are put back and a noted signal's handler is run
    then, after the row is both written and counted.  (Blocking the signals
    would not do: the kernel hands a process signal to any thread that does
    not block it, OpenCV's among them.)  Outside the main thread nothing is
    held back.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    noted: list[int] = []

    def note(signum, frame):  # noqa: ARG001
        noted.append(signum)

    before = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(sig)
        if callable(handler):
            before[sig] = handler
            signal.signal(sig, note)
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
        for sig in noted[:1]:
            before[sig](sig, None)


def _on_sigterm_interrupt():
    """Make SIGTERM stop a run like Ctrl-C (partial results and report, exit 130);
    returns the previous handler (None when not in the main thread)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _raise_interrupt)


def _continues(prev: dict, item: dict) -> bool:
    """Whether a listed video frame just extends the previous listed run (same video,
    the row right after it, same verdict and label): the report then shows the run once."""
    return (item["frame"] is not None and prev["frame"] is not None and prev["seq"] == item["seq"] - 1
            and all(prev[k] == item[k] for k in ("source", "verdict", "red", "label", "wrong"))
            and item["verdict"] != "error")


def replay(sources: list[str], *, outdir: str | os.PathLike = DEFAULT_OUT, labels: str | None = None,
           profile: str | None = None, workers: int = 1, stride: int = 1, max_pixels: int = DEFAULT_MAX_PIXELS,
           progress: bool | None = None, stdout=None) -> int:
    """Run a replay (see the module docstring); returns the exit code.

    Raises
    ------
    SourceError
        A SOURCE matches nothing.
    ProfileError
        ``profile`` cannot be loaded.
    """
    from .read_cli import load_profile_arg
    from .report import write_report

    stdout = stdout if stdout is not None else sys.stdout
    t_start = time.monotonic()
    units = expand_sources(sources)
    if labels and not Path(labels).is_dir():
        raise SourceError(f"--labels {labels}: no such folder")
    load_profile_arg(profile)  # fail early, with the path, before any frame is read
    out = Path(outdir)
    _prepare_outdir(out)
    finder = LabelFinder(labels or None) if labels is not None else None
    bar = Progress(count_frames(units, stride), enabled=progress)
    counter = AccuracyCounter()
    listed: list[dict] = []
    omitted = 0
    interrupted = False
    pool = None
    tasks = iter_tasks(units, finder, stride)
    results_path = out / "results.jsonl"
    old_term = _on_sigterm_interrupt()
    with open(results_path, "w", encoding="utf-8") as fh:
        try:
            if workers == 1:
                _setup(profile, str(out), max_pixels)
                results: Iterable = ((t.slim(), process_task(t)) for t in tasks)
            else:
                import multiprocessing as mp

                pool = mp.get_context("spawn").Pool(workers, initializer=_init_worker,
                                                    initargs=(profile, str(out), max_pixels))
                results = ordered_results(pool, tasks, workers * INFLIGHT_PER_WORKER)
            for task, (row, thumb) in results:
                with _interrupts_deferred():  # a row written is a row counted
                    if finder is not None:
                        row["label"] = task.label
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
                    bucket = counter.add(row, task.label)
                    if needs_listing(row, task.label):
                        item = {"source": row["source"], "frame": row.get("frame"),
                                "timestamp_ms": row.get("timestamp_ms"), "verdict": row["verdict"],
                                "red": row["red"], "reason": row["reason"], "label": task.label,
                                "wrong": bucket == "wrong_outcome", "annotated": row["annotated"], "thumb": thumb,
                                "count": 1, "seq": task.seq}
                        if listed and _continues(listed[-1], item):
                            listed[-1].update(count=listed[-1]["count"] + 1, seq=task.seq,
                                              frame_last=item["frame"], timestamp_ms_last=item["timestamp_ms"])
                        elif len(listed) < MAX_REPORT_ITEMS:
                            listed.append(item)
                        else:
                            omitted += 1
                    bar.update()
        except KeyboardInterrupt:
            interrupted = True
            if pool is not None:
                pool.terminate()
        finally:
            if pool is not None:
                if not interrupted:
                    pool.close()
                pool.join()
            bar.close()
            if old_term is not None:
                signal.signal(signal.SIGTERM, old_term)
    table = counter.table()
    exit_code = 130 if interrupted else (1 if table["total"]["wrong_outcome"] else 0)
    summary = {
        "sources": list(sources), "out": str(out), "labels": finder is not None, "profile": profile,
        "workers": workers, "stride": stride, "interrupted": interrupted,
        "elapsed_s": round(time.monotonic() - t_start, 3), "exit_code": exit_code, **table,
        "label_problems": finder.bad_files if finder else [],
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    report = write_report(out, summary, listed, omitted)
    if interrupted:
        print(f"xocdia replay: interrupted after {table['frames']} frame(s)", file=sys.stderr)
    print(format_verdicts(table), file=stdout)
    if finder is not None:
        print(format_table(table), file=stdout)
        wrong = table["total"]["wrong_outcome"]
        print(f"wrong outcomes: {wrong}", file=stdout)
    print(f"results: {results_path}", file=stdout)
    print(f"report:  {report}", file=stdout)
    return exit_code


def run(args) -> int:
    from .errors import ProfileError

    try:
        return replay(args.sources, outdir=args.out, labels=args.labels, profile=args.profile,
                      workers=args.workers, stride=args.stride, max_pixels=args.max_pixels)
    except (SourceError, ProfileError) as exc:
        print(f"xocdia replay: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:  # --profile before the calibration package exists
        print(f"xocdia replay: --profile {args.profile}: cannot load profiles ({exc})", file=sys.stderr)
        return 2
