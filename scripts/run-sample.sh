#!/usr/bin/env bash
# Build exactvmaf and score the shipped sample pair with the float VMAF model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build
build/tools/exactvmaf -r samples/ref.y4m -d samples/dis.y4m \
    --model version=vmaf_float_v0.6.1 -q "$@"
