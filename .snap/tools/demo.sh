#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's main command: install what is missing, build, then show gfec working on this
# machine: encode a generated file, lose m chunks, decode it back, and measure throughput against
# the machine's own ceilings (gfec-perf --quick: a table here, JSON and SVG plots in build/).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/deps.sh build
dir=${GFEC_BUILD_DIR:-build}
# the demo needs none of the test-only packages (CMocka, Jerasure, Ceph)
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF >/dev/null
cmake --build "$dir" -j"$(nproc)" >/dev/null
gfec=$dir/tools/gfec

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
f=$work/demo.bin
head -c $((64 * 1024 * 1024 + 12345)) /dev/urandom >"$f"
sha=$(sha256sum <"$f")

echo "== gfec $("$gfec" info | head -1)"
echo "== encode a 64 MiB file as RS(10,4), Cauchy"
"$gfec" encode -k 10 -m 4 -t cauchy "$f"
echo "== lose 4 chunks (data 0, 3, 7 and parity 12), then decode"
rm -f "$f.0" "$f.3" "$f.7" "$f.12"
"$gfec" decode "$f" -o "$work/restored.bin" --repair
[[ $(sha256sum <"$work/restored.bin") == "$sha" ]] || { echo "demo: restored file differs" >&2; exit 1; }
"$gfec" verify "$f"
echo "== restored file is identical (sha256 $(cut -c1-16 <<<"$sha")...)"

echo "== performance summary on this machine: gfec-perf --quick (ceilings measured now)"
"$dir/perf/gfec-perf" --quick --json "$dir/perf-quick.json" --svg "$dir/perf-quick"
