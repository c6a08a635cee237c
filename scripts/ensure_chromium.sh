#!/usr/bin/env bash
# Best effort: install Debian's chromium and chromium-driver for the browser
# tests (console end to end, report and console screenshots) when they are
# missing and this is root with apt-get. Never fails the build: without them
# those tests skip and say why.
set -u
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure_chromium: installing Debian's chromium and chromium-driver for the browser tests" >&2
    if apt-get update -qq >/dev/null 2>&1 && \
       DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1; then
        exit 0
    fi
    echo "ensure_chromium: apt-get could not install chromium; the browser tests will skip" >&2
else
    echo "ensure_chromium: chromium/chromedriver not found and not root with apt-get; the browser tests will skip" >&2
fi
exit 0
