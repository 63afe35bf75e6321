#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A real Ceph 16.2 cluster on loopback running gfec (../../shared/docs/ceph-minicluster.md): one
# mon, one mgr, three memstore OSDs, everything under one temporary directory. An EC pool with
# plugin=gfec k=2 m=1 takes 200 objects of 1 B to 8 MiB; they read back identical, also with the
# primary OSD of an object killed (degraded reads rebuild through gfec), writes go on while
# degraded, and after the OSD restarts and recovery ends everything reads back again. Last, the
# same rados bench on a gfec pool and an isa pool of the same profile, in the same cluster.
# Daemons are started and stopped by PID only.
#   $1  the built libec_gfec.so
set -euo pipefail
plugin=$(readlink -f "$1")
D=$(mktemp -d /tmp/gfec-ceph.XXXXXX)
pids=()
declare -A osd_pid
t0=$SECONDS
phase_t=$SECONDS

teardown() {
	local p
	for p in "${pids[@]}" "${osd_pid[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}" "${osd_pid[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$p" 2>/dev/null || true
	done
	rm -rf "$D"
}
trap teardown EXIT
fail() {
	echo "FAIL: $*" >&2
	tail -5 "$D"/log/*.log >&2 2>/dev/null || true
	exit 1
}
phase() {
	printf '%-44s %5.1f s\n' "$1" "$(echo "$SECONDS - $phase_t" | bc)"
	phase_t=$SECONDS
}
wait_for() { # seconds description command...: retry until it succeeds or the time is up
	local end=$((SECONDS + $1)) what=$2
	shift 2
	while ((SECONDS < end)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	fail "timed out waiting for $what"
}

mkdir -p "$D"/{run,crash,log,mon,mgr,osd,ec,objs,back}
ln -s "$plugin" "$D/ec/"
ln -s /usr/lib/x86_64-linux-gnu/ceph/erasure-code/libec_isa.so "$D/ec/"
# the mon listens on port and port + 1 (v2 and v1): find a pair that is free
port=$(python3 -c '
import socket
for _ in range(100):
    a = socket.socket(); a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]
    b = socket.socket()
    try:
        b.bind(("127.0.0.1", p + 1)); print(p); break
    except OSError:
        pass
    finally:
        a.close(); b.close()')
fsid=$(uuidgen)
cat >"$D/ceph.conf" <<EOF
[global]
fsid = $fsid
mon_host = [v2:127.0.0.1:$port,v1:127.0.0.1:$((port + 1))]
public_network = 127.0.0.0/8
ms_bind_ipv4 = true
ms_bind_ipv6 = false
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
run_dir = $D/run
crash_dir = $D/crash
log_file = $D/log/\$name.log
mon_cluster_log_file = $D/log/cluster.log
erasure_code_dir = $D/ec
osd_erasure_code_plugins = gfec isa
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_warn_on_insecure_global_id_reclaim_allowed = false
mon_data_avail_warn = 1
mon_osd_min_down_reporters = 1
mon_osd_reporter_subtree_level = osd
mgr_initial_modules = iostat
mgr_stats_period = 1
mon_mgr_digest_period = 1
mon_data = $D/mon/\$cluster-\$id
mgr_data = $D/mgr/\$cluster-\$id
osd_data = $D/osd/\$id
osd_objectstore = memstore
memstore_device_bytes = 4294967296
osd_op_num_shards = 2
osd_op_num_threads_per_shard = 1
EOF
export CEPH_CONF=$D/ceph.conf
ceph() { command ceph --connect-timeout 10 "$@"; }

# --- the cluster --------------------------------------------------------------------------------
monmaptool --create --fsid "$fsid" --addv a "[v2:127.0.0.1:$port,v1:127.0.0.1:$((port + 1))]" \
	"$D/monmap" >/dev/null
ceph-mon --mkfs -i a --monmap "$D/monmap" >"$D/log/mkfs.log" 2>&1
ceph-mon -i a -f >"$D/log/mon.out" 2>&1 &
pids+=($!)
wait_for 60 "the mon" ceph mon stat
ceph-mgr -i x -f >"$D/log/mgr.out" 2>&1 &
pids+=($!)
start_osd() {
	ceph-osd -i "$1" -f >>"$D/log/osd.$1.out" 2>&1 &
	osd_pid[$1]=$!
}
for _ in 0 1 2; do
	uuid=$(uuidgen)
	id=$(ceph osd new "$uuid")
	mkdir -p "$D/osd/$id"
	ceph-osd -i "$id" --mkfs --osd-uuid "$uuid" >>"$D/log/mkfs.log" 2>&1
	start_osd "$id"
done
up3() { [[ $(ceph osd stat -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["num_up_osds"])') == 3 ]]; }
wait_for 90 "three OSDs up" up3
phase "cluster up (1 mon, 1 mgr, 3 memstore OSDs)"

ceph osd erasure-code-profile set gfecprof plugin=gfec k=2 m=1 technique=cauchy backend=cpu \
	crush-failure-domain=osd >/dev/null
ceph osd erasure-code-profile get gfecprof | grep -q '^crush-root=default' ||
	fail "the plugin did not write its defaults back into the profile"
ceph osd pool create ecpool 8 8 erasure gfecprof >/dev/null
ceph osd pool application enable ecpool rados >/dev/null
head -c 1000 /dev/urandom >"$D/probe"
wait_for 90 "a writable EC pool" rados -p ecpool put probe "$D/probe"
phase "EC pool plugin=gfec k=2 m=1 writable"

# --- 200 objects, 1 B to 8 MiB -------------------------------------------------------------------
python3 - "$D/objs" <<'PY'
import os, random, sys
random.seed(20261122)
for i in range(200):
    size = 1 if i == 0 else 8 << 20 if i == 1 else int(2 ** random.uniform(0, 23))
    with open(os.path.join(sys.argv[1], f"obj{i}"), "wb") as f:
        f.write(os.urandom(size))
PY
for i in $(seq 0 199); do rados -p ecpool put "obj$i" "$D/objs/obj$i" || fail "put obj$i"; done
phase "wrote 200 objects ($(du -sh "$D/objs" | cut -f1))"
read_all() { # label: every object back, byte-identical
	local i
	for i in $(seq 0 199); do
		rados -p ecpool get "obj$i" "$D/back/obj$i" || fail "$1: get obj$i"
		cmp -s "$D/objs/obj$i" "$D/back/obj$i" || fail "$1: obj$i differs"
	done
	rm -f "$D"/back/*
}
read_all "healthy"
phase "read 200 objects back identical"

# --- degraded: kill the primary OSD of obj1 by PID ------------------------------------------------
victim=$(ceph osd map ecpool obj1 -f json | python3 -c 'import json,sys; print(json.load(sys.stdin)["acting_primary"])')
kill -KILL "${osd_pid[$victim]}"
wait "${osd_pid[$victim]}" 2>/dev/null || true
ceph osd down "osd.$victim" >/dev/null 2>&1 || true
read_all "degraded (osd.$victim killed)"
phase "degraded reads: 200 objects identical (osd.$victim down)"
for i in $(seq 200 219); do
	head -c $((i * 3001)) /dev/urandom >"$D/objs/obj$i"
	rados -p ecpool put "obj$i" "$D/objs/obj$i" || fail "degraded put obj$i"
done
for i in $(seq 200 219); do
	rados -p ecpool get "obj$i" "$D/back/obj$i" && cmp -s "$D/objs/obj$i" "$D/back/obj$i" ||
		fail "degraded write obj$i did not read back"
done
phase "degraded writes: 20 objects written and read back"

# --- recovery ------------------------------------------------------------------------------------
start_osd "$victim"
clean() {
	ceph pg ls-by-pool ecpool -f json | python3 -c '
import json, sys
d = json.load(sys.stdin)
pgs = d["pg_stats"] if isinstance(d, dict) else d
sys.exit(0 if pgs and all(p["state"] == "active+clean" for p in pgs) else 1)'
}
wait_for 180 "active+clean after the restart" clean
phase "osd.$victim restarted, recovery to active+clean"
read_all "after recovery"
phase "read 200 objects back identical after recovery"

# --- the same bench on gfec and on isa ------------------------------------------------------------
ceph osd erasure-code-profile set isaprof plugin=isa k=2 m=1 technique=cauchy \
	crush-failure-domain=osd >/dev/null
ceph osd pool create isapool 8 8 erasure isaprof >/dev/null
ceph osd pool application enable isapool rados >/dev/null
wait_for 90 "a writable isa pool" rados -p isapool put probe "$D/probe"
echo "rados bench, 4 MiB objects, 16 in flight, 5 s each (same cluster, profile k=2 m=1 cauchy):"
for pool in ecpool isapool; do
	w=$(timeout 60 rados bench -p "$pool" 5 write -b 4194304 -t 16 --no-cleanup 2>/dev/null |
		awk '/^Bandwidth \(MB\/sec\)/ {print $3}') || fail "rados bench write on $pool"
	r=$(timeout 60 rados bench -p "$pool" 5 seq -t 16 2>/dev/null |
		awk '/^Bandwidth \(MB\/sec\)/ {print $3}') || fail "rados bench seq on $pool"
	printf '  %-8s write %8s MB/s   seq read %8s MB/s\n' \
		"$([[ $pool == ecpool ]] && echo gfec || echo isa)" "${w:-?}" "${r:-?}"
	# memstore keeps every byte in RAM: free the bench objects so the next pool's bench starts
	# from the same space (a full OSD blocks writes, and once hung the second bench here)
	timeout 120 rados -p "$pool" cleanup >/dev/null 2>&1 || fail "rados cleanup of $pool"
done
phase "rados bench on both pools"

teardown
trap - EXIT
for p in "${pids[@]}" "${osd_pid[@]}"; do
	kill -0 "$p" 2>/dev/null && fail "daemon $p still running after teardown"
done
[[ ! -e $D ]] || fail "$D left behind"
echo "ceph cluster test passed in $((SECONDS - t0)) s; no daemon and no file left"
