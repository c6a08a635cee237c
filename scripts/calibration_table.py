#!/usr/bin/env python3
"""Calibrate on three outcome frames of each studio, then read all its frames.

    python scripts/calibration_table.py [DIR] [--pick first|second|last|spread]   (default ../shared/studio-renders, first)

For every studio prefix ``s{k}_`` in DIR: calibrate on three frames whose
label kind is ``outcome``, chosen by a fixed rule on their names, never by
looking at results - ``first``: the first three by name; ``second``: the
fourth to sixth; ``last``: the last three; ``spread``: the first, middle and last - then read every frame of that
studio with the default settings and with the profile, and print both
per-kind accuracy tables (:mod:`vision.replay_accuracy`), the kinds where the
profile is worse, and a summary line.

The studio renders were taken with a different camera position for every
frame (elevation 0-38 deg), so the profile is learnt with ``fixed_camera=False``
(``xocdia calibrate --any-camera``): colours and sizes only, no camera-moved
check.  A refused calibration is printed with its reasons and the studio's
profile column stays empty.

Exits 1 if the profile gave any wrong outcome.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from calibration.calibrate import calibrate_files  # noqa: E402
from vision.io import load_image  # noqa: E402
from calibration.cli import worse_kinds  # noqa: E402
from vision.reader import read_frame  # noqa: E402
from vision.replay_accuracy import AccuracyCounter, format_table  # noqa: E402


def studio_frames(folder: Path) -> dict[str, list[tuple[Path, dict]]]:
    out: dict[str, list[tuple[Path, dict]]] = {}
    for label_path in sorted(folder.glob("*.json")):
        m = re.match(r"(s\d+)_", label_path.name)
        image = next((label_path.with_suffix(s) for s in (".jpg", ".png") if label_path.with_suffix(s).exists()), None)
        if m and image is not None:
            out.setdefault(m.group(1), []).append((image, json.loads(label_path.read_text())))
    return out


def pick(outcomes: list[str], rule: str) -> list[str]:
    """Three calibration frames from the studio's outcome frames (sorted by name) by a fixed rule."""
    if rule == "first":
        return outcomes[:3]
    if rule == "second":
        return outcomes[3:6]
    if rule == "last":
        return outcomes[-3:]
    if rule == "spread":
        return [outcomes[0], outcomes[len(outcomes) // 2], outcomes[-1]] if len(outcomes) >= 3 else outcomes
    raise ValueError(f"--pick: expected first, second, last or spread, got {rule!r}")


def main() -> int:
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folder", nargs="?",
                    default=str(Path(__file__).resolve().parents[2] / "shared" / "studio-renders"))
    ap.add_argument("--pick", default="first", choices=("first", "second", "last", "spread"))
    args = ap.parse_args()
    folder = Path(args.folder)
    any_wrong = False
    summary = []
    for studio, frames in studio_frames(folder).items():
        cal = pick([str(p) for p, lab in frames if lab.get("kind") == "outcome"], args.pick)
        res = calibrate_files(cal, fixed_camera=False, source=f"{studio}.json")
        print(f"=== studio {studio}: calibrate on {', '.join(Path(c).name for c in cal)}")
        if res.profile is None:
            print("  REFUSED:")
            for p in res.problems:
                print(f"    {p}")
        else:
            r, o = res.profile.face_rule, res.profile.outline_rule
            print(f"  profile: token_radius_frac {res.profile.token_radius_frac}, red a*>= {r.red_min_delta_a} "
                  f"(abs {r.red_min_abs_a}, chroma {r.red_min_chroma}), white a*<= {r.white_max_delta_a} "
                  f"(abs {r.white_max_abs_a}); outline rule z>= {o.min_z}, contrast>= {o.min_contrast_l} L, "
                  f"sectors>= {o.min_sectors}, evenness>= {o.min_evenness}")
            for p in res.problems:
                print(f"  note: {p}")
        default, prof = AccuracyCounter(), AccuracyCounter()
        for path, label in frames:
            frame = load_image(path)
            row = read_frame(frame).to_dict()
            default.add(row, label)
            if res.profile is not None:
                prof.add(read_frame(frame, res.profile).to_dict(), label)
        t_def = default.table()
        print("  default:")
        print("    " + format_table(t_def).replace("\n", "\n    "))
        line = [studio, t_def["kinds"].get("outcome", {}), t_def["total"]]
        if res.profile is not None:
            t_prof = prof.table()
            print("  profile:")
            print("    " + format_table(t_prof).replace("\n", "\n    "))
            any_wrong |= t_prof["total"]["wrong_outcome"] > 0
            worse = worse_kinds(t_prof, t_def)
            print("  profile vs default: " + ("no kind worse" if not worse else "worse on " + "; ".join(worse)))
            line += [t_prof["kinds"].get("outcome", {}), t_prof["total"], worse]
        summary.append(line)
    print("\n=== summary (outcome scenes right / n, all frames right / n, wrong outcomes)")
    for line in summary:
        studio, o_def, t_def = line[:3]
        text = (f"{studio}: default outcome {o_def.get('right', 0)}/{o_def.get('n', 0)}, all {t_def['right']}/"
                f"{t_def['n']}, wrong {t_def['wrong_outcome']}")
        if len(line) > 3:
            o_p, t_p, worse = line[3:]
            text += (f" | profile outcome {o_p.get('right', 0)}/{o_p.get('n', 0)}, all {t_p['right']}/{t_p['n']}, "
                     f"wrong {t_p['wrong_outcome']}, {'no kind worse' if not worse else 'WORSE on ' + str(len(worse))}")
        else:
            text += " | profile: calibration refused"
        print(text)
    return 1 if any_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
