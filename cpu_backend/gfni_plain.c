/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfni_plain.c
 * gfni.c's kernels once more, without the source prefetch: gfec_cpu_gemm_gfni512_plain and
 * gfec_cpu_gemm_gfni256_plain (gfni.c says why a second compilation).
 */
#define GFNI_PLAIN
#include "gfni.c"
