#!/usr/bin/env bash
# The established repair tools in other languages on the same messy reply as
# `benches/decode.rs`: jsonrepair (JavaScript, npm) and json_repair (Python,
# PyPI), each timed in its own runtime, beside serde_llm timed the same way
# (a loop in one process, mean per call). Needs node with npm and python3
# with pip, and the registries; everything is installed into a temporary
# directory, nothing into the system.
#
#   bash benches/other_languages/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$root"
cargo bench --bench decode --no-run --quiet 2>/dev/null
bench="$(cargo bench --bench decode --no-run 2>&1 | grep -o 'target/release/deps/decode-[0-9a-f]*' | head -1)"
BENCH_ONCE=dump BENCH_DUMP="$work" "$bench"

cd "$work"
npm install --silent --no-audit --no-fund jsonrepair@3.15.0 >/dev/null
pip3 install --quiet --disable-pip-version-check --target "$work/py" json_repair==0.64.6 2>/dev/null
# Node resolves packages from the script's own directory.
cp "$here/time.mjs" "$work/time.mjs"
node "$work/time.mjs" "$work/messy.txt"
PYTHONPATH="$work/py" python3 "$here/time.py" "$work/messy.txt"
