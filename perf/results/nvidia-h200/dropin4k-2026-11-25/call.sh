#!/bin/bash
# dropin-4k-2026-11-25 (issue 16): RS(4,2) with 4 KiB chunks from DRAM on one Xeon thread. Is
# the gap to upstream ISA-L 2.32.1 the codec's call or the kernel? gfec-perf isal (the tree at
# 2f3caf2, built on the dev VM) against gfec's own ISA-L drop-in (dropin/libisal.so.2: raw
# ec_encode_data through gfec's GFNI kernels) and against upstream 2.32.1, in turn, four rounds.
R=$OUT/dropin4k
mkdir -p $R
up=/tmp/isa-l-2.32.1
tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$PWD/.device/root/usr/bin:$PATH make -C $up -f Makefile.unx -j16 slib > /dev/null 2>&1 || echo "upstream isal build failed"
for r in 1 2 3 4; do
	for lib in $PWD/dropin/libisal.so.2 $up/bin/libisal.so.2; do
		echo "## round $r $lib"
		./gfec-perf isal -k '4,2' -b 4K -e 4K -T 1 -r 7 --isal-lib $lib 2>&1 | grep -E "^RS|isal-lib"
		./gfec-perf isal -k '4,2' -b 4K -e 4K -T 1 -r 7 --hot --isal-lib $lib 2>&1 | grep "^RS"
	done
done 2>&1 | tee $R/ab.log
cp call.sh $R/
