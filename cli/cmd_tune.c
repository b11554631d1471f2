/* cmd_tune.c - capa tune: the evaluation's parameters fitted to the results
 * of capalab's own games (engine/texel.h), read from a capalab database
 * (store/store_games.h) or from a PGN or EPD file. Offline: no coordinator. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "err.h"
#include "label.h"
#include "uciproc.h"
#include "params.h"
#include "pgnread.h"
#include "store.h"
#include "store_games.h"
#include "texel.h"

static const char USAGE[] =
    "usage: capa tune (--db CONNINFO [--run ID] | --pgn FILE | --epd FILE [--variant V])\n"
    "                 [--positions N] [--per-game N] [--skip-plies N] [--seed S]\n"
    "                 [--params all|NAME,NAME,...] [--tune-material] [--start FILE.json]\n"
    "                 [--iterations N] [--steps N] [--rate CP] [--k K] [--out FILE.json]\n"
    "                 [--label-engine PATH [--label-nodes N] [--label-weight W]\n"
    "                  [--label-threads N]] [--save-epd FILE]\n"
    "\n"
    "Fits the engine's evaluation parameters to game results (Texel's method):\n"
    "minimises the mean squared error between each sampled position's result\n"
    "(White's 1, 1/2, 0) and sigmoid(K * eval / 400), sigmoid(x) = 1/(1+10^-x).\n"
    "\n"
    "  --db CONNINFO     a capalab database (libpq string or URL): the games of\n"
    "                    the counted pairs that were stored with their moves\n"
    "  --run ID          only this run's games (default: every run)\n"
    "  --pgn FILE        games in PGN (capa-engine selfplay --pgn, capa match --pgn)\n"
    "  --epd FILE        positions, one a line: FEN then c9 \"1-0\"; or [1.0]\n"
    "  --variant V       the EPD positions' variant (caparandom)\n"
    "  --positions N     stop reading after N positions (default: no limit)\n"
    "  --per-game N      quiet positions drawn per game (10; 0 = all)\n"
    "  --skip-plies N    opening plies never drawn (8)\n"
    "  --seed S          the draw's seed (1)\n"
    "  --params LIST     the parameters to fit: all (default: every evaluation\n"
    "                    weight; never the Search... ones) or names, comma-separated\n"
    "  --tune-material   let the Pawn, Archbishop, Chancellor and Queen values move\n"
    "                    too (frozen by default: the values studies measure them)\n"
    "  --start FILE      start from this parameter set (JSON over the defaults)\n"
    "  --iterations N    linearisations of the evaluation (10; 0 = only print the\n"
    "                    start's error, e.g. on held-out games with --start and --k)\n"
    "  --steps N         gradient (Adam) steps per linearisation (300)\n"
    "  --rate CP         Adam step size in centipawns (1.0)\n"
    "  --l2 W            ridge: adds W x (value - start)^2 per parameter to the\n"
    "                    error, so that few games move the parameters less (0)\n"
    "  --k K             hold K at this value instead of fitting it on the start\n"
    "  --label-engine P  label each position with this UCI engine's search instead\n"
    "                    of the game's result: sigmoid(cp / 400) of its score from\n"
    "                    White's view after ucinewgame and go nodes N (a mate: 1 or 0)\n"
    "  --label-nodes N   nodes per position for --label-engine (20000)\n"
    "  --label-weight W  label = W x the engine's + (1 - W) x the game result (1)\n"
    "  --label-threads N engine processes labelling side by side (1)\n"
    "  --save-epd FILE   write the positions with their labels as EPD (FEN [label]),\n"
    "                    to fit again with --epd FILE without labelling again\n"
    "  --out FILE        write the fitted set (the parameters that differ from the\n"
    "                    engine's defaults, JSON) for run documents, capa-engine\n"
    "                    selfplay --b FILE or capa match --option NAME=VALUE\n"
    "\n"
    "Exit codes: 0 fitted; 1 bad arguments or input (a malformed PGN, EPD or FEN,\n"
    "an unknown parameter, no positions); 3 the database is unreachable; 4 the\n"
    "database refused a query.\n";

const char *cmd_tune_usage(void)
{
    return USAGE;
}

/* The piece values a tuner must not teach the engine (issue 14 measures
 * them in pawns): the pawn, the unit, and the three compound pieces. */
