#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# GFNI kernel prefetch A/B on the Xeon: A = HEAD (sources 512 B ahead), B = no prefetch, C = sources 512 + parity lines for writing 512 ahead
set -uo pipefail
# From the repository root, with the variant flags of gfni_variants.diff applied to a copy of the tree in .snap/src:
#   source .device/env.sh && bash ab.sh "$OUT" > "$OUT/gfni_pf_ab.log" 2>&1
out=$1; jobs=$(nproc); root=$PWD
lscpu | grep -E 'Model name|^CPU\(s\)|L2|L3'
up=/tmp/isa-l-2.32.1
tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$PWD/.device/root/usr/bin:$PATH make -C $up -f Makefile.unx -j"$jobs" slib >/dev/null 2>&1 || { echo upstream build failed; exit 1; }
bld() { cmake -S .snap/src -B /tmp/b$1 -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF -DGFEC_WITH_CUDA=OFF -DCMAKE_C_FLAGS="$2" >/dev/null && cmake --build /tmp/b$1 -j"$jobs" --target gfec_perf >/dev/null 2>&1 || echo "build $1 failed"; }
bld A "" & bld B "-DGFNI_PREFETCH=0" & bld C "-DGFNI_PFW=512" & wait
date -u +%T
for i in 1 2 3 4; do
  for v in A B C; do
    echo "## round $i $v $(date -u +%T) $(uptime | sed 's/.*load/load/')"
    /tmp/b$v/perf/gfec-perf isal -k '4,2 10,4 8,3' -b 4K -e 4K -T 1 -r 15 --isal-lib $up/bin/libisal.so.2 | grep -v '^# [gmr]'
  done
done
for v in A B C; do
  echo "## 1M $v $(date -u +%T)"
  /tmp/b$v/perf/gfec-perf isal -k '10,4 4,2' -b 1M -e 1M -T 1 -r 7 --isal-lib $up/bin/libisal.so.2 | grep -v '^# [gmr]'
done
for v in A B; do
  echo "## all cores $v $(date -u +%T)"
  /tmp/b$v/perf/gfec-perf isal -k '10,4' -b 1M -e 1M -T "$jobs" -r 7 --isal-lib $up/bin/libisal.so.2 | grep -v '^# [gmr]'
done
