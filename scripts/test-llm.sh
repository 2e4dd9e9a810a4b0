#!/usr/bin/env bash
# `make test-llm` (issue 34 §4; run by .ci/run after the other suites): the local model's weights (fetched once per
# machine: scripts/llm-weights.sh) and service, and the tests of test/llm through it — the OpenAI wire protocol and the
# ladder's rung against the real server, and a question through a worker with MODEL_PROVIDER=local whose route and
# cited answer are checked. Starts the services that are not running yet and stops only those afterwards.
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$RAGTIME_ROOT"

started=()
services=(temporal milvus embeddings llm)
for svc in "${services[@]}"; do
  if ! bash scripts/services.sh status "$svc" >/dev/null 2>&1; then started+=("$svc"); fi
done
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ ${#started[@]} -gt 0 ]]; then
    echo "[test-llm] stopping the services this run started: ${started[*]}"
    bash scripts/services.sh down "${started[@]}" || rc=1
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bash scripts/services.sh up "${services[@]}"
npx jest -c test/llm/jest.config.js "$@"
