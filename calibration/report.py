"""The calibration report: ``DIR/calibration.html`` with PNGs beside it.

* each frame with the plate fit and the detected tokens drawn on a copy;
* a scatter plot of every face, a* over the plate (x) against chroma (y),
  with the learnt thresholds, the undecided band and the margin between the
  classes (drawn with OpenCV: no plotting library);
* the verdict: ready, or the list of what to fix, each naming its frame.

Drawing only: every number comes from :class:`calibration.calibrate.CalibrationResult`.
Input frames are never modified.
"""
from __future__ import annotations

import html
import math
from pathlib import Path

import cv2
import numpy as np

from .calibrate import CalibrationResult, FrameMeasurement

RED = (40, 40, 220)
WHITE = (235, 235, 235)
PLATE = (0, 220, 255)
BAD = (0, 0, 255)
KIND_COLOURS = {"disc": (0, 255, 0), "faint": (255, 200, 0), "outline": (255, 255, 0), "upright": (255, 0, 255), "overlap": (0, 0, 255),
                "partial": (0, 140, 255), "object": (0, 0, 160)}
#: Width of the frame thumbnails, pixels.
THUMB_W = 640


def draw_frame(m: FrameMeasurement) -> np.ndarray:
    """A copy of the frame, scaled to THUMB_W, with the plate ellipse and the token candidates."""
    img = m.image
    scale = THUMB_W / img.shape[1]
    out = cv2.resize(img, (THUMB_W, max(1, int(round(img.shape[0] * scale)))), interpolation=cv2.INTER_AREA)
    if m.plate is not None:
        e = m.plate
        cv2.ellipse(out, (int(round(e.cx * scale)), int(round(e.cy * scale))),
                    (int(round(e.a * scale)), int(round(e.b * scale))), e.angle_deg, 0, 360, PLATE, 2, cv2.LINE_AA)
    if m.view is not None:
        inv = np.linalg.inv(m.view.to_canonical)
        src_per_canon = m.view.source_scale()
        for c in m.candidates:
            p = inv @ np.array([c.x, c.y, 1.0])
            x, y = p[0] / p[2] * scale, p[1] / p[2] * scale
            col = KIND_COLOURS.get(c.kind, BAD)
            cv2.circle(out, (int(round(x)), int(round(y))), max(2, int(round(c.radius * src_per_canon * scale))),
                       col, 2, cv2.LINE_AA)
            cv2.putText(out, c.kind, (int(x) + 6, int(y) - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.4, col, 1, cv2.LINE_AA)
    label = m.name if len(m.name) < 60 else "..." + m.name[-57:]
    cv2.putText(out, label, (8, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(out, label, (8, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA)
    return out


def draw_scatter(res: CalibrationResult, size: tuple[int, int] = (640, 420)) -> np.ndarray:
    """Face scatter: a* over the plate (x) against chroma (y), thresholds and margins."""
    w, h = size
    img = np.full((h, w, 3), 250, np.uint8)
    faces = res.all_faces
    left, right, top, bottom = 60, 20, 20, 50
    xs = [f.delta_a for f in faces] or [0.0]
    ys = [f.chroma for f in faces] or [0.0]
    rule = res.rule
    x_lo = min(min(xs), rule.white_max_delta_a if rule else 0.0, 0.0) - 5
    x_hi = max(max(xs), rule.red_min_delta_a if rule else 20.0) + 5
    y_hi = max(max(ys), 20.0) * 1.1

    def px(x: float, y: float) -> tuple[int, int]:
        return (int(round(left + (x - x_lo) / (x_hi - x_lo) * (w - left - right))),
                int(round(h - bottom - y / y_hi * (h - top - bottom))))

    # axes and ticks
    cv2.rectangle(img, (left, top), (w - right, h - bottom), (120, 120, 120), 1)
    step = 10 if x_hi - x_lo < 120 else 20
    for t in range(int(math.ceil(x_lo / step)) * step, int(x_hi) + 1, step):
        x, _ = px(t, 0)
        cv2.line(img, (x, h - bottom), (x, h - bottom + 4), (80, 80, 80), 1)
        cv2.putText(img, str(t), (x - 10, h - bottom + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (60, 60, 60), 1, cv2.LINE_AA)
    for t in range(0, int(y_hi) + 1, 10 if y_hi < 120 else 20):
        _, y = px(x_lo, t)
        cv2.line(img, (left - 4, y), (left, y), (80, 80, 80), 1)
        cv2.putText(img, str(t), (left - 30, y + 4), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (60, 60, 60), 1, cv2.LINE_AA)
    cv2.putText(img, "a* of face - plate (Lab units)", (w // 2 - 110, h - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                (40, 40, 40), 1, cv2.LINE_AA)
    cv2.putText(img, "chroma", (4, top + 12), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (40, 40, 40), 1, cv2.LINE_AA)
    if rule is not None:
        xw, _ = px(rule.white_max_delta_a, 0)
        xr, _ = px(rule.red_min_delta_a, 0)
        band = img.copy()
        cv2.rectangle(band, (xw, top), (xr, h - bottom), (170, 170, 170), cv2.FILLED)
        cv2.addWeighted(band, 0.45, img, 0.55, 0, dst=img)
        cv2.line(img, (xw, top), (xw, h - bottom), (90, 90, 90), 2)
        cv2.line(img, (xr, top), (xr, h - bottom), (30, 30, 180), 2)
        _, yc = px(x_lo, rule.red_min_chroma)
        cv2.line(img, (xr, yc), (w - right, yc), (30, 30, 180), 1)
        cv2.putText(img, f"white <= {rule.white_max_delta_a:g}", (xw - 95, top + 14), cv2.FONT_HERSHEY_SIMPLEX,
                    0.4, (60, 60, 60), 1, cv2.LINE_AA)
        cv2.putText(img, f"red >= {rule.red_min_delta_a:g}", (xr + 4, top + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.4,
                    (30, 30, 180), 1, cv2.LINE_AA)
        gap = res.margins.get("delta_a_gap")
        if gap is not None and res.face_labels:
            wmax = max(f.delta_a for f, lab in zip(faces, res.face_labels) if lab == "white")
            rmin = min(f.delta_a for f, lab in zip(faces, res.face_labels) if lab == "red")
            y = h - bottom - 12
            cv2.arrowedLine(img, px(wmax, 0)[:1] + (y,), px(rmin, 0)[:1] + (y,), (0, 120, 0), 1, cv2.LINE_AA,
                            tipLength=0.03)
            cv2.arrowedLine(img, px(rmin, 0)[:1] + (y,), px(wmax, 0)[:1] + (y,), (0, 120, 0), 1, cv2.LINE_AA,
                            tipLength=0.03)
            cv2.putText(img, f"gap {gap:g}", (px((wmax + rmin) / 2, 0)[0] - 25, y - 6), cv2.FONT_HERSHEY_SIMPLEX,
                        0.4, (0, 120, 0), 1, cv2.LINE_AA)
    labels = res.face_labels or ("unknown",) * len(faces)
    for f, lab in zip(faces, labels):
        c = px(f.delta_a, f.chroma)
        fill = RED if lab == "red" else WHITE if lab == "white" else (160, 160, 160)
        cv2.circle(img, c, 6, fill, cv2.FILLED, cv2.LINE_AA)
        cv2.circle(img, c, 6, (20, 20, 20), 1, cv2.LINE_AA)
    return img


def write_report(res: CalibrationResult, outdir: str | Path, *, profile_path: str | None = None) -> Path:
    """Write ``outdir/calibration.html`` and its PNGs; returns the HTML path."""
    outdir = Path(outdir)
    outdir.mkdir(parents=True, exist_ok=True)
    items = []
    for i, m in enumerate(res.frames):
        if m.image is None:
            continue
        name = f"frame_{i:02d}.png"
        cv2.imwrite(str(outdir / name), draw_frame(m))
        faces = ", ".join(f"a* {f.delta_a:+.0f} / chroma {f.chroma:.0f}"
                          + (f" / outline z {f.outline[0]:.0f}, {f.outline[1]}/16 sectors, {f.outline[2]:.1f} L"
                             if f.outline else "") for f in m.faces) or "none"
        if m.picked:
            faces += f" ({len(m.picked)} pale face(s) found by ranking the outlines: four tokens were expected)"
        if m.plate_peaks:
            strongest = max(m.plate_peaks, key=lambda t: t[4])
            faces += (f"; {len(m.plate_peaks)} outline mark(s) of the plate itself, the strongest z "
                      f"{strongest[2]:.1f}, {strongest[4]:.1f} L")
        items.append(f'<figure><img src="{name}" alt="{html.escape(m.name)}"><figcaption>'
                     f'{html.escape(m.name)} ({m.role}) &middot; {html.escape(m.plate_reason or "")}'
                     f'<br>plate L* {m.plate_l:.0f}, glare {m.glare_frac:.1%}, faces: {html.escape(faces)}'
                     f'</figcaption></figure>')
    cv2.imwrite(str(outdir / "faces.png"), draw_scatter(res))
    fatal = [p for p in res.problems if p.fatal]
    warnings = [p for p in res.problems if not p.fatal]
    if res.ready:
        verdict = f'<p class="ok">READY: profile written{" to " + html.escape(profile_path) if profile_path else ""}.</p>'
    else:
        verdict = ('<p class="bad">NOT READY: fix the following and calibrate again.</p><ul>'
                   + "".join(f"<li>{html.escape(str(p))}</li>" for p in fatal) + "</ul>")
    if warnings:
        verdict += "<p>Warnings:</p><ul>" + "".join(f"<li>{html.escape(str(p))}</li>" for p in warnings) + "</ul>"
    rows = ""
    if res.rule is not None:
        r = res.rule
        rows = "".join(f"<tr><td>{k}</td><td>{v:g}</td></tr>" for k, v in (
            ("red_min_delta_a", r.red_min_delta_a), ("white_max_delta_a", r.white_max_delta_a),
            ("red_min_abs_a", r.red_min_abs_a), ("white_max_abs_a", r.white_max_abs_a),
            ("red_min_chroma", r.red_min_chroma)))
        rows += "".join(f"<tr><td>margin: {html.escape(k)}</td><td>{v:g}</td></tr>" for k, v in res.margins.items())
    if res.outline_rule is not None:
        o = res.outline_rule
        rows += "".join(f"<tr><td>outline {k}</td><td>{v:g}</td></tr>" for k, v in (
            ("min_z", o.min_z), ("min_contrast_l", o.min_contrast_l), ("min_sectors", o.min_sectors),
            ("min_evenness", o.min_evenness)))
    if res.profile is not None:
        rows += f"<tr><td>token_radius_frac</td><td>{res.profile.token_radius_frac}</td></tr>"
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>xocdia calibration</title>
<style>body{{font-family:sans-serif;margin:1.5em;max-width:1400px}} figure{{display:inline-block;margin:6px;
vertical-align:top;max-width:{THUMB_W}px}} img{{max-width:100%}} figcaption{{font-size:12px}}
.ok{{color:#070;font-weight:bold}} .bad{{color:#a00;font-weight:bold}} td{{padding:2px 10px}}</style></head>
<body><h1>Studio calibration</h1>
{verdict}
<h2>Faces</h2>
<figure><img src="faces.png" alt="face scatter"><figcaption>Every face: a* over the plate against chroma; red and
white as clustered; grey band: undecided; vertical lines: the learnt thresholds; green: the gap between the classes.
</figcaption></figure>
<table>{rows}</table>
<h2>Frames</h2>
<p>Yellow: plate fit. Green: flat discs, blue: faint discs, cyan: pale faces found by their dark outline, other
colours: tokens that are not flat or single.  The outline rule (when a dark outline alone is a pale face) is learnt
from the white faces seen by their outline, and kept above the plate's own outline marks.</p>
{''.join(items)}
</body></html>
"""
    path = outdir / "calibration.html"
    path.write_text(page, encoding="utf-8")
    return path
