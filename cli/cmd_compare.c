/* cmd_compare.c - capa compare ID1 ID2: how far the contrasts of one values
 * study moved in another (a sensitivity study: the same design with the
 * engine's piece table changed, another node count, another engine). The
 * runs are independent samples, so the shift's variance is the sum of the
 * two (from each Wald interval in Elo: se = half-width / 1.96); "within
 * noise" when the shift's 95% interval holds 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define S_Z95 1.959963984540054

/* The contrast named `name` in a report's fit, or NULL. */
static const cJSON *s_contrast(const cJSON *rep, const char *name)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep, "values"),
                                                           "contrasts")) {
        const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
        if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0 &&
            cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable")))
            return c;
    }
    return NULL;
}

/* value and standard error of an interval object {"value", "ci95"}; 0 or -1. */
static int s_est(const cJSON *o, double *v, double *se)
{
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(o, "ci95");
    if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(o, "value")) || cJSON_GetArraySize(ci) != 2)
        return -1;
    *v = cli_num(o, "value");
    *se = (cJSON_GetArrayItem(ci, 1)->valuedouble - cJSON_GetArrayItem(ci, 0)->valuedouble) / (2.0 * S_Z95);
    return 0;
}

static int s_report(const cli_opts_t *o, int64_t id, cJSON **out)
{
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/report", (long long) id);
    int rc = cli_get_json(o, path, out);
    if (rc)
        return rc;
    if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(*out, "values"))) {
        cli_error("run %lld has no piece-value fit (%s)", (long long) id,
                  cJSON_IsString(cJSON_GetObjectItemCaseSensitive(*out, "values_error"))
                      ? cli_str(*out, "values_error")
                      : "not a values run");
        cJSON_Delete(*out);
        *out = NULL;
        return CLI_REFUSED;
    }
    return CLI_OK;
}

int cmd_compare(const cli_opts_t *o, const cli_args_t *a)
{
    int rc = cli_check_args(a, NULL, 2, "compare ID1 ID2");
    if (rc)
        return rc;
    int64_t id[2];
    for (int i = 0; i < 2; i++)
        if ((id[i] = cli_parse_id(a->argv[i])) < 0)
            return CLI_USAGE;
    cJSON *rep[2] = { NULL, NULL };
    for (int i = 0; i < 2 && rc == CLI_OK; i++)
        rc = s_report(o, id[i], &rep[i]);
    if (rc) {
        cJSON_Delete(rep[0]);
        return rc;
    }
    cJSON *out = cJSON_CreateObject();
    cJSON *list = cJSON_AddArrayToObject(out, "shifts");
    static const char *const heads[] = { "contrast", "run 1 Elo", "run 2 Elo", "shift Elo", "" };
    table_t *t = table_new(5, heads, "lrrrl");
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep[0], "values"),
                                                           "contrasts")) {
        const char *name = cli_str(c, "name");
        const cJSON *c2 = s_contrast(rep[1], name);
        double v1, s1, v2, s2;
        if (!c2 || !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "estimable")) ||
            s_est(cJSON_GetObjectItemCaseSensitive(c, "elo"), &v1, &s1) < 0 ||
            s_est(cJSON_GetObjectItemCaseSensitive(c2, "elo"), &v2, &s2) < 0)
            continue;
        double d = v2 - v1, h = S_Z95 * sqrt(s1 * s1 + s2 * s2);
        int noise = d - h <= 0.0 && 0.0 <= d + h;
        table_addf(t, "%s", name);
        table_addf(t, "%+.1f +- %.1f", v1, S_Z95 * s1);
        table_addf(t, "%+.1f +- %.1f", v2, S_Z95 * s2);
        table_addf(t, "%+.1f [%+.1f, %+.1f]", d, d - h, d + h);
        table_addf(t, "%s", noise ? "within noise" : "moved");
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", name);
        cJSON_AddNumberToObject(e, "elo1", v1);
        cJSON_AddNumberToObject(e, "elo2", v2);
        cJSON_AddNumberToObject(e, "shift_elo", d);
        cJSON *ci = cJSON_AddArrayToObject(e, "shift_ci95");
        cJSON_AddItemToArray(ci, cJSON_CreateNumber(d - h));
        cJSON_AddItemToArray(ci, cJSON_CreateNumber(d + h));
        /* in run 1's pawns, when it has them */
        double k = cli_num(cJSON_GetObjectItemCaseSensitive(rep[0], "values"), "elo_per_pawn");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep[0], "values"),
                                                          "scaled")) && k > 0)
            cJSON_AddNumberToObject(e, "shift_pawns", d / k);
        cJSON_AddBoolToObject(e, "within_noise", noise);
        cJSON_AddItemToArray(list, e);
    }
    if (o->json) {
        cli_print_json(out);
        table_destroy(&t);
    } else {
        printf("run 1 = %lld (%s), run 2 = %lld (%s); shift = run 2 - run 1, 95%% interval\n",
               (long long) id[0], cli_str(rep[0], "name"), (long long) id[1], cli_str(rep[1], "name"));
        if (cJSON_GetArraySize(list) == 0)
            printf("no contrast is determined in both runs\n");
        cli_print_table(t);
        double k = cli_num(cJSON_GetObjectItemCaseSensitive(rep[0], "values"), "elo_per_pawn");
        if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(rep[0], "values"),
                                                          "scaled")) && k > 0)
            printf("(run 1 has %.1f Elo per pawn: divide by it for pawns)\n", k);
    }
    cJSON_Delete(out);
    cJSON_Delete(rep[0]);
    cJSON_Delete(rep[1]);
    return CLI_OK;
}
