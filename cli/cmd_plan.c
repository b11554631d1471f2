/* cmd_plan.c - capa plan: what a piece-value study will determine, and at
 * what cost, before a game is played (common/stats_plan.h). Offline: reads
 * the run document from a file, asks no coordinator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "err.h"
#include "rundoc.h"
#include "stats_plan.h"

/* What this engine measured (docs/methods.md, "Planning a study"): nodes
 * per second of one game thread in self-play, and the mean length of
 * imbalance games under the run defaults' adjudication (resign 700 cp). */
#define PLAN_NPS_DEFAULT 1600000.0
#define PLAN_PLIES_DEFAULT 110.0

/* "N=3,B=3.5,A=8" into v (other pieces keep theirs); 0 or -1 after a message. */
static int s_values(const char *text, double v[STATS_PIECE_NB])
{
    const char *c = text;
    while (*c) {
        const char *at = strchr("PNBRACQ", *c);
        if (!*c || !at || c[1] != '=') {
            cli_error("--values: expected LETTER=VALUE[,...] with letters P N B R A C Q, at \"%s\"", c);
            return -1;
        }
        char *end;
        double x = strtod(c + 2, &end);
        if (end == c + 2 || !isfinite(x) || (*end && *end != ',')) {
            cli_error("--values: \"%s\" is not a number", c + 2);
            return -1;
        }
        if (*at == 'P' && x != 1.0) {
            cli_error("--values: the pawn is the unit (P=1)");
            return -1;
        }
        v[at - "PNBRACQ"] = x;
        c = *end ? end + 1 : end;
    }
    return 0;
}

/* The study's CPU time in hours: games x plies x (nodes / nps), or with a
 * clock each game's two budgets (base + increment per own move). */
static double s_cpu_hours(const rundoc_t *doc, int64_t games, double nps, double plies)
{
    double per_game;
    if (doc->game.nodes > 0)
        per_game = plies * (double) doc->game.nodes / nps;
    else
        per_game = 2.0 * ((double) doc->game.tc_base_ms + plies / 2.0 * (double) doc->game.tc_inc_ms) / 1000.0;
    return (double) games * per_game / 3600.0;
}

/* The plan of one study (or one rung of a ladder: doc->game.nodes set to
 * it) as JSON or text; 0, or a CLI_ code after a message. */
static int s_plan_one(const cli_opts_t *o, const char *file, const rundoc_t *doc,
                      const stats_plan_assume_t *as, double target, double nps, double plies,
                      double *hours_out, cJSON **json_out)
{
    char err[512];
    stats_plan_t plan;
    int rc = rundoc_values_plan(doc, as, target, &plan, err, sizeof err);
    if (rc < 0) {
        cli_error("%s: %s", file, err);
        /* the options were checked: what is left is the design itself */
        return rc == CAPA_EINVAL ? CLI_REFUSED : CLI_USAGE;
    }
    double hours = s_cpu_hours(doc, plan.games, nps, plies);
    *hours_out = hours;
    if (o->json) {
        cJSON *j = stats_plan_to_json(&plan);
        if (doc->game.nodes > 0)
            cJSON_AddNumberToObject(j, "nodes", (double) doc->game.nodes);
        cJSON *asm_ = cJSON_AddObjectToObject(j, "assumed");
        cJSON_AddNumberToObject(asm_, "logit_per_pawn", as->logit_per_pawn);
        cJSON_AddNumberToObject(asm_, "draw_ratio", as->draw_ratio);
        cJSON_AddNumberToObject(asm_, "white_logit", as->white);
        cJSON *vals = cJSON_AddObjectToObject(asm_, "values");
        for (int p = 0; p < STATS_PIECE_NB; p++) {
            char key[2] = { stats_piece_letter(p), 0 };
            cJSON_AddNumberToObject(vals, key, as->value[p]);
        }
        cJSON_AddNumberToObject(asm_, "nps", nps);
        cJSON_AddNumberToObject(asm_, "plies_per_game", plies);
        cJSON_AddNumberToObject(j, "cpu_hours", hours);
        *json_out = j;
        return 0;
    }
    printf("study \"%s\": %zu imbalances, %lld pairs, ", doc->name, doc->imbalance_count,
           (long long) plan.pairs);
    if (doc->game.nodes > 0)
        printf("%lld nodes per move\n", (long long) doc->game.nodes);
    else
        printf("%.1f+%.2f s per game\n", doc->game.tc_base_ms / 1000.0, doc->game.tc_inc_ms / 1000.0);
    printf("assumed: %.3f logit per pawn (the side a pawn up scores %.1f%%), %.0f%% draws, White's edge "
           "%.2f logit;\n         values N %g B %g R %g A %g C %g Q %g (change with --values)\n",
           as->logit_per_pawn, 100.0 / (1.0 + exp(-as->logit_per_pawn)), 100.0 * as->draw_ratio, as->white,
           as->value[STATS_N], as->value[STATS_B], as->value[STATS_R], as->value[STATS_A], as->value[STATS_C],
           as->value[STATS_Q]);
    char text[8192];
    stats_plan_format(&plan, text, sizeof text);
    fputs(text, stdout);
    printf("CPU time: about %.1f hours (%lld games x %.0f plies", hours, (long long) plan.games, plies);
    if (doc->game.nodes > 0)
        printf(" x %lld nodes at %.0f nodes/s", (long long) doc->game.nodes, nps);
    printf("; change with --plies, --nps)\n");
    return 0;
}

