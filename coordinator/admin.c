/* admin.c - contributors and runs, straight on the database (see admin.h). */
#include "admin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <sodium.h>

#include "err.h"
#include "log.h"
#include "params.h"
#include "report.h"
#include "rundoc.h"
#include "runinfo.h"
#include "series.h"
#include "token.h"
#include "timefmt.h"

int admin_contributor_add(store_t *store, const char *name, bool is_admin, char *token_out,
                          size_t cap, int64_t *id_out, char *err, size_t errlen)
{
    if (!name || !*name || strlen(name) > 127)
        return capa_fail(err, errlen, CAPA_EINVAL, "a contributor name has 1..127 bytes");
    for (const unsigned char *s = (const unsigned char *) name; *s; s++)
        if (*s < 0x20 || *s == 0x7f)
            return capa_fail(err, errlen, CAPA_EINVAL, "a contributor name has no control characters");
    char hash[TOKEN_HASH_MAX];
    if (token_generate(token_out, cap) < 0 || token_hash(token_out, hash, sizeof hash) < 0)
        return capa_fail(err, errlen, CAPA_EIO, "cannot make a token");
    int64_t id = 0;
    int rc = store_contributor_add(store, name, hash, is_admin, &id);
    if (rc == CAPA_EDUP)
        return capa_fail(err, errlen, rc, "contributor \"%s\" exists", name);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    if (id_out)
        *id_out = id;
    return 0;
}

int admin_contributor_find(store_t *store, const char *name, store_contributor_t *out,
                           char *err, size_t errlen)
{
    store_contributor_t *list = NULL;
    size_t n = 0;
    int rc = store_contributor_list(store, &list, &n);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    rc = capa_fail(err, errlen, CAPA_ENOTFOUND, "no contributor \"%s\"", name);
    for (size_t i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0) {
            *out = list[i];
            rc = 0;
            break;
        }
    free(list);
    return rc;
}

int admin_contributor_revoke(store_t *store, const char *name, char *err, size_t errlen)
{
    store_contributor_t c;
    int rc = admin_contributor_find(store, name, &c, err, errlen);
    if (rc < 0)
        return rc;
    rc = store_contributor_revoke(store, c.id);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    return 0;
}

/* A values study's plan: refused when it can determine nothing; else the
 * sentences on what it cannot separate, as JSON strings. */
static int s_plan_check(const rundoc_t *doc, cJSON **warnings, char *err, size_t errlen)
{
    if (doc->kind != PROTO_KIND_VALUES)
        return 0;
    stats_plan_t plan;
    char why[512];
    if (rundoc_values_plan(doc, NULL, 0.0, &plan, why, sizeof why) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "imbalances: %s", why);
    for (int i = 0; warnings && *warnings && i < plan.n_notes; i++)
        cJSON_AddItemToArray(*warnings, cJSON_CreateString(plan.notes[i]));
    return 0;
}

int admin_run_submit(store_t *store, const char *json, size_t len, int64_t submitted_by,
                     int64_t *id_out, cJSON **warnings, char *err, size_t errlen)
{
    return admin_submit(store, json, len, submitted_by, id_out, NULL, warnings, err, errlen);
}

