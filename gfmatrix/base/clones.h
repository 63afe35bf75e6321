/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file clones.h
 * GFEC_CLONES(isa, ...): the compiler's target_clones, a function built once per ISA and picked
 * at load time by an ifunc resolver. Under ThreadSanitizer there is one build instead: the loader
 * runs resolvers before TSan's runtime is up, and an instrumented resolver crashes there.
 */
#ifndef GFEC_CLONES_H
#define GFEC_CLONES_H

#if defined(__SANITIZE_THREAD__)
#define GFEC_CLONES(...)
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GFEC_CLONES(...)
#endif
#endif
#ifndef GFEC_CLONES
#define GFEC_CLONES(...) __attribute__((target_clones(__VA_ARGS__)))
#endif

#endif
