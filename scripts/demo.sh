#!/usr/bin/env bash
# `make demo`, the guided tour: install, start the local services, a ragtime worker and `ragtime serve` (the API and
# the web console, docs/CONSOLE.md) in the background, ingest the
# sample knowledge base (samples/knowledge; again on every run, re-ingestion replaces), then ask one question per
# route (scripts/demo.ts). Everything keeps running afterwards; `make down` stops it all, the worker included.
#
# The tour runs on the embedded defaults: the offline policy provider (no API key; MODEL_PROVIDER, when set, wins),
# its own Milvus collection (MILVUS_COLLECTION, default ragtime_demo_kb) and a session of its own, demo-<8 hex> (a
# second tour must not read the first one's turns). The worker polls the default task queue, so `npx ragtime ask "…"`
# reaches it afterwards. scripts/services.sh records the ports and the worker's knowledge base in .data/settings.env,
# so every command of a later shell uses them with nothing exported (issue 33 §1). Docs: docs/demo.md.
#
# Payloads are encrypted (docs/SECURITY.md): unless RAGTIME_CODEC_KEYS or RAGTIME_CODEC_KEY_FILE is set, the demo
# generates .data/codec-keys.json once (mode 0600), which the worker, the CLI and the codec server all read; the
# codec server (services.sh `codec`) lets the Web UI show the decrypted histories.
set -euo pipefail

# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$RAGTIME_ROOT"

export MODEL_PROVIDER="${MODEL_PROVIDER:-offline}"
export MILVUS_COLLECTION="${MILVUS_COLLECTION:-ragtime_demo_kb}"

step() { printf '\n== %s\n' "$*"; }
started=$SECONDS

step "setup (node_modules, .venv)"
bash scripts/setup.sh

step "payload encryption keys"
if [[ -n "${RAGTIME_CODEC_KEYS:-}${RAGTIME_CODEC_KEY_FILE:-}" ]]; then
  echo "using the keys of ${RAGTIME_CODEC_KEYS:+RAGTIME_CODEC_KEYS}${RAGTIME_CODEC_KEY_FILE:+RAGTIME_CODEC_KEY_FILE}"
elif [[ -f "$RAGTIME_DATA_DIR/codec-keys.json" ]]; then
  echo "using $(realpath --relative-to="$RAGTIME_ROOT" "$RAGTIME_DATA_DIR")/codec-keys.json"
else
  node bin/ragtime.js codec-keys generate --file "$RAGTIME_DATA_DIR/codec-keys.json"
fi

step "services"
bash scripts/services.sh up
# Restarted rather than reused: a worker left running by an earlier demo may run older code, another collection or
# other keys; so may the codec server and the API (`ragtime serve`, with the web console).
bash scripts/services.sh restart worker codec api
if ! curl -fsS --max-time 5 "http://127.0.0.1:$TEMPORAL_UI_PORT/api/v1/settings" 2>/dev/null | grep -q "127.0.0.1:$CODEC_PORT/"; then
  echo "note: the running dev server was started without this codec endpoint, so its Web UI shows encrypted payloads;"
  echo "      'make down && make demo' restarts it with one"
fi

step "ingest samples/knowledge into knowledge base $MILVUS_COLLECTION"
node bin/ragtime.js ingest samples/knowledge

step "tour"
tour_rc=0
RAGTIME_DEMO_SESSION="demo-$(od -An -tx1 -N4 /dev/urandom | tr -d ' \n')"
RAGTIME_DEMO_SESSION="$RAGTIME_DEMO_SESSION" npx --no-install tsx scripts/demo.ts || tour_rc=$?

step "console"
# The tour asked through the SDK; the API shows a tenant the sessions it owns, and the first tenant to ask in a
# session owns it. One more question over the API, in the tour's session, makes the demo tenant its owner, so the
# console lists every run of the tour, the one left waiting too (issue 33 §4).
api_token="$(cat "$RAGTIME_DATA_DIR/console/demo-token")"
if curl -fsS --max-time 60 "http://127.0.0.1:$RAGTIME_API_PORT/api/runs" -H "authorization: Bearer $api_token" \
  -H 'content-type: application/json' -d "{\"question\": \"Aurora X2 路由器的保修期是多久？\", \"sessionId\": \"$RAGTIME_DEMO_SESSION\"}" >/dev/null; then
  echo "asked over the API in session $RAGTIME_DEMO_SESSION: the console lists the tour's runs"
else
  echo "note: the API did not answer the console's question; see $(realpath --relative-to="$RAGTIME_ROOT" "$RAGTIME_DATA_DIR")/logs/api.log"
fi

cat <<EOF

Running in the background ('make status' shows them; logs under $(realpath --relative-to="$RAGTIME_ROOT" "$RAGTIME_DATA_DIR")/logs/):
  Temporal         $TEMPORAL_ADDRESS, Web UI http://127.0.0.1:$TEMPORAL_UI_PORT (payloads decrypted by the codec server)
  Codec server     http://127.0.0.1:$CODEC_PORT (token: $(realpath --relative-to="$RAGTIME_ROOT" "$RAGTIME_DATA_DIR")/codec/ui-token; the UI has it)
  Milvus Lite      $MILVUS_ADDRESS (knowledge base $MILVUS_COLLECTION)
  Embeddings       $EMBEDDING_BASE_URL (model $EMBEDDING_MODEL)
  ragtime worker   task queue ${TEMPORAL_TASK_QUEUE:-ragtime}, models $MODEL_PROVIDER
  ragtime serve    http://127.0.0.1:$RAGTIME_API_PORT/api (docs/API.md), tenant "demo"
  Settings         $(realpath --relative-to="$RAGTIME_ROOT" "$RAGTIME_DATA_DIR")/settings.env: every ragtime command here reads these ports and knowledge base
                   $MILVUS_COLLECTION ('npx ragtime doctor' shows them); variables you export win

The console (docs/CONSOLE.md): open http://127.0.0.1:$RAGTIME_API_PORT/ and sign in with the demo token
  $api_token
  (kept in $(realpath --relative-to="$RAGTIME_ROOT" "$RAGTIME_DATA_DIR")/console/demo-token; the tour's runs are in session $RAGTIME_DEMO_SESSION)
Stop everything: make down

make demo took $((SECONDS - started)) s.
EOF
exit "$tour_rc"