static bool s_frozen(int i)
{
    static const int FROZEN[] = { PARAM_PawnValueMg, PARAM_PawnValueEg,
                                  PARAM_ArchbishopValueMg, PARAM_ArchbishopValueEg,
                                  PARAM_ChancellorValueMg, PARAM_ChancellorValueEg,
                                  PARAM_QueenValueMg, PARAM_QueenValueEg };
    for (size_t k = 0; k < sizeof FROZEN / sizeof FROZEN[0]; k++)
        if (FROZEN[k] == i)
            return true;
    return false;
}

static int s_long(const cli_args_t *a, const char *key, long def, long lo, long hi, long *out)
{
    const char *s = cli_opt(a, key);
    *out = def;
    if (!s)
        return CLI_OK;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        cli_error("--%s: \"%s\" is not a whole number in %ld..%ld", key, s, lo, hi);
        return CLI_USAGE;
    }
    *out = v;
    return CLI_OK;
}

/* The whole file as a NUL-terminated heap string, or NULL after a message. */
static char *s_slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        cli_error("%s: %s", path, strerror(errno));
        return NULL;
    }
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    rewind(f);
    char *text = size >= 0 ? malloc((size_t) size + 1) : NULL;
    size_t got = text ? fread(text, 1, (size_t) size, f) : 0;
    const char *why = size < 0 ? "not a regular file" : !text ? "out of memory"
                      : got != (size_t) size || ferror(f) ? "read error" : NULL;
    fclose(f);
    if (why) {
        cli_error("%s: %s", path, why);
        free(text);
        return NULL;
    }
    text[got] = 0;
    return text;
}

/* Which parameters move: --params and --tune-material. */
static int s_select(const cli_args_t *a, bool *tune)
{
    const char *list = cli_opt(a, "params");
    bool material = cli_opt(a, "tune_material") != NULL;
    if (!list || strcmp(list, "all") == 0) {
        for (int i = 0; i < PARAM_NB; i++)
            tune[i] = (material || !s_frozen(i)) && !params_info(i)->search;
        return CLI_OK;
    }
    memset(tune, 0, PARAM_NB * sizeof *tune);
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        char name[64];
        if (n == 0 || n >= sizeof name) {
            cli_error("--params: an empty or too long name in \"%s\"", list);
            return CLI_USAGE;
        }
        memcpy(name, p, n);
        name[n] = 0;
        int i = params_find(name);
        if (i < 0) {
            cli_error("--params: unknown parameter \"%s\" (capa-engine's UCI options list them)",
                      name);
            return CLI_USAGE;
        }
        if (params_info(i)->search) {
            cli_error("--params: %s is a search parameter: the static evaluation does not read "
                      "it, so positions cannot fit it (an SPSA run tunes it)", name);
            return CLI_USAGE;
        }
        if (s_frozen(i) && !material) {
            cli_error("--params: %s is a piece value the values studies measure; it moves only "
                      "with --tune-material", name);
            return CLI_USAGE;
        }
        tune[i] = true;
        p += n;
        if (*p == ',')
            p++;
    }
    return CLI_OK;
}

typedef struct {
    texel_set_t *set;
    const texel_sample_t *sample;
    size_t limit;         /* positions; 0 = none */
    size_t bad;           /* games that did not replay */
    char first_bad[400];
} s_db_ctx_t;

