#!/usr/bin/env bash
# A Temporal cluster of separate services on PostgreSQL, on loopback (issue 27; docs/DEPLOYMENT.md "A Temporal cluster
# on PostgreSQL, here"): what teams run past one machine, next to the dev server of scripts/services.sh and sharing
# nothing with it (own ports, data dir and PostgreSQL instance). ragtime talks to it by its address only:
#   TEMPORAL_ADDRESS=127.0.0.1:$CLUSTER_TEMPORAL_PORT node bin/ragtime.js worker
#
# Usage: scripts/cluster.sh up | down [frontend|history|matching|worker|postgres|ui|codec ...] | status | build
#
# up      1. builds temporal-server and temporal-sql-tool (go.temporal.io/server at CLUSTER_TEMPORAL_VERSION, from the
#            Go module proxy) into CLUSTER_BIN_DIR, once: a binary that reports that version is reused;
#         2. starts the cluster's own PostgreSQL (scripts/services.sh's postgres, with its data dir under
#            CLUSTER_DATA_DIR/pg and port CLUSTER_POSTGRES_PORT);
#         3. creates the databases temporal and temporal_visibility and their schemas with temporal-sql-tool (the
#            schema files are embedded in it) and updates them to the binary's version (a no-op when current);
#         4. starts frontend, history, matching and worker, each its own process, with scripts/cluster/temporal.yaml;
#         5. registers the namespace CLUSTER_NAMESPACE and ragtime's search attributes (the same list as the dev
#            server's, read from scripts/services.sh).
#         6. builds temporal-ui-server once (CLUSTER_UI_BIN_DIR) and starts the Temporal Web UI on CLUSTER_UI_PORT with
#            ragtime's codec server on CLUSTER_CODEC_PORT, so encrypted payloads read decoded (scripts/cluster/web-ui.sh).
#         Idempotent: what runs and answers is left alone, what does not is started (a killed service comes back).
# down    stops the named services (default: the UI, the codec server, all four and PostgreSQL), SIGTERM then SIGKILL
#         after 30 s.
# status  one line per process with its pid and ports; exit 0 when all seven run, 3 otherwise.
# build   step 1 of up alone (and the UI's build of step 6): the binaries into CLUSTER_BIN_DIR and CLUSTER_UI_BIN_DIR
#         (one build per machine and version; minutes the first time).
#
# Ports and paths: scripts/cluster/env.sh. Logs and pid files: $CLUSTER_DATA_DIR/logs/<service>.log, run/<service>.pid.
set -euo pipefail

# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
# shellcheck source=scripts/cluster/env.sh
source "$RAGTIME_ROOT/scripts/cluster/env.sh"

SERVICES=(frontend history matching worker)
MODULE=go.temporal.io/server
SERVER="$CLUSTER_BIN_DIR/temporal-server"
SQL_TOOL="$CLUSTER_BIN_DIR/temporal-sql-tool"
CONFIG="$RAGTIME_ROOT/scripts/cluster/temporal.yaml"
RUN_DIR="$CLUSTER_DATA_DIR/run"
LOG_DIR="$CLUSTER_DATA_DIR/logs"
PG_HOME="$CLUSTER_DATA_DIR/pg" # the RAGTIME_DATA_DIR of scripts/services.sh for the cluster's PostgreSQL
CLI="$RAGTIME_VENV/bin/temporal"
GO="${GO:-$(command -v go || printf '/usr/local/go/bin/go')}"
START_TIMEOUT="${CLUSTER_START_TIMEOUT:-120}"
STOP_TIMEOUT="${CLUSTER_STOP_TIMEOUT:-30}"
# Closed runs' histories are kept 3 days: enough to read a test run's after a weekend (replay, the UI); no more.
NAMESPACE_RETENTION="${CLUSTER_NAMESPACE_RETENTION:-${TEMPORAL_RETENTION:-720h}}"
# One list of search attributes for both servers: the dev server's, as scripts/services.sh declares it.
eval "$(grep -m1 '^SEARCH_ATTRIBUTES=(' "$RAGTIME_ROOT/scripts/services.sh")"
# The Web UI and the codec server beside the cluster (issue 45 §1): ui_build, ui_up, ui_stop_one, ui_status.
# shellcheck source=scripts/cluster/web-ui.sh
source "$RAGTIME_ROOT/scripts/cluster/web-ui.sh"