int admin_submit(store_t *store, const char *json, size_t len, int64_t submitted_by,
                 int64_t *id_out, int64_t *series_out, cJSON **warnings, char *err, size_t errlen)
{
    if (series_out)
        *series_out = 0;
    if (warnings && !(*warnings = cJSON_CreateArray()))
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    rundoc_t *doc = NULL;
    int rc = rundoc_parse(json, len, params_check_cb, NULL, &doc, err, errlen);
    if (rc == 0)
        rc = s_plan_check(doc, warnings, err, errlen);
    if (rc < 0) {
        rundoc_destroy(&doc);
        return rc;
    }
    if (!doc->has_seed) {
        uint64_t seed;
        if (sodium_init() < 0) {
            rundoc_destroy(&doc);
            return capa_fail(err, errlen, CAPA_EIO, "libsodium failed to start");
        }
        randombytes_buf(&seed, sizeof seed);
        doc->seed = (int64_t) (seed & ((UINT64_C(1) << 53) - 1));
        doc->has_seed = true;
    }
    char *canon = rundoc_to_json(doc, false);
    if (!canon) {
        rundoc_destroy(&doc);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    if (doc->series != RUNDOC_SERIES_NONE) {
        /* A study series: its first run now, the others as they come. */
        rc = series_submit(store, doc, canon, submitted_by, id_out, series_out, err, errlen);
        rundoc_destroy(&doc);
        free(canon);
        return rc;
    }
    /* What the coordinator will need must work now, not fail later: the
     * run's shape from this very document (no second parse). */
    runinfo_t *ri = NULL;
    rc = runinfo_from_rundoc(&doc, NULL, 0, &ri, err, errlen);
    if (rc == 0) {
        store_run_t run;
        memset(&run, 0, sizeof run);
        run.kind = ri->doc->kind;
        run.name = ri->doc->name;
        run.doc = canon;
        run.priority = ri->doc->priority;
        run.seed = ri->doc->seed;
        run.pairs_planned = ri->pairs_planned;
        run.submitted_by = submitted_by;
        rc = store_run_insert(store, &run, id_out);
        if (rc < 0)
            capa_fail(err, errlen, rc, "%s", store_last_error(store));
    }
    runinfo_destroy(&ri);
    free(canon);
    return rc;
}

int admin_run_stop(store_t *store, int64_t id, char *err, size_t errlen)
{
    int rc = store_run_set_status(store, id, STORE_RUN_STOPPED);
    if (rc == CAPA_ENOTFOUND)
        return capa_fail(err, errlen, rc, "no run %lld", (long long) id);
    if (rc == CAPA_ESTATE)
        return capa_fail(err, errlen, rc, "run %lld has already ended", (long long) id);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    return 0;
}

int admin_run_resume(store_t *store, int64_t id, char *err, size_t errlen)
{
    store_run_t run;
    memset(&run, 0, sizeof run);
    int rc = store_run_get(store, id, &run);
    if (rc == CAPA_ENOTFOUND)
        return capa_fail(err, errlen, rc, "no run %lld", (long long) id);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    store_run_status_t was = run.status;
    store_run_clear(&run);
    if (was != STORE_RUN_STOPPED)
        return capa_fail(err, errlen, CAPA_ESTATE, "run %lld is %s; only a stopped run can be resumed",
                         (long long) id, store_run_status_name(was));
    rc = store_run_set_status(store, id, STORE_RUN_RUNNING);
    if (rc == CAPA_ESTATE)
        return capa_fail(err, errlen, rc, "run %lld has already ended", (long long) id);
    if (rc < 0)
        return capa_fail(err, errlen, rc, "%s", store_last_error(store));
    return 0;
}

/* ---- the subcommands ------------------------------------------------------ */

static int s_usage(void)
{
    fprintf(stderr, "usage: capa-coordinator %s\n", coord_config_spec()->usage);
    return 2;
}

static int s_parse_id(const char *s, int64_t *id)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < 1)
        return -1;
    *id = v;
    return 0;
}

static char *s_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        capa_fail(err, errlen, CAPA_EIO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        if (cap > RUNDOC_DOC_MAX) {
            free(buf);
            buf = NULL;
            capa_fail(err, errlen, CAPA_ERANGE, "%s: larger than %u bytes", path, RUNDOC_DOC_MAX);
            fclose(f);
            return NULL;
        }
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    fclose(f);
    if (!buf) {
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
        return NULL;
    }
    *len = n;
    return buf;
}

