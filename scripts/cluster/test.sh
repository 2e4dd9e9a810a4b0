#!/usr/bin/env bash
# `make test-cluster`: the tests of test/cluster (issue 27) against the Temporal cluster of scripts/cluster.sh, with
# Milvus Lite, the embeddings server and PostgreSQL (ragtime's own stores, for tenant-purge.cluster.ts) of
# scripts/services.sh (started when not running, and then stopped again; the dev server is not needed). The cluster itself is brought up by the tests' globalSetup (built on first use) and
# stopped at the end if they started it. Not part of `make test`: .ci/run runs it after that (see docs/DEPLOYMENT.md).
# Extra arguments go to jest (e.g. `scripts/cluster/test.sh test/cluster/runs.cluster.ts`).
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/../env.sh"
cd "$RAGTIME_ROOT"
# shellcheck source=scripts/own-services.sh
source scripts/own-services.sh
own_services milvus embeddings postgres
npx jest -c test/cluster/jest.config.js "$@"