# The ports of scripts/cluster/temporal.yaml that env.sh derives from the gRPC ports (membership -1000, metrics +2000).
export RAGTIME_ROOT
export CLUSTER_FRONTEND_HTTP_PORT=$((CLUSTER_TEMPORAL_PORT + 10))
export CLUSTER_FRONTEND_MEMBERSHIP_PORT=$((CLUSTER_TEMPORAL_PORT - 1000))
export CLUSTER_HISTORY_MEMBERSHIP_PORT=$((CLUSTER_HISTORY_PORT - 1000))
export CLUSTER_MATCHING_MEMBERSHIP_PORT=$((CLUSTER_MATCHING_PORT - 1000))
export CLUSTER_WORKER_MEMBERSHIP_PORT=$((CLUSTER_WORKER_PORT - 1000))

say() { printf 'cluster: %s\n' "$*"; }
err() { printf 'cluster: %s\n' "$*" >&2; }
rel() { local p="$1"; printf '%s' "${p#"$RAGTIME_ROOT"/}"; }

grpc_port_of() {
  case "$1" in
    frontend) printf '%s' "$CLUSTER_TEMPORAL_PORT" ;;
    history) printf '%s' "$CLUSTER_HISTORY_PORT" ;;
    matching) printf '%s' "$CLUSTER_MATCHING_PORT" ;;
    worker) printf '%s' "$CLUSTER_WORKER_PORT" ;;
  esac
}

ports_of() {
  local port
  port="$(grpc_port_of "$1")"
  printf 'gRPC 127.0.0.1:%s, membership %s, metrics %s' "$port" "$((port - 1000))" "$((port + 2000))"
  if [[ "$1" == frontend ]]; then printf ', HTTP %s' "$CLUSTER_FRONTEND_HTTP_PORT"; fi
}

pidfile() { printf '%s/%s.pid' "$RUN_DIR" "$1"; }
logfile() { printf '%s/%s.log' "$LOG_DIR" "$1"; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pid of our running service, or nothing: the pid file's process, if it is still this binary with this service.
running_pid() {
  local pid
  pid="$(cat "$(pidfile "$1")" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$SERVER --config-file $CONFIG --allow-no-auth start --service $1" || return 1
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]] || return 1
  printf '%s' "$pid"
}

# scripts/services.sh on the cluster's own PostgreSQL: same initdb, start, health check and stop as the tests' one
# (including the move to /var/tmp as root when the postgres OS user cannot reach the repo), another data dir and port.
pg() {
  RAGTIME_DATA_DIR="$PG_HOME" POSTGRES_PORT="$CLUSTER_POSTGRES_PORT" TEST_DATABASE_URL="" \
    bash "$RAGTIME_ROOT/scripts/services.sh" "$@" postgres 2>&1 | sed 's/^\(services: \)\{0,1\}postgres/cluster postgres/'
}

psql_cluster() {
  local bin
  bin="$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin 2>/dev/null | sort -V | tail -n1)"
  "$bin/psql" -h 127.0.0.1 -p "$CLUSTER_POSTGRES_PORT" -U postgres -v ON_ERROR_STOP=1 -qtA "$@"
}

installed_version() { "$SERVER" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1; }

