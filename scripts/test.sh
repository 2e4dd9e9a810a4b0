#!/usr/bin/env bash
# `make test`: install (scripts/setup.sh), start the local services that are not running yet (the default three
# plus postgres, which only the tests of the SQL stores use), typecheck, lint
# (when an ESLint config exists), run the whole jest suite, then stop only the services this run started.
# Exits non-zero when any step fails. Extra arguments go to jest (e.g. `scripts/test.sh test/smoke`).
set -euo pipefail

# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$RAGTIME_ROOT"

bash scripts/setup.sh

# Remember which services this run starts, so that it stops those and leaves the others running.
started=()
services=(temporal milvus embeddings postgres)
for svc in "${services[@]}"; do
  if ! bash scripts/services.sh status "$svc" >/dev/null 2>&1; then started+=("$svc"); fi
done

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ ${#started[@]} -gt 0 ]]; then
    echo "[test] stopping the services this run started: ${started[*]}"
    bash scripts/services.sh down "${started[@]}" || rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash scripts/services.sh up "${services[@]}"

failed=()
step() {
  local name="$1"
  shift
  echo "[test] ---- $name: $*"
  if "$@"; then
    echo "[test] ---- $name: ok"
  else
    echo "[test] ---- $name: FAILED (exit $?)"
    failed+=("$name")
  fi
}

step typecheck npm run --silent typecheck
if compgen -G 'eslint.config.*' >/dev/null || compgen -G '.eslintrc*' >/dev/null; then
  step lint npm run --silent lint
else
  echo "[test] ---- lint: no ESLint config in the repository, skipped"
fi

mkdir -p "$RAGTIME_DATA_DIR"
results="$RAGTIME_DATA_DIR/jest-results.json"
rm -f "$results"
step jest npx jest --json --outputFile="$results" "$@"

# One plain closing line with the counts (jest's own summary is above).
if [[ -f "$results" ]]; then
  node -e '
    const r = require(process.argv[1]);
    const skipped = r.numPendingTests + r.numTodoTests;
    console.log(`jest: ${r.numPassedTests} passed, ${r.numFailedTests} failed` + (skipped ? `, ${skipped} skipped` : ""));
  ' "$results"
fi

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "[test] FAILED: ${failed[*]}"
  exit 1
fi
echo "[test] all steps passed"
