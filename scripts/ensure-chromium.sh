#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed, for the Temporal UI test (test/integration/ui/),
# which drives /usr/bin/chromium through playwright-core rather than downloading a browser.
# Idempotent: does nothing when /usr/bin/chromium exists.
set -euo pipefail

chromium=/usr/bin/chromium
if [ -x "$chromium" ]; then
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "ensure-chromium: $chromium is missing and installing it needs root (no sudo)" >&2; exit 1; }
  as_root=(sudo)
fi

echo "ensure-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update >&2
"${as_root[@]}" apt-get install -y chromium >&2
[ -x "$chromium" ] || { echo "ensure-chromium: apt-get installed chromium but $chromium is not there" >&2; exit 1; }
