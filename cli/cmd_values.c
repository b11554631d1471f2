/* cmd_values.c - capa values: the current best piece-value estimate per
 * variant and engine version, with its provenance (GET /api/values); and the
 * printing of a fit (contrasts first) that capa show shares. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stats_values.h"
#include "table.h"

void cli_print_fit(const cJSON *vals)
{
    static const char *const names[] = { "P Pawn", "N Knight", "B Bishop", "R Rook",
                                         "A Archbishop", "C Chancellor", "Q Queen" };
    const cJSON *pieces = cJSON_GetObjectItemCaseSensitive(vals, "values");
    const cJSON *elo = cJSON_GetObjectItemCaseSensitive(vals, "values_elo");
    static const char *const cheads[] = { "contrast", "pawns", "Elo" };
    table_t *ct = table_new(3, cheads, "lrr");
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(vals, "contrasts")) {
        table_addf(ct, "%s", cli_str(c, "name"));
        if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable"))) {
            table_addf(ct, "not determined");
            table_addf(ct, "-");
            continue;
        }
        cli_cell(ct, cJSON_GetObjectItemCaseSensitive(c, "pawns"), "%+.2f");
        cli_cell(ct, cJSON_GetObjectItemCaseSensitive(c, "elo"), "%+.0f");
    }
    cli_print_table(ct);
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(vals, "clusters");
    if (cJSON_IsObject(cl) && strcmp(cli_str(cl, "by"), "round") == 0) {
        printf("intervals: %.0f rounds as clusters (the imbalances of a round share its start array)",
               cli_num(cl, "count"));
        const cJSON *pc = cJSON_GetObjectItemCaseSensitive(vals, "pair_clustered");
        const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pc, "contrasts"), 0);
        const cJSON *ci = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(c0, "pawns"), "ci95");
        if (cJSON_GetArraySize(ci) == 2)
            printf("; %s with pairs as clusters [%+.2f, %+.2f] pawns", cli_str(c0, "name"),
                   cJSON_GetNumberValue(cJSON_GetArrayItem(ci, 0)), cJSON_GetNumberValue(cJSON_GetArrayItem(ci, 1)));
        putchar('\n');
    }
    if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(vals, "scaled")))
        printf("%s\n", cli_str(vals, "note"));
    printf("values (pawns: Fieller 95%% interval; Elo: the piece against nothing):\n");
    static const char *const heads[] = { "piece", "pawns", "Elo" };
    table_t *t = table_new(3, heads, "lrr");
    for (int p = 0; p < 7; p++) {
        char key[2] = { names[p][0], 0 };
        const cJSON *pv = cJSON_GetObjectItemCaseSensitive(pieces, key);
        const cJSON *pe = cJSON_GetObjectItemCaseSensitive(elo, key);
        if (!cJSON_IsObject(pv) && !cJSON_IsObject(pe))
            continue;
        table_addf(t, "%s", names[p] + 2);
        cli_cell(t, pv, "%.2f");
        cli_cell(t, pe, "%.0f");
    }
    cli_print_table(t);
    const cJSON *note;
    cJSON_ArrayForEach(note, cJSON_GetObjectItemCaseSensitive(vals, "not_separated"))
        if (cJSON_IsString(note))
            printf("not separated: %s\n", note->valuestring);
    for (int k = 0; k < STATS_COV_NB; k++) {
        const cJSON *up = cJSON_GetObjectItemCaseSensitive(vals, stats_covariate_key(k));
        const char *title = k == STATS_COV_UNPROT ? "unprotected pawns" : "king's shelter";
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(up, "fitted"))) {
            const cJSON *lg = cJSON_GetObjectItemCaseSensitive(up, "logit");
            const cJSON *lci = cJSON_GetObjectItemCaseSensitive(lg, "ci95");
            printf("%s (adjusted for; side under test %+.2f on average): %+.3f logit per %s [%+.3f, %+.3f]", title,
                   cli_num(up, "mean"), cli_num(lg, "value"), stats_covariate_name(k),
                   cJSON_GetNumberValue(cJSON_GetArrayItem(lci, 0)), cJSON_GetNumberValue(cJSON_GetArrayItem(lci, 1)));
            const cJSON *c0 = cJSON_GetArrayItem(
                cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(up, "unadjusted"), "contrasts"), 0);
            const cJSON *pw = cJSON_GetObjectItemCaseSensitive(c0, "pawns");
            if (cJSON_IsObject(pw))
                printf("; unadjusted %s %+.2f pawns", cli_str(c0, "name"), cli_num(pw, "value"));
            putchar('\n');
        } else if (cJSON_IsObject(up)) {
            printf("%s: %s\n", title, cli_str(up, "note"));
        }
    }
    const cJSON *lof = cJSON_GetObjectItemCaseSensitive(vals, "lack_of_fit");
    if (cJSON_IsObject(lof))
        printf("lack of fit over the imbalances: chi2 %.2f on %.0f df, p %.3g\n", cli_num(lof, "chi2"),
               cli_num(lof, "df"), cli_num(lof, "p"));
    printf("scale: %.4f logit per pawn (%.1f Elo); White scores %.1f%% when level\n",
           cli_num(vals, "logit_per_pawn"), cli_num(vals, "elo_per_pawn"),
           100.0 * cli_num(vals, "white_score"));
    printf("unit: %s\n", cli_str(vals, "unit"));

}

/* "20000 nodes per move" or the clock, of an object with nodes or tc_*. */
static void s_search(const cJSON *o, char *buf, size_t cap)
{
    double nodes = cli_num(o, "nodes");
    if (nodes > 0)
        snprintf(buf, cap, "%.0f nodes per move", nodes);
    else
        snprintf(buf, cap, "%.1f s + %.2f s a move", cli_num(o, "tc_base_ms") / 1000,
                 cli_num(o, "tc_inc_ms") / 1000);
}

