#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The exported ABI of libgfec.so is exactly plugin/libgfec.symbols (liberasurecode's audit).
set -euo pipefail
lib=$1 list=$2
got=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//' | sort -u)
if ! diff <(echo "$got") <(sort -u "$list"); then
  echo "FAIL: exports of $lib differ from $list (< built, > listed)" >&2
  exit 1
fi
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[[ $soname =~ ^libgfec\.so\.[0-9]+$ ]] || { echo "FAIL: soname '$soname' is not versioned" >&2; exit 1; }
echo "symbols: $(echo "$got" | wc -l) exports match, soname $soname"
