#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The batch-size / deadline trade-off of the ingest server: for each (batch, deadline) it starts
# gfec-rdma-server on TCP loopback, drives it with gfec-rdma-bench (every parity checked) for a
# few seconds, and records the bench's GB/s and latency and the server's stripes per batch.
# Writes OUTDIR/rdma_sweep.md (a table) and OUTDIR/rdma_sweep.jsonl (one object per run).
#   usage: rdma_sweep.sh BINDIR OUTDIR [BACKEND] [SECONDS]
#   BINDIR holds gfec-rdma-server and gfec-rdma-bench; BACKEND is the server's -B (gpu).
# Environment: BATCHES ("1 4 16 64 256"), DEADLINES ("50 1000"), CONNS (16), CHUNK (64K),
# CODE ("10 4"), IO_THREADS ("1": the server's --io-threads; a list sweeps it too).
set -euo pipefail
bin=$1 out=$2 backend=${3:-gpu} secs=${4:-3}
batches=${BATCHES:-1 4 16 64 256}
deadlines=${DEADLINES:-50 1000}
conns=${CONNS:-16} chunk=${CHUNK:-64K} iots=${IO_THREADS:-1}
read -r k m <<<"${CODE:-10 4}"
mkdir -p "$out"
md=$out/rdma_sweep.md json=$out/rdma_sweep.jsonl
: >"$json"

"$bin/gfec-rdma-server" --probe >"$out/probe.txt" 2>&1 || true
{
	echo "# gfec-rdma-server batch/deadline sweep: tcp loopback, backend $backend"
	echo "# $(date -u +%FT%TZ) on $(hostname); $conns connections, k=$k m=$m, chunk $chunk," \
		"$secs s per point; every parity checked against a CPU encode"
	echo "# probe: $(cat "$out/probe.txt")"
	echo
	echo "Round trip = the bench's send-to-parity time (includes waiting behind its own window);"
	echo "server p99 = the server's last-byte-in to parity-out time."
	echo
	echo "| I/O threads | batch | deadline us | GB/s | stripes/s | round trip p50 us<= | round trip p99 us<= | server p99 us<= | stripes/batch | batches full | by deadline | GPU calls | backend | mismatches |"
	echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
} >"$md"
for io in $iots; do
for d in $deadlines; do
	for b in $batches; do
		log=$out/server_io${io}_b${b}_d${d}.log
		rm -f "$out/port"
		"$bin/gfec-rdma-server" -b 127.0.0.1:0 --port-file "$out/port" -c "$k,$m" -B "$backend" \
			-n "$b" -d "$d" --io-threads "$io" -q >"$log" 2>&1 &
		srv=$!
		for _ in $(seq 300); do [[ -s $out/port ]] && break; sleep 0.05; done
		[[ -s $out/port ]] || { cat "$log"; echo "server did not start" >&2; exit 1; }
		row=$("$bin/gfec-rdma-bench" -a "127.0.0.1:$(cat "$out/port")" -c "$conns" -k "$k" \
			-m "$m" -s "$chunk" -d "$secs" 2>/dev/null | awk -F'|' '$2 ~ /^ *[0-9]/ {print}')
		kill -TERM "$srv"
		wait "$srv" || true
		# bench row: | conns | k,m | chunk | stripes | GB | s | GB/s | stripes/s | p50 | p99 | p99.9 | mism |
		IFS='|' read -r _ _ _ _ _ _ _ gbs sps p50 p99 _ mism _ <<<"$row"
		per=$(awk '/^batches:/ {for (i = 1; i <= NF; i++) if ($i == "stripes") print $(i-1)}' "$log")
		full=$(awk '/^batches:/ {gsub(/\(/, ""); print $3}' "$log")
		bydl=$(awk '/^batches:/ {print $5}' "$log")
		gpu=$(awk '/^codec calls on the GPU:/ {sub(/,/, "", $6); print $6}' "$log")
		sp99=$(sed -n 's/^stripe latency: .* p99 <= \([0-9]*\) us.*/\1/p' "$log")
		be=$(sed -n 's/.*) encodes on \(.*\)/\1/p' "$log" | head -1)
		echo "| $io | $b | $d |$gbs|$sps|$p50|$p99| $sp99 | $per | $full | $bydl | $gpu | $be |$mism|" >>"$md"
		printf '{"io_threads":%s,"batch":%s,"deadline_us":%s,"gbps":%s,"stripes_per_s":%s,"p50_us":%s,"p99_us":%s,"server_p99_us":%s,"stripes_per_batch":%s,"mismatches":%s}\n' \
			"$io" "$b" "$d" $gbs $sps $p50 $p99 "${sp99:-0}" "${per:-0}" $mism >>"$json"
		echo "io $io batch $b deadline $d us: $gbs GB/s, p99 <= $p99 us, $per stripes/batch" >&2
	done
done
done
rm -f "$out/port"
cat "$md"
