#!/usr/bin/env bash
# Typecheck and lint side by side (they are independent, and each is single-threaded): used by `make test` and
# `make check`. Exits non-zero when either fails, after both have finished.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
npm run --silent typecheck >"${TMPDIR:-/tmp}/ragtime-typecheck.$$.log" 2>&1 &
typecheck=$!
npm run --silent lint >"${TMPDIR:-/tmp}/ragtime-lint.$$.log" 2>&1 &
lint=$!
rc=0
if wait "$typecheck"; then echo "[checks] typecheck: ok"; else echo "[checks] typecheck: FAILED"; cat "${TMPDIR:-/tmp}/ragtime-typecheck.$$.log"; rc=1; fi
if wait "$lint"; then echo "[checks] lint: ok"; else echo "[checks] lint: FAILED"; cat "${TMPDIR:-/tmp}/ragtime-lint.$$.log"; rc=1; fi
rm -f "${TMPDIR:-/tmp}/ragtime-typecheck.$$.log" "${TMPDIR:-/tmp}/ragtime-lint.$$.log"
exit "$rc"
