#!/usr/bin/env bash
# `make demo`: install, start the local services, run the smoke path (scripts/demo.ts), print the URLs.
# The services keep running afterwards; `make down` stops them.
set -euo pipefail

# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$RAGTIME_ROOT"

bash scripts/setup.sh
bash scripts/services.sh up
echo
npx tsx scripts/demo.ts
cat <<URLS

Services (still running; 'make down' stops them, 'make status' shows them):
  Temporal gRPC    $TEMPORAL_ADDRESS
  Temporal Web UI  http://127.0.0.1:$TEMPORAL_UI_PORT
  Milvus Lite      $MILVUS_ADDRESS
  Embeddings       $EMBEDDING_BASE_URL  (model $EMBEDDING_MODEL, dim $EMBEDDING_DIM)
Logs and data under $(realpath --relative-to="$RAGTIME_ROOT" "$RAGTIME_DATA_DIR")/ (see docs/OPERATIONS.md).
URLS
