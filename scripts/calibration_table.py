#!/usr/bin/env python3
"""Calibrate on each studio's first three outcome frames, then read all its frames.

    python scripts/calibration_table.py [DIR]      (default ../shared/studio-renders)

For every studio prefix ``s{k}_`` in DIR: calibrate on the first three frames
(by name) whose label kind is ``outcome`` - always those, never chosen by
looking at results - then read every frame of that studio with the default
settings and with the profile, and print both per-kind accuracy tables
(:mod:`vision.replay_accuracy`) and a summary line.

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
from vision.reader import ReaderSettings, read_frame  # noqa: E402
from vision.replay_accuracy import AccuracyCounter, format_table  # noqa: E402


class _FaceRuleOnly:
    """The profile's face rule with the default token radius range (to separate the two effects)."""

    def __init__(self, profile) -> None:
        self.profile = profile

    def reader_settings(self) -> ReaderSettings:
        return ReaderSettings(face_rule=self.profile.face_rule)

    def check_plate(self, ellipse):
        return self.profile.check_plate(ellipse)


def studio_frames(folder: Path) -> dict[str, list[tuple[Path, dict]]]:
    out: dict[str, list[tuple[Path, dict]]] = {}
    for label_path in sorted(folder.glob("*.json")):
        m = re.match(r"(s\d+)_", label_path.name)
        image = next((label_path.with_suffix(s) for s in (".jpg", ".png") if label_path.with_suffix(s).exists()), None)
        if m and image is not None:
            out.setdefault(m.group(1), []).append((image, json.loads(label_path.read_text())))
    return out


def main() -> int:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "studio-renders"
    any_wrong = False
    summary = []
    for studio, frames in studio_frames(folder).items():
        cal = [str(p) for p, lab in frames if lab.get("kind") == "outcome"][:3]
        res = calibrate_files(cal, fixed_camera=False, source=f"{studio}.json")
        print(f"=== studio {studio}: calibrate on {', '.join(Path(c).name for c in cal)}")
        if res.profile is None:
            print("  REFUSED:")
            for p in res.problems:
                print(f"    {p}")
        else:
            r = res.profile.face_rule
            print(f"  profile: token_radius_frac {res.profile.token_radius_frac}, red a*>= {r.red_min_delta_a} "
                  f"(abs {r.red_min_abs_a}, chroma {r.red_min_chroma}), white a*<= {r.white_max_delta_a} "
                  f"(abs {r.white_max_abs_a})")
        default, prof, rule_only = AccuracyCounter(), AccuracyCounter(), AccuracyCounter()
        faces_only = None if res.profile is None else _FaceRuleOnly(res.profile)
        for path, label in frames:
            frame = load_image(path)
            row = read_frame(frame).to_dict()
            default.add(row, label)
            if res.profile is not None:
                prof.add(read_frame(frame, res.profile).to_dict(), label)
                rule_only.add(read_frame(frame, faces_only).to_dict(), label)
        t_def = default.table()
        print("  default:")
        print("    " + format_table(t_def).replace("\n", "\n    "))
        line = [studio, t_def["kinds"].get("outcome", {}), t_def["total"]]
        if res.profile is not None:
            t_prof = prof.table()
            print("  profile:")
            print("    " + format_table(t_prof).replace("\n", "\n    "))
            any_wrong |= t_prof["total"]["wrong_outcome"] > 0
            t_rule = rule_only.table()
            print("  profile's face rule only (default token radius range):")
            print("    " + format_table(t_rule).replace("\n", "\n    "))
            any_wrong |= t_rule["total"]["wrong_outcome"] > 0
            line += [t_prof["kinds"].get("outcome", {}), t_prof["total"], t_rule["kinds"].get("outcome", {}),
                     t_rule["total"]]
        summary.append(line)
    print("\n=== summary (outcome scenes right / n, all frames right / n, wrong outcomes)")
    for line in summary:
        studio, o_def, t_def = line[:3]
        text = (f"{studio}: default outcome {o_def.get('right', 0)}/{o_def.get('n', 0)}, all {t_def['right']}/"
                f"{t_def['n']}, wrong {t_def['wrong_outcome']}")
        if len(line) > 3:
            o_p, t_p, o_r, t_r = line[3:]
            text += (f" | profile outcome {o_p.get('right', 0)}/{o_p.get('n', 0)}, all {t_p['right']}/{t_p['n']}, "
                     f"wrong {t_p['wrong_outcome']} | face rule only outcome {o_r.get('right', 0)}/{o_r.get('n', 0)},"
                     f" all {t_r['right']}/{t_r['n']}, wrong {t_r['wrong_outcome']}")
        else:
            text += " | profile: calibration refused"
        print(text)
    return 1 if any_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
