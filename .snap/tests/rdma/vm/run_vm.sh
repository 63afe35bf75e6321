#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# @file run_vm.sh
# Boots Debian's stock kernel with soft-RoCE (rdma_rxe) in qemu TCG and runs GUEST_SCRIPT inside,
# so verbs/rdmacm programs can be tested without RDMA hardware (see docs/rdma.md).
# Usage: run_vm.sh WORKDIR GUEST_SCRIPT BINARY...
# In the guest, each BINARY is /bin/<basename>, rxe0 sits on veth0 (10.0.0.1/24, GID index 1),
# and RDMA_IP / RDMA_DEV are exported. Exit status: the guest script's; 77 (skip) when qemu,
# static busybox, cpio or the kernel are unavailable, unless GFEC_REQUIRE_VM=1.
# Environment: GFEC_VM_CACHE (kernel cache dir), GFEC_VM_TIMEOUT (host limit, s),
# GFEC_VM_TEST_TIMEOUT (guest script limit, s).
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 WORKDIR GUEST_SCRIPT BINARY..." >&2
	exit 2
fi
work=$1 guest_script=$2
shift 2
cache=${GFEC_VM_CACHE:-$HOME/.cache/gfec-vm}
libdir=/usr/lib/x86_64-linux-gnu
# Load order matters: rdma_rxe needs the crc32 crypto module, rdma_ucm needs the CM modules.
modules="crc32_generic crc32-pclmul configfs ib_core ib_uverbs udp_tunnel ip6_udp_tunnel"
modules+=" rdma_rxe iw_cm ib_cm rdma_cm rdma_ucm veth"

# A missing prerequisite skips the test, or fails it when GFEC_REQUIRE_VM=1.
skip() {
	if [ "${GFEC_REQUIRE_VM:-0}" = 1 ]; then
		echo "run_vm.sh: FAIL: $* (GFEC_REQUIRE_VM=1)" >&2
		exit 1
	fi
	echo "run_vm.sh: SKIP: $*" >&2
	exit 77
}

command -v qemu-system-x86_64 >/dev/null ||
	skip "qemu-system-x86_64 not found (apt-get install qemu-system-x86)"
command -v cpio >/dev/null || skip "cpio not found"
busybox=$(command -v busybox || true)
# ldd fails on a static executable; a dynamic busybox would not run in the initramfs.
if [ -z "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
	skip "static busybox not found (apt-get install busybox-static)"
fi

# Kernel: the package linux-image-amd64 points to, downloaded once and unpacked into the cache.
pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
	awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }' || true)
pkg=${pkg:-linux-image-6.1.0-56-amd64}
kdir=$cache/$pkg
if [ ! -d "$kdir" ]; then
	mkdir -p "$cache"
	deb=$(compgen -G "$cache/${pkg}_*.deb" | tail -n1 || true)
	if [ -z "$deb" ]; then
		# stale or missing package lists (a fresh machine): refresh them once and retry
		(cd "$cache" && { apt-get download "$pkg" ||
			{ apt-get update -qq && apt-get download "$pkg"; }; }) ||
			skip "cannot download $pkg (no network and no cache in $cache)"
		deb=$(compgen -G "$cache/${pkg}_*.deb" | tail -n1)
	fi
	tmp=$(mktemp -d "$cache/unpack.XXXXXX")
	dpkg -x "$deb" "$tmp"
	mv -T "$tmp" "$kdir" 2>/dev/null || rm -rf "$tmp" # a concurrent run may have won
fi
vmlinuz=$kdir/boot/vmlinuz-${pkg#linux-image-}

# Initramfs tree: busybox applets in /bin, iproute2's ip and rdma in /usr/bin, libraries at their
# host paths. libibverbs, librdmacm and the rxe provider are added even if ldd does not list
# them, as the programs under test may dlopen() them; ldd on them pulls in their own deps.
root=$work/root
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,lib/modules,etc/libibverbs.d} "$root$libdir"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
	[ "$applet" = busybox ] || ln -s busybox "$root/bin/$applet"
