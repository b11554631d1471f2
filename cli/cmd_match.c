/* cmd_match.c - capa match: two UCI engines, pairs from random start arrays,
 * the GSPRT deciding (cli/match.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "game.h"
#include "match.h"
#include "match_state.h"

static const char USAGE[] =
    "usage: capa match --engine PATH [--name NAME] [--option NAME=VALUE]...\n"
    "                  --engine PATH [--name NAME] [--option NAME=VALUE]...\n"
    "                  (--tc BASE[+INC] | --nodes N) [--games N] [--sprt ELO0,ELO1]\n"
    "                  [more options]\n"
    "\n"
    "Plays pairs of games between two UCI engines, colours swapped, each pair from a\n"
    "start array drawn from --seed. The first engine is the baseline; counts, Elo and\n"
    "the SPRT are from the second engine's view. --name and --option apply to the\n"
    "--engine before them.\n"
    "\n"
    "  --tc BASE[+INC]       clock per side in seconds, e.g. 10+0.1 (default)\n"
    "  --nodes N             fixed nodes per move instead of a clock (go nodes N)\n"
    "  --timemargin MS       overrun of the clock allowed before a time loss (0)\n"
    "  --move-timeout S      with --nodes: a move taking longer is a hang (60)\n"
    "  --uci-timeout S       an engine must answer uci and isready within S s (10)\n"
    "  --concurrency N       games at once, each thread with its own engines (1)\n"
    "  --games N             at most N games (even; needed without --sprt)\n"
    "  --sprt ELO0,ELO1      GSPRT on pairs; stops at a bound. With --alpha A,\n"
    "                        --beta B (0.05) and --model normalized|logistic\n"
    "                        (normalized: the bounds are nElo, as fishtest's)\n"
    "  --variant V           caparandom (default) or capablanca\n"
    "  --seed N              start arrays (1); the same seed, the same arrays\n"
    "  --max-moves N         full moves, then a draw (400)\n"
    "  --resign MOVES,CP     a side resigns when for MOVES moves its score is <= -CP\n"
    "                        and its opponent's >= CP (off)\n"
    "  --draw MOVE,MOVES,CP  a draw from move MOVE when both scores are within CP for\n"
    "                        MOVES moves each (off)\n"
    "  --pgn FILE            append every game to FILE\n"
    "  --state FILE          keep the counts in FILE after every status line; when\n"
    "                        FILE exists, go on from its counts: one SPRT over\n"
    "                        several runs (the same --name pair, variant, limit and\n"
    "                        SPRT; a --seed not played before; names without\n"
    "                        blanks). --games counts this run's games\n"
    "  --report-every N      a status line every N pairs (10)\n"
    "\n"
    "An engine that crashes, hangs or plays an illegal move loses that game and is\n"
    "restarted; an engine that cannot be started stops the match. Ctrl-C stops after\n"
    "the games being played. Exit code 0, 1 for bad input or an unusable engine, 5\n"
    "when the SPRT accepted H0.\n";

const char *cmd_match_usage(void)
{
    return USAGE;
}

static volatile int s_interrupted;

static void s_on_signal(int sig)
{
    (void) sig;
    s_interrupted = 1;
}

/* Parses exactly n comma-separated numbers. */
static int s_numbers(const char *key, const char *text, int n, double *out)
{
    const char *s = text;
    for (int i = 0; i < n; i++) {
        char *end;
        errno = 0;
        out[i] = strtod(s, &end);
        if (end == s || errno || !isfinite(out[i]) || (i < n - 1 ? *end != ',' : *end != 0)) {
            cli_error("--%s \"%s\": expected %d comma-separated number%s", key, text, n,
                      n > 1 ? "s" : "");
            return -1;
        }
        s = end + 1;
    }
    return 0;
}

