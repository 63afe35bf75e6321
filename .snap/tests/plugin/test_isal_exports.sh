#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# gfec's libisal.so.2 exports exactly the names in plugin/isal_abi/libisal.map, has ISA-L's
# soname, needs no other libisal, and may be unloaded (no NODELETE: liberasurecode dlcloses it).
# usage: test_isal_exports.sh path/to/libisal.so.2 path/to/libisal.map
set -euo pipefail
lib=$1 map=$2
got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort -u)
want=$(sed -n '/global:/,/local:/s/^[[:space:]]*\([a-z_0-9]*\);$/\1/p' "$map" | sort -u)
if ! diff <(echo "$got") <(echo "$want"); then
  echo "FAIL: exports of $lib differ from $map (< built, > listed)" >&2
  exit 1
fi
dyn=$(readelf -dW "$lib")
soname=$(awk '/SONAME/ {gsub(/[][]/, "", $NF); print $NF}' <<<"$dyn")
[[ $soname == libisal.so.2 ]] || { echo "FAIL: soname '$soname', not libisal.so.2" >&2; exit 1; }
if grep -q 'NEEDED.*libisal' <<<"$dyn"; then
  echo "FAIL: $lib needs another libisal" >&2
  exit 1
fi
if grep -q 'FLAGS_1.*NODELETE' <<<"$dyn"; then
  echo "FAIL: $lib is NODELETE: dlclose would never unload it" >&2
  exit 1
fi
echo "isal exports: $(echo "$got" | wc -l) names match $(basename "$map"), soname $soname"
