#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The README's test command: install what is missing, build (build/), run every test.
# GFEC_BUILD_DIR and GFEC_CMAKE_ARGS (e.g. -DGFEC_SANITIZE=address,undefined) change the build;
# GFEC_CTEST_ARGS adds ctest arguments (e.g. -E ceph_ to leave out the Ceph tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/deps.sh test
dir=${GFEC_BUILD_DIR:-build}
jobs=$(nproc)
# shellcheck disable=SC2086
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=${GFEC_BUILD_TYPE:-Release} -DBUILD_TESTING=ON ${GFEC_CMAKE_ARGS:-} >/dev/null
cmake --build "$dir" -j"$jobs"
# shellcheck disable=SC2086
ctest --test-dir "$dir" -j"$jobs" --output-on-failure --timeout 900 ${GFEC_CTEST_ARGS:-}
