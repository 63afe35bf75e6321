#!/bin/bash
# dropin-key-2026-11-25 on the H200 host's Xeon (issue 16): the ISA-L drop-in's ec_encode_data
# at 4 KiB with its plan key on the heap (base, 2f3caf2) and on the stack (new), and upstream ISA-L
# 2.32.1, through one gfec-perf (2f3caf2) built on the dev VM: ab.sh, three rounds.
R=$OUT/dropinkey
mkdir -p $R
up=/tmp/isa-l-2.32.1
tar -xzf .device/isa-l-2.32.1.tar.gz -C /tmp && PATH=$PWD/.device/root/usr/bin:$PATH make -C $up -f Makefile.unx -j16 slib > /dev/null 2>&1 || echo "upstream isal build failed"
bash ab.sh ./gfec-perf $PWD/base-libisal.so.2 $PWD/new-libisal.so.2 $up/bin/libisal.so.2 3 2>&1 | tee $R/ab.log
cp call.sh $R/
