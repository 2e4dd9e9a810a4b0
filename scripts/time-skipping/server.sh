#!/usr/bin/env bash
# Temporal's time-skipping test server (Java), as @temporalio/testing runs an `existing-path` executable: the port
# first, then any extra arguments. The classpath is the one scripts/setup.sh resolved (.tools/time-skipping.classpath).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CLASSPATH_FILE="$ROOT/.tools/time-skipping.classpath"
[[ -s "$CLASSPATH_FILE" ]] || { echo "time-skipping server: $CLASSPATH_FILE is missing; run: bash scripts/setup.sh" >&2; exit 1; }
exec java -Xmx256m -cp "$(cat "$CLASSPATH_FILE")" io.temporal.testserver.TestServer "$@"