static int s_int(const char *key, const char *text, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || errno || v < lo || v > hi) {
        cli_error("--%s \"%s\": expected an integer in [%lld, %lld]", key, text, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

static int s_tc(const char *text, match_config_t *cfg)
{
    char *end;
    errno = 0;
    double base = strtod(text, &end), inc = 0;
    if (end == text || errno)
        goto bad;
    if (*end == '+') {
        const char *s = end + 1;
        inc = strtod(s, &end);
        if (end == s || errno)
            goto bad;
    }
    if (*end || !isfinite(base) || !isfinite(inc) || base <= 0 || inc < 0 || base > 86400 ||
        inc > 3600)
        goto bad;
    cfg->tc_base_ms = (int64_t) llround(base * 1000);
    cfg->tc_inc_ms = (int64_t) llround(inc * 1000);
    if (cfg->tc_base_ms < 1)
        goto bad;
    return 0;
bad:
    cli_error("--tc \"%s\": expected BASE[+INC] in seconds with BASE > 0, e.g. 10+0.1", text);
    return -1;
}

/* The part of a path after its last '/'. */
static const char *s_base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

int cmd_match(const cli_opts_t *o, const cli_args_t *a)
{
    (void) o;
    static match_config_t cfg;
    match_config_default(&cfg);
    if (a->argc > 0) {
        cli_error("match takes no positional argument (\"%s\")", a->argv[0]);
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    int engines = 0;
    bool have_tc = false, have_nodes = false, have_games = false;
    long long games = 0, v;
    double nums[3];
    const char *pgn_path = NULL;
    const char *state_path = NULL;
    for (int i = 0; i < a->nopts; i++) {
        const char *k = a->keys[i], *val = a->vals[i];
        if (strcmp(k, "engine") == 0) {
            if (engines == 2) {
                cli_error("a match has two engines: a third --engine \"%s\"", val);
                return CLI_USAGE;
            }
            match_engine_t *e = &cfg.engine[engines++];
            e->path = val;
            snprintf(e->name, sizeof e->name, "%s", s_base(val));
        } else if (strcmp(k, "name") == 0 || strcmp(k, "option") == 0) {
            if (engines == 0) {
                cli_error("--%s \"%s\" comes before any --engine: it applies to the --engine "
                          "before it", k, val);
                return CLI_USAGE;
            }
            match_engine_t *e = &cfg.engine[engines - 1];
            if (strcmp(k, "name") == 0) {
                if (!*val || strlen(val) >= sizeof e->name) {
                    cli_error("--name \"%s\": 1 to %zu characters", val, sizeof e->name - 1);
                    return CLI_USAGE;
                }
                snprintf(e->name, sizeof e->name, "%s", val);
                continue;
            }
            const char *eq = strchr(val, '=');
            if (!eq || eq == val || e->noptions >= MATCH_MAX_OPTIONS) {
                cli_error("--option \"%s\": expected NAME=VALUE (at most %d per engine)", val,
                          MATCH_MAX_OPTIONS);
                return CLI_USAGE;
            }
            size_t n = (size_t) (eq - val);
            char *name = malloc(n + 1);
            if (!name)
                return CLI_SERVER;
            memcpy(name, val, n);
            name[n] = 0;
            if (strcasecmp(name, "UCI_Variant") == 0 || strcasecmp(name, "UCI_Chess960") == 0) {
                cli_error("--option %s: the match sets it from --variant", name);
                free(name);
                return CLI_USAGE;
            }
            e->opt_name[e->noptions] = name;
            e->opt_value[e->noptions++] = eq + 1;
        } else if (strcmp(k, "tc") == 0) {
            if (s_tc(val, &cfg) < 0)
                return CLI_USAGE;
            have_tc = true;
        } else if (strcmp(k, "nodes") == 0) {
            if (s_int(k, val, 1, (long long) 1 << 40, &v) < 0)
                return CLI_USAGE;
            cfg.nodes = (uint64_t) v;
            have_nodes = true;
        } else if (strcmp(k, "timemargin") == 0) {
            if (s_int(k, val, 0, 3600000, &v) < 0)
                return CLI_USAGE;
            cfg.timemargin_ms = v;
        } else if (strcmp(k, "move_timeout") == 0) {
            if (s_numbers("move-timeout", val, 1, nums) < 0)
                return CLI_USAGE;
            if (nums[0] <= 0 || nums[0] > 86400) {
                cli_error("--move-timeout %s: seconds in (0, 86400]", val);
                return CLI_USAGE;
            }
            cfg.move_timeout_ms = (int64_t) llround(nums[0] * 1000);
        } else if (strcmp(k, "uci_timeout") == 0) {
            if (s_numbers("uci-timeout", val, 1, nums) < 0)
                return CLI_USAGE;
            if (nums[0] <= 0 || nums[0] > 3600) {
                cli_error("--uci-timeout %s: seconds in (0, 3600]", val);
                return CLI_USAGE;
            }
            cfg.uci_timeout_ms = (int64_t) llround(nums[0] * 1000);
        } else if (strcmp(k, "concurrency") == 0) {
            if (s_int(k, val, 1, 256, &v) < 0)
                return CLI_USAGE;
            cfg.concurrency = (int) v;
        } else if (strcmp(k, "games") == 0) {
            if (s_int(k, val, 2, (long long) 1 << 40, &games) < 0)
                return CLI_USAGE;
            if (games % 2) {
                cli_error("--games %lld: games come in pairs (colours swapped), give an even "
                          "number", games);
                return CLI_USAGE;
            }
            have_games = true;
        } else if (strcmp(k, "sprt") == 0) {
            if (s_numbers(k, val, 2, nums) < 0)
                return CLI_USAGE;
            cfg.sprt = true;
            cfg.sprt_params.elo0 = nums[0];
            cfg.sprt_params.elo1 = nums[1];
        } else if (strcmp(k, "alpha") == 0 || strcmp(k, "beta") == 0) {
            if (s_numbers(k, val, 1, nums) < 0)
                return CLI_USAGE;
            *(strcmp(k, "alpha") == 0 ? &cfg.sprt_params.alpha : &cfg.sprt_params.beta) = nums[0];
        } else if (strcmp(k, "model") == 0) {
            int m = stats_model_parse(val);
            if (m < 0) {
                cli_error("--model \"%s\": normalized or logistic", val);
                return CLI_USAGE;
            }
            cfg.sprt_params.model = (stats_elo_model_t) m;
        } else if (strcmp(k, "variant") == 0) {
            variant_t var;
            if (variant_from_name(val, &var) < 0 ||
                (var != VARIANT_CAPARANDOM && var != VARIANT_CAPABLANCA)) {
                cli_error("--variant \"%s\": caparandom or capablanca", val);
                return CLI_USAGE;
            }
            cfg.variant = var;
        } else if (strcmp(k, "seed") == 0) {
            if (s_int(k, val, 0, INT64_MAX, &v) < 0)
                return CLI_USAGE;
            cfg.seed = (uint64_t) v;
        } else if (strcmp(k, "max_moves") == 0) {
            if (s_int("max-moves", val, 1, GAME_MAX_PLIES / 2, &v) < 0)
                return CLI_USAGE;
            cfg.max_moves = (int) v;
        } else if (strcmp(k, "resign") == 0) {
            if (s_numbers(k, val, 2, nums) < 0)
                return CLI_USAGE;
            if (nums[0] < 1 || nums[0] > 1000 || nums[1] < 1 || nums[1] > 100000) {
                cli_error("--resign %s: MOVES in [1, 1000], CP in [1, 100000]", val);
                return CLI_USAGE;
            }
            cfg.resign_moves = (int) nums[0];
            cfg.resign_score = (int) nums[1];
        } else if (strcmp(k, "draw") == 0) {
            if (s_numbers(k, val, 3, nums) < 0)
                return CLI_USAGE;
            if (nums[0] < 0 || nums[0] > 10000 || nums[1] < 1 || nums[1] > 1000 || nums[2] < 0 ||
                nums[2] > 100000) {
                cli_error("--draw %s: MOVE in [0, 10000], MOVES in [1, 1000], CP in [0, 100000]",
                          val);
                return CLI_USAGE;
            }
            cfg.draw_move_number = (int) nums[0];
            cfg.draw_moves = (int) nums[1];
            cfg.draw_score = (int) nums[2];
        } else if (strcmp(k, "pgn") == 0) {
            pgn_path = val;
        } else if (strcmp(k, "state") == 0) {
            state_path = val;
        } else if (strcmp(k, "report_every") == 0) {
            if (s_int("report-every", val, 1, 1000000, &v) < 0)
                return CLI_USAGE;
            cfg.report_every = (int) v;
        } else {
            cli_error("match: unknown option --%s", k);
            fputs(USAGE, stderr);
            return CLI_USAGE;
        }
    }
    if (engines != 2) {
        cli_error("a match needs two --engine options (%d given)", engines);
        fputs(USAGE, stderr);
        return CLI_USAGE;
    }
    if (have_tc && have_nodes) {
        cli_error("--tc and --nodes exclude each other: a clock or fixed nodes");
        return CLI_USAGE;
    }
    if (!cfg.sprt && !have_games) {
        cli_error("without --sprt a match needs --games N");
        return CLI_USAGE;
    }
    char err[256];
    if (cfg.sprt && stats_sprt_params_check(&cfg.sprt_params, err, sizeof err) < 0) {
        cli_error("--sprt: %s", err);
        return CLI_USAGE;
    }
    if (strcmp(cfg.engine[0].name, cfg.engine[1].name) == 0) {
        /* Two builds of one program: tell them apart in the output. */
        for (int i = 0; i < 2; i++) {
            size_t l = strlen(cfg.engine[i].name);
            if (l > sizeof cfg.engine[i].name - 3)
                l = sizeof cfg.engine[i].name - 3;
            cfg.engine[i].name[l] = '#';
            cfg.engine[i].name[l + 1] = (char) ('1' + i);
            cfg.engine[i].name[l + 2] = 0;
        }
    }
    cfg.max_pairs = have_games ? games / 2 : 0;
    static match_state_t state;
    bool resumed = false;
    if (state_path) {
        char serr[768];
        int r = match_state_read(state_path, &state, serr, sizeof serr);
        if (r < 0) {
            cli_error("--state %s", serr);
            return CLI_USAGE;
        }
        if (r == 1) {
            if (match_state_check(&state, &cfg, serr, sizeof serr) < 0) {
                cli_error("--state %s: cannot go on from it: %s", state_path, serr);
                return CLI_USAGE;
            }
            state.seeds[state.nseeds++] = cfg.seed;
            resumed = true;
        } else if (match_state_from_config(&state, &cfg, serr, sizeof serr) < 0) {
            cli_error("--state %s: %s", state_path, serr);
            return CLI_USAGE;
        }
        cfg.state = &state;
        cfg.state_path = state_path;
    }
    if (pgn_path) {
        cfg.pgn = fopen(pgn_path, "a");
        if (!cfg.pgn) {
            cli_error("--pgn %s: %s", pgn_path, strerror(errno));
            return CLI_USAGE;
        }
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = s_on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    cfg.interrupted = &s_interrupted;

    printf("match: %s (baseline) vs %s (under test), %s, ", cfg.engine[0].name,
           cfg.engine[1].name, variant_name(cfg.variant));
    if (cfg.nodes)
        printf("%" PRIu64 " nodes per move", cfg.nodes);
    else
        printf("tc %.3g+%.3g s", (double) cfg.tc_base_ms / 1000.0, (double) cfg.tc_inc_ms / 1000.0);
    printf(", concurrency %d, seed %" PRIu64, cfg.concurrency, cfg.seed);
    if (cfg.sprt)
        printf(", SPRT %s [%g, %g] alpha %g beta %g", stats_model_name(cfg.sprt_params.model),
               cfg.sprt_params.elo0, cfg.sprt_params.elo1, cfg.sprt_params.alpha,
               cfg.sprt_params.beta);
    if (have_games)
        printf(", at most %lld games", games);
    printf("\n");
    if (resumed) {
        static match_result_t prior;
        prior.counts = state.counts;
        prior.pairs = state.pairs;
        if (cfg.sprt) {
            char err2[256];
            stats_sprt_report(&cfg.sprt_params, &prior.counts, &prior.report, err2, sizeof err2);
        }
        char line[512];
        match_status_line(&cfg, &prior, line, sizeof line);
        printf("going on from %s (seeds", state_path);
        for (int i = 0; i < state.nseeds - 1; i++)
            printf(" %" PRIu64, state.seeds[i]);
        printf("): %s\n", line);
    }
    fflush(stdout);

    static match_result_t res;
    int rc = match_run(&cfg, &res);
    if (cfg.pgn)
        fclose(cfg.pgn);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < cfg.engine[i].noptions; k++)
            free((char *) cfg.engine[i].opt_name[k]);
    if (rc < 0 && res.pairs == 0) {
        cli_error("%s", res.error);
        return CLI_USAGE;
    }
    printf("\n%s vs %s: %" PRId64 " games, %" PRId64 " plies%s\n", cfg.engine[1].name,
           cfg.engine[0].name, res.games, res.plies,
           s_interrupted ? " (interrupted)" : res.sprt_stopped ? " (SPRT stopped)" : "");
    if (cfg.sprt) {
        char buf[2048];
        stats_sprt_format(&res.report, buf, sizeof buf);
        fputs(buf, stdout);
    } else {
        char line[512];
        match_status_line(&cfg, &res, line, sizeof line);
        printf("%s\n", line);
    }
    for (int i = 0; i < 2; i++)
        printf("%s: crashes %" PRId64 ", hangs %" PRId64 ", time losses %" PRId64
               ", illegal moves %" PRId64 "\n", cfg.engine[i].name, res.crashes[i], res.hangs[i],
               res.time_losses[i], res.illegal[i]);
    for (int i = 0; i < 2; i++) {
        if (res.moves[i] == 0)
            continue;
        printf("%s: %" PRId64 " moves, on average %.0f ms", cfg.engine[i].name, res.moves[i],
               (double) res.move_ms[i] / (double) res.moves[i]);
        if (res.depth_moves[i] > 0)
            printf(" and depth %.1f", (double) res.depth_sum[i] / (double) res.depth_moves[i]);
        else
            printf(" (no depth reported)");
        printf(" a move");
        if (res.depth_moves[i] > 0 && res.depth_moves[i] < res.moves[i])
            printf(" (depth over the %" PRId64 " moves that reported one without a mate score)",
                   res.depth_moves[i]);
        printf("\n");
    }
    printf("engines' CPU time %.1f s, wall time %.1f s\n", res.cpu_s, res.wall_s);
    if (rc < 0) {
        cli_error("match stopped early: %s", res.error);
        return CLI_USAGE;
    }
    if (cfg.sprt && res.report.verdict == STATS_SPRT_ACCEPT_H0)
        return CLI_RUN_FAILED;
    return CLI_OK;
}