# go install at a version builds outside any module of ours, from the proxy's zip of the server (its go.mod has no
# replace directives, so this works as is). Both commands in one go: they share most packages.
build() {
  if [[ "$(installed_version)" == "${CLUSTER_TEMPORAL_VERSION#v}" && -x "$SQL_TOOL" ]]; then return 0; fi
  [[ -x "$GO" ]] || { err "cannot build $MODULE: no go on PATH (nor /usr/local/go/bin/go); set GO"; return 1; }
  local tmp start log
  log="$(logfile build)"
  tmp="$CLUSTER_BIN_DIR.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp" "$LOG_DIR"
  say "building $MODULE@$CLUSTER_TEMPORAL_VERSION (temporal-server, temporal-sql-tool) into $(rel "$CLUSTER_BIN_DIR"); the first build takes minutes (log $(rel "$log"))"
  start=$SECONDS
  printf '==== %s GOBIN=%s CGO_ENABLED=0 %s install %s/cmd/server@%s %s/cmd/tools/sql@%s\n' "$(date -u +%FT%TZ)" \
    "$tmp" "$GO" "$MODULE" "$CLUSTER_TEMPORAL_VERSION" "$MODULE" "$CLUSTER_TEMPORAL_VERSION" >>"$log"
  # CGO off: a static binary, and no C compiler needed (the SQLite driver it carries is pure Go).
  if ! GOBIN="$tmp" CGO_ENABLED=0 GOFLAGS=-buildvcs=false "$GO" install \
    "$MODULE/cmd/server@$CLUSTER_TEMPORAL_VERSION" "$MODULE/cmd/tools/sql@$CLUSTER_TEMPORAL_VERSION" >>"$log" 2>&1; then
    err "building $MODULE@$CLUSTER_TEMPORAL_VERSION failed (log $(rel "$log"))"
    return 1
  fi
  mv "$tmp/server" "$tmp/temporal-server"
  mv "$tmp/sql" "$tmp/temporal-sql-tool"
  rm -rf "$CLUSTER_BIN_DIR"
  mv "$tmp" "$CLUSTER_BIN_DIR"
  say "built temporal-server $(installed_version) and temporal-sql-tool in $((SECONDS - start)) s ($(du -sh "$CLUSTER_BIN_DIR" | cut -f1) in $(rel "$CLUSTER_BIN_DIR"))"
}

# The two databases and their schemas. setup-schema -v 0.0 makes the version table only once (on an existing schema
# it would reset the recorded version); update-schema then applies every versioned step above the recorded one.
schemas() {
  local db schema log
  log="$(logfile schema)"
  for db in temporal temporal_visibility; do
    if [[ "$db" == temporal ]]; then schema=postgresql/v12/temporal; else schema=postgresql/v12/visibility; fi
    local tool=("$SQL_TOOL" --plugin postgres12 --ep 127.0.0.1 -p "$CLUSTER_POSTGRES_PORT" -u postgres --db "$db")
    if [[ "$(psql_cluster -d postgres -c "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]]; then
      "${tool[@]}" create-database >>"$log" 2>&1 || { err "creating the database $db failed (log $(rel "$log"))"; return 1; }
    fi
    if [[ "$(psql_cluster -d "$db" -c "SELECT to_regclass('schema_version') IS NOT NULL")" != t ]]; then
      "${tool[@]}" setup-schema -v 0.0 >>"$log" 2>&1 || { err "setup-schema of $db failed (log $(rel "$log"))"; return 1; }
    fi
    "${tool[@]}" update-schema --schema-name "$schema" >>"$log" 2>&1 || { err "update-schema of $db failed (log $(rel "$log"))"; return 1; }
  done
}

launch() {
  local svc="$1" port log
  port="$(grpc_port_of "$svc")"
  log="$(logfile "$svc")"
  for p in "$port" "$((port - 1000))" "$((port + 2000))"; do
    if port_open "$p"; then err "$svc: cannot start, 127.0.0.1:$p is already in use [log $(rel "$log")]"; return 1; fi
  done
  printf '==== %s start: %s --config-file %s --allow-no-auth start --service %s\n' "$(date -u +%FT%TZ)" "$SERVER" "$CONFIG" "$svc" >>"$log"
  # setsid: own session, away from the caller's terminal and Ctrl-C (as scripts/services.sh starts its services).
  CLUSTER_SERVICE_METRICS_PORT=$((port + 2000)) setsid "$SERVER" --config-file "$CONFIG" --allow-no-auth start --service "$svc" \
    </dev/null >>"$log" 2>&1 9>&- &
  printf '%s\n' "$!" >"$(pidfile "$svc")"
}

