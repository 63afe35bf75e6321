#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-way include graph (README, Architecture): every folder sits on a floor, and a file may
# use its own folder and lower floors only. Two folders on one floor (the two backends) may not
# use each other. Checked here:
#  - every #include "..." / <...> that names a file of this tree (looked up beside the including
#    file, then by path suffix anywhere in the tree: one legal match is enough);
#  - every CMake reference to a source path (${PROJECT_SOURCE_DIR}/..., ${CMAKE_SOURCE_DIR}/...,
#    ${CMAKE_CURRENT_SOURCE_DIR}/..): include directories, sources compiled in;
#  - every target_link_libraries() item that is a target defined in this tree.
# Usage: check_floors.sh [ROOT]   (default: the tree this script is in). Exit 0 clean, 1 on a
# violation (each one printed), 2 on bad usage.
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[[ -d $root/gfmatrix ]] || { echo "check_floors: $root is not a gfec tree" >&2; exit 2; }
cd "$root" || exit 2

# sets U (unit) and F (floor) for a path relative to the root; U empty: not ours to check
unit_of() {
	case $1/ in
	cmake/*) U=cmake F=-1 ;; # build helpers: anyone may use them
	gfmatrix/base/*) U=base F=0 ;; # the ground floor
	cpu_backend/*) U=cpu_backend F=1 ;;
	cuda_gemm/*) U=cuda_gemm F=1 ;;
	gfmatrix/*) U=gfmatrix F=2 ;;
	plugin/isal_abi/*) U=isal_abi F=4 ;;
	plugin/ceph/*) U=ceph F=4 ;;
	plugin/*) U=plugin F=3 ;;
	tools/*) U=tools F=4 ;;
	rdma/*) U=rdma F=4 ;;
	perf/*) U=perf F=5 ;;
	tests/*) U=tests F=6 ;;
	*) U= F= ;;
	esac
}

bad=0
# allowed FROM TO (paths relative to the root): the same unit, or a lower floor
allowed() {
	local fu ff
	unit_of "$1"
	fu=$U ff=$F
	unit_of "$2"
	[[ -z $fu || -z $U || $fu == "$U" ]] && return 0
	((F < ff))
}
violation() {
	echo "FLOOR: $1" >&2
	bad=1
}

dirs=(gfmatrix cpu_backend cuda_gemm plugin tools rdma perf tests)
mapfile -t sources < <(find "${dirs[@]}" -type d -name 'build*' -prune -o -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cc' \
	-o -name '*.cpp' -o -name '*.hpp' \) -print | sort)

# every file of the tree by base name, for suffix look-ups
declare -A by_name
for f in "${sources[@]}"; do
	by_name[${f##*/}]+="$f "
done

for f in "${sources[@]}"; do
	while IFS= read -r inc; do
		cands=()
		rel=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
		if [[ -f $rel ]]; then
			cands=("$rel")
		else
			for c in ${by_name[${inc##*/}]:-}; do
				[[ $c == "$inc" || $c == */"$inc" ]] && cands+=("$c")
			done
		fi
		((${#cands[@]})) || continue # not ours: a system or third-party header
		ok=0
		for c in "${cands[@]}"; do
			allowed "$f" "$c" && ok=1
		done
		((ok)) || violation "$f includes \"$inc\" (${cands[*]}): a higher floor or a sibling"
	done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p' "$f")
done

mapfile -t cmakes < <(find "${dirs[@]}" -type d -name 'build*' -prune -o -type f \
	\( -name CMakeLists.txt -o -name '*.cmake' \) -print | sort)

# targets defined per CMake file's folder
declare -A target_home
for cm in "${cmakes[@]}"; do
	for t in $(sed -n 's/^[[:space:]]*add_\(library\|executable\)(\([A-Za-z0-9_]*\).*/\2/p' "$cm"); do
		target_home[$t]=$cm
	done
done

for cm in "${cmakes[@]}"; do
	here=$(dirname "$cm")
	# paths named through the source-tree variables
	while IFS= read -r ref; do
		var=${ref%%\}*}
		path=${ref#*\}}
		path=${path#/}
		case $var in
		'${CMAKE_CURRENT_SOURCE_DIR'|'${CMAKE_CURRENT_LIST_DIR') path=$here/$path ;;
		esac
		[[ -n $path ]] || continue # the root itself names no floor
		path=$(realpath -m --relative-to=. "$path")
		allowed "$cm" "$path" || violation "$cm names $path: a higher floor or a sibling"
	done < <(grep -o '\${\(PROJECT_SOURCE_DIR\|CMAKE_SOURCE_DIR\|CMAKE_CURRENT_SOURCE_DIR\|CMAKE_CURRENT_LIST_DIR\)}[^ )">;]*' "$cm")
	# linked targets: one target_link_libraries(...) per line after joining its lines
	while IFS= read -r call; do
		for item in $call; do
			home=${target_home[$item]:-}
			[[ -n $home ]] || continue
			allowed "$cm" "$home" || violation "$cm links $item ($home): a higher floor or a sibling"
		done
	done < <(awk '/target_link_libraries\(/ { on = 1; s = "" }
		on { s = s " " $0; if (index($0, ")")) { on = 0; sub(/.*target_link_libraries\(/, "", s);
		     gsub(/[()]/, " ", s); print s } }' "$cm")
done

if ((bad)); then
	echo "check_floors: includes or build files reach up a floor (see README, Architecture)" >&2
	exit 1
fi
echo "check_floors: ${#sources[@]} sources, ${#cmakes[@]} CMake files: every reference points down"
