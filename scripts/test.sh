#!/usr/bin/env bash
# `make test`: install (scripts/setup.sh), start the local services that are not running yet (the default three
# plus postgres, which only the tests of the SQL stores use), typecheck, lint, run the whole jest suite, then stop
# only the services this run started. The suite runs in two tiers (docs/TESTING.md): the shared tier side by side in
# RAGTIME_TEST_WORKERS jest workers (default 3), then the suites marked `@solo` one at a time. At the end it prints
# the slowest suites and checks that no jest worker's heap grew past RAGTIME_TEST_MAX_HEAP_MB (default 3072).
# Exits non-zero when any step fails. Extra arguments go to one jest run over every suite instead of the two tiers
# (e.g. `scripts/test.sh test/smoke`).
set -euo pipefail

# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$RAGTIME_ROOT"
started_at=$SECONDS

bash scripts/setup.sh

# The services this run starts are stopped at its end; those already running stay (scripts/own-services.sh).
# shellcheck source=scripts/own-services.sh
source scripts/own-services.sh
own_services temporal milvus embeddings postgres

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

# typecheck and lint share two cores; they take about as long together as the longer one alone.
step checks bash scripts/checks.sh

mkdir -p "$RAGTIME_DATA_DIR"
rm -f "$RAGTIME_DATA_DIR"/jest-results*.json "$RAGTIME_DATA_DIR/jest-heap.jsonl"
export RAGTIME_TEST_HEAP_FILE="$RAGTIME_DATA_DIR/jest-heap.jsonl"
results=()
jest_args=(--json --logHeapUsage)
if [[ $# -gt 0 ]]; then
  results+=("$RAGTIME_DATA_DIR/jest-results.json")
  step jest npx jest "${jest_args[@]}" --outputFile="${results[0]}" "$@"
else
  results+=("$RAGTIME_DATA_DIR/jest-results-shared.json" "$RAGTIME_DATA_DIR/jest-results-solo.json")
  step "jest (shared tier)" env RAGTIME_TEST_TIER=shared npx jest "${jest_args[@]}" --outputFile="${results[0]}"
  step "jest (solo tier)" env RAGTIME_TEST_TIER=solo npx jest "${jest_args[@]}" --outputFile="${results[1]}"
fi

# The slowest suites, the heap check, and one plain closing line with the counts (jest's own summaries are above).
present=()
for file in "${results[@]}"; do [[ -f "$file" ]] && present+=("$file"); done
if [[ ${#present[@]} -gt 0 ]]; then
  step "suite times and heap" npx tsx scripts/test-times.ts --top 10 --wall "$((SECONDS - started_at))" \
    --max-heap-mb "${RAGTIME_TEST_MAX_HEAP_MB:-3072}" "${present[@]}"
fi
[[ ${#present[@]} -lt ${#results[@]} ]] && failed+=("jest results missing")

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "[test] FAILED: ${failed[*]}"
  exit 1
fi
echo "[test] all steps passed in $((SECONDS - started_at)) s"
