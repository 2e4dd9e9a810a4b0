#!/usr/bin/env bash
# Sourced by the test scripts (scripts/test.sh, scripts/test-llm.sh, scripts/cluster/test.sh): `own_services svc…`
# starts the services among these that are not running yet and, when the script exits (or is interrupted), stops only
# those — a developer's running services stay up. The script's exit status is kept (a failed stop makes it 1).

own_services() {
  OWNED_SERVICES=()
  local svc
  for svc in "$@"; do
    if ! bash "$RAGTIME_ROOT/scripts/services.sh" status "$svc" >/dev/null 2>&1; then OWNED_SERVICES+=("$svc"); fi
  done
  trap stop_owned_services EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  bash "$RAGTIME_ROOT/scripts/services.sh" up "$@"
}

stop_owned_services() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ ${#OWNED_SERVICES[@]} -gt 0 ]]; then
    echo "[$(basename "$0" .sh)] stopping the services this run started: ${OWNED_SERVICES[*]}"
    bash "$RAGTIME_ROOT/scripts/services.sh" down "${OWNED_SERVICES[@]}" || rc=1
  fi
  exit "$rc"
}
