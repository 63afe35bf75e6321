// SPDX-License-Identifier: BSD-3-Clause
/** @file ErasureCodeGfec.h  The gfec erasure code as Ceph's ErasureCodeInterface sees it. */
#pragma once

#include <memory>

#include <gfec/gfec.h>

#include "ceph_ec_abi.h"

namespace ceph {

class ErasureCodeGfec : public ErasureCodeInterface {
public:
	/* Chunk buffers gfec allocates for Ceph (gfec itself needs no alignment). */
	static constexpr unsigned SIMD_ALIGN = 64;

	int init(ErasureCodeProfile &profile, std::ostream *ss) override;
	const ErasureCodeProfile &get_profile() const override
	{
		return profile;
	}
	int create_rule(const std::string &name, CrushWrapper &crush,
			std::ostream *ss) const override;
	unsigned int get_chunk_count() const override
	{
		return (unsigned)(k + m);
	}
	unsigned int get_data_chunk_count() const override
	{
		return (unsigned)k;
	}
	unsigned int get_coding_chunk_count() const override
	{
		return (unsigned)m;
	}
	int get_sub_chunk_count() override
	{
		return 1;
	}
	unsigned int get_chunk_size(unsigned int object_size) const override;
	int minimum_to_decode(const std::set<int> &want_to_read, const std::set<int> &available,
			      std::map<int, std::vector<std::pair<int, int>>> *minimum) override;
	int minimum_to_decode_with_cost(const std::set<int> &want_to_read,
					const std::map<int, int> &available,
					std::set<int> *minimum) override;
	int encode(const std::set<int> &want_to_encode, const bufferlist &in,
		   std::map<int, bufferlist> *encoded) override;
	int encode_chunks(const std::set<int> &want_to_encode,
			  std::map<int, bufferlist> *encoded) override;
	int decode(const std::set<int> &want_to_read, const std::map<int, bufferlist> &chunks,
		   std::map<int, bufferlist> *decoded, int chunk_size) override;
	int decode_chunks(const std::set<int> &want_to_read, const std::map<int, bufferlist> &chunks,
			  std::map<int, bufferlist> *decoded) override;
	const std::vector<int> &get_chunk_mapping() const override
	{
		return chunk_mapping;
	}
	int decode_concat(const std::map<int, bufferlist> &chunks, bufferlist *decoded) override;

private:
	int minimum(const std::set<int> &want, const std::set<int> &available,
		    std::set<int> *minimum_set);

	int k = 0, m = 0;
	unsigned w = 8;		 /* the field, GF(2^w): 8 or 16 */
	unsigned packetsize = 0; /* cauchy_good only */
	ErasureCodeProfile profile;
	std::string rule_root, rule_failure_domain, rule_device_class;
	std::vector<int> chunk_mapping; /* empty: chunk i is shard i */
	std::shared_ptr<gfec_codec> codec;
};

} // namespace ceph
