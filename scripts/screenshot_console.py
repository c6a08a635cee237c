"""Screenshot of ``xocdia console`` for the README: docs/console.png.

Starts the console on a sample clip (default: the overlap/rearrange one in
samples/clips, so the page shows a rearrange's faces before and after and a
round waiting for the supervisor), waits until the clip has been played and
its round has ended, and takes a headless Chromium screenshot of the page.

    .venv/bin/python scripts/screenshot_console.py [--clip samples/clips/X.avi] [--out docs/console.png]

Needs ``chromium`` on the PATH.  Everything else (key, outbox, evidence,
sink) goes to a temporary folder.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _json(url: str):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


def main(argv=None) -> int:
    clips = sorted(glob.glob(str(ROOT / "samples" / "clips" / "*overlap_rearrange*.avi"))) or \
        sorted(glob.glob(str(ROOT / "samples" / "clips" / "*.avi")))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clip", default=clips[0] if clips else None, help="video file or frame folder")
    ap.add_argument("--out", default=str(ROOT / "docs" / "console.png"))
    ap.add_argument("--timeout", type=float, default=180.0, help="seconds to wait for the clip's round")
    ap.add_argument("--size", default="1280,1000", help="window size W,H")
    args = ap.parse_args(argv)
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        print("screenshot_console: chromium not found (apt-get install -y chromium)", file=sys.stderr)
        return 2
    if not args.clip:
        print("screenshot_console: no clip in samples/clips; give --clip", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "hmac.key").write_bytes(os.urandom(32).hex().encode())
        ready = tmp / "url"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        console = subprocess.Popen(
            [sys.executable, "-m", "vision", "console", "--source", str(args.clip), "--speed", "0", "--betting", "auto", "--port", "0",
             "--ready-file", str(ready), "--key-file", str(tmp / "hmac.key"), "--outbox", str(tmp / "o.db"),
             "--evidence", str(tmp / "evidence"), "--sink", f"file:{tmp / 'sink.jsonl'}",
             "--rearrange-timeout", "1.5"], cwd=tmp, env=env, stdout=subprocess.DEVNULL)
        try:
            end = time.monotonic() + args.timeout
            while not ready.exists():
                if console.poll() is not None or time.monotonic() > end:
                    print("screenshot_console: the console did not start", file=sys.stderr)
                    return 1
                time.sleep(0.1)
            url = ready.read_text().strip()
            while True:
                state = _json(url + "api/state")
                rounds = _json(url + "api/rounds")["rounds"]
                if state["source_status"] != "running" and state["source_status"] != "starting":
                    break
                if time.monotonic() > end:
                    print("screenshot_console: the clip did not end in time", file=sys.stderr)
                    return 1
                time.sleep(0.3)
            print(f"screenshot_console: {len(rounds)} round(s): "
                  + ", ".join(f"{r['round_id']} {r['status']}" for r in rounds), file=sys.stderr)
            out = Path(args.out)
            out.parent.mkdir(parents=True, exist_ok=True)
            cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                   "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars",
                   f"--user-data-dir={tmp / 'profile'}", f"--screenshot={out.resolve()}",
                   f"--window-size={args.size}", "--virtual-time-budget=5000", url]
            subprocess.run(cmd, check=True, timeout=120, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(f"screenshot_console: wrote {out}", file=sys.stderr)
        finally:
            console.terminate()
            try:
                console.wait(15)
            except subprocess.TimeoutExpired:
                console.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
