#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# check_floors.sh itself: on small made-up trees it passes a downward include and fails an
# include that reaches up a floor, one between the two backends, and a CMake include directory
# that points up.
set -uo pipefail
check=$(dirname "$0")/check_floors.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

tree() { # a tree with one lower header, one plugin header and the given file
	rm -rf "$tmp/t" && mkdir -p "$tmp/t/gfmatrix/base" "$tmp/t/plugin" "$tmp/t/cpu_backend" \
		"$tmp/t/cuda_gemm"
	echo '/* floor */' >"$tmp/t/gfmatrix/base/gemm.h"
	echo '/* plugin */' >"$tmp/t/plugin/internal.h"
	echo '/* backend */' >"$tmp/t/cpu_backend/cpu_backend.h"
	mkdir -p "$(dirname "$tmp/t/$1")" && printf '%s\n' "$2" >"$tmp/t/$1"
}
expect() { # RC WHAT
	bash "$check" "$tmp/t" >"$tmp/out" 2>&1
	rc=$?
	if [[ $rc != "$1" ]]; then
		echo "FAIL: $2: exit $rc, expected $1" >&2
		cat "$tmp/out" >&2
		fail=1
	elif [[ $1 == 1 ]] && ! grep -q '^FLOOR: ' "$tmp/out"; then
		echo "FAIL: $2: no FLOOR line" >&2
		fail=1
	fi
}

tree cpu_backend/a.c '#include "gemm.h"'
expect 0 "a backend including the floor"
tree cpu_backend/a.c '#include "internal.h"'
expect 1 "a backend including plugin/"
tree cuda_gemm/a.cu '#include "cpu_backend.h"'
expect 1 "one backend including the other"
tree gfmatrix/base/a.c '#include <internal.h>'
expect 1 "the floor including plugin/"
tree gfmatrix/CMakeLists.txt \
	'target_include_directories(x PUBLIC ${PROJECT_SOURCE_DIR}/plugin/include)'
expect 1 "an include directory above the folder's floor"
tree plugin/CMakeLists.txt 'target_include_directories(x PUBLIC ${PROJECT_SOURCE_DIR}/gfmatrix/base)'
expect 0 "an include directory below"

((fail)) && exit 1
echo "check_floors: passes the downward tree, fails the 4 upward ones"
