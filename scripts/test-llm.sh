#!/usr/bin/env bash
# `make test-llm` (issue 34 §4; run by .ci/run after the other suites): the local model's weights (fetched once per
# machine: scripts/llm-weights.sh) and service, and the tests of test/llm through it — the OpenAI wire protocol and the
# ladder's rung against the real server, and a question through a worker with MODEL_PROVIDER=local whose route and
# cited answer are checked. Starts the services that are not running yet and stops only those afterwards.
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$RAGTIME_ROOT"

# shellcheck source=scripts/own-services.sh
source scripts/own-services.sh
own_services temporal milvus embeddings llm
npx jest -c test/llm/jest.config.js "$@"
