#!/bin/bash
# prefetch-2026-11-25 call 5: on the H200 host's Xeon, ac45b83's gfec-perf (base-perf) and the
# tree's (new-perf, 5b5f187), both built on the dev VM, in turn:
# the 4 KiB one-thread rows in cache and from DRAM against upstream ISA-L 2.32.1, four rounds,
# then, two rounds, each build's all-core RS(10,4) 16 MiB row and its 1 MiB rows on 1 and 16 threads.
R=$OUT/call5
mkdir -p $R
up=/tmp/isa-l-2.32.1
tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$PWD/.device/root/usr/bin:$PATH make -C $up -f Makefile.unx -j16 slib > /dev/null 2>&1 || echo "upstream isal build failed"
{
for r in 1 2 3 4; do
	for b in base-perf new-perf; do
		echo "## round $r $b"
		./$b isal -k '4,2 10,4' -b 4K -e 4K -T 1 -r 11 --hot --isal-lib $up/bin/libisal.so.2 2>&1 | grep -v "^gfec-perf: measuring"
		./$b isal -k '4,2' -b 4K -e 4K -T 1 -r 11 --isal-lib $up/bin/libisal.so.2 2>&1 | grep -v "^gfec-perf: measuring"
	done
done
for r in 1 2; do
	for b in base-perf new-perf; do
		echo "## round $r $b all cores, and 1 MiB on 1 and 16 threads"
		./$b -k 10,4 -b 16M -e 16M -o encode -a cpu -r 3 2>&1 | grep -v "^gfec-perf: measuring"
		./$b isal -k '10,4' -b 1M -e 1M -r 5 --isal-lib $up/bin/libisal.so.2 2>&1 | grep -v "^gfec-perf: measuring"
	done
done
} > $R/ab4k.log 2>&1
cp call.sh $R/
grep -E "^## |^RS|^encode" $R/ab4k.log
