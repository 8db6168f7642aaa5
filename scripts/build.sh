#!/usr/bin/env bash
# Configures and builds ptq into build/ (or the folder given as $1). Further args go to cmake's
# configure step, except `--target T` (repeatable), which builds only T and what it needs (e.g. ptq).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-build}"
shift || true
configure=()
targets=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--target" ]; then
    [ $# -ge 2 ] || { echo "build.sh: --target needs a target name" >&2; exit 1; }
    targets+=(--target "$2")
    shift 2
  else
    configure+=("$1")
    shift
  fi
done
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release ${configure[@]+"${configure[@]}"} >/dev/null
cmake --build "$dir" -j"$(nproc)" ${targets[@]+"${targets[@]}"}
