// SPDX-License-Identifier: BSD-3-Clause
/**
 * @file ErasureCodeGfec.cc
 * gfec as a Ceph 16.2 erasure code: a thin adapter from ErasureCodeInterface to the C API.
 *
 *   object (in)  ->  k data chunks of get_chunk_size() bytes, the last zero-padded
 *                    | chunk 0 | chunk 1 | ... | chunk k-1 | parity k ... k+m-1 |
 *
 * Chunk sizes follow the stock plugin whose bytes the technique reproduces (32-byte alignment
 * like isa and jerasure reed_sol_van, 64 with w=16 as jerasure's; 4 * 8 * packetsize like
 * jerasure cauchy_good), so chunks are interchangeable with theirs. One gfec codec serves every
 * instance with the same profile: the C codec is thread-safe, and the OSD calls from many threads.
 * Errors are negative errno values with a message in *ss; nothing here aborts.
 */
#include "ErasureCodeGfec.h"
#include "gfec/gfec_config.h"
#include "registry.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <mutex>
#include <sstream>

namespace ceph {

namespace {

const char *const default_technique = "reed_sol_van";
const char *const default_k = "2", *const default_m = "1", *const default_w = "8";

/* Codecs shared by profile string; the last instance using one frees it. */
std::mutex codecs_lock;
std::map<std::string, std::weak_ptr<gfec_codec>> codecs;

std::shared_ptr<gfec_codec> shared_codec(const std::string &profile, std::string *err)
{
	std::lock_guard<std::mutex> l(codecs_lock);
	std::shared_ptr<gfec_codec> c = codecs[profile].lock();
	char buf[256] = "";
	gfec_codec *raw = nullptr;

	if (c)
		return c;
	if (gfec_codec_create(profile.c_str(), &raw, buf, sizeof(buf))) {
		*err = buf;
		codecs.erase(profile);
		return nullptr;
	}
	c.reset(raw, gfec_codec_free);
	codecs[profile] = c;
	return c;
}

int fail(std::ostream *ss, const std::string &msg, int err = -EINVAL)
{
	if (ss)
		*ss << msg;
	return err;
}

/* gfec's number syntax (gfec_parse_number) in [lo, hi]. */
bool to_int(const std::string &s, long lo, long hi, long *out)
{
	long long v;

	if (gfec_parse_number(s.c_str(), lo, hi, &v))
		return false;
	*out = (long)v;
	return true;
}

/* The value of @p key, written back with @p def when absent (Ceph's to_string convention). */
std::string take(ErasureCodeProfile &p, const std::string &key, const std::string &def)
{
	auto it = p.find(key);

	if (it == p.end() || it->second.empty()) {
		p[key] = def;
		return def;
	}
	return it->second;
}

} // namespace

int ErasureCodeGfec::init(ErasureCodeProfile &profile, std::ostream *ss)
{
	std::ostringstream spec;
	std::string err;
	long v;

	const std::string ks = take(profile, "k", default_k);
	const std::string ms = take(profile, "m", default_m);
	const std::string tech = take(profile, "technique", default_technique);
	const std::string ws = take(profile, "w", default_w);
	const std::string backend = take(profile, "backend", "cpu");

	rule_root = take(profile, "crush-root", "default");
	rule_failure_domain = take(profile, "crush-failure-domain", "host");
	rule_device_class = take(profile, "crush-device-class", "");

	if (!to_int(ks, -1000000, 1000000, &v))
		return fail(ss, "k=" + ks + ": k must be a number");
	k = (int)v;
	if (!to_int(ms, -1000000, 1000000, &v))
		return fail(ss, "m=" + ms + ": m must be a number");
	m = (int)v;
	if (k < 2)
		return fail(ss, "k=" + ks + ": k must be >= 2");
	if (m < 1)
		return fail(ss, "m=" + ms + ": m must be >= 1");
	/* jerasure's w, but only the fields gfec has */
	if (!to_int(ws, 8, 16, &v) || (v != 8 && v != 16))
		return fail(ss, "w=" + ws + ": w must be 8 or 16");
	w = (unsigned)v;

	/* the profile's technique names are gfec's own (plugin/registry.c) */
	if (gfec_technique_find(tech.c_str()) < 0) {
		std::string known;

		for (int t = 0; t < GFEC_NTECHNIQUES; t++)
			known += std::string(t ? ", " : "") +
				 gfec_technique_name(static_cast<gfec_technique>(t));
		return fail(ss, "technique=" + tech + ": unknown (" + known + ")");
	}
	spec << "k=" << k << " m=" << m << " technique=" << tech << " backend=" << backend;
	/* w=8 is the codec's default; left out, a w=8 profile names the same shared codec as
	 * one written before w existed */
	if (w != 8)
		spec << " w=" << w;
	packetsize = 0;
	if (tech == "cauchy_good") {
		const std::string ps = take(profile, "packetsize", "2048");

		if (!to_int(ps, 8, 1 << 24, &v) || v % 8)
			return fail(ss, "packetsize=" + ps +
						": packetsize must be a multiple of 8 in 8..2^24");
		packetsize = (unsigned)v;
		spec << " packetsize=" << packetsize;
	}
	/* gfec's own knobs that the registry marks for Ceph, passed through when set */
	for (const gfec_knob_def &knob : gfec_knobs) {
		if (!knob.ceph)
			continue;
		const char *key = knob.name;
		auto it = profile.find(key);

		if (it != profile.end() && !it->second.empty())
			spec << " " << key << "=" << it->second;
	}
	codec = shared_codec(spec.str(), &err);
	if (!codec)
		return fail(ss, err);
	this->profile = profile;
	return 0;
}

int ErasureCodeGfec::create_rule(const std::string &name, CrushWrapper &crush,
				 std::ostream *ss) const
{
	/* indep placement, rule type 3 = pg_pool_t::TYPE_ERASURE, as the stock plugins do */
	return crush.add_simple_rule(name, rule_root, rule_failure_domain, rule_device_class,
				     "indep", 3, ss);
}

unsigned int ErasureCodeGfec::get_chunk_size(unsigned int object_size) const
{
	/*
	 * The stock plugins' rule, so that chunks match theirs byte for byte: pad the object to a
	 * multiple of k * alignment and cut it in k. isa and jerasure reed_sol_van align to
	 * w * sizeof(int) bytes per chunk (32; 64 with w=16, jerasure's get_alignment); jerasure
	 * cauchy_good to w * packetsize * sizeof(int). All are multiples of what gfec needs (any
	 * length; whole 2-byte symbols for w=16; whole CRS blocks of 8 packets).
	 */
	const unsigned alignment = (unsigned)k * w * (packetsize ? packetsize * 4 : 4);
	const unsigned tail = object_size % alignment;
	const unsigned padded = object_size + (tail ? alignment - tail : 0);

	return padded / (unsigned)k;
}

int ErasureCodeGfec::minimum(const std::set<int> &want, const std::set<int> &available,
			     std::set<int> *minimum_set)
{
	std::vector<int> w(want.begin(), want.end()), a(available.begin(), available.end());
	std::vector<int> need(k + m);
	int nneed = 0;
	int r = gfec_minimum_to_decode(codec.get(), w.data(), (int)w.size(), a.data(),
				       (int)a.size(), need.data(), &nneed);

	if (r == GFEC_E_TOOFEW)
		return -EIO;
	if (r)
		return -EINVAL;
	minimum_set->insert(need.begin(), need.begin() + nneed);
	return 0;
}

int ErasureCodeGfec::minimum_to_decode(const std::set<int> &want_to_read,
				       const std::set<int> &available,
				       std::map<int, std::vector<std::pair<int, int>>> *minimum_map)
{
	std::set<int> s;
	int r = minimum(want_to_read, available, &s);

	if (r)
		return r;
	/* no sub-chunks: every chunk is read whole, as one (offset 0, count 1) extent */
	for (int i : s)
		(*minimum_map)[i].push_back(std::make_pair(0, 1));
	return 0;
}

int ErasureCodeGfec::minimum_to_decode_with_cost(const std::set<int> &want_to_read,
						 const std::map<int, int> &available,
						 std::set<int> *minimum_set)
{
	std::set<int> a;

	for (const auto &c : available)
		a.insert(c.first);
	return minimum(want_to_read, a, minimum_set);
}

/* Ceph's encode_prepare: k data chunks cut from the object (the last zero-padded), m empty. */
int ErasureCodeGfec::encode(const std::set<int> &want_to_encode, const bufferlist &in,
			    std::map<int, bufferlist> *encoded)
{
	const unsigned blocksize = get_chunk_size(in.length());
	const unsigned full = blocksize ? in.length() / blocksize : 0;
	bufferlist prepared = in;
	int r;

	for (unsigned i = 0; i < (unsigned)k && i < full; i++) {
		bufferlist &chunk = (*encoded)[i];

		chunk.substr_of(prepared, i * blocksize, blocksize);
		chunk.rebuild_aligned_size_and_memory(blocksize, SIMD_ALIGN);
	}
	for (unsigned i = full; i < (unsigned)k; i++) {
		const unsigned off = i * blocksize;
		const unsigned have = off < in.length() ? std::min(blocksize, in.length() - off) : 0;
		bufferptr buf(buffer::create_aligned(blocksize, SIMD_ALIGN));

		if (have)
			in.begin(off).copy(have, buf.c_str());
		buf.zero(have, blocksize - have);
		(*encoded)[i].push_back(std::move(buf));
	}
	for (int i = k; i < k + m; i++)
		(*encoded)[i].push_back(buffer::create_aligned(blocksize, SIMD_ALIGN));
	r = encode_chunks(want_to_encode, encoded);
	if (r)
		return r;
	for (int i = 0; i < k + m; i++)
		if (want_to_encode.count(i) == 0)
			encoded->erase(i);
	return 0;
}

int ErasureCodeGfec::encode_chunks(const std::set<int> &want_to_encode,
				   std::map<int, bufferlist> *encoded)
{
	std::vector<const uint8_t *> data(k);
	std::vector<uint8_t *> parity(m);
	const unsigned len = (*encoded)[0].length();
	int r;

	for (int i = 0; i < k; i++)
		data[i] = reinterpret_cast<const uint8_t *>((*encoded)[i].c_str());
	for (int i = 0; i < m; i++)
		parity[i] = reinterpret_cast<uint8_t *>((*encoded)[k + i].c_str());
	r = gfec_encode(codec.get(), data.data(), parity.data(), len);
	return r ? -EIO : 0;
}

/* Ceph's _decode: what is wanted and present is shared, everything else is rebuilt. */
int ErasureCodeGfec::decode(const std::set<int> &want_to_read,
			    const std::map<int, bufferlist> &chunks,
			    std::map<int, bufferlist> *decoded, int chunk_size)
{
	bool all = true;

	(void)chunk_size;
	for (int i : want_to_read)
		all &= chunks.count(i) != 0;
	if (all) {
		for (int i : want_to_read)
			(*decoded)[i] = chunks.find(i)->second;
		return 0;
	}
	if (chunks.empty())
		return -EIO;
	const unsigned blocksize = chunks.begin()->second.length();

	for (int i = 0; i < k + m; i++) {
		auto it = chunks.find(i);

		if (it == chunks.end()) {
			bufferlist tmp;

			tmp.push_back(buffer::create_aligned(blocksize, SIMD_ALIGN));
			tmp.claim_append((*decoded)[i]);
			(*decoded)[i].swap(tmp);
		} else {
			(*decoded)[i] = it->second;
			(*decoded)[i].rebuild_aligned(SIMD_ALIGN);
		}
	}
	return decode_chunks(want_to_read, chunks, decoded);
}

int ErasureCodeGfec::decode_chunks(const std::set<int> &want_to_read,
				   const std::map<int, bufferlist> &chunks,
				   std::map<int, bufferlist> *decoded)
{
	std::vector<const uint8_t *> in(k + m, nullptr);
	std::vector<uint8_t *> out(k + m, nullptr);
	unsigned len = 0;

	(void)want_to_read;
	for (int i = 0; i < k + m; i++) {
		uint8_t *p = reinterpret_cast<uint8_t *>((*decoded)[i].c_str());

		len = (*decoded)[i].length();
		if (chunks.count(i))
			in[i] = p;
		else
			out[i] = p; /* rebuild every missing chunk, data or parity */
	}
	int r = gfec_decode(codec.get(), in.data(), out.data(), len);

	return r == GFEC_E_TOOFEW ? -EIO : r ? -EIO : 0;
}

int ErasureCodeGfec::decode_concat(const std::map<int, bufferlist> &chunks,
				   bufferlist *decoded)
{
	std::set<int> want;
	std::map<int, bufferlist> out;
	int r;

	for (int i = 0; i < k; i++)
		want.insert(i);
	r = decode(want, chunks, &out, 0);
	if (r == 0)
		for (int i = 0; i < k; i++)
			decoded->claim_append(out[i]);
	return r;
}

} // namespace ceph
