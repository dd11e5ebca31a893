#!/bin/sh
# Installs what is missing, builds, and runs `rackbench demo` (arguments pass through).
set -eu
cd "$(dirname "$0")/.."
./scripts/install-deps.sh demo
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
exec ./build/coordinator/rackbench demo "$@"
