#!/usr/bin/env bash
# Makes sure Debian's Chromium is installed, for the Temporal UI test (test/integration/ui/),
# which drives /usr/bin/chromium through playwright-core rather than downloading a browser.
# Idempotent: does nothing when /usr/bin/chromium exists.
set -euo pipefail

chromium=/usr/bin/chromium
if [ -x "$chromium" ]; then
  exit 0
fi

# shellcheck source=scripts/apt-install.sh
. "$(dirname "$0")/apt-install.sh"
apt_install ensure-chromium chromium
[ -x "$chromium" ] || { echo "ensure-chromium: apt-get installed chromium but $chromium is not there" >&2; exit 1; }
