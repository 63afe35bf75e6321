// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file ceph_ec_abi.h
 * Our own declarations of the Ceph 16.2 (Pacific) erasure-code plugin ABI: no Debian package ships
 * these headers. The layouts must match Ceph's exactly (../../../shared/docs/ceph-plugin-abi.md):
 * the interface's virtual methods in this order, the plugin base as { vptr; void *library; }.
 * Only bufferlist comes from a real header (libradospp-dev's rados/buffer.h, namespace v15_2_0).
 * Every Ceph symbol used here resolves from the host process (ceph-mon, ceph-osd, the tools).
 */
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <rados/buffer.h>

/** Exported by every Ceph host binary: "16.2.15" and so on. */
const char *ceph_version_to_str();

class CrushWrapper {
public:
	int add_simple_rule(std::string name, std::string root_name, std::string failure_domain_type,
			    std::string device_class, std::string mode, int rule_type,
			    std::ostream *err = 0);
};

namespace ceph {

typedef std::map<std::string, std::string> ErasureCodeProfile;

class ErasureCodeInterface {
public:
	virtual ~ErasureCodeInterface() {}
	virtual int init(ErasureCodeProfile &profile, std::ostream *ss) = 0;
	virtual const ErasureCodeProfile &get_profile() const = 0;
	virtual int create_rule(const std::string &name, CrushWrapper &crush,
				std::ostream *ss) const = 0;
	virtual unsigned int get_chunk_count() const = 0;
	virtual unsigned int get_data_chunk_count() const = 0;
	virtual unsigned int get_coding_chunk_count() const = 0;
	virtual int get_sub_chunk_count() = 0;
	virtual unsigned int get_chunk_size(unsigned int object_size) const = 0;
	virtual int minimum_to_decode(const std::set<int> &want_to_read,
				      const std::set<int> &available,
				      std::map<int, std::vector<std::pair<int, int>>> *minimum) = 0;
	virtual int minimum_to_decode_with_cost(const std::set<int> &want_to_read,
						const std::map<int, int> &available,
						std::set<int> *minimum) = 0;
	virtual int encode(const std::set<int> &want_to_encode, const bufferlist &in,
			   std::map<int, bufferlist> *encoded) = 0;
	virtual int encode_chunks(const std::set<int> &want_to_encode,
				  std::map<int, bufferlist> *encoded) = 0;
	virtual int decode(const std::set<int> &want_to_read,
			   const std::map<int, bufferlist> &chunks,
			   std::map<int, bufferlist> *decoded, int chunk_size) = 0;
	virtual int decode_chunks(const std::set<int> &want_to_read,
				  const std::map<int, bufferlist> &chunks,
				  std::map<int, bufferlist> *decoded) = 0;
	virtual const std::vector<int> &get_chunk_mapping() const = 0;
	virtual int decode_concat(const std::map<int, bufferlist> &chunks,
				  bufferlist *decoded) = 0;
};

typedef std::shared_ptr<ErasureCodeInterface> ErasureCodeInterfaceRef;

class ErasureCodePlugin {
public:
	void *library;

	ErasureCodePlugin() : library(0) {}
	virtual ~ErasureCodePlugin() {}
	virtual int factory(const std::string &directory, ErasureCodeProfile &profile,
			    ErasureCodeInterfaceRef *erasure_code, std::ostream *ss) = 0;
};

/* Only the two members the entry point needs; the object itself lives in the host. */
class ErasureCodePluginRegistry {
public:
	static ErasureCodePluginRegistry singleton;
	static ErasureCodePluginRegistry &instance()
	{
		return singleton;
	}
	int add(const std::string &name, ErasureCodePlugin *plugin);
};

} // namespace ceph
