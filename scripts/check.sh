#!/usr/bin/env bash
# `make check`: the quick tier for the inner loop (docs/TESTING.md): typecheck and lint side by side, then the jest
# suites that need no local service: unit tests, the workflow tests on the time-skipping test server, and the replay
# of every committed history. `make test` stays the whole suite (and is what .ci/run runs).
# Extra arguments go to jest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
started_at=$SECONDS
bash scripts/setup.sh >/dev/null
rc=0
bash scripts/checks.sh || rc=1
paths=(test/unit test/replay)
[[ -d test/time-skipping ]] && paths+=(test/time-skipping)
echo "[check] jest ${paths[*]}"
npx jest "${paths[@]}" "$@" || rc=1
echo "[check] $([[ $rc -eq 0 ]] && echo 'all passed' || echo FAILED) in $((SECONDS - started_at)) s"
exit "$rc"
