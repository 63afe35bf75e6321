#!/bin/bash
# The rows of kernel_ab (kernel_ab.c), one process each, under the bench lock:
#   flock /tmp/gfec-bench.lock ./kernel_ab_run.sh
echo "## $(date -u +%H:%M:%S) uptime: $(uptime)"
./kernel_ab 10 4 4096 20000
./kernel_ab 8 3 4096 20000
./kernel_ab 4 2 4096 40000
./kernel_ab 223 32 4096 100
./kernel_ab 128 16 4096 400
./kernel_ab 128 64 4096 100
./kernel_ab 128 128 4096 50
./kernel_ab 10 4 1048576 40
./kernel_ab 8 3 1048576 40
./kernel_ab 10 4 1048576 40 24
./kernel_ab 8 3 1048576 40 30
./kernel_ab 4 2 4096 40000 10923
echo "## $(date -u +%H:%M:%S) uptime: $(uptime)"
