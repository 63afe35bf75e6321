// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file ErasureCodePluginGfec.cc
 * libec_gfec.so's factory and its two C entry points, as Ceph's plugin loader expects them.
 */
#include <new>

#include "ErasureCodeGfec.h"

namespace ceph {

class ErasureCodePluginGfec : public ErasureCodePlugin {
public:
	int factory(const std::string &directory, ErasureCodeProfile &profile,
		    ErasureCodeInterfaceRef *erasure_code, std::ostream *ss) override
	{
		ErasureCodeGfec *ec = new (std::nothrow) ErasureCodeGfec;
		int r;

		(void)directory;
		if (!ec)
			return -ENOMEM;
		r = ec->init(profile, ss);
		if (r) {
			delete ec;
			return r;
		}
		erasure_code->reset(ec);
		return 0;
	}
};

} // namespace ceph

extern "C" __attribute__((visibility("default"))) const char *__erasure_code_version()
{
	/* the host's own version: the loader accepts exactly that */
	return ceph_version_to_str();
}

extern "C" __attribute__((visibility("default"))) int __erasure_code_init(char *plugin_name,
									   char *directory)
{
	ceph::ErasureCodePlugin *p = new (std::nothrow) ceph::ErasureCodePluginGfec;

	(void)directory;
	if (!p)
		return -ENOMEM;
	return ceph::ErasureCodePluginRegistry::instance().add(plugin_name, p);
}
