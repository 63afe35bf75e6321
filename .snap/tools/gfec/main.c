/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file main.c
 * The gfec command: cut a file into k data + m parity chunk files and get it back from any k of
 * them. It makes the library usable from a shell, and it is a real program built on the public
 * API (gfec.h) alone, which keeps that API honest.
 *
 *   FILE --encode--> FILE.0 .. FILE.<k-1>       data: FILE cut in order, zero-padded at the end
 *                    FILE.<k> .. FILE.<k+m-1>   parity
 *                    FILE.gfec                  metadata: k, m, sizes, one CRC32C per chunk
 *
 * Every command streams: the same segment of every chunk goes through the library together,
 * so memory stays (k+m) x segment however large FILE is. Every file it writes appears under its
 * final name only when complete (temp file + rename).
 *
 * This file is the entry point: the main help and the dispatch. Each command is a file of its
 * own (encode.c, decode.c, verify.c, info.c, tune.c); opts.c and job.c hold what they share.
 */
#include <stdio.h>
#include <string.h>

#include <gfec/gfec.h>

#include "cli.h"
#include "nc.h"

static const char help_main[] =
    "usage: gfec COMMAND [OPTIONS] FILE\n"
    "\n"
    "Erasure-code FILE into k data and m parity chunk files (FILE.0 .. FILE.<k+m-1>) plus\n"
    "metadata (FILE.gfec), and get FILE back from any k intact chunks.\n"
    "\n"
    "commands:\n"
    "  encode   -k K -m M FILE      write the chunks and the metadata of FILE (-w 16: GF(2^16))\n"
    "  decode   FILE [-o OUT]       rebuild FILE from its chunks (--repair: also the chunks)\n"
    "  verify   FILE                check every chunk's CRC32C, the parity and FILE's SHA-256\n"
    "  info     [FILE]              library, backend and CPUs; with FILE its metadata\n"
    "  tune     [OPTIONS]           measure the CPU's parity stores and (with a GPU) the GPU\n"
    "                               kernels and the CPU/GPU crossover into gfec.conf\n"
    "  weights  FILE | --bch N,K    weight and joint weight distribution of a binary code\n"
    "  nc       encode|recode|decode|simulate  network coding: FILE as a stream of coded blocks\n"
    "  help     [COMMAND]           this text, or a command's\n"
    "\n"
    "'gfec COMMAND --help' describes each command.\n"
    "\n"
    "exit codes:\n"
    "  0  success\n"
    "  1  internal or library error (also: out of memory; a rebuilt chunk or the decoded\n"
    "     file failed its checksum, so the metadata does not describe the chunks)\n"
    "  2  usage error (unknown option, bad k/m/technique/backend)\n"
    "  3  a file could not be read or written\n"
    "  4  corrupt metadata (FILE.gfec), also metadata that contradicts itself (an unknown w,\n"
    "     odd w=16 chunks, more chunks than its field has)\n"
    "  5  too few usable chunks to decode\n"
    "  6  too few usable chunks, and some were excluded because their size is wrong\n"
    "  7  verify found a problem\n"
    "  8  an output would replace a file the command reads (decode -o naming FILE.gfec or a\n"
    "     chunk, also through a link; encode of a FILE that is one of its own chunk names)\n";

static const char help_help[] = "usage: gfec help [COMMAND]\n"
				"\n"
				"Lists the commands and exit codes, or describes COMMAND.\n";

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
    {"encode", cmd_encode, help_encode}, {"decode", cmd_decode, help_decode},
    {"verify", cmd_verify, help_verify}, {"info", cmd_info, help_info},
    {"tune", cmd_tune, help_tune}, {"weights", cmd_weights, help_weights},
    {"nc", cmd_nc, help_nc},
    {"help", cmd_help, help_help},
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(argc < 2 ? help_main : help_help, stdout);
		return GFEC_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return fail(GFEC_EXIT_USAGE, "help: unknown command '%s' (see 'gfec --help')",
			    argv[1]);
	fputs(c->help, stdout);
	return GFEC_EXIT_OK;
}

int main(int argc, char **argv)
{
	const struct command *c;

	io_tmp_init();
	if (argc < 2)
		return fail(GFEC_EXIT_USAGE, "no command given (see 'gfec --help')");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(help_main, stdout);
		return GFEC_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("gfec %s (library %s)\n", GFEC_TOOL_VERSION, gfec_version());
		return GFEC_EXIT_OK;
	}
	c = find_command(argv[1]);
	if (!c)
		return fail(GFEC_EXIT_USAGE, "%s '%s' (see 'gfec --help')",
			    argv[1][0] == '-' ? "unknown option" : "unknown command", argv[1]);
	/* The command sees itself as argv[0], as getopt expects. */
	return c->run(argc - 1, argv + 1);
}
