#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs what gfec needs from Debian 12, only what is missing. Used by both README commands.
#   .ci/deps.sh build   the library, CLI and perf tools (OpenSSL: the CLI's SHA-256; jansson: the perf
#                       tools' JSON writer; rdma-core
#                       headers: the verbs transport loads rdma-core at run time, so only the -dev
#                       packages' headers are used)
#   .ci/deps.sh test    the above plus the test references (CMocka, Jerasure), the ISA-L drop-in's
#                       client (pyeclib) and leak test (valgrind), a Ceph 16.2 cluster for the
#                       plugin, qemu + busybox + rdma-core for the soft-RoCE VM of the verbs test,
#                       and clang with libFuzzer for tests/fuzz
set -euo pipefail
want=(build-essential cmake pkg-config binutils libisal-dev libjansson-dev libibverbs-dev librdmacm-dev
      libssl-dev)
[[ ${1:-build} == test ]] && want+=(libcmocka-dev libjerasure-dev libgf-complete-dev python3 libxml2-utils
                                   python3-pyeclib valgrind
                                   ceph-mon ceph-osd ceph-mgr ceph-common libradospp-dev uuid-runtime bc
                                   qemu-system-x86 busybox-static rdma-core ibverbs-providers iproute2 cpio
                                   clang libclang-rt-14-dev)

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

echo "gfec: installing ${missing[*]}" >&2
sudo=()
if [[ $(id -u) != 0 ]]; then
  command -v sudo >/dev/null || { echo "gfec: need root (or sudo) to apt-get install ${missing[*]}" >&2; exit 1; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
