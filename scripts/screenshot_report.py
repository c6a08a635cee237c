"""Screenshot a replay report.html in headless Chromium (for the README's docs/report.png).

Usage: python scripts/screenshot_report.py [REPORT.html] [--png docs/report.png] [--size 1280,1600]

REPORT.html defaults to out/demo/report.html (run ``make demo`` first).
Needs Debian's ``chromium`` (``apt-get install -y chromium``) or any of
chromium-browser / google-chrome on PATH.  Chromium runs with a fresh,
throw-away profile, no network services, no sandbox (so it runs as root in a
container), and is killed if it does not finish in ``--timeout`` seconds.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def screenshot(html: Path, png: Path, size: tuple[int, int] = (1280, 1600), timeout_s: float = 60.0) -> Path:
    """Render ``html`` to ``png`` (width x height px of the window); returns ``png``.

    Raises
    ------
    FileNotFoundError
        No report, or no Chromium.
    RuntimeError
        Chromium failed or wrote no image.
    """
    html = html.resolve()
    if not html.is_file():
        raise FileNotFoundError(f"{html}: no such report (run `make demo` first)")
    browser = find_browser()
    if browser is None:
        raise FileNotFoundError(f"no Chromium found (tried {', '.join(BROWSERS)}); apt-get install -y chromium")
    png = png.resolve()
    png.parent.mkdir(parents=True, exist_ok=True)
    tmp_png = png.with_suffix(".tmp.png")
    tmp_png.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="xocdia-chromium-") as profile:
        cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
               "--disable-dev-shm-usage", f"--user-data-dir={profile}", f"--screenshot={tmp_png}",
               f"--window-size={size[0]},{size[1]}", html.as_uri()]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s, check=False)
    if not tmp_png.is_file() or tmp_png.stat().st_size == 0:
        raise RuntimeError(f"chromium wrote no screenshot (exit {proc.returncode}): {proc.stderr.strip()[-800:]}")
    tmp_png.replace(png)
    return png


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", nargs="?", default=str(ROOT / "out" / "demo" / "report.html"))
    parser.add_argument("--png", default=str(ROOT / "docs" / "report.png"))
    parser.add_argument("--size", default="1280,1600", help="window width,height in px (default 1280,1600)")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds before Chromium is killed")
    args = parser.parse_args(argv)
    try:
        w, h = (int(v) for v in args.size.split(","))
    except ValueError:
        parser.error(f"--size: expected WIDTH,HEIGHT, got {args.size!r}")
    try:
        out = screenshot(Path(args.report), Path(args.png), (w, h), args.timeout)
    except (FileNotFoundError, RuntimeError, subprocess.TimeoutExpired) as exc:
        print(f"screenshot_report: {exc}", file=sys.stderr)
        return 1
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