done
cp /usr/bin/ip /usr/bin/rdma "$root/usr/bin/"
for bin in "$@"; do
	cp --remove-destination "$bin" "$root/bin/$(basename "$bin")"
done
ldd_out=$(ldd "$@" /usr/bin/ip /usr/bin/rdma "$libdir/libibverbs.so.1" "$libdir/librdmacm.so.1" \
	"$libdir/libibverbs/librxe-rdmav34.so" || true)
if echo "$ldd_out" | grep -q 'not found'; then
	echo "run_vm.sh: missing shared libraries:" >&2
	echo "$ldd_out" | grep 'not found' >&2
	exit 1
fi
# "lib => /path (addr)" and "/lib64/ld-linux... (addr)"; skip the "/file:" headers.
libs=$(echo "$ldd_out" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }
	$1 ~ /^\// && $1 !~ /:$/ { print $1 }')
for lib in $libs "$libdir/libgcc_s.so.1" "$libdir/libibverbs.so.1" "$libdir/librdmacm.so.1" \
	"$libdir/libibverbs/librxe-rdmav34.so"; do
	case $lib in
	/lib/* | /lib64/* | /usr/lib/*) cp -L --parents "$lib" "$root" ;;
	# e.g. a build tree's libgfec.so.0: the guest's /tmp is a fresh tmpfs, so use a default path
	*) cp -L "$lib" "$root$libdir/" ;;
	esac
done
cp /etc/libibverbs.d/rxe.driver "$root/etc/libibverbs.d/"
for mod in $modules; do
	ko=$(find "$kdir/lib/modules" -name "$mod.ko" | head -n1)
	[ -n "$ko" ] || { echo "run_vm.sh: module $mod.ko not found in $kdir" >&2; exit 1; }
	cp "$ko" "$root/lib/modules/"
done
cp "$guest_script" "$root/test.sh"

# /init: load modules, create veth0 + rxe0, run /test.sh, print the sentinel and power off.
{
	echo '#!/bin/sh'
	echo "modules='$modules' test_timeout=${GFEC_VM_TEST_TIMEOUT:-100}"
	cat <<'EOF'
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
setup() {
	for m in $modules; do
		insmod /lib/modules/$m.ko || { echo "init: insmod $m failed"; return 1; }
	done
	# Full path: busybox's own ip applet cannot create veth pairs.
	/usr/bin/ip link set lo up &&
	/usr/bin/ip link add veth0 type veth peer name veth1 &&
	/usr/bin/ip addr add 10.0.0.1/24 dev veth0 &&
	/usr/bin/ip link set veth0 up &&
	/usr/bin/ip link set veth1 up &&
	/usr/bin/rdma link add rxe0 type rxe netdev veth0
}
if setup; then
	export RDMA_IP=10.0.0.1 RDMA_DEV=rxe0
	timeout "$test_timeout" sh /test.sh
	rc=$?
else
	echo "init: VM setup failed"
	rc=1
fi
echo "TEST-EXIT-CODE: $rc"
poweroff -f
echo o >/proc/sysrq-trigger
EOF
} >"$root/init"
chmod 755 "$root/init" "$root/test.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) >"$work/initrd.cpio.gz"

# Boot; the console goes to console.log and stdout. The guest's sentinel line gives the status.
vm_start=$SECONDS
timeout "${GFEC_VM_TIMEOUT:-170}" qemu-system-x86_64 -accel tcg -cpu max -m 512 -smp 2 \
	-nographic -no-reboot -nic none -kernel "$vmlinuz" -initrd "$work/initrd.cpio.gz" \
	-append 'console=ttyS0 quiet panic=-1' </dev/null 2>&1 |
	tr -d '\r' | tee "$work/console.log" || true
rc=$(sed -n 's/.*TEST-EXIT-CODE: \([0-9][0-9]*\).*/\1/p' "$work/console.log" | tail -n1)
echo "run_vm.sh: elapsed $SECONDS s (VM $((SECONDS - vm_start)) s)"
if [ -z "$rc" ]; then
	echo "run_vm.sh: FAIL: no TEST-EXIT-CODE line (boot failure or timeout); see $work/console.log" >&2
	exit 1
fi
exit "$rc"
