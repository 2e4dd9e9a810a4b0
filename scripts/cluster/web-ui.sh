# shellcheck shell=bash
# Sourced by scripts/cluster.sh: the Temporal Web UI beside the cluster (issue 45 §1; docs/DEPLOYMENT.md "The Web UI
# of the cluster"), with ragtime's codec server so that encrypted payloads read decoded in the browser.
#
#   ui     temporal-ui-server (github.com/temporalio/ui-server/v2 at CLUSTER_UI_VERSION, from the Go module proxy; its
#          module carries the built UI), on 127.0.0.1:CLUSTER_UI_PORT, pointed at the cluster's frontend. Its config is
#          written at each start into $CLUSTER_DATA_DIR/ui/ragtime.yaml (mode 0600: it holds the codec token).
#   codec  `ragtime codec-server` on 127.0.0.1:CLUSTER_CODEC_PORT with the cluster's keyring (CLUSTER_CODEC_KEY_FILE,
#          made once by `ragtime codec-keys generate` when missing). It accepts the UI's token (the SHA-256 of
#          $CLUSTER_DATA_DIR/codec/ui-token, plus any RAGTIME_CODEC_TOKENS of the caller) and answers CORS, preflights
#          included, for the UI's origins (http://127.0.0.1:CLUSTER_UI_PORT and http://localhost:CLUSTER_UI_PORT).
#
# The UI calls the codec at http://127.0.0.1:CLUSTER_CODEC_PORT/<token>/decode: the token travels in the path, as with
# the dev server's --ui-codec-endpoint, because the UI sends an Authorization header (passAccessToken) only for a user
# signed in with OIDC, which a loopback UI has not. Workers and clients that should be readable there encrypt with
# the same keyring: RAGTIME_CODEC_KEY_FILE=$CLUSTER_CODEC_KEY_FILE.
#
# Needs from cluster.sh: say, err, rel, port_open, RUN_DIR, LOG_DIR, GO, START_TIMEOUT, STOP_TIMEOUT.

UI_MODULE=github.com/temporalio/ui-server/v2
UI_SERVER="$CLUSTER_UI_BIN_DIR/temporal-ui-server"
UI_CONFIG_DIR="$CLUSTER_DATA_DIR/ui"
UI_TOKEN_FILE="$CLUSTER_DATA_DIR/codec/ui-token"
UI_ORIGINS="http://127.0.0.1:$CLUSTER_UI_PORT,http://localhost:$CLUSTER_UI_PORT"

ui_installed_version() { "$UI_SERVER" --version 2>/dev/null | grep -oE '[0-9]+\.[0-9]+\.[0-9]+' | head -n1; }

# The UI server's go.mod names go.temporal.io/api at a version the proxy here refuses, and a Go newer than this
# machine's: a throwaway module requires it with the api pinned (CLUSTER_UI_API_VERSION) and builds its command
# with GOTOOLCHAIN (the go command takes that toolchain from the module proxy).
ui_build() {
  if [[ "$(ui_installed_version)" == "${CLUSTER_UI_VERSION#v}" ]]; then return 0; fi
  [[ -x "$GO" ]] || { err "cannot build $UI_MODULE: no go on PATH (nor /usr/local/go/bin/go); set GO"; return 1; }
  local tmp start log
  log="$LOG_DIR/ui-build.log"
  tmp="$CLUSTER_UI_BIN_DIR.partial"
  rm -rf "$tmp"
  mkdir -p "$tmp/src" "$LOG_DIR"
  say "building $UI_MODULE@$CLUSTER_UI_VERSION (temporal-ui-server, go.temporal.io/api $CLUSTER_UI_API_VERSION, GOTOOLCHAIN=$CLUSTER_UI_GOTOOLCHAIN) into $(rel "$CLUSTER_UI_BIN_DIR"); one to five minutes the first time (log $(rel "$log"))"
  start=$SECONDS
  printf 'module ragtime/temporal-ui-build\n\ngo 1.26\n' >"$tmp/src/go.mod"
  if ! (cd "$tmp/src" && export GOTOOLCHAIN="$CLUSTER_UI_GOTOOLCHAIN" CGO_ENABLED=0 GOFLAGS="-buildvcs=false -mod=mod" &&
    printf '==== %s GOTOOLCHAIN=%s go get %s/cmd/server@%s go.temporal.io/api@%s && go build\n' "$(date -u +%FT%TZ)" \
      "$GOTOOLCHAIN" "$UI_MODULE" "$CLUSTER_UI_VERSION" "$CLUSTER_UI_API_VERSION" &&
    "$GO" get "$UI_MODULE/cmd/server@$CLUSTER_UI_VERSION" "go.temporal.io/api@$CLUSTER_UI_API_VERSION" &&
    "$GO" build -o "$tmp/temporal-ui-server" "$UI_MODULE/cmd/server") >>"$log" 2>&1; then
    err "building $UI_MODULE@$CLUSTER_UI_VERSION failed (log $(rel "$log"))"
    return 1
  fi
  rm -rf "$tmp/src" "$CLUSTER_UI_BIN_DIR"
  mv "$tmp" "$CLUSTER_UI_BIN_DIR"
  say "built temporal-ui-server $(ui_installed_version) in $((SECONDS - start)) s ($(du -sh "$CLUSTER_UI_BIN_DIR" | cut -f1) in $(rel "$CLUSTER_UI_BIN_DIR"))"
}

