#!/usr/bin/env bash
# Headless Chromium for the dashboard's browser tests (pkg/web): Debian's
# chromium package, installed when no Chromium or Chrome is on the PATH.
# The tests find it the same way (internal/testenv.Chromium); CHROMIUM
# names another binary.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=lib.sh
source "$ROOT/scripts/lib.sh"

if [[ -n "${CHROMIUM:-}" ]] && command -v "$CHROMIUM" >/dev/null; then
	exit 0
fi
for b in chromium chromium-browser google-chrome; do
	command -v "$b" >/dev/null && exit 0
done
apt_install chromium chromium
