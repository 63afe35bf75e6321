#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# 100 dlopen/use/dlclose cycles of gfec's libisal.so.2 (test_isal_reload.c), natively, then
# under valgrind for 10 and for 100 cycles: no leak, and the same totals in every leak kind
# for both, so nothing grows per cycle. GFEC_ISAL_GPU_MIN=0 makes every cycle start the GPU, or
# try to; where there is one, the drop-in pins itself once it has (--gpu), and valgrind runs
# without it (it cannot follow the CUDA driver).
# usage: test_isal_reload.sh path/to/test_isal_reload path/to/libisal.so.2
set -euo pipefail
bin=$1 lib=$2
gpu=0 flag=()
[[ -e /dev/nvidia0 ]] && gpu=1 flag=(--gpu)

GFEC_ISAL_GPU_MIN=0 "$bin" "$lib" 100 "${flag[@]}"
if ! command -v valgrind >/dev/null; then
  echo "SKIP the valgrind part: valgrind is not installed (apt-get install valgrind)"
  exit 0
fi
if [[ $(ldd "$bin") == *libasan* ]]; then
  echo "SKIP the valgrind part: this build uses AddressSanitizer"
  exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
((gpu)) && echo "valgrind runs on the CPU path only (GFEC_ISAL_GPU_MIN=off): this host has a GPU"
for n in 10 100; do
  if ! GFEC_ISAL_GPU_MIN=$( ((gpu)) && echo off || echo 0) valgrind --leak-check=full \
    --show-leak-kinds=all --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=3 \
    --log-file="$tmp/vg.$n" "$bin" "$lib" "$n" >/dev/null; then
    cat "$tmp/vg.$n"
    echo "FAIL: valgrind found errors or leaks in $n cycles"
    exit 1
  fi
  # no such line when valgrind found every heap block freed ("no leaks are possible")
  { grep -E "(definitely|indirectly|possibly) lost:|still reachable:" "$tmp/vg.$n" || true; } |
    sed 's/^==[0-9]*== *//' >"$tmp/sum.$n"
  [[ -s $tmp/sum.$n ]] || grep -h "All heap blocks were freed" "$tmp/vg.$n" |
    sed 's/^==[0-9]*== *//' >"$tmp/sum.$n"
done
echo "valgrind, 10 cycles | 100 cycles:"
paste -d'|' "$tmp/sum.10" "$tmp/sum.100" | sed 's/^/  /'
if ! cmp -s "$tmp/sum.10" "$tmp/sum.100"; then
  echo "FAIL: memory left at exit grows with the number of cycles"
  exit 1
fi
