#!/bin/bash
# smallpf-2026-11-25 call 1: on the H200 host's Xeon, seven builds of gfec-perf (dev VM, CUDA off)
# that differ only in how the GFNI kernels prefetch a small call's sources, in turn, three rounds:
# v0 the tree (05bbf64): 512 bytes ahead in the loop; v1: no prefetch for chunks <= 8 KiB;
# v2: every line of every source prefetched (T0) before the loop for chunks <= 16 KiB, then no
# prefetch; v3: the same into L2 (T1); v4: v2 and PREFETCHW of the outputs; v5: 256 bytes ahead;
# v6: 1024 bytes ahead.
R=$OUT/smallpf
mkdir -p $R
up=/tmp/isa-l-2.32.1
tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$PWD/.device/root/usr/bin:$PATH make -C $up -f Makefile.unx -j16 slib > /dev/null 2>&1 || echo "upstream isal build failed"
lscpu > $R/lscpu.txt
{
for r in 1 2 3; do
	for v in v0 v1 v2 v3 v4 v5 v6; do
		echo "## round $r $v"
		./bin/$v isal -k '4,2 10,4' -b 4K -e 4K -T 1 -r 7 --isal-lib $up/bin/libisal.so.2 2>&1 | grep -v "^gfec-perf: measuring"
		./bin/$v isal -k '4,2' -b 4K -e 4K -T 1 -r 7 --hot --isal-lib $up/bin/libisal.so.2 2>&1 | grep "^RS"
	done
done
} > $R/ab.log 2>&1
cp call.sh $R/
grep -E "^## |^RS" $R/ab.log