int cmd_plan(const cli_opts_t *o, const cli_args_t *a)
{
    static const char *const allowed[] = { "logit_per_pawn", "draw_ratio", "white", "values",
                                           "target", "nps", "plies", NULL };
    int rc = cli_check_args(a, allowed, 1,
                            "plan FILE.json [--target PAWNS] [--logit-per-pawn K] [--draw-ratio D] "
                            "[--white W] [--values N=3,B=3.5,...] [--nps N] [--plies N]");
    if (rc)
        return rc;
    stats_plan_assume_t as;
    stats_plan_assume_default(&as);
    double k_given = 0.0, target = 0.0, nps = PLAN_NPS_DEFAULT, plies = PLAN_PLIES_DEFAULT;
    if (cli_double(a, "logit_per_pawn", 0.0, &k_given) < 0 ||
        cli_double(a, "draw_ratio", as.draw_ratio, &as.draw_ratio) < 0 ||
        cli_double(a, "white", as.white, &as.white) < 0 || cli_double(a, "target", 0.0, &target) < 0 ||
        cli_double(a, "nps", nps, &nps) < 0 || cli_double(a, "plies", plies, &plies) < 0)
        return CLI_USAGE;
    if (cli_opt(a, "values") && s_values(cli_opt(a, "values"), as.value) < 0)
        return CLI_USAGE;
    if (target < 0.0 || !(nps > 0.0) || !(plies > 0.0)) {
        cli_error("--target must be >= 0, --nps and --plies > 0");
        return CLI_USAGE;
    }
    if ((cli_opt(a, "logit_per_pawn") && !(k_given > 0.0 && k_given < 5.0)) ||
        !(as.draw_ratio >= 0.0 && as.draw_ratio < 1.0) || !(fabs(as.white) <= 2.0)) {
        cli_error("--logit-per-pawn is in (0, 5), --draw-ratio in [0, 1), --white in [-2, 2]");
        return CLI_USAGE;
    }
    char err[512];
    rundoc_t *doc = NULL;
    if (rundoc_load_file(a->argv[0], NULL, NULL, &doc, err, sizeof err) < 0) {
        cli_error("%s: %s", a->argv[0], err);
        return CLI_USAGE;
    }
    if (doc->kind != PROTO_KIND_VALUES) {
        cli_error("%s: capa plan reads piece-value studies (\"kind\": \"values\")", a->argv[0]);
        rundoc_destroy(&doc);
        return CLI_USAGE;
    }
    /* A ladder is planned rung by rung: each its own nodes and, unless
     * --logit-per-pawn says otherwise, the pawn this engine showed there. */
    size_t steps = doc->ladder_count > 0 ? doc->ladder_count : 1;
    cJSON *rungs = o->json && doc->ladder_count > 0 ? cJSON_CreateArray() : NULL;
    cJSON *one = NULL;
    double total = 0.0;
    for (size_t i = 0; i < steps && rc == 0; i++) {
        if (doc->ladder_count > 0) {
            doc->game.nodes = doc->ladder[i];
            if (!o->json)
                printf("%srung %zu of %zu:\n", i ? "\n" : "", i + 1, steps);
        }
        as.logit_per_pawn = cli_opt(a, "logit_per_pawn") ? k_given : stats_plan_logit_per_pawn_at(doc->game.nodes);
        double hours = 0.0;
        cJSON *j = NULL;
        rc = s_plan_one(o, a->argv[0], doc, &as, target, nps, plies, &hours, &j);
        total += hours;
        if (j && rungs)
            cJSON_AddItemToArray(rungs, j);
        else if (j)
            one = j;
    }
    if (rc == 0 && o->json) {
        if (rungs) {
            one = cJSON_CreateObject();
            cJSON_AddItemToObject(one, "rungs", rungs);
            cJSON_AddNumberToObject(one, "cpu_hours", total);
            rungs = NULL;
        }
        cli_print_json(one);
    } else if (rc == 0 && doc->ladder_count > 0) {
        printf("\nCPU time of the whole ladder: about %.1f hours\n", total);
    } else if (rc == 0 && doc->series == RUNDOC_SERIES_ITERATE) {
        /* docs/api.md "Study series": this plan once per round */
        printf("iteration of %s: this plan once per round, at most %d rounds: up to about %.1f "
               "hours\n", doc->iterate, doc->max_rounds, total * doc->max_rounds);
    }
    cJSON_Delete(rungs);
    cJSON_Delete(one);
    rundoc_destroy(&doc);
    return rc;
}
