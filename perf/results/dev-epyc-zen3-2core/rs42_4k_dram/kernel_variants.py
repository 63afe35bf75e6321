#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# kernel_variants.py AVX2_C OUT_C: a measurement record (build.sh). Writes a copy of
# cpu_backend/avx2.c whose kernel (renamed KNAME) takes, by -D flags: PF (sources prefetched PF
# bytes ahead of the block, as gfni.c's GFNI_PREFETCH), PFALL (calls of up to PFALL bytes prefetch
# every source line first), PFW (parity lines prefetched for writing PFW bytes ahead), PFW0 (the
# first PFW0 bytes of parity prefetched for writing first); PFHINT the prefetch hint.
import sys

src = open(sys.argv[1]).read()
for a, b in (("gfec_cpu_gemm_avx2", "KNAME"), ("gfec_cpu_avx2_tables", "TNAME"),
             ("gfec_cpu_avx2_apply", "ANAME")):
    src = src.replace(a, b)
old = """	for (; p + 64 <= len; p += 64) {
		__m256i a0[GROUP], a1[GROUP];
"""
new = """#if PFALL
	if (len <= PFALL) {
		for (size_t q = 0; q < len; q += 64)
			for (int j = 0; j < cols; j++)
				_mm_prefetch((const char *)src[j] + q, PFHINT);
	}
#endif
#if PFW0
	for (size_t q = 0; q < len && q < PFW0; q += 64)
		for (int r = 0; r < R; r++)
			__builtin_prefetch(dst[r] + q, 1, 3);
#endif
	for (; p + 64 <= len; p += 64) {
		__m256i a0[GROUP], a1[GROUP];
#if PF
		if (p + PF + 64 <= len)
			for (int j = 0; j < cols; j++)
				_mm_prefetch((const char *)src[j] + p + PF, PFHINT);
#endif
#if PFW
		if (p + PFW + 64 <= len)
			for (int r = 0; r < R; r++)
				__builtin_prefetch(dst[r] + p + PFW, 1, 3);
#endif
"""
assert src.count(old) == 1
src = src.replace(old, new)
defaults = "".join(f"#ifndef {n}\n#define {n} {v}\n#endif\n" for n, v in
                   (("PF", 0), ("PFW", 0), ("PFW0", 0), ("PFALL", 0), ("PFHINT", "_MM_HINT_T0")))
src = src.replace('#include "cpu_backend.h"\n', '#include "cpu_backend.h"\n' + defaults)
open(sys.argv[2], "w").write(src)
