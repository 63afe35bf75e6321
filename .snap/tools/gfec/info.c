/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file info.c
 * gfec info: the library, its backend and knobs, and what FILE.gfec records.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <gfec/gfec.h>
#include <gfec/gfec_config.h>

#include "cli.h"

const char help_info[] =
    "usage: gfec info [--backend B] [--threads N] [FILE]\n"
    "\n"
    "Prints the library version, the backend a default codec (k=4 m=2) runs on, the number\n"
    "of online CPUs, and every knob: its value and where it came from (profile, env VAR,\n"
    "FILE:LINE of gfec.conf, or default; the profile wins over the environment, the\n"
    "environment over gfec.conf). With FILE, also what FILE.gfec records. With gpu_devices\n"
    "set (GFEC_GPU_DEVICES or gfec.conf [gpu] devices), one line per GPU context.\n"
    "\n"
    "Then what that backend does with a call on host memory of 64 KiB to 256 MiB of data\n"
    "where there is a GPU, and why: the thresholds and rates it goes by (gfec tune measures\n"
    "them) and where each came from.\n"
    "\n"
    "  --backend B            the default codec's backend: cpu, gpu, auto or hybrid  [auto]\n"
    "  --threads N            its threads= profile key\n"
    "  -h, --help             this text\n";

int cmd_info(int argc, char **argv)
{
	struct opts o = {.backend = "auto"};
	struct gfec_meta meta = {0};
	gfec_codec *codec = NULL;
	char err[256], *base;
	int ret, status = GFEC_EXIT_OK;

	char profile[256], knobs[8192];

	ret = parse_opts("info", help_info, argc, argv, "h", 1, 0, 1, &o);
	if (ret >= 0)
		return ret;
	if ((ret = one_word("info", "--backend", "backend", o.backend)) ||
	    (o.threads && (ret = one_word("info", "--threads", "threads", o.threads))))
		return ret;
	snprintf(profile, sizeof(profile), "k=4 m=2 backend=%s%s%s", o.backend,
		 o.threads ? " threads=" : "", o.threads ? o.threads : "");
	printf("gfec tool %s, library %s\n", GFEC_TOOL_VERSION, gfec_version());
	ret = gfec_config_describe(profile, knobs, sizeof(knobs));
	if (ret)
		return fail(lib_exit(ret), "info: %s", knobs);
	ret = gfec_codec_create(profile, &codec, err, sizeof(err));
	if (ret) {
		printf("default backend: none (%s)\n", err);
		status = fail(GFEC_EXIT_INTERNAL, "info: a default codec cannot be made: %s", err);
	} else {
		struct gfec_gpu_device dev[16];
		const int n = gfec_codec_gpu_devices(codec, dev, 16);

		printf("default backend: %s (k=4 m=2)\n", gfec_codec_backend(codec));
		/* gpu_devices=: every context, its GPU and its counters so far */
		for (int i = 0; i < n && i < 16; i++)
			printf("gpu context %d: device %d %s, %.1f GiB, PCI bus %d; %" PRIu64
			       " shares, %" PRIu64 " bytes, %" PRIu64 " failed\n",
			       i, dev[i].ordinal, dev[i].name, dev[i].mem_gib, dev[i].pci_bus,
			       dev[i].calls, dev[i].bytes, dev[i].failures);
		gfec_codec_free(codec);
	}
	printf("online CPUs: %ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	printf("knobs (profile > env > gfec.conf > default), then host calls:\n%s", knobs);
	if (!o.file)
		return status;

	base = base_name(o.file);
	if (!base)
		return out_of_memory();
	ret = load_meta("info", base, &meta);
	if (!ret) {
		printf("file: %s\n", base);
		printf("metadata: %s.gfec\n", base);
		printf("k: %d\nm: %d\nw: %d\ntechnique: %s\n", meta.k, meta.m, meta.w,
		       meta.technique);
		printf("size: %" PRIu64 " B\nchunk size: %" PRIu64 " B\n", meta.size,
		       meta.chunk_size);
		if (meta.version >= 2) {
			printf("sha256: ");
			for (size_t i = 0; i < sizeof(meta.sha256); i++)
				printf("%02x", meta.sha256[i]);
			printf("\n");
		}
		for (int i = 0; i < meta.k + meta.m; i++)
			printf("chunk %d (%s) %s.%d: crc32c 0x%08" PRIx32 "\n", i,
			       i < meta.k ? "data" : "parity", base, i, meta.crc[i]);
	}
	meta_free(&meta);
	free(base);
	return ret ? ret : status;
}
