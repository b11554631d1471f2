/* cmd_runworkers.c - capa workers ID: a run's per-worker breakdown (see
 * cmd_runworkers.h). */
#include "cmd_runworkers.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

static bool s_true(const cJSON *o, const char *key)
{
    return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int s_run_workers(const cli_opts_t *o, const cli_args_t *a)
{
    int64_t id;
    char path[64];
    int rc = cli_run_args(a, NULL, "workers [ID]", "/workers", &id, path, sizeof path);
    if (rc)
        return rc;
    cJSON *out = NULL;
    if ((rc = cli_get_json(o, path, &out)) != CLI_OK)
        return rc;
    if (o->json) {
        cli_print_json(out);
        cJSON_Delete(out);
        return CLI_OK;
    }
    const char *test = cli_str(out, "test");
    printf("run %lld (%s): ", (long long) id, cli_str(out, "kind"));
    if (strcmp(test, "pooled") == 0 || strcmp(test, "by_imbalance") == 0) {
        printf("chi-squared of each worker's pair scores against the others'%s, with at least "
               "%.0f pairs", strcmp(test, "by_imbalance") == 0 ? " by imbalance" : "",
               cli_num(out, "min_pairs"));
        double p_max = cli_num(out, "outlier_p");
        if (p_max > 0)
            printf("; outlier below p = %g", p_max);
        puts("");
    } else {
        puts("no outlier test for this kind of run");
    }
    static const char *const heads[] = { "worker", "contributor", "pairs", "excluded",
                                         "pentanomial", "W/D/L", "score", "chi2", "df", "p",
                                         "" };
    table_t *t = table_new(11, heads, "llrrrrrrrrl");
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(out, "workers")) {
        const cJSON *pe = cJSON_GetObjectItemCaseSensitive(w, "penta");
        double p[5];
        for (int b = 0; b < 5; b++) {
            const cJSON *v = cJSON_GetArrayItem(pe, b);
            p[b] = cJSON_IsNumber(v) ? v->valuedouble : NAN;
        }
        double score = cli_num(w, "score"), chi2 = cli_num(w, "chi2"), pv = cli_num(w, "p");
        bool flagged = s_true(w, "flagged"), outlier = s_true(w, "outlier");
        table_addf(t, "%s", cli_str(w, "id"));
        table_addf(t, "%s", cli_str(w, "contributor"));
        table_addf(t, "%.0f", cli_num(w, "pairs"));
        table_addf(t, "%.0f", cli_num(w, "excluded"));
        table_addf(t, "%.0f,%.0f,%.0f,%.0f,%.0f", p[0], p[1], p[2], p[3], p[4]);
        table_addf(t, "%.0f/%.0f/%.0f", cli_num(w, "wins"), cli_num(w, "draws"),
                   cli_num(w, "losses"));
        if (isfinite(score))
            table_addf(t, "%.1f%%", score * 100);
        else
            table_addf(t, "-");
        if (isfinite(chi2) && isfinite(pv)) {
            table_addf(t, "%.1f", chi2);
            table_addf(t, "%.0f", cli_num(w, "df"));
            table_addf(t, "%.2g", pv);
        } else {
            table_addf(t, "-");
            table_addf(t, "-");
            table_addf(t, "-");
        }
        table_addf(t, "%s%s%s", flagged ? "flagged" : "", flagged && outlier ? " " : "",
                   outlier ? "OUTLIER" : "");
    }
    size_t rows = t ? table_rows(t) : 0;
    cJSON_Delete(out);
    char *text = t ? table_format(t) : NULL;
    table_destroy(&t);
    if (!text) {
        cli_error("out of memory");
        return CLI_SERVER;
    }
    if (rows)
        fputs(text, stdout);
    else
        puts("no worker has stored a pair of this run yet");
    free(text);
    return CLI_OK;
}

int cmd_workers_or_run(const cli_opts_t *o, const cli_args_t *a)
{
    return a->argc == 0 ? cmd_workers(o, a) : s_run_workers(o, a);
}
