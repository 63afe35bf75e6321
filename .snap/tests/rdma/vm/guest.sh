#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Runs inside the soft-RoCE VM (run_vm.sh), with rxe0 on 10.0.0.1 = $RDMA_IP:
#  1. test_rdma_verbs: checked parity, malformed messages, an unserved code, the client's credit
#     limit, clients leaving mid-stream, and the GPU-memory fallback report;
#  2. the tools: gfec-rdma-server on verbs and gfec-rdma-bench pushing 10k checked stripes from
#     4 connections, then the server's own counters.
set -e
echo "== test_rdma_verbs"
test_rdma_verbs

echo "== gfec-rdma-server + gfec-rdma-bench over verbs"
gfec-rdma-server --transport verbs --bind "$RDMA_IP:7471" --codes '4,2 10,4' --backend cpu \
	--credits 16 --memory gpu --port-file /tmp/port >/tmp/server.log 2>&1 &
server=$!
i=0
while [ ! -s /tmp/port ]; do
	i=$((i + 1))
	if [ $i -gt 100 ] || ! kill -0 $server 2>/dev/null; then
		cat /tmp/server.log
		echo "FAIL: the server did not start"
		exit 1
	fi
	sleep 0.1
done
gfec-rdma-bench --transport verbs --addr "$RDMA_IP:7471" --conns 4 -k 4 -m 2 --chunk 1K \
	--stripes 10000
gfec-rdma-bench --transport verbs --addr "$RDMA_IP:7471" --conns 2 -k 10 -m 4 --chunk 4K \
	--stripes 2000
kill -TERM $server
wait $server
cat /tmp/server.log
grep -q 'stripe memory: host memory registered with the NIC; GPU memory not possible' \
	/tmp/server.log
grep -q '^stripes: 12000 sent' /tmp/server.log
grep -q '^connections: 6 accepted, 0 closed for bad input, 0 lost' /tmp/server.log
echo "guest: all passed"
