/* main.c - capa-engine: dispatches to one command per entry of COMMANDS.
 *
 * To add a command, write `int thing_main(int argc, char **argv)` in its own
 * file (argv[0] is the command name) and add one line to COMMANDS. The
 * first entry with default_command set runs when no command is given.
 */
#include <stdio.h>
#include <string.h>

#include "attacks.h"
#include "bench.h"
#include "crc_cmd.h"
#include "log.h"
#include "perft.h"
#include "selfplay.h"
#include "uci.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
    int default_command;
} COMMANDS[] = {
    { "uci", uci_main, "uci (the default: speak UCI on stdin/stdout)", 1 },
    { "perft", perft_main, "perft [--variant V] [--fen FEN] [--moves m1 ...] DEPTH", 0 },
    { "perft-suite", perft_suite_main, "perft-suite FILE.tsv [--max-nodes N] [--min-nodes N]", 0 },
    { "bench", bench_main, "bench [DEPTH [HASH_MB]]", 0 },
    { "selfplay", selfplay_main, "selfplay [--pairs N] [--nodes N|--tc B+I] [--a SET] [--b SET] ... (--help)", 0 },
    { "crc", crc_cmd_main, "crc count | show N | check ARRAY | fen N [W B] | seed S", 0 },
};

static int s_usage(void)
{
    fprintf(stderr, "usage: capa-engine COMMAND [ARGS]\ncommands:\n");
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(stderr, "  %s\n", COMMANDS[i].help);
    return 2;
}

int main(int argc, char **argv)
{
    capa_log_init("capa-engine");
    attacks_init();
    size_t n = sizeof COMMANDS / sizeof COMMANDS[0];
    if (argc < 2) {
        for (size_t i = 0; i < n; i++)
            if (COMMANDS[i].default_command)
                return COMMANDS[i].run(argc, argv);
        return s_usage();
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0)
            return COMMANDS[i].run(argc - 1, argv + 1);
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0) {
        s_usage();
        return 0;
    }
    fprintf(stderr, "capa-engine: unknown command '%s'\n", argv[1]);
    return s_usage();
}
