/* cmd_info.c - capa workers, contributors, contributor add. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "table.h"

/* GET path; prints the JSON with --json and returns 1 in *done. */
static int s_get(const cli_opts_t *o, const cli_args_t *a, const char *usage, const char *path,
                 cJSON **out, bool *done)
{
    *done = false;
    int rc = cli_check_args(a, NULL, 0, usage);
    if (rc)
        return rc;
    rc = cli_get_json(o, path, out);
    if (rc)
        return rc;
    if (o->json) {
        cli_print_json(*out);
        cJSON_Delete(*out);
        *out = NULL;
        *done = true;
    }
    return CLI_OK;
}

int cmd_workers(const cli_opts_t *o, const cli_args_t *a)
{
    cJSON *out = NULL;
    bool done;
    int rc = s_get(o, a, "workers", "/api/workers", &out, &done);
    if (rc || done)
        return rc;
    static const char *const heads[] = { "worker", "name", "contributor", "state", "cores",
                                         "knps", "pairs", "CPU h", "last seen (UTC)" };
    table_t *t = table_new(9, heads, "llllrrrrl");
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(out, "workers")) {
        char when[32];
        cli_time_utc(cli_num(w, "last_seen_ms"), when, sizeof when);
        bool flagged = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "flagged"));
        bool live = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "live"));
        table_addf(t, "%s", cli_str(w, "id"));
        table_addf(t, "%s", cli_str(w, "name"));
        table_addf(t, "%s", cli_str(w, "contributor"));
        table_addf(t, "%s", flagged ? "flagged" : live ? "live" : "away");
        table_addf(t, "%.0f", cli_num(w, "cores"));
        table_addf(t, "%.0f", cli_num(w, "nps") / 1000);
        table_addf(t, "%.0f", cli_num(w, "pairs"));
        table_addf(t, "%.2f", cli_num(w, "cpu_hours"));
        table_addf(t, "%s", when);
    }
    printf("%.0f live\n", cli_num(out, "live"));
    cJSON_Delete(out);
    return cli_print_table(t);
}

int cmd_contributors(const cli_opts_t *o, const cli_args_t *a)
{
    cJSON *out = NULL;
    bool done;
    int rc = s_get(o, a, "contributors", "/api/contributors", &out, &done);
    if (rc || done)
        return rc;
    double days = cli_num(out, "recent_days");
    char h_cpu[24], h_games[24], h_pairs[24], h_share[24];
    snprintf(h_cpu, sizeof h_cpu, "CPU h %.0fd", days);
    snprintf(h_games, sizeof h_games, "games %.0fd", days);
    snprintf(h_pairs, sizeof h_pairs, "pairs %.0fd", days);
    snprintf(h_share, sizeof h_share, "share %.0fd", days);
    const char *const heads[] = { "id", "name", "role", "active", "workers", "last seen (UTC)",
                                  "CPU hours", "games", "pairs", "share",
                                  h_cpu, h_games, h_pairs, h_share };
    table_t *t = table_new(14, heads, "rllrrlrrrrrrrr");
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(out, "contributors")) {
        bool revoked = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "revoked"));
        bool admin = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "admin"));
        char when[32];
        if (cli_num(c, "last_seen_ms") > 0)
            cli_time_utc(cli_num(c, "last_seen_ms"), when, sizeof when);
        else
            snprintf(when, sizeof when, "never");
        table_addf(t, "%.0f", cli_num(c, "id"));
        table_addf(t, "%s", cli_str(c, "name"));
        table_addf(t, "%s", revoked ? "revoked" : admin ? "admin" : "");
        table_addf(t, "%.0f", cli_num(c, "active_workers"));
        table_addf(t, "%.0f", cli_num(c, "workers"));
        table_addf(t, "%s", when);
        table_addf(t, "%.2f", cli_num(c, "cpu_hours"));
        table_addf(t, "%.0f", cli_num(c, "games"));
        table_addf(t, "%.0f", cli_num(c, "pairs"));
        table_addf(t, "%.1f%%", 100.0 * cli_num(c, "share"));
        table_addf(t, "%.2f", cli_num(c, "cpu_hours_recent"));
        table_addf(t, "%.0f", cli_num(c, "games_recent"));
        table_addf(t, "%.0f", cli_num(c, "pairs_recent"));
        table_addf(t, "%.1f%%", 100.0 * cli_num(c, "share_recent"));
    }
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(out, "total");
    printf("%.2f CPU hours in all, %.2f in the last %.0f days, %.0f active worker(s)\n",
           cli_num(tot, "cpu_hours"), cli_num(tot, "cpu_hours_recent"), days,
           cli_num(tot, "active_workers"));
    cJSON_Delete(out);
    return cli_print_table(t);
}

int cmd_contributor(const cli_opts_t *o, const cli_args_t *a)
{
    static const char *const allowed[] = { "admin", NULL };
    int rc = cli_check_args(a, allowed, 2, "contributor add NAME [--admin]");
    if (rc)
        return rc;
    if (strcmp(a->argv[0], "add") != 0) {
        cli_error("usage: capa contributor add NAME [--admin]");
        return CLI_USAGE;
    }
    cJSON *in = cJSON_CreateObject();
    cJSON_AddStringToObject(in, "name", a->argv[1]);
    cJSON_AddBoolToObject(in, "admin", cli_opt(a, "admin") != NULL);
    char *body = cJSON_PrintUnformatted(in);
    cJSON_Delete(in);
    if (!body) {
        cli_error("out of memory");
        return CLI_USAGE;
    }
    cJSON *out = NULL;
    rc = cli_post_json(o, "/api/contributors", body, strlen(body), &out);
    free(body);
    if (rc)
        return rc;
    if (o->json) {
        cli_print_json(out);
    } else {
        fprintf(stderr, "contributor %.0f \"%s\"%s added; its token (shown only now):\n",
                cli_num(out, "id"), cli_str(out, "name"),
                cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(out, "admin")) ? " (admin)" : "");
        printf("%s\n", cli_str(out, "token"));
    }
    cJSON_Delete(out);
    return CLI_OK;
}
