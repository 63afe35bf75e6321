// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file broken_plugin.cc
 * Deliberately broken Ceph plugins, one per -D flag, in the style of Ceph's own loader tests:
 * BROKEN_VERSION reports a version no host has, BROKEN_NO_INIT lacks __erasure_code_init,
 * BROKEN_NO_REGISTER initialises without registering. The loader must refuse each with its code.
 */
#include <errno.h>

const char *ceph_version_to_str(); /* C++ linkage: exported by every Ceph host */

extern "C" __attribute__((visibility("default"))) const char *__erasure_code_version()
{
#ifdef BROKEN_VERSION
	return "0.0.0-not-ceph";
#else
	return ceph_version_to_str();
#endif
}

#ifndef BROKEN_NO_INIT
extern "C" __attribute__((visibility("default"))) int __erasure_code_init(char *plugin_name,
									   char *directory)
{
	(void)plugin_name;
	(void)directory;
#ifdef BROKEN_NO_REGISTER
	return 0; /* says it worked, registers nothing */
#else
	return -ENOENT;
#endif
}
#endif