healthy() {
  local svc="$1"
  port_open "$(grpc_port_of "$svc")" || return 1
  [[ "$svc" == frontend ]] || return 0
  # The frontend answers for the whole cluster only once history and matching have joined the ring.
  timeout 10 "$CLI" operator cluster health --address "$CLUSTER_TEMPORAL_ADDRESS" --command-timeout 5s 2>/dev/null | grep -q SERVING
}

wait_healthy() {
  local svc="$1" pid deadline
  pid="$(cat "$(pidfile "$svc")")"
  deadline=$((SECONDS + START_TIMEOUT))
  while ((SECONDS < deadline)); do
    if ! running_pid "$svc" >/dev/null; then
      err "$svc: exited during start-up [log $(rel "$(logfile "$svc")")]"
      [[ "${CI:-}" != true ]] || tail -n 30 "$(logfile "$svc")" >&2
      return 1
    fi
    if healthy "$svc"; then return 0; fi
    sleep 0.5
  done
  err "$svc: not answering after ${START_TIMEOUT}s (pid $pid left running) [log $(rel "$(logfile "$svc")")]"
  return 1
}

# The namespace ragtime uses and its search attributes (with SQL visibility they belong to the namespace). After a
# change the services see it when their namespace cache refreshes (every 10 s): wait that out once, so the first run
# that upserts RagKb is not refused.
register() {
  local log have a name changed=0
  log="$(logfile register)"
  local cli=("$CLI" --address "$CLUSTER_TEMPORAL_ADDRESS" --command-timeout 10s)
  if ! timeout 15 "${cli[@]}" operator namespace describe --namespace "$CLUSTER_NAMESPACE" >/dev/null 2>>"$log"; then
    timeout 15 "${cli[@]}" operator namespace create --namespace "$CLUSTER_NAMESPACE" --retention "$NAMESPACE_RETENTION" >>"$log" 2>&1 \
      || { err "registering the namespace $CLUSTER_NAMESPACE failed (log $(rel "$log"))"; return 1; }
    changed=1
  else
    # A namespace made by an earlier set-up keeps closed runs as long as this one says (issue 35 §1).
    timeout 15 "${cli[@]}" operator namespace update --namespace "$CLUSTER_NAMESPACE" --retention "$NAMESPACE_RETENTION" >>"$log" 2>&1 \
      || { err "setting the retention of namespace $CLUSTER_NAMESPACE failed (log $(rel "$log"))"; return 1; }
  fi
  # A namespace just made is "not found" by the frontend until its cache refreshes (up to 10 s).
  local deadline=$((SECONDS + 30))
  until have="$(timeout 15 "${cli[@]}" operator search-attribute list --namespace "$CLUSTER_NAMESPACE" 2>>"$log")"; do
    ((SECONDS < deadline)) || { err "listing the search attributes of $CLUSTER_NAMESPACE failed (log $(rel "$log"))"; return 1; }
    sleep 1
  done
  for a in "${SEARCH_ATTRIBUTES[@]}"; do
    name="${a%%=*}"
    if ! grep -qE "^ *$name +" <<<"$have"; then
      timeout 15 "${cli[@]}" operator search-attribute create --namespace "$CLUSTER_NAMESPACE" --name "$name" --type "${a#*=}" >>"$log" 2>&1 \
        || { err "registering the search attribute $name failed (log $(rel "$log"))"; return 1; }
      changed=1
    fi
  done
  if ((changed)); then
    say "registered namespace $CLUSTER_NAMESPACE and search attributes ${SEARCH_ATTRIBUTES[*]}; waiting 11 s for the services' namespace caches"
    sleep 11
  fi
}

