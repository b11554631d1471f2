/* capa - the command line client of the coordinator's HTTP API, and the
 * offline SPRT calculator and study planner. See docs/api.md ("capa") and `capa --help`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cmd_runworkers.h"

static const char USAGE[] =
    "usage: capa [--server URL] [--token TOKEN] [--json] COMMAND [ARGS]\n"
    "\n"
    "  submit FILE.json          submit a run document (admin token); prints its id\n"
    "  runs [--status S] [--kind K] [--limit N]   list runs, newest first\n"
    "  show ID                   a run's report\n"
    "  watch ID [--interval S]   live progress until the run ends (Ctrl-C to leave)\n"
    "  stop ID                   stop a run (admin token)\n"
    "  resume ID                 a stopped run plays on to its plan (admin token)\n"
    "  pgn ID                    the run's games as PGN on stdout\n"
    "  values [--variant V]      the current best piece-value estimate per variant and\n"
    "                            engine version (contrasts first), with its run, pairs,\n"
    "                            games, nodes per move and date of the fit\n"
    "  series [ID]               study series (node ladders, iterations); with an id: every\n"
    "                            step's contrasts and values and whether the last two agree\n"
    "  compare ID1 ID2           how far each contrast of values run ID1 moved in ID2\n"
    "                            (shift in Elo with its 95% interval, within noise or not)\n"
    "  workers [ID]              workers, live or not, with speed and contributor; with a\n"
    "                            run id: its workers' results and outlier test\n"
    "  contributors              contributors with CPU hours, games and pairs\n"
    "  contributor add NAME [--admin]   new contributor; prints the token once (admin token)\n"
    "  sprt --elo0 E0 --elo1 E1 [--alpha A] [--beta B] [--model normalized|logistic]\n"
    "       [--penta N0,N1,N2,N3,N4 | --wdl W,D,L] [--elo TRUE [--draw-ratio R]]\n"
    "                            offline SPRT calculator: LLR, bounds, verdict, Elo; with\n"
    "                            --elo the pass probability and expected pairs\n"
    "  match --engine PATH [--option NAME=VALUE]... --engine PATH [--option ...]...\n"
    "       (--tc BASE+INC | --nodes N) [--games N] [--sprt ELO0,ELO1] [--concurrency N] ...\n"
    "                            play two UCI engines from random start arrays with colours\n"
    "                            swapped, decided by the GSPRT (capa match --help)\n"
    "  plan FILE.json [--target PAWNS] [--logit-per-pawn K] [--draw-ratio D] [--white W]\n"
    "       [--values N=3,B=3.5,...] [--nps N] [--plies N]\n"
    "                            offline: what a values study will determine (expected 95%\n"
    "                            half-widths, pairs for a target, what it cannot separate)\n"
    "                            and its CPU time; exit 2 when it can determine nothing\n"
    "  tune (--db CONNINFO [--run ID] | --pgn FILE | --epd FILE) [--params LIST]\n"
    "       [--positions N] [--iterations N] [--out FILE.json] ...\n"
    "                            offline: fit the engine's evaluation parameters to the\n"
    "                            results of stored or PGN games (capa tune --help)\n"
    "\n"
    "Server from --server or CAPA_SERVER (default " CLI_DEFAULT_SERVER "), token from\n"
    "--token or CAPA_TOKEN. --json prints the API's JSON for scripts.\n"
    "Exit codes: 0 ok, 1 usage, 2 refused by the coordinator (4xx), 3 coordinator\n"
    "unreachable, 4 server error (5xx or a malformed answer), 5 watched run did not pass\n"
    "(or capa match: the SPRT accepted H0).\n";

static int s_usage(void)
{
    fputs(USAGE, stderr);
    return CLI_USAGE;
}

/* Options without a value. */
static int s_is_flag(const char *key)
{
    return strcmp(key, "json") == 0 || strcmp(key, "help") == 0 || strcmp(key, "admin") == 0 ||
           strcmp(key, "tune_material") == 0;
}

