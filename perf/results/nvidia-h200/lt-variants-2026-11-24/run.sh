#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The device command of ab.log: ab and the .so files built on the dev VM (see README.md), carried in .snap/lt
cd "$(dirname "$0")"
lscpu | grep -E "Model name|L1d|L2|L3|^CPU\(s\)"; uptime
for r in 1 2; do
for v in s64 s256 push s16 s128; do ./ab ./head.so ./$v.so 40; ./ab ./$v.so ./head.so 40; done
done
./ab ./head.so ./s64.so 40 0.02; ./ab ./s64.so ./head.so 40 0.02