static int s_db_game(const store_game_t *g, void *arg)
{
    s_db_ctx_t *c = arg;
    variant_t v;
    char err[256];
    int rc = variant_from_name(g->variant, &v);
    if (rc == CAPA_OK) {
        game_result_t r = g->result == STORE_WHITE_WINS ? RESULT_WHITE_WINS
                          : g->result == STORE_BLACK_WINS ? RESULT_BLACK_WINS : RESULT_DRAW;
        rc = texel_add_game_uci(c->set, c->sample, v, g->fen, g->moves, r, err, sizeof err);
    } else {
        snprintf(err, sizeof err, "unknown variant \"%s\"", g->variant);
    }
    if (rc == CAPA_ENOMEM)
        return rc;
    if (rc < 0 && c->bad++ == 0)
        snprintf(c->first_bad, sizeof c->first_bad, "run %lld pair %lld game %d: %s",
                 (long long) g->run_id, (long long) g->pair_no, g->game + 1, err);
    return c->limit && c->set->n >= c->limit ? 1 : 0;
}

static int s_from_db(const cli_args_t *a, texel_set_t *set, const texel_sample_t *sample,
                     size_t limit)
{
    long run = 0;
    int rc = s_long(a, "run", 0, 1, LONG_MAX, &run);
    if (rc)
        return rc;
    store_t *st = NULL;
    char err[512];
    if (store_open(cli_opt(a, "db"), &st, err, sizeof err) < 0) {
        cli_error("--db: %s", err);
        return CLI_UNREACHABLE;
    }
    s_db_ctx_t c = { set, sample, limit, 0, "" };
    size_t games = 0, pairs = 0;
    rc = store_games_each(st, run, 0, s_db_game, &c, &games, &pairs);
    if (rc < 0 && rc != CAPA_ENOMEM) {
        cli_error("--db: %s", rc == CAPA_ENOTFOUND && run ? "no such run" : store_last_error(st));
        store_destroy(&st);
        return rc == CAPA_ENOTFOUND ? CLI_USAGE : rc == CAPA_EDB ? CLI_UNREACHABLE : CLI_SERVER;
    }
    store_destroy(&st);
    if (rc == CAPA_ENOMEM) {
        cli_error("out of memory after %zu positions", set->n);
        return CLI_SERVER;
    }
    printf("database: %zu counted pairs, %zu games with moves", pairs, games);
    if (run)
        printf(" (run %ld)", run);
    printf("\n");
    if (c.bad)
        printf("skipped %zu games that do not replay; the first: %s\n", c.bad, c.first_bad);
    if (games == 0) {
        cli_error("the database holds no games with moves%s", run ? " in this run" : "");
        return CLI_USAGE;
    }
    return CLI_OK;
}

static int s_from_pgn(const char *path, texel_set_t *set, const texel_sample_t *sample,
                      size_t limit)
{
    char *text = s_slurp(path);
    if (!text)
        return CLI_USAGE;
    pgn_game_t *g = malloc(sizeof *g);
    pgn_cursor_t c = { text, 1, 0 };
    char err[512];
    int rc = CLI_OK;
    while (g && (!limit || set->n < limit)) {
        int got = pgn_read_game(&c, g, err, sizeof err);
        if (got == 0)
            break;
        if (got < 0) {
            cli_error("%s: %s", path, err);
            rc = CLI_USAGE;
            break;
        }
        int r = texel_add_game(set, sample, g->variant, g->start_fen, g->moves, g->plies,
                               g->result, err, sizeof err);
        if (r < 0) {
            cli_error("%s: game %d: %s", path, c.games, err);
            rc = CLI_USAGE;
            break;
        }
    }
    if (!g) {
        cli_error("out of memory");
        rc = CLI_SERVER;
    }
    if (rc == CLI_OK) {
        printf("%s: %d games\n", path, c.games);
        if (c.games == 0) {
            cli_error("%s: no PGN game in the file", path);
            rc = CLI_USAGE;
        }
    }
    free(g);
    free(text);
    return rc;
}

