/* SPDX-License-Identifier: BSD-3-Clause */
/** @file errors.c  gfec_strerror(): one sentence per GFEC_E_* code. */
#include "gfec/gfec_errors.h"

const char *gfec_strerror(int code)
{
	switch (code) {
	case GFEC_OK:
		return "success";
	case GFEC_E_INVAL:
		return "invalid argument";
	case GFEC_E_PROFILE:
		return "invalid profile";
	case GFEC_E_NOMEM:
		return "out of memory";
	case GFEC_E_NOTSUP:
		return "operation not supported by this backend";
	case GFEC_E_NOBACKEND:
		return "requested backend is not available";
	case GFEC_E_NOT_MDS:
		return "generator matrix is not MDS for this (k,m)";
	case GFEC_E_SINGULAR:
		return "matrix is singular";
	case GFEC_E_TOOFEW:
		return "fewer than k chunks available";
	case GFEC_E_MISMATCH:
		return "parity does not match the data";
	case GFEC_E_SYSTEM:
		return "system call failed";
	case GFEC_E_DEVICE:
		return "GPU or driver error";
	case GFEC_E_BUDGET:
		return "check too large to run exhaustively";
	case GFEC_E_FORMAT:
		return "coded block is malformed or truncated";
	case GFEC_E_FOREIGN:
		return "coded block belongs to another code or segment";
	default:
		return "unknown gfec error";
	}
}
