/* cmd_series.c - capa series [ID]: the study series (node ladders and
 * self-consistent iterations, docs/api.md "Study series"), or one series'
 * report: its steps, every contrast and value with its interval against
 * nodes per move or round, and whether the last two steps agree. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define SERIES_STEPS_SHOWN 12   /* columns of the figures table */

/* GET path into *rep; with --json it is printed and *rep is NULL. */
static int s_get(const cli_opts_t *o, const char *path, cJSON **rep)
{
    int rc = cli_get_json(o, path, rep);
    if (rc == CLI_OK && o->json) {
        cli_print_json(*rep);
        cJSON_Delete(*rep);
        *rep = NULL;
    }
    return rc;
}

static int s_list(const cli_opts_t *o)
{
    cJSON *rep = NULL;
    int rc = s_get(o, "/api/series", &rep);
    if (rc || !rep)
        return rc;
    static const char *const heads[] = { "id", "kind", "status", "steps", "name", "created (UTC)" };
    table_t *t = table_new(6, heads, "rllrll");
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(rep, "series")) {
        char when[32];
        cli_time_utc(cli_num(s, "created_at_ms"), when, sizeof when);
        table_addf(t, "%.0f", cli_num(s, "id"));
        table_addf(t, "%s", cli_str(s, "kind"));
        table_addf(t, "%s", cli_str(s, "status"));
        table_addf(t, "%.0f", cli_num(s, "steps_planned"));
        table_addf(t, "%s", cli_str(s, "name"));
        table_addf(t, "%s", when);
    }
    cJSON_Delete(rep);
    return cli_print_table(t);
}

/* "v [lo, hi]" of an interval object, "-" without one. */
static void s_iv(char *buf, size_t cap, const cJSON *iv, const char *fmt)
{
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(iv, "ci95");
    if (!cJSON_IsObject(iv) || cJSON_GetArraySize(ci) != 2) {
        snprintf(buf, cap, "-");
        return;
    }
    char f[48];
    snprintf(f, sizeof f, "%s [%s, %s]", fmt, fmt, fmt);
    snprintf(buf, cap, f, cli_num(iv, "value"), cJSON_GetArrayItem(ci, 0)->valuedouble,
             cJSON_GetArrayItem(ci, 1)->valuedouble);
}

static void s_steps(const cJSON *rep, bool ladder)
{
    static const char *const heads[] = { "step", "nodes", "run", "status", "pairs", "fit" };
    table_t *t = table_new(6, heads, "rrrlrl");
    const cJSON *s;
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(rep, "steps")) {
        table_addf(t, "%s %.0f", ladder ? "rung" : "round", cli_num(s, "step"));
        table_addf(t, "%.0f", cli_num(s, "nodes"));
        if (isfinite(cli_num(s, "run_id")))
            table_addf(t, "%.0f", cli_num(s, "run_id"));
        else
            table_addf(t, "-");
        table_addf(t, "%s", cli_str(s, "status"));
        if (isfinite(cli_num(s, "pairs")))
            table_addf(t, "%.0f/%.0f", cli_num(s, "pairs"), cli_num(s, "pairs_planned"));
        else
            table_addf(t, "-");
        if (cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "values")))
            table_addf(t, "%.0f games", cli_num(s, "games"));
        else
            table_addf(t, "%s", *cli_str(s, "values_error") ? cli_str(s, "values_error") : "-");
    }
    cli_print_table(t);
    if (ladder)
        return;
    printf("params played (<Piece>ValueMg/Eg, centipawns):\n");
    cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(rep, "steps")) {
        printf("  round %.0f:", cli_num(s, "step"));
        const cJSON *x;
        cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, "params"))
            printf("  %s %.0f/%.0f", cli_str(x, "piece"), cli_num(x, "mg"), cli_num(x, "eg"));
        printf("\n");
    }
}