/* One EPD line: a FEN (4 to 6 fields) then the result as c9 "1-0"; or in
 * brackets, [1-0] or [1.0]. */
static int s_epd_line(char *line, variant_t v, texel_set_t *set, char *err, size_t errlen)
{
    char *label = strstr(line, "c9 \"");
    char *res = NULL;
    if (label) {
        *label = 0;
        res = label + 4;
        res[strcspn(res, "\"")] = 0;
    } else if ((label = strrchr(line, '['))) {
        *label = 0;
        res = label + 1;
        res[strcspn(res, "]")] = 0;
    } else {
        return capa_fail(err, errlen, CAPA_EINVAL, "no result (c9 \"1-0\"; or [1.0])");
    }
    double r;
    char *end;
    if (strcmp(res, "1-0") == 0)
        r = 1.0;
    else if (strcmp(res, "0-1") == 0)
        r = 0.0;
    else if (strcmp(res, "1/2-1/2") == 0)
        r = 0.5;
    else if ((r = strtod(res, &end)), end == res || *end)
        return capa_fail(err, errlen, CAPA_EINVAL, "result \"%s\" is not 1-0, 0-1, 1/2-1/2 "
                                                    "or a number", res);
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == ' ' || line[n - 1] == ';' || line[n - 1] == '\t'))
        line[--n] = 0;
    return texel_add_position(set, line, v, r, err, errlen);
}

static int s_from_epd(const char *path, variant_t v, texel_set_t *set, size_t limit)
{
    char *text = s_slurp(path);
    if (!text)
        return CLI_USAGE;
    int lineno = 0, rc = CLI_OK;
    char err[300];
    for (char *line = text; line && *line && (!limit || set->n < limit);) {
        char *next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        lineno++;
        line[strcspn(line, "\r")] = 0;
        char *s = line;
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s && *s != '#' && s_epd_line(s, v, set, err, sizeof err) < 0) {
            cli_error("%s line %d: %s", path, lineno, err);
            rc = CLI_USAGE;
            break;
        }
        line = next;
    }
    free(text);
    if (rc == CLI_OK)
        printf("%s: %d lines\n", path, lineno);
    return rc;
}

static int s_write_out(const char *path, const params_t *p)
{
    char *json = params_to_json(p, true);
    FILE *f = json ? fopen(path, "w") : NULL;
    bool ok = f && fprintf(f, "%s\n", json) > 0;
    if (f && fclose(f) != 0)
        ok = false;
    free(json);
    if (!ok) {
        cli_error("--out %s: %s", path, json ? strerror(errno) : "out of memory");
        return CLI_USAGE;
    }
    return CLI_OK;
}

/* The set as EPD, "FEN [label]" a line, readable by --epd (one variant). */
static int s_save_epd(const char *path, const texel_set_t *set)
{
    for (size_t i = 1; i < set->n; i++)
        if (set->pos[i].variant != set->pos[0].variant) {
            cli_error("--save-epd: the positions are of more than one variant, and --epd "
                      "reads one");
            return CLI_USAGE;
        }
    FILE *f = fopen(path, "w");
    bool ok = f != NULL;
    if (ok && set->n)
        ok = fprintf(f, "# variant %s\n", variant_name((variant_t) set->pos[0].variant)) > 0;
    for (size_t i = 0; ok && i < set->n; i++)
        ok = fprintf(f, "%s [%.4f]\n", set->pos[i].fen, set->pos[i].result) > 0;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok) {
        cli_error("--save-epd %s: %s", path, strerror(errno));
        return CLI_USAGE;
    }
    printf("wrote %zu positions to %s\n", set->n, path);
    return CLI_OK;
}

