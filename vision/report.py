"""report.html of ``xocdia replay``: one page, no scripts, no network.

The page holds the counts per verdict, and with labels the per-kind accuracy
table and the confusion table; then every frame that was wrong or was not an
outcome, with its thumbnail (``thumbs/``, linking to the full annotated frame
in ``annotated/``) and its reason.  Everything it references sits in OUTDIR
beside it, by relative path, so the folder can be moved or zipped as a whole.
"""
from __future__ import annotations

import datetime as _dt
from html import escape
from pathlib import Path
from typing import Any

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:24px;color:#1d2430;background:#f6f7f9}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #d5d9e0;padding-bottom:4px}
.meta{color:#5a6473;font-size:12.5px}
table{border-collapse:collapse;background:#fff;margin:6px 0 4px;font-variant-numeric:tabular-nums}
th,td{border:1px solid #d5d9e0;padding:4px 9px;text-align:right} th{background:#eef1f5}
td.k,th.k{text-align:left} tr.total td{font-weight:600;background:#f1f3f6}
.bad{color:#b3261e;font-weight:600} .good{color:#1e7b34} .zero{color:#a8b0bc}
.chips span{display:inline-block;background:#fff;border:1px solid #d5d9e0;border-radius:12px;padding:2px 10px;margin:2px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:12px}
figure{margin:0;background:#fff;border:1px solid #d5d9e0;border-radius:6px;overflow:hidden}
figure.wrong{border:2px solid #b3261e}
figure img{display:block;width:100%;height:auto;background:#222}
figcaption{padding:6px 9px;font-size:12.5px;word-break:break-word}
.v{font-weight:700;text-transform:uppercase;font-size:11.5px;letter-spacing:.03em;padding:1px 6px;border-radius:4px;background:#e4e7ec}
.v-error{background:#f9d7d4;color:#8c1d18} .v-uncertain{background:#fff0c2} .v-outcome{background:#d3f0da}
.noimg{height:120px;display:flex;align-items:center;justify-content:center;background:#eee;color:#8a93a0}
.src{color:#5a6473}
"""

_COLS = (("n", "n"), ("right", "right"), ("right_pct", "right %"), ("wrong_outcome", "wrong outcomes"),
         ("abstained", "abstained"), ("errors", "errors"), ("other_wrong", "other wrong"))


def _cell(key: str, value: Any) -> str:
    if value is None:
        return '<td class="zero">-</td>'
    text = f"{value:.1f}" if isinstance(value, float) else str(value)
    cls = ""
    if key == "wrong_outcome" and value:
        cls = ' class="bad"'
    elif value == 0 and key != "right_pct":
        cls = ' class="zero"'
    return f"<td{cls}>{escape(text)}</td>"


def _accuracy_html(table: dict) -> str:
    head = '<tr><th class="k">kind</th>' + "".join(f"<th>{escape(t)}</th>" for _, t in _COLS) + "</tr>"
    body = []
    for kind, line in table["kinds"].items():
        body.append(f'<tr><td class="k">{escape(kind)}</td>' + "".join(_cell(k, line[k]) for k, _ in _COLS) + "</tr>")
    tot = table["total"]
    body.append('<tr class="total"><td class="k">total</td>' + "".join(_cell(k, tot[k]) for k, _ in _COLS) + "</tr>")
    return f"<table>\n<thead>{head}</thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>"


def _confusion_html(conf: dict) -> str:
    cols = conf["columns"]
    head = ('<tr><th class="k">label \u2193 / read \u2192</th>' + "".join(f"<th>{escape(c)}</th>" for c in cols)
            + "</tr>")
    body = []
    for r in conf["rows"]:
        cells = []
        for c in cols:
            n = conf["counts"][r][c]
            right = c == r
            wrong_outcome = n and (c == "outcome (wrong red)" or (c == "outcome" and r != "outcome"))
            cls = "bad" if wrong_outcome else ("good" if right and n else ("zero" if not n else ""))
            cells.append(f'<td class="{cls}">{n}</td>' if cls else f"<td>{n}</td>")
        body.append(f'<tr><td class="k">{escape(r)}</td>' + "".join(cells) + "</tr>")
    return f"<table>\n<thead>{head}</thead>\n<tbody>\n" + "\n".join(body) + "\n</tbody>\n</table>"


def _seconds(ms: float | None) -> str:
    return "" if ms is None else f"{ms / 1000:.2f}"


def _where(item: dict) -> str:
    text = item["source"]
    if item.get("frame") is None:
        return text
    if item.get("count", 1) > 1:
        text += f" \u00b7 frames {item['frame']}\u2013{item['frame_last']} ({item['count']} frames"
        if item.get("timestamp_ms") is not None and item.get("timestamp_ms_last") is not None:
            text += f", {_seconds(item['timestamp_ms'])}\u2013{_seconds(item['timestamp_ms_last'])} s"
        return text + "; the first is shown)"
    text += f" \u00b7 frame {item['frame']}"
    if item.get("timestamp_ms") is not None:
        text += f" ({_seconds(item['timestamp_ms'])} s)"
    return text


def _figure(item: dict) -> str:
    verdict = item["verdict"]
    vtext = verdict + (f" {item['red']} red" if verdict == "outcome" else "")
    label = item.get("label")
    expected = ""
    if label is not None:
        want = label["verdict"] + (f" {label.get('red')} red" if label["verdict"] == "outcome" else "")
        expected = f" &middot; expected <b>{escape(str(want))}</b> <span class=\"src\">[{escape(str(label['kind']))}]</span>"
    if item.get("thumb"):
        img = f'<img src="{escape(item["thumb"])}" alt="{escape(vtext)}" loading="lazy">'
        media = f'<a href="{escape(item["annotated"])}">{img}</a>' if item.get("annotated") else img
    else:
        media = '<div class="noimg">no frame</div>'
    cls = ' class="wrong"' if item.get("wrong") else ""
    return (f"<figure{cls}>{media}<figcaption><span class=\"v v-{escape(verdict)}\">{escape(vtext)}</span>{expected}"
            f"<br>{escape(item['reason'])}<br><span class=\"src\">{escape(_where(item))}</span></figcaption></figure>")


def render_report(summary: dict, listed: list[dict], omitted: int = 0) -> str:
    """The HTML text of the report (see :func:`write_report`)."""
    verdicts = summary.get("verdicts", {})
    chips = "".join(f"<span>{escape(v)} <b>{n}</b></span>" for v, n in verdicts.items()) or "<span>none</span>"
    status = "interrupted: partial results" if summary.get("interrupted") else "complete"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        '<head><meta charset="utf-8"><title>xocdia replay report</title>'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{_CSS}</style></head>",
        "<body>",
        "<h1>xocdia replay</h1>",
        f'<p class="meta">{escape(", ".join(summary.get("sources", [])))} &middot; {summary.get("frames", 0)} frame(s)'
        f" &middot; {escape(status)} &middot; {summary.get('elapsed_s', 0):.1f} s with {summary.get('workers', 1)}"
        f" worker(s) &middot; stride {summary.get('stride', 1)} &middot; profile "
        f"{escape(str(summary.get('profile') or 'none'))} &middot; "
        f"{escape(_dt.datetime.now().strftime('%Y-%m-%d %H:%M'))} &middot; "
        '<a href="results.jsonl">results.jsonl</a> &middot; <a href="summary.json">summary.json</a></p>',
        "<h2>Verdicts</h2>",
        f'<div class="chips">{chips}</div>',
    ]
    if summary.get("labels"):
        total = summary["total"]
        verdict_line = (f'<p class="bad">{total["wrong_outcome"]} wrong outcome(s)</p>' if total["wrong_outcome"]
                        else '<p class="good">no wrong outcome</p>')
        parts += ["<h2>Accuracy by kind</h2>", verdict_line, _accuracy_html(summary)]
        if summary.get("unlabelled"):
            parts.append(f'<p class="meta">{summary["unlabelled"]} frame(s) had no label and are not counted.</p>')
        parts.append('<p class="meta">right: verdict equals the label (and for an outcome the red count); '
                     "wrong outcomes: an outcome with the wrong red count or on a scene labelled otherwise; "
                     "abstained: uncertain; other wrong: any other verdict that differs from the label.</p>")
        if summary["confusion"]["rows"]:
            parts += ["<h2>Confusion (label verdict by reader verdict)</h2>", _confusion_html(summary["confusion"])]
    wrong = [i for i in listed if i.get("wrong")]
    others = [i for i in listed if not i.get("wrong")]
    n_others = sum(i.get("count", 1) for i in others)
    if wrong:
        parts += [f"<h2>Wrong outcomes ({sum(i.get('count', 1) for i in wrong)})</h2>", '<div class="grid">',
                  *(_figure(i) for i in wrong), "</div>"]
    parts += [f"<h2>Frames that were not an outcome ({n_others})</h2>"]
    if others:
        parts += ['<div class="grid">', *(_figure(i) for i in others), "</div>"]
    else:
        parts.append('<p class="meta">none: every frame was an outcome.</p>')
    if omitted:
        parts.append(f'<p class="meta">{omitted} more frame(s) are not shown here; they are in '
                     '<a href="results.jsonl">results.jsonl</a>.</p>')
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def write_report(outdir: str | Path, summary: dict, listed: list[dict], omitted: int = 0) -> Path:
    """Write ``OUTDIR/report.html``; returns its path.

    Parameters
    ----------
    outdir : path
        The replay output folder (thumbnails and annotated frames are
        referenced relative to it).
    summary : dict
        The contents of summary.json (accuracy fields as from
        :func:`vision.replay_accuracy.accuracy_table`, plus ``sources``,
        ``labels``, ``workers``, ``stride``, ``elapsed_s``, ``interrupted``).
    listed : list of dict
        Frames to show: ``source``, ``frame``, ``timestamp_ms``, ``verdict``,
        ``red``, ``reason``, ``label``, ``wrong``, ``annotated``, ``thumb``;
        a run of consecutive video frames also has ``count`` > 1,
        ``frame_last`` and ``timestamp_ms_last``.
    omitted : int
        Frames that qualified but are not shown (over the listing cap).
    """
    path = Path(outdir) / "report.html"
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(render_report(summary, listed, omitted), encoding="utf-8")
    tmp.replace(path)
    return path