/* One row per figure (contrasts first, then values), one column per step. */
static void s_figures(const cJSON *rep, bool ladder)
{
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(rep, "steps");
    int ns = 0;
    const cJSON *s;
    const char *heads[SERIES_STEPS_SHOWN + 1];
    char labels[SERIES_STEPS_SHOWN][32];
    char align[SERIES_STEPS_SHOWN + 2] = "l";
    heads[0] = "figure";
    cJSON_ArrayForEach(s, steps) {
        if (ns == SERIES_STEPS_SHOWN || !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s, "run_id")))
            break;
        if (ladder)
            snprintf(labels[ns], sizeof labels[ns], "%.0f nodes", cli_num(s, "nodes"));
        else
            snprintf(labels[ns], sizeof labels[ns], "round %.0f", cli_num(s, "step"));
        heads[ns + 1] = labels[ns];
        align[ns + 1] = 'r';
        ns++;
    }
    align[ns + 1] = 0;
    if (ns == 0)
        return;
    /* The figures: the first step with a fit lists them (all steps share
     * one design). */
    const cJSON *first = NULL;
    cJSON_ArrayForEach(s, steps)
        if (!first && cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(s, "values")))
            first = s;
    if (!first)
        return;
    printf("contrasts and values against %s (95%% intervals):\n",
           ladder ? "nodes per move" : "round");
    table_t *t = table_new((size_t) ns + 1, heads, align);
    char cell[96];
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(first, "contrasts")) {
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable")))
            continue;
        const char *name = cli_str(c, "name");
        bool pawns = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c, "pawns"));
        table_addf(t, "%s (%s)", name, pawns ? "pawns" : "Elo");
        int k = 0;
        cJSON_ArrayForEach(s, steps) {
            if (k++ == ns)
                break;
            const cJSON *iv = NULL, *x;
            cJSON_ArrayForEach(x, cJSON_GetObjectItemCaseSensitive(s, "contrasts"))
                if (strcmp(cli_str(x, "name"), name) == 0)
                    iv = cJSON_GetObjectItemCaseSensitive(x, pawns ? "pawns" : "elo");
            s_iv(cell, sizeof cell, iv, pawns ? "%+.2f" : "%+.0f");
            table_addf(t, "%s", cell);
        }
    }
    const cJSON *v;
    cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(first, "values")) {
        if (!cJSON_IsObject(v) || strcmp(v->string, "P") == 0)
            continue;
        table_addf(t, "%s (pawns)", v->string);
        int k = 0;
        cJSON_ArrayForEach(s, steps) {
            if (k++ == ns)
                break;
            s_iv(cell, sizeof cell,
                 cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(s, "values"), v->string),
                 "%.2f");
            table_addf(t, "%s", cell);
        }
    }
    cli_print_table(t);
}

static void s_convergence(const cJSON *rep)
{
    const cJSON *conv = cJSON_GetObjectItemCaseSensitive(rep, "convergence");
    if (!cJSON_IsObject(conv)) {
        printf("convergence: not judged yet (two steps with a fit are needed)\n");
        return;
    }
    bool yes = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(conv, "converged"));
    if (cli_num(conv, "compared") < 1) {
        printf("convergence, step %.0f to %.0f: nothing to compare yet (no figure in the same unit in both: "
               "a step whose pawn is not decisive gives its contrasts in Elo only)\n",
               cli_num(conv, "from_step"), cli_num(conv, "to_step"));
        return;
    }
    printf("convergence, step %.0f to %.0f: %s (%.0f of %.0f figures within)\n",
           cli_num(conv, "from_step"), cli_num(conv, "to_step"), yes ? "converged" : "not converged",
           cli_num(conv, "within"), cli_num(conv, "compared"));
    static const char *const heads[] = { "figure", "before", "after", "shift", "half-width", "within" };
    table_t *t = table_new(6, heads, "lrrrrl");
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(conv, "figures")) {
        bool elo = strcmp(cli_str(f, "unit"), "elo") == 0;
        const char *fmt = elo ? "%.0f" : "%.2f";
        table_addf(t, "%s (%s)", cli_str(f, "name"), elo ? "Elo" : "pawns");
        table_addf(t, fmt, cli_num(f, "before"));
        table_addf(t, fmt, cli_num(f, "after"));
        table_addf(t, elo ? "%+.0f" : "%+.2f", cli_num(f, "shift"));
        table_addf(t, fmt, cli_num(f, "half_width"));
        table_addf(t, "%s", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(f, "within")) ? "yes" : "no");
    }
    cli_print_table(t);
    printf("(%s)\n", cli_str(rep, "rule"));
}

int cmd_series(const cli_opts_t *o, const cli_args_t *a)
{
    int rc = cli_check_args(a, NULL, -1, "series [ID]");
    if (rc)
        return rc;
    if (a->argc == 0)
        return s_list(o);
    if (a->argc != 1) {
        cli_error("usage: capa series [ID]");
        return CLI_USAGE;
    }
    int64_t id = cli_parse_id(a->argv[0]);
    if (id < 0)
        return CLI_USAGE;
    char path[64];
    snprintf(path, sizeof path, "/api/series/%lld", (long long) id);
    cJSON *rep = NULL;
    rc = s_get(o, path, &rep);
    if (rc || !rep)
        return rc;
    bool ladder = strcmp(cli_str(rep, "kind"), "ladder") == 0;
    printf("series %.0f: %s\n", cli_num(rep, "id"), cli_str(rep, "name"));
    printf("  %s, status %s", ladder ? "node ladder (rungs one after another, cheapest first)"
                                     : "self-consistent iteration", cli_str(rep, "status"));
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(rep, "result");
    if (cJSON_IsObject(res))
        printf(": %s", cli_str(res, "why"));
    printf("\n");
    if (!ladder) {
        const cJSON *it = cJSON_GetObjectItemCaseSensitive(rep, "iterate");
        printf("  iterated:");
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(it, "pieces"))
            if (cJSON_IsString(p))
                printf(" %s", p->valuestring);
        printf(" (at most %.0f rounds); %s\n", cli_num(it, "max_rounds"), cli_str(it, "conversion"));
    }
    s_steps(rep, ladder);
    s_figures(rep, ladder);
    s_convergence(rep);
    cJSON_Delete(rep);
    return CLI_OK;
}
