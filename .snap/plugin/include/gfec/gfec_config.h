/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file gfec_config.h
 * gfec's knobs (threads, cpu_path, gpu_*, ...) and the one number parser that the library and
 * every gfec tool use.
 *
 * A knob may be set in up to three places; the highest set wins:
 *
 *   profile key (threads=4)  >  environment (GFEC_THREADS=4)  >  gfec.conf ([cpu] threads = 4)
 *   >  built-in default
 *
 * gfec.conf is the first of $GFEC_CONF, ~/.config/gfec/gfec.conf, /etc/gfec/gfec.conf that
 * exists (NCCL's order); a file with a bad line is ignored as a whole, with a warning naming
 * FILE:LINE. A bad environment value fails gfec_codec_create() with GFEC_E_PROFILE, naming the
 * variable. `gfec info` prints every knob, its value and where the value came from.
 */
#ifndef GFEC_GFEC_CONFIG_H
#define GFEC_GFEC_CONFIG_H

#include <stddef.h>

#include "gfec/gfec_errors.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Parses all of @p s as a number in [lo, hi]: an optional '-', decimal digits, then at most one
 * suffix K, M, G or T (x 2^10, 2^20, 2^30, 2^40). Nothing else is accepted: no '+', spaces, hex,
 * lower-case k/m/g, "KiB" or "KB". A value that overflows a long long is out of range.
 * Returns 0 with *out set, or GFEC_E_INVAL (out untouched).
 */
GFEC_API int gfec_parse_number(const char *s, long long lo, long long hi, long long *out);

/**
 * Every knob as a codec made from @p profile would see it, one line each:
 *
 *   NAME VALUE ORIGIN    # HELP (where it can be set: key=, GFEC_VAR, [section] key)
 *
 * then what the profile's backend does with a call on host memory of 64 KiB, 1 MiB, 16 MiB and
 * 256 MiB of data where the codec has a GPU, and why (the thresholds and rates it goes by, which
 * `gfec tune` measures, with their origins), one line each:
 *
 *   BACKEND, SIZE of data per host call: WHAT (WHY)
 *
 * ORIGIN is default, FILE:LINE, env VAR or profile. @p profile is a full profile ("k=4 m=2
 * threads=8"). Writes at most @p len bytes to @p buf, NUL-terminated. Returns 0; GFEC_E_PROFILE
 * with the message in @p buf when the profile or the environment is bad; GFEC_E_INVAL when buf
 * is NULL or too small (8 KiB is enough).
 */
GFEC_API int gfec_config_describe(const char *profile, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif
