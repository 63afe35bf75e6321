#!/bin/bash
# The seven (and an eighth) prefetch variants of ../../nvidia-h200/smallpf-2026-11-25 on this VM:
# gfec-perf builds of 05bbf64 with ../../nvidia-h200/smallpf-2026-11-25/variants.patch applied, CUDA off, each with its -D flags
# (v0 none; v1 -DEXP_SMALLPLAIN=1; v2 -DEXP_HEAD=1; v3 -DEXP_HEAD=2; v4 -DEXP_HEAD=1 -DEXP_OUTW=1;
# v5 -DEXP_DIST=256; v6 -DEXP_DIST=1024; v7 -DEXP_STEP64=8192: the 64-byte masked loop alone up
# to 8 KiB), in turn, two rounds; usage: run.sh DIR-OF-BUILDS UPSTREAM-LIBISAL
D=$1 L=$2
for r in 1 2; do
	for v in v0 v1 v2 v3 v4 v5 v6 v7; do
		echo "## round $r $v"
		$D/b-$v/perf/gfec-perf isal -k '4,2' -b 4K -e 4K -T 1 -r 11 --isal-lib $L 2>&1 | grep "^RS"
		$D/b-$v/perf/gfec-perf isal -k '4,2' -b 4K -e 4K -T 1 -r 11 --hot --isal-lib $L 2>&1 | grep "^RS"
	done
done