static int s_contributor(store_t *st, int argc, char **argv)
{
    char err[512];
    if (argc >= 2 && strcmp(argv[1], "add") == 0 && (argc == 3 || argc == 4)) {
        bool is_admin = argc == 4 && strcmp(argv[3], "--admin") == 0;
        if (argc == 4 && !is_admin)
            return s_usage();
        char token[TOKEN_TEXT_MAX];
        int64_t id = 0;
        if (admin_contributor_add(st, argv[2], is_admin, token, sizeof token, &id, err,
                                  sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            return 1;
        }
        printf("contributor %lld \"%s\"%s added; token (shown only now):\n%s\n", (long long) id,
               argv[2], is_admin ? " (admin)" : "", token);
        sodium_memzero(token, sizeof token);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "revoke") == 0) {
        if (admin_contributor_revoke(st, argv[2], err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            return 1;
        }
        printf("contributor \"%s\" revoked\n", argv[2]);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        store_contributor_t *list = NULL;
        size_t n = 0;
        if (store_contributor_list(st, &list, &n) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", store_last_error(st));
            return 1;
        }
        printf("%6s  %-24s %-5s %-8s %7s %10s %10s %10s\n", "id", "name", "admin", "status",
               "workers", "pairs", "games", "cpu h");
        for (size_t i = 0; i < n; i++)
            printf("%6lld  %-24s %-5s %-8s %7lld %10lld %10lld %10.1f\n", (long long) list[i].id,
                   list[i].name, list[i].is_admin ? "yes" : "no",
                   list[i].revoked_at_ms ? "revoked" : "active", (long long) list[i].workers,
                   (long long) list[i].pairs, (long long) list[i].games, list[i].cpu_ms / 3.6e6);
        free(list);
        return 0;
    }
    return s_usage();
}

static int s_run(store_t *st, int argc, char **argv)
{
    char err[1024];
    int64_t id = 0;
    if (argc == 3 && strcmp(argv[1], "submit") == 0) {
        size_t len = 0;
        char *text = s_read_file(argv[2], &len, err, sizeof err);
        cJSON *warnings = NULL;
        if (!text || admin_run_submit(st, text, len, 0, &id, &warnings, err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s: %s\n", argv[2], err);
            free(text);
            cJSON_Delete(warnings);
            return 1;
        }
        free(text);
        const cJSON *w;
        cJSON_ArrayForEach(w, warnings)
            fprintf(stderr, "capa-coordinator: %s: warning: %s\n", argv[2], w->valuestring);
        cJSON_Delete(warnings);
        printf("%lld\n", (long long) id);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "list") == 0) {
        store_run_filter_t f = { .limit = 1000 };
        store_run_t *runs = NULL;
        size_t n = 0;
        if (store_run_list(st, &f, &runs, &n) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", store_last_error(st));
            return 1;
        }
        printf("%6s  %-6s %-9s %4s %-32s %10s %10s  %s\n", "id", "kind", "status", "prio", "name",
               "pairs", "planned", "created (UTC)");
        for (size_t i = 0; i < n; i++) {
            char when[32];
            timefmt_utc_minutes(runs[i].created_at_ms, when, sizeof when);
            printf("%6lld  %-6s %-9s %4d %-32s %10lld %10lld  %s\n", (long long) runs[i].id,
                   proto_kind_name(runs[i].kind), store_run_status_name(runs[i].status),
                   runs[i].priority, runs[i].name, (long long) runs[i].totals.pairs,
                   (long long) runs[i].pairs_planned, when);
        }
        store_run_list_free(&runs, n);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "show") == 0) {
        bool as_json = false;
        if (s_parse_id(argv[2], &id) < 0)
            return s_usage();
        cJSON *rep = NULL;
        if (report_build(st, id, 0, &rep, err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            return 1;
        }
        char *text = as_json ? cJSON_Print(rep) : report_format(rep);
        fputs(text ? text : "(out of memory)\n", stdout);
        free(text);
        cJSON_Delete(rep);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "show") == 0 && strcmp(argv[3], "--json") == 0) {
        if (s_parse_id(argv[2], &id) < 0)
            return s_usage();
        cJSON *rep = NULL;
        if (report_build(st, id, 0, &rep, err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            return 1;
        }
        char *text = cJSON_Print(rep);
        printf("%s\n", text ? text : "null");
        free(text);
        cJSON_Delete(rep);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "refit") == 0) {
        /* A values run's estimate fitted again now, as the coordinator does
         * when the run's data change: for a run that has ended, after the
         * fit itself changed (e.g. round clustering, unprotected pawns). */
        if (s_parse_id(argv[2], &id) < 0)
            return s_usage();
        store_run_t run;
        memset(&run, 0, sizeof run);
        int rc = store_run_get(st, id, &run);
        if (rc < 0) {
            fprintf(stderr, "capa-coordinator: %s\n",
                    rc == CAPA_ENOTFOUND ? "no such run" : store_last_error(st));
            return 1;
        }
        int64_t pairs = run.totals.pairs;
        bool values = run.kind == PROTO_KIND_VALUES;
        store_run_clear(&run);
        if (!values || pairs < 1) {
            fprintf(stderr, "capa-coordinator: run %lld %s: nothing to refit\n", (long long) id,
                    values ? "has no pairs yet" : "is not a values run");
            return 1;
        }
        cJSON *rep = NULL;
        if (report_build(st, id, REPORT_FIT, &rep, err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            return 1;
        }
        char *text = cJSON_PrintUnformatted(rep);
        rc = text ? store_estimate_put(st, id, pairs, text) : CAPA_ENOMEM;
        free(text);
        char *shown = rc == 0 ? report_format(rep) : NULL;
        cJSON_Delete(rep);
        if (rc < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", rc == CAPA_ENOMEM ? "out of memory" : store_last_error(st));
            return 1;
        }
        printf("run %lld: refitted over %lld pairs\n%s", (long long) id, (long long) pairs, shown ? shown : "");
        free(shown);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "stop") == 0) {
        if (s_parse_id(argv[2], &id) < 0)
            return s_usage();
        if (admin_run_stop(st, id, err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            return 1;
        }
        printf("run %lld stopped\n", (long long) id);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "resume") == 0) {
        if (s_parse_id(argv[2], &id) < 0)
            return s_usage();
        if (admin_run_resume(st, id, err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            return 1;
        }
        printf("run %lld resumed\n", (long long) id);
        return 0;
    }
    return s_usage();
}

int admin_main(const coord_config_t *cfg_in, int argc, char **argv)
{
    if (argc < 1)
        return s_usage();
    coord_config_t cfg = *cfg_in;
    char err[1024];
    /* Settings may also follow the subcommand ("run submit f.json --db X");
     * --admin and --json belong to the subcommands. */
    char **words = calloc((size_t) argc + 1, sizeof *words);
    if (!words)
        return 1;
    int nw = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0 || !strcmp(a, "--admin") || !strcmp(a, "--json")) {
            words[nw++] = argv[i];
            continue;
        }
        char key[64];
        const char *eq = strchr(a + 2, '=');
        size_t klen = eq ? (size_t) (eq - a - 2) : strlen(a + 2);
        if (klen == 0 || klen >= sizeof key) {
            free(words);
            return s_usage();
        }
        memcpy(key, a + 2, klen);
        key[klen] = 0;
        for (char *k = key; *k; k++)
            if (*k == '-')
                *k = '_';
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        char source[80];
        snprintf(source, sizeof source, "flag --%s", key);
        if (!value || config_set(coord_config_spec(), &cfg, key, value, source, err,
                                 sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", value ? err : "a flag needs a value");
            free(words);
            return 2;
        }
    }
    argc = nw;
    argv = words;
    if (argc < 1) {
        free(words);
        return s_usage();
    }
    if (!cfg.db[0]) {
        fprintf(stderr, "capa-coordinator: no database: give --db CONNINFO or CAPA_DB\n");
        free(words);
        return 2;
    }
    store_t *st = NULL;
    if (store_open(cfg.db, &st, err, sizeof err) < 0) {
        fprintf(stderr, "capa-coordinator: %s\n", err);
        free(words);
        return 1;
    }
    int status;
    if (strcmp(argv[0], "migrate") == 0 && argc == 1) {
        int applied = 0;
        if (coord_config_find_sql(&cfg, err, sizeof err) < 0) {
            fprintf(stderr, "capa-coordinator: %s\n", err);
            status = 1;
        } else if (store_migrate(st, cfg.sql_dir, &applied) < 0) {
            fprintf(stderr, "capa-coordinator: migrations in %s: %s\n", cfg.sql_dir,
                    store_last_error(st));
            status = 1;
        } else {
            printf("%d migrations applied from %s\n", applied, cfg.sql_dir);
            status = 0;
        }
    } else if (strcmp(argv[0], "contributor") == 0) {
        status = s_contributor(st, argc, argv);
    } else if (strcmp(argv[0], "run") == 0) {
        status = s_run(st, argc, argv);
    } else {
        status = s_usage();
    }
    store_destroy(&st);
    free(words);
    return status;
}