# The token the UI presents to the codec server (in the endpoint's path): 32 random bytes in hex, made once (0600).
ui_codec_token() {
  if [[ ! -s "$UI_TOKEN_FILE" ]]; then
    mkdir -p "$(dirname "$UI_TOKEN_FILE")"
    (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$UI_TOKEN_FILE")
  fi
  cat "$UI_TOKEN_FILE"
}

ui_write_config() {
  mkdir -p "$UI_CONFIG_DIR"
  (
    umask 077
    cat >"$UI_CONFIG_DIR/ragtime.yaml" <<EOF
# Written by scripts/cluster.sh at each start of the UI (scripts/cluster/web-ui.sh); edits are overwritten.
temporalGrpcAddress: "$CLUSTER_TEMPORAL_ADDRESS"
host: 127.0.0.1
port: $CLUSTER_UI_PORT
publicPath: ""
enableUi: true
defaultNamespace: "$CLUSTER_NAMESPACE"
disableNewsFetch: true
notifyOnNewVersion: false
distribution: server
refreshInterval: 0s
hideLogs: true
cors:
  # Plain http on loopback: a Secure CSRF cookie would never come back, and the UI's writes (cancel, signal) would fail.
  cookieInsecure: true
  unsafeAllowAllOrigins: false
  allowOrigins: ["http://127.0.0.1:$CLUSTER_UI_PORT", "http://localhost:$CLUSTER_UI_PORT"]
auth:
  enabled: false
codec:
  endpoint: "http://127.0.0.1:$CLUSTER_CODEC_PORT/$(ui_codec_token)"
  passAccessToken: false
  includeCredentials: false
  defaultErrorMessage: "ragtime's codec server for the cluster did not decode this payload"
  defaultErrorLink: ""
EOF
  )
}

ui_command() {
  case "$1" in
    ui) printf '%s\0' "$UI_SERVER" --root "$CLUSTER_DATA_DIR" --config ui --env ragtime start ;;
    codec)
      local digest
      digest="$(printf '%s' "$(ui_codec_token)" | sha256sum | cut -d' ' -f1)"
      printf '%s\0' env -u RAGTIME_CODEC_KEYS "RAGTIME_CODEC_KEY_FILE=$CLUSTER_CODEC_KEY_FILE" \
        "RAGTIME_CODEC_TOKENS=${RAGTIME_CODEC_TOKENS:+$RAGTIME_CODEC_TOKENS,}$digest" "RAGTIME_CODEC_CORS_ORIGINS=$UI_ORIGINS" \
        node "$RAGTIME_ROOT/bin/ragtime.js" codec-server --host 127.0.0.1 --port "$CLUSTER_CODEC_PORT"
      ;;
  esac
}

ui_port_of() { if [[ "$1" == ui ]]; then printf '%s' "$CLUSTER_UI_PORT"; else printf '%s' "$CLUSTER_CODEC_PORT"; fi; }

# What a process of ours shows in its command line (env replaces itself with node).
ui_signature() {
  if [[ "$1" == ui ]]; then printf '%s --root %s --config ui' "$UI_SERVER" "$CLUSTER_DATA_DIR"; else printf '%s codec-server --host 127.0.0.1 --port %s' "$RAGTIME_ROOT/bin/ragtime.js" "$CLUSTER_CODEC_PORT"; fi
}