static void s_engine(const cJSON *o, char *buf, size_t cap)
{
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "engine");
    double bench = cli_num(e, "bench");
    if (!(bench > 0))
        snprintf(buf, cap, "engine unknown");
    else if (*cli_str(e, "version"))
        snprintf(buf, cap, "engine bench %.0f (%s)", bench, cli_str(e, "version"));
    else
        snprintf(buf, cap, "engine bench %.0f", bench);
}

static const char USAGE[] = "values [--variant V]";

int cmd_values(const cli_opts_t *o, const cli_args_t *a)
{
    static const char *const allowed[] = { "variant", NULL };
    int rc = cli_check_args(a, allowed, 0, USAGE);
    if (rc)
        return rc;
    char path[96] = "/api/values";
    const char *variant = cli_opt(a, "variant");
    if (variant) {
        static const char *const known[] = { "capablanca", "caparandom", "gothic", "embassy",
                                             "janus" };
        bool ok = false;
        for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
            ok = ok || strcmp(variant, known[i]) == 0;
        if (!ok) {
            cli_error("--variant: \"%s\" is not one of capablanca, caparandom, gothic, embassy, "
                      "janus", variant);
            return CLI_USAGE;
        }
        snprintf(path, sizeof path, "/api/values?variant=%s", variant);
    }
    cJSON *out = NULL;
    rc = cli_get_or_print(o, path, &out);
    if (rc || !out)
        return rc;
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(out, "message");
    if (cJSON_IsString(msg))
        printf("%s\n", msg->valuestring);
    const cJSON *e;
    int count = 0;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(out, "estimates")) {
        const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "provenance");
        char engine[192], search[64], when[32];
        s_engine(e, engine, sizeof engine);
        s_search(p, search, sizeof search);
        cli_time_utc(cli_num(p, "fitted_at_ms"), when, sizeof when);
        const cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "runs"), 0);
        printf("%s%s, %s\n", count++ ? "\n" : "", cli_str(e, "variant"), engine);
        printf("  from run %.0f \"%s\" (%s), %s, %.0f pairs (%.0f games), fitted %s UTC\n",
               cJSON_IsNumber(run) ? run->valuedouble : 0, cli_str(p, "name"),
               cli_str(p, "status"), search, cli_num(p, "pairs"), cli_num(p, "games"), when);
        printf("contrasts (first piece minus second, 95%% intervals):\n");
        cli_print_fit(e);
    }
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(out, "runs");
    if (cJSON_GetArraySize(runs) > 0) {
        printf("%svalues runs (best: the estimate above; the rule: %s)\n", count ? "\n" : "",
               cli_str(out, "rule"));
        static const char *const heads[] = { "run", "status", "variant", "engine", "search",
                                             "pairs fitted", "A-C pawns", "" };
        table_t *t = table_new(8, heads, "rlllrrrl");
        const cJSON *r;
        cJSON_ArrayForEach(r, runs) {
            char engine[192], search[64];
            s_engine(r, engine, sizeof engine);
            s_search(r, search, sizeof search);
            table_addf(t, "%.0f", cli_num(r, "run"));
            table_addf(t, "%s", cli_str(r, "status"));
            table_addf(t, "%s", cli_str(r, "variant"));
            table_addf(t, "%s", engine);
            table_addf(t, "%s", search);
            table_addf(t, "%.0f", cli_num(r, "pairs_used"));
            const cJSON *ac = cJSON_GetObjectItemCaseSensitive(r, "A-C");
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(ac, "estimable")))
                cli_cell(t, cJSON_GetObjectItemCaseSensitive(ac, "pawns"), "%+.2f");
            else
                table_addf(t, "-");
            bool best = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "best"));
            bool changed = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r, "params_changed"));
            table_addf(t, "%s", best ? "best" : changed ? "changed parameters" : cli_str(r, "error"));
        }
        rc = cli_print_table(t);
    }
    cJSON_Delete(out);
    return rc;
}