int cmd_tune(const cli_opts_t *o, const cli_args_t *a)
{
    (void) o;
    static const char *const allowed[] = {
        "db", "run", "pgn", "epd", "variant", "positions", "per_game", "skip_plies", "seed",
        "params", "tune_material", "start", "iterations", "steps", "rate", "l2", "k", "out",
        "label_engine", "label_nodes", "label_weight", "label_threads", "save_epd", NULL
    };
    int rc = cli_check_args(a, allowed, 0, "tune ... (capa tune --help lists the options)");
    if (rc)
        return rc;
    int sources = !!cli_opt(a, "db") + !!cli_opt(a, "pgn") + !!cli_opt(a, "epd");
    if (sources != 1) {
        cli_error("tune needs exactly one of --db, --pgn and --epd (%d given)", sources);
        return CLI_USAGE;
    }
    if (cli_opt(a, "run") && !cli_opt(a, "db")) {
        cli_error("--run needs --db");
        return CLI_USAGE;
    }
    long positions, per_game, skip, seed, iterations, steps;
    double rate, k_fixed, l2;
    if ((rc = s_long(a, "positions", 0, 0, 100000000, &positions)) ||
        (rc = s_long(a, "per_game", 10, 0, TEXEL_MAX_PLIES, &per_game)) ||
        (rc = s_long(a, "skip_plies", 8, 0, TEXEL_MAX_PLIES, &skip)) ||
        (rc = s_long(a, "seed", 1, 0, LONG_MAX, &seed)) ||
        (rc = s_long(a, "iterations", 10, 0, 10000, &iterations)) ||
        (rc = s_long(a, "steps", 300, 1, 1000000, &steps)))
        return rc;
    label_opts_t lo;
    label_opts_default(&lo);
    long label_nodes, label_threads;
    if ((rc = s_long(a, "label_nodes", 20000, 1, 1000000000, &label_nodes)) ||
        (rc = s_long(a, "label_threads", 1, 1, 256, &label_threads)))
        return rc;
    if (cli_double(a, "label_weight", 1.0, &lo.weight) < 0)
        return CLI_USAGE;
    if (!(lo.weight >= 0 && lo.weight <= 1)) {
        cli_error("--label-weight must be in [0, 1]");
        return CLI_USAGE;
    }
    lo.engine = cli_opt(a, "label_engine");
    if (!lo.engine && (cli_opt(a, "label_nodes") || cli_opt(a, "label_weight") ||
                       cli_opt(a, "label_threads"))) {
        cli_error("--label-nodes, --label-weight and --label-threads need --label-engine");
        return CLI_USAGE;
    }
    lo.nodes = (uint64_t) label_nodes;
    lo.threads = (int) label_threads;
    lo.progress = true;
    if (cli_double(a, "rate", 1.0, &rate) < 0 || cli_double(a, "k", 0.0, &k_fixed) < 0 ||
        cli_double(a, "l2", 0.0, &l2) < 0)
        return CLI_USAGE;
    if (!(rate > 0) || !(k_fixed >= 0) || !(l2 >= 0)) {
        cli_error("--rate must be > 0, --k and --l2 >= 0");
        return CLI_USAGE;
    }
    variant_t variant = VARIANT_CAPARANDOM;
    if (cli_opt(a, "variant") && variant_from_name(cli_opt(a, "variant"), &variant) < 0) {
        cli_error("--variant: \"%s\" is not one of capablanca, caparandom, gothic, embassy, "
                  "janus", cli_opt(a, "variant"));
        return CLI_USAGE;
    }
    texel_fit_opts_t fo;
    texel_fit_default(&fo);
    if ((rc = s_select(a, fo.tune)))
        return rc;
    fo.iterations = (int) iterations;
    fo.steps = (int) steps;
    fo.rate = rate;
    fo.l2 = l2;
    fo.log = stdout;
    params_t start;
    params_default(&start);
    if (cli_opt(a, "start")) {
        char *json = s_slurp(cli_opt(a, "start"));
        char err[256];
        if (!json)
            return CLI_USAGE;
        rc = params_from_json(json, &start, err, sizeof err);
        free(json);
        if (rc < 0) {
            cli_error("--start %s: %s", cli_opt(a, "start"), err);
            return CLI_USAGE;
        }
    }

    clock_t cpu0 = clock();
    texel_sample_t sample;
    texel_sample_default(&sample);
    sample.skip_plies = (int) skip;
    sample.per_game = (int) per_game;
    sample.seed = (uint64_t) seed;
    texel_set_t set;
    texel_set_init(&set);
    if (cli_opt(a, "db"))
        rc = s_from_db(a, &set, &sample, (size_t) positions);
    else if (cli_opt(a, "pgn"))
        rc = s_from_pgn(cli_opt(a, "pgn"), &set, &sample, (size_t) positions);
    else
        rc = s_from_epd(cli_opt(a, "epd"), variant, &set, (size_t) positions);
    if (rc)
        goto out;
    if (set.games)
        printf("positions: %zu from %zu games (%zu unfinished); of %zu plies skipped: %zu "
               "opening, %zu in check, %zu with a winning capture or a promotion\n",
               set.n, set.games, set.unfinished, set.plies, set.opening, set.in_check,
               set.noisy);
    else
        printf("positions: %zu\n", set.n);
    if (set.n == 0) {
        cli_error("no positions to fit");
        rc = CLI_USAGE;
        goto out;
    }
    if (lo.engine) {
        char lerr[600];
        int64_t l0 = uciproc_now_ms();
        if (label_set(&set, &lo, lerr, sizeof lerr) < 0) {
            cli_error("--label-engine: %s", lerr);
            rc = CLI_USAGE;
            goto out;
        }
        double mean = 0;
        for (size_t i = 0; i < set.n; i++)
            mean += set.pos[i].result;
        printf("labelled %zu positions with %s at %" PRIu64 " nodes (weight %.2f): mean label "
               "%.4f, %.1f s wall\n", set.n, lo.engine, lo.nodes, lo.weight, mean / (double) set.n,
               (double) (uciproc_now_ms() - l0) / 1000.0);
    }
    if (cli_opt(a, "save_epd") && (rc = s_save_epd(cli_opt(a, "save_epd"), &set)))
        goto out;
    int tuned = 0;
    for (int i = 0; i < PARAM_NB; i++)
        tuned += fo.tune[i];
    double k = k_fixed > 0 ? k_fixed : texel_fit_k(&set, &start);
    printf("K %.4f (%s); %d parameters tuned\n", k, k_fixed > 0 ? "given" : "fitted on the start",
           tuned);
    texel_fit_result_t res;
    char err[256];
    if (texel_fit(&set, &start, k, &fo, &res, err, sizeof err) < 0) {
        cli_error("%s", err);
        rc = CLI_USAGE;
        goto out;
    }
    table_t *t = table_new(4, (const char *[]) { "parameter", "start", "fitted", "change" },
                           "lrrr");
    for (int i = 0; t && i < PARAM_NB; i++) {
        if (res.best.value[i] == start.value[i])
            continue;
        table_addf(t, "%s", params_info(i)->name);
        table_addf(t, "%d", (int) start.value[i]);
        table_addf(t, "%d", (int) res.best.value[i]);
        table_addf(t, "%+d", (int) (res.best.value[i] - start.value[i]));
    }
    if ((rc = cli_print_table(t)))
        goto out;
    printf("error %.6f -> %.6f after %d iterations; %zu positions, K %.4f, %.1f s CPU\n",
           res.error_start, res.error_end, res.iterations, set.n, k,
           (double) (clock() - cpu0) / CLOCKS_PER_SEC);
    if (cli_opt(a, "out") && (rc = s_write_out(cli_opt(a, "out"), &res.best)) == CLI_OK)
        printf("wrote %s\n", cli_opt(a, "out"));
out:
    texel_set_free(&set);
    return rc;
}
