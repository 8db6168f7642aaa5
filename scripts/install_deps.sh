#!/usr/bin/env bash
# Installs the Debian 12 packages ptq builds with (as root, or through sudo); --python adds the Python
# module's and its tests'.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
PACKAGES=(build-essential cmake libonnx-dev libprotobuf-dev protobuf-compiler libeigen3-dev
          nlohmann-json3-dev libgtest-dev libonnx-testdata zlib1g-dev)
# --python: also what the Python module and its tests need (scripts/test.sh).
if [ "${1:-}" = "--python" ]; then
  PACKAGES+=(pybind11-dev python3-dev python3-numpy python3-onnx python3-pytest)
fi
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
echo "dependencies installed: ${PACKAGES[*]}"