int main(int argc, char **argv)
{
    cli_opts_t o;
    memset(&o, 0, sizeof o);
    const char *env = getenv("CAPA_SERVER");
    snprintf(o.server, sizeof o.server, "%s", env && *env ? env : CLI_DEFAULT_SERVER);
    env = getenv("CAPA_TOKEN");
    snprintf(o.token, sizeof o.token, "%s", env ? env : "");
    o.timeout_s = 60;
    o.interval_ms = 2000;

    cli_args_t a;
    memset(&a, 0, sizeof a);
    static char *pos[64];
    a.argv = pos;
    const char *command = NULL;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (strcmp(s, "-h") == 0) {
            fputs(USAGE, stdout);
            return CLI_OK;
        }
        if (strncmp(s, "--", 2) != 0 || strcmp(s, "--") == 0 || (s[2] >= '0' && s[2] <= '9')) {
            if (strcmp(s, "--") == 0)
                continue;
            if (!command)
                command = s;
            else if (a.argc < 64)
                pos[a.argc++] = argv[i];
            else
                return s_usage();
            continue;
        }
        static char keys[CLI_MAX_OPTS][32];
        const char *eq = strchr(s + 2, '=');
        size_t klen = eq ? (size_t) (eq - s - 2) : strlen(s + 2);
        if (klen == 0 || klen >= sizeof keys[0] || a.nopts >= CLI_MAX_OPTS) {
            cli_error("bad option %s", s);
            return s_usage();
        }
        char *key = keys[a.nopts];
        memcpy(key, s + 2, klen);
        key[klen] = 0;
        for (char *k = key; *k; k++)
            if (*k == '-')
                *k = '_';
        const char *val = "";
        if (eq) {
            val = eq + 1;
        } else if (!s_is_flag(key)) {
            if (i + 1 >= argc) {
                cli_error("--%s needs a value", key);
                return s_usage();
            }
            val = argv[++i];
        }
        if (strcmp(key, "help") == 0) {
            fputs(command && strcmp(command, "match") == 0  ? cmd_match_usage()
                  : command && strcmp(command, "tune") == 0 ? cmd_tune_usage()
                                                             : USAGE,
                  stdout);
            return CLI_OK;
        } else if (strcmp(key, "server") == 0) {
            size_t n = strlen(val);
            while (n > 0 && val[n - 1] == '/')
                n--;
            if (n == 0 || n >= sizeof o.server) {
                cli_error("--server needs a URL");
                return CLI_USAGE;
            }
            memcpy(o.server, val, n);
            o.server[n] = 0;
        } else if (strcmp(key, "token") == 0) {
            snprintf(o.token, sizeof o.token, "%s", val);
        } else if (strcmp(key, "json") == 0) {
            o.json = true;
        } else {
            a.keys[a.nopts] = key;
            a.vals[a.nopts] = val;
            a.nopts++;
        }
    }
    size_t n = strlen(o.server);
    while (n > 0 && o.server[n - 1] == '/')
        o.server[--n] = 0;
    if (!command)
        return s_usage();
    static const struct {
        const char *name;
        int (*fn)(const cli_opts_t *, const cli_args_t *);
    } CMDS[] = {
        { "submit", cmd_submit },   { "runs", cmd_runs },
        { "show", cmd_show },       { "watch", cmd_watch },
        { "stop", cmd_stop },       { "resume", cmd_resume },
        { "pgn", cmd_pgn },         { "values", cmd_values },
        { "workers", cmd_workers_or_run },
        { "contributors", cmd_contributors }, { "contributor", cmd_contributor },
        { "sprt", cmd_sprt },       { "match", cmd_match },
        { "plan", cmd_plan },       { "compare", cmd_compare },
        { "tune", cmd_tune },
        { "series", cmd_series },
    };
    for (size_t i = 0; i < sizeof CMDS / sizeof CMDS[0]; i++)
        if (strcmp(command, CMDS[i].name) == 0)
            return CMDS[i].fn(&o, &a);
    cli_error("unknown command \"%s\"", command);
    return s_usage();
}