cmd_up() {
  local svc launched=()
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  build || return 1
  pg up || return 1
  schemas || return 1
  # One at a time, each once it answers: on a new database every service writes the cluster's metadata row at start,
  # and of four that start together all but one exit on the duplicate key. history first: the frontend is healthy
  # only once history and matching are in the membership ring.
  for svc in history matching frontend worker; do
    if ! running_pid "$svc" >/dev/null; then
      launch "$svc" || return 1
      launched+=("$svc")
    fi
    wait_healthy "$svc" || return 1
  done
  register || return 1
  for svc in "${SERVICES[@]}"; do
    if [[ " ${launched[*]} " == *" $svc "* ]]; then say "$svc: started (pid $(running_pid "$svc")) - $(ports_of "$svc")"; fi
  done
  ui_up || return 1
  say "up: TEMPORAL_ADDRESS=$CLUSTER_TEMPORAL_ADDRESS TEMPORAL_NAMESPACE=$CLUSTER_NAMESPACE"
}

stop_one() {
  local svc="$1" pid deadline
  if ! pid="$(running_pid "$svc")"; then
    rm -f "$(pidfile "$svc")"
    say "$svc: not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    err "$svc did not stop within ${STOP_TIMEOUT}s after SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.2; done
  fi
  rm -f "$(pidfile "$svc")"
  say "$svc: stopped (pid $pid)"
}

cmd_down() {
  local names=("$@") svc
  # The frontend first (no new requests), PostgreSQL last (the others write to it until they stop).
  [[ ${#names[@]} -gt 0 ]] || names=(ui codec frontend worker matching history postgres)
  for svc in "${names[@]}"; do
    case "$svc" in
      postgres) pg down ;;
      ui | codec) ui_stop_one "$svc" ;;
      *) stop_one "$svc" ;;
    esac
  done
}

cmd_status() {
  local svc pid rc=0
  for svc in "${SERVICES[@]}"; do
    if pid="$(running_pid "$svc")"; then
      printf '%-9s running  pid %-7s %s\n' "$svc" "$pid" "$(ports_of "$svc")"
    else
      printf '%-9s stopped  %-11s %s\n' "$svc" "" "$(ports_of "$svc")"
      rc=3
    fi
  done
  RAGTIME_DATA_DIR="$PG_HOME" POSTGRES_PORT="$CLUSTER_POSTGRES_PORT" bash "$RAGTIME_ROOT/scripts/services.sh" status postgres \
    | sed 's/^postgres  /postgres/; s#/ragtime_test##' || rc=3
  printf 'binaries  %s (%s)\n' "$(rel "$CLUSTER_BIN_DIR")" "$(installed_version || true)"
  ui_status || rc=3
  return "$rc"
}

usage() {
  err "usage: scripts/cluster.sh up | down [${SERVICES[*]} postgres ui codec] | status | build"
  exit 2
}

main() {
  [[ $# -ge 1 ]] || usage
  local action="$1"
  shift
  local svc
  for svc in "$@"; do
    [[ " ${SERVICES[*]} postgres ui codec " == *" $svc "* ]] || { err "unknown service '$svc' (known: ${SERVICES[*]} postgres ui codec)"; exit 2; }
  done
  mkdir -p "$RUN_DIR"
  if [[ "$action" != status ]]; then
    exec 9>"$RUN_DIR/cluster.lock"
    flock 9
  fi
  case "$action" in
    up) [[ $# -eq 0 ]] || usage; cmd_up ;;
    down) cmd_down "$@" ;;
    status) cmd_status ;;
    build) [[ $# -eq 0 ]] || usage; mkdir -p "$LOG_DIR"; build && ui_build ;;
    *) usage ;;
  esac
}

main "$@"
