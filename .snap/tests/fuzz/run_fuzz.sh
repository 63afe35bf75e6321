#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the fuzz targets with clang + libFuzzer + ASan/UBSan and fuzzes each in turn, seeded
# with its corpus (corpus/<name>/, dictionary <name>.dict when there is one).
#   tests/fuzz/run_fuzz.sh SECONDS [RUNS [TARGET...]]
#     SECONDS  per target (-max_total_time); RUNS: also stop after this many inputs (0: no limit)
#     TARGET   profile, config, ... (default: every corpus/ folder)
# CI runs it with 60; long runs by hand: nice -n 19 tests/fuzz/run_fuzz.sh 1800 10000000
# Exit 0: no finding; 1: a target crashed, leaked, timed out or broke an invariant (its input is
# saved under BUILD/fuzz-artifacts/); 2: usage or build failure.
# GFEC_FUZZ_BUILD_DIR: the build directory (default build-fuzz).
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: tests/fuzz/run_fuzz.sh SECONDS [RUNS [TARGET...]]  (fuzz each target SECONDS)"
if [[ ${1:-} == --help || ${1:-} == -h ]]; then
  echo "$usage"
  exit 0
fi
if [[ $# -lt 1 || ! $1 =~ ^[0-9]+$ || ( $# -ge 2 && ! $2 =~ ^[0-9]+$ ) ]]; then
  echo "$usage" >&2
  exit 2
fi
for t in "${@:3}"; do
  [[ -d tests/fuzz/corpus/$t ]] || { echo "run_fuzz.sh: no target '$t' (no tests/fuzz/corpus/$t)" >&2; exit 2; }
done
secs=$1
runs=${2:-0}
shift $(($# >= 2 ? 2 : 1))
dir=${GFEC_FUZZ_BUILD_DIR:-build-fuzz}
targets=("$@")
if ((${#targets[@]} == 0)); then
  for d in tests/fuzz/corpus/*/; do targets+=("$(basename "$d")"); done
fi

CC=clang CXX=clang++ cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBUILD_TESTING=ON \
  -DGFEC_FUZZ=ON -DGFEC_SANITIZE=address,undefined -DGFEC_WITH_CUDA=OFF -DGFEC_WITH_CEPH=OFF \
  >/dev/null || exit 2
cmake --build "$dir" -j"$(nproc)" --target "${targets[@]/#/fuzz_}" >/dev/null || exit 2

failed=()
for t in "${targets[@]}"; do
  bin=$dir/tests/fuzz/fuzz_$t
  work=$dir/fuzz-corpus/$t # new inputs go here, not into the repository
  art=$dir/fuzz-artifacts/$t
  log=$dir/fuzz-logs/$t.log
  mkdir -p "$work" "$art" "$(dirname "$log")"
  args=(-max_total_time="$secs" -runs=$((runs > 0 ? runs : -1)) -print_final_stats=1 -timeout=10
        -rss_limit_mb=2048 -artifact_prefix="$art/")
  [[ -f tests/fuzz/$t.dict ]] && args+=(-dict="tests/fuzz/$t.dict")
  start=$SECONDS
  rc=0
  "$bin" "${args[@]}" "$work" "tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  if ((rc == 0)); then
    echo "fuzz_$t: ${execs:-?} executions in $((SECONDS - start)) s, no finding"
  else
    echo "fuzz_$t: FAILED (exit $rc) after ${execs:-?} executions in $((SECONDS - start)) s;" \
      "input in $art/, log $log:"
    tail -n 40 "$log"
    failed+=("$t")
  fi
done
if ((${#failed[@]})); then
  echo "fuzz: findings in ${failed[*]}" >&2
  exit 1
fi
