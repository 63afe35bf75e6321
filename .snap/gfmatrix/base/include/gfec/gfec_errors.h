/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_errors.h
 * gfec's error codes. Every gfec call returns 0 or one of these negative values; they start at
 * -200 so they never collide with a negated errno (the liberasurecode convention).
 * gfec_strerror() turns one into a sentence.
 */
#ifndef GFEC_ERRORS_H
#define GFEC_ERRORS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with -fvisibility=hidden; only what carries GFEC_API is exported. */
#ifndef GFEC_API
#define GFEC_API __attribute__((visibility("default")))
#endif

enum gfec_status {
	GFEC_OK = 0,
	GFEC_E_INVAL = -201,	/**< an argument is out of range or NULL where it may not be */
	GFEC_E_PROFILE = -202,	/**< the profile string is malformed or names a bad value */
	GFEC_E_NOMEM = -203,	/**< an allocation failed */
	GFEC_E_NOTSUP = -204,	/**< valid, but this build or backend does not do it */
	GFEC_E_NOBACKEND = -205, /**< the requested backend is not built or has no device */
	GFEC_E_NOT_MDS = -206,	/**< the generator is not MDS for this (k,m) */
	GFEC_E_SINGULAR = -207,	/**< a matrix that must be inverted is singular */
	GFEC_E_TOOFEW = -208,	/**< fewer than k chunks are available */
	GFEC_E_MISMATCH = -209,	/**< verify: stored parity differs from recomputed parity */
	GFEC_E_SYSTEM = -210,	/**< an operating-system call failed (threads, memory maps) */
	GFEC_E_DEVICE = -211,	/**< a GPU/driver call failed (the request is redone on the CPU) */
	GFEC_E_BUDGET = -212,	/**< a check would take too long to run exhaustively */
	GFEC_E_FORMAT = -213,	/**< a network-coded block is malformed or truncated (gfec_nc.h) */
	GFEC_E_FOREIGN = -214,	/**< a valid block of another code shape or segment (gfec_nc.h) */
};

/** A static, human-readable description of @p code (never NULL, also for unknown codes). */
GFEC_API const char *gfec_strerror(int code);

#ifdef __cplusplus
}
#endif
#endif
