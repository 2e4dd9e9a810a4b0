#!/usr/bin/env bash
# Builds the web console (console/README.md) into console/dist (git-ignored) when a source file or the lock file
# changed since the last build, and otherwise does nothing: scripts/setup.sh runs it, and so does the browser test
# (test/browser/console.test.ts), so that a test run alone after a change to console/ reads the new code.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
console_stamp="console/dist/.ragtime-console.stamp"
console_want="$(find console package-lock.json -path console/dist -prune -o -type f -print | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)"
if [[ -f "$console_stamp" && "$(cat "$console_stamp")" == "$console_want" ]]; then
  printf '[setup] %s\n' "console up to date (console/dist)"
else
  printf '[setup] %s\n' "building the console (npm run build:console)"
  npm run --silent build:console
  printf '%s\n' "$console_want" >"$console_stamp"
fi
