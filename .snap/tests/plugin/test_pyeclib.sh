#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real client of the ISA-L drop-in: Debian's PyECLib and liberasurecode (isa_l_rs_vand,
# isa_l_rs_cauchy; (4,2) and (10,4)) through pyeclib_roundtrip.py, first with Debian's libisal2,
# then with LD_LIBRARY_PATH at gfec's libisal.so.2 on each of its routes (the real ISA-L behind
# it, gfec's plain-C code, the GPU). Every run must print the same fragment digests, and
# LD_DEBUG=files must show which libisal.so.2 liberasurecode loaded.
# usage: test_pyeclib.sh path/to/gfec/libisal.so.2      (exit 77: PyECLib is not installed)
set -euo pipefail
lib=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
dir=$(dirname "$lib")
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3 # Debian's python: the one that sees python3-pyeclib
if ! "$py" -c 'import pyeclib.ec_iface' 2>/dev/null; then
  echo "SKIP: $py cannot import pyeclib (apt-get install python3-pyeclib)"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME [VAR=value ...]: the client with the environment given, its loader log kept.
run() {
  local name=$1
  shift
  env "$@" LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/$name.ld" "$py" "$here/pyeclib_roundtrip.py" \
    >"$tmp/$name.out"
  cat "$tmp/$name.ld".* >"$tmp/$name.log"
}

# The file liberasurecode's dlopen("libisal.so.2") gave, from the loader's log (the loader names
# liberasurecode as the caller, or libasan, which intercepts dlopen in sanitizer builds).
loaded() {
  awk '/file=libisal.so.2 .*dynamically loaded by/ {want = 1; next}
       want && /calling init: .*libisal/ {print $NF; exit}' "$1"
}

# A sanitizer build of the drop-in needs its runtime first in the (uninstrumented) python.
san=()
asan=$(ldd "$lib" | awk '/libasan/ {print $3}')
[[ -n $asan ]] && san=(LD_PRELOAD="$asan" ASAN_OPTIONS=detect_leaks=0)

run debian
run gfec "${san[@]}" LD_LIBRARY_PATH="$dir"
run gfec_base "${san[@]}" LD_LIBRARY_PATH="$dir" GFEC_ISAL_LIB=/nonexistent/libisal.so.2
run gfec_gpu "${san[@]}" LD_LIBRARY_PATH="$dir" GFEC_ISAL_GPU_MIN=0

cat "$tmp/debian.out"
status=0
echo "liberasurecode loaded, per run:"
for r in debian gfec gfec_base gfec_gpu; do
  got=$(loaded "$tmp/$r.log")
  if [[ $r == debian ]]; then
    ok=$([[ -n $got && $got != "$dir"/* ]] && echo 1) # the system's, wherever it was found
  else
    ok=$([[ $got == "$dir/libisal.so.2" ]] && echo 1)
  fi
  [[ -n $ok ]] || { echo "FAIL: the $r run loaded '$got'"; status=1; }
  if cmp -s "$tmp/debian.out" "$tmp/$r.out"; then same="fragments identical to Debian's"; else
    same="FRAGMENTS DIFFER"
    diff "$tmp/debian.out" "$tmp/$r.out" || true
    status=1
  fi
  echo "  $r: $got: $same"
done
# The default route forwards small calls to the real ISA-L, which the drop-in loads by path; the
# base route must not load it. In these runs nothing else loads a libisal.
real_loaded() {
  awk -v ours="$dir/" '/calling init: .*libisal/ && index($NF, ours) != 1 {print $NF; exit}' "$1"
}
real=$(real_loaded "$tmp/gfec.log")
if [[ -n $real ]]; then
  echo "  gfec run: the drop-in loaded $real by path for its small calls"
else
  echo "FAIL: in the gfec run the drop-in never loaded the real ISA-L"
  status=1
fi
real=$(real_loaded "$tmp/gfec_base.log")
[[ -z $real ]] || { echo "FAIL: the gfec_base run loaded $real"; status=1; }
exit $status
