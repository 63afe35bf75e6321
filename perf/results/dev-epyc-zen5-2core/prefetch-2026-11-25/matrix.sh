#!/bin/bash
# Prefetch on or off against ordinary or non-temporal parity stores, one build whose
# gfec_cpu_gfni_prefetch() took XPF=0|1 from the environment for this run only (not in the tree):
#   XPF=$pf GFEC_CPU_STREAM_MIN=0|64K gfec-perf isal -k 10,4 -b 1M -e 16M -f 16 -r 3 -T 2
# two rounds; the slices as in the tree after (slice_bytes()).
for r in 1 2; do for pf in 0 1; do for sm in 0 64K; do
	echo "pf $pf stream_min $sm"
	XPF=$pf GFEC_CPU_STREAM_MIN=$sm build/perf/gfec-perf isal -k "10,4" -b 1M -e 16M -f 16 -r 3 -T 2 2>&1 | grep "^RS"
done; done; done