ui_running_pid() {
  local pid
  pid="$(cat "$RUN_DIR/$1.pid" 2>/dev/null || true)"
  [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(ui_signature "$1")" || return 1
  [[ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]] || return 1
  printf '%s' "$pid"
}

ui_healthy() {
  if [[ "$1" == ui ]]; then
    [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$CLUSTER_UI_PORT/healthz")" == 200 ]]
  else
    # No token: 401 is the codec server's answer (and proves it is ours, not some other listener).
    [[ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 -X POST "http://127.0.0.1:$CLUSTER_CODEC_PORT/decode")" == 401 ]]
  fi
}

ui_start_one() {
  local svc="$1" port log argv=() pid deadline
  port="$(ui_port_of "$svc")"
  log="$LOG_DIR/$svc.log"
  if ui_running_pid "$svc" >/dev/null; then return 0; fi
  if port_open "$port"; then err "$svc: cannot start, 127.0.0.1:$port is already in use [log $(rel "$log")]"; return 1; fi
  if [[ "$svc" == ui ]]; then ui_write_config; fi
  while IFS= read -r -d '' a; do argv+=("$a"); done < <(ui_command "$svc")
  printf '==== %s start: %s\n' "$(date -u +%FT%TZ)" "$(ui_signature "$svc")" >>"$log"
  (cd "$RAGTIME_ROOT" && exec setsid "${argv[@]}" </dev/null >>"$log" 2>&1 9>&-) &
  pid=$!
  printf '%s\n' "$pid" >"$RUN_DIR/$svc.pid"
  deadline=$((SECONDS + START_TIMEOUT))
  until ui_healthy "$svc"; do
    if ! kill -0 "$pid" 2>/dev/null; then err "$svc: exited during start-up [log $(rel "$log")]"; tail -n 20 "$log" >&2; return 1; fi
    ((SECONDS < deadline)) || { err "$svc: not answering after ${START_TIMEOUT}s (pid $pid left running) [log $(rel "$log")]"; return 1; }
    sleep 0.3
  done
  say "$svc: started (pid $pid) - $(ui_describe "$svc")"
}

ui_describe() {
  if [[ "$1" == ui ]]; then
    printf 'http://127.0.0.1:%s (Temporal Web UI %s on %s, namespace %s)' "$CLUSTER_UI_PORT" "${CLUSTER_UI_VERSION#v}" "$CLUSTER_TEMPORAL_ADDRESS" "$CLUSTER_NAMESPACE"
  else
    printf 'http://127.0.0.1:%s (keys %s)' "$CLUSTER_CODEC_PORT" "$(rel "$CLUSTER_CODEC_KEY_FILE")"
  fi
}

# The cluster's keyring, made once: the codec server decrypts with it, and workers that should be readable in the UI
# encrypt with it (RAGTIME_CODEC_KEY_FILE).
ui_keyring() {
  [[ -s "$CLUSTER_CODEC_KEY_FILE" ]] && return 0
  mkdir -p "$(dirname "$CLUSTER_CODEC_KEY_FILE")"
  (cd "$RAGTIME_ROOT" && node bin/ragtime.js codec-keys generate --file "$CLUSTER_CODEC_KEY_FILE") >>"$LOG_DIR/codec.log" 2>&1 \
    || { err "creating the cluster's codec keys $(rel "$CLUSTER_CODEC_KEY_FILE") failed (log $(rel "$LOG_DIR/codec.log"))"; return 1; }
  say "codec: created the cluster's payload keys $(rel "$CLUSTER_CODEC_KEY_FILE") (mode 0600)"
}

ui_up() {
  ui_build || return 1
  ui_keyring || return 1
  ui_start_one codec || return 1
  ui_start_one ui || return 1
  say "ui: http://127.0.0.1:$CLUSTER_UI_PORT/namespaces/$CLUSTER_NAMESPACE/workflows (payloads decoded by the codec server at http://127.0.0.1:$CLUSTER_CODEC_PORT for workers with RAGTIME_CODEC_KEY_FILE=$(rel "$CLUSTER_CODEC_KEY_FILE"))"
}

ui_stop_one() {
  local svc="$1" pid deadline
  if ! pid="$(ui_running_pid "$svc")"; then
    rm -f "$RUN_DIR/$svc.pid"
    say "$svc: not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  rm -f "$RUN_DIR/$svc.pid"
  say "$svc: stopped (pid $pid)"
}

ui_status() {
  local svc pid rc=0
  for svc in ui codec; do
    if pid="$(ui_running_pid "$svc")"; then
      printf '%-9s running  pid %-7s %s\n' "$svc" "$pid" "$(ui_describe "$svc")"
    else
      printf '%-9s stopped  %-11s %s\n' "$svc" "" "$(ui_describe "$svc")"
      rc=3
    fi
  done
  printf 'ui binary %s (%s)\n' "$(rel "$CLUSTER_UI_BIN_DIR")" "$(ui_installed_version || true)"
  return "$rc"
}
