"""``xocdia calibrate FRAME... --out PROFILE.json [--empty EMPTY_FRAME] [--report DIR] [--check LABELLED_DIR]``

Learns a studio profile from 2 to 5 frames that each show the plate with four
flat, separated tokens (both colours among them; nobody says which is which).

Exit codes: 0 profile written (and, with --check, no wrong outcome); 1 the
calibration set was refused (each reason on stderr names its frame), or
--check found a wrong outcome; 2 usage error.

``--check DIR`` reads every labelled frame in DIR (``NAME.jpg`` + ``NAME.json``
with ``kind``, ``verdict``, ``red``) with the new profile and with the default
settings, prints both per-kind accuracy tables and names every kind the
profile reads worse than the default (a warning).  ``--any-camera`` is for frame sets taken from
several camera positions (e.g. rendered test sets): the profile then learns
colours and sizes only and never reports a moved camera.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

from vision.io import IMAGE_SUFFIXES

from .calibrate import calibrate_files


def add_arguments(parser) -> None:
    parser.add_argument("frames", nargs="+", metavar="FRAME",
                        help="2 to 5 frames of the plate with four flat, separated tokens")
    parser.add_argument("--out", required=True, metavar="PROFILE.json", help="where to write the profile")
    parser.add_argument("--empty", metavar="EMPTY_FRAME", default=None,
                        help="a frame of the empty plate from the same camera (optional)")
    parser.add_argument("--report", metavar="DIR", default=None,
                        help="write DIR/calibration.html with the plate fits, tokens, face scatter and verdict")
    parser.add_argument("--check", metavar="LABELLED_DIR", default=None,
                        help="read the labelled frames in this folder with the new profile and print the accuracy table")
    parser.add_argument("--any-camera", action="store_true",
                        help="frames come from different camera positions: learn colours and sizes only "
                             "(the profile will not detect a moved camera)")


def labelled_frames(folder: Path) -> list[tuple[Path, dict | None]]:
    """Images in ``folder`` (sorted) with their ``NAME.json`` label or None."""
    out = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file():
            lp = p.with_suffix(".json")
            label = None
            if lp.exists():
                try:
                    label = json.loads(lp.read_text(encoding="utf-8"))
                except (OSError, ValueError):
                    label = None
            out.append((p, label if isinstance(label, dict) else None))
    return out


def worse_kinds(table: dict, default: dict) -> list[str]:
    """Kinds where the profile has fewer right frames, or more wrong outcomes, than the default settings."""
    out = []
    for kind, line in table["kinds"].items():
        d = default["kinds"].get(kind)
        if d is not None and (line["right"] < d["right"] or line["wrong_outcome"] > d["wrong_outcome"]):
            out.append(f"{kind} (right {line['right']}/{line['n']} vs {d['right']}/{d['n']}, wrong outcomes "
                       f"{line['wrong_outcome']} vs {d['wrong_outcome']})")
    return out


def check(profile, folder: Path, out=sys.stdout, *, compare_default: bool = True) -> dict:
    """Read every labelled frame of ``folder`` with ``profile`` (and with the default
    settings); print both accuracy tables and the kinds the profile reads worse.

    Returns the profile's table; with ``compare_default`` it also holds
    ``default`` (the default settings' table) and ``worse`` (list of str).
    """
    from vision.read_cli import read_path
    from vision.replay_accuracy import AccuracyCounter, format_table, format_verdicts

    counter, base = AccuracyCounter(), AccuracyCounter()
    for path, label in labelled_frames(folder):
        counter.add(read_path(str(path), profile), label)
        if compare_default:
            base.add(read_path(str(path), None), label)
    table = counter.table()
    print(f"check: {folder} with profile {profile.source}", file=out)
    print(format_verdicts(table), file=out)
    print(format_table(table), file=out)
    if compare_default:
        default = base.table()
        print(f"check: {folder} with the default settings (no profile)", file=out)
        print(format_verdicts(default), file=out)
        print(format_table(default), file=out)
        table = dict(table, default=default, worse=worse_kinds(table, default))
        print("profile vs default: " + ("no kind worse" if not table["worse"]
                                        else "worse on " + "; ".join(table["worse"])), file=out)
    return table


def run(args) -> int:
    prog = "xocdia calibrate"
    if args.check is not None and not Path(args.check).is_dir():
        print(f"{prog}: --check {args.check}: not a folder", file=sys.stderr)
        return 2
    out_path = Path(args.out)
    if out_path.parent and not out_path.parent.exists():
        print(f"{prog}: --out {args.out}: folder {out_path.parent} does not exist", file=sys.stderr)
        return 2
    res = calibrate_files(list(args.frames), empty=args.empty, fixed_camera=not args.any_camera, source=str(out_path))
    if args.report is not None:
        html = write_report_safe(res, args.report, str(out_path))
        if html:
            print(f"report: {html}", file=sys.stderr)
    for p in res.problems:
        if not p.fatal:
            print(f"{prog}: warning: {p}", file=sys.stderr)
    if not res.ready:
        print(f"{prog}: calibration refused, nothing written:", file=sys.stderr)
        for p in res.problems:
            if p.fatal:
                print(f"  {p}", file=sys.stderr)
        return 1
    try:
        res.profile.save(out_path)
    except OSError as exc:
        print(f"{prog}: --out {args.out}: cannot write: {exc}", file=sys.stderr)
        return 2
    r, o = res.profile.face_rule, res.profile.outline_rule
    print(f"profile written: {out_path} (red: a* over plate >= {r.red_min_delta_a:g}, white: <= "
          f"{r.white_max_delta_a:g}; token radius {res.profile.token_radius_frac[0]:g}-"
          f"{res.profile.token_radius_frac[1]:g} of the plate radius; outline: z >= {o.min_z:g}, contrast >= "
          f"{o.min_contrast_l:g} L, {o.min_sectors}/16 sectors, evenness >= {o.min_evenness:g}; "
          f"{'fixed camera' if res.profile.fixed_camera else 'any camera'})")
    if args.check is not None:
        table = check(res.profile, Path(args.check))
        if table["total"]["wrong_outcome"]:
            print(f"{prog}: --check: {table['total']['wrong_outcome']} wrong outcome(s) with this profile",
                  file=sys.stderr)
            return 1
        if table.get("worse"):
            print(f"{prog}: --check: warning: the profile reads worse than the default settings on: "
                  + "; ".join(table["worse"]), file=sys.stderr)
    return 0


def write_report_safe(res, outdir: str, profile_path: str) -> str | None:
    from .report import write_report

    try:
        return str(write_report(res, outdir, profile_path=profile_path if res.ready else None))
    except OSError as exc:
        print(f"xocdia calibrate: --report {outdir}: cannot write: {exc}", file=sys.stderr)
        return None
