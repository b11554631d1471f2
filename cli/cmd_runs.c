/* cmd_runs.c - capa submit, runs, show, watch, stop, pgn. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "table.h"

#define CLI_DOC_MAX (1u << 20)

static void s_interval(const cJSON *o, double *v, double *lo, double *hi)
{
    *v = cli_num(o, "value");
    *lo = *hi = NAN;
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(o, "ci95");
    if (cJSON_GetArraySize(ci) == 2 && cJSON_IsNumber(cJSON_GetArrayItem(ci, 0)) &&
        cJSON_IsNumber(cJSON_GetArrayItem(ci, 1))) {
        *lo = cJSON_GetArrayItem(ci, 0)->valuedouble;
        *hi = cJSON_GetArrayItem(ci, 1)->valuedouble;
    }
}

/* ---- submit -------------------------------------------------------------------- */

static char *s_read(const char *path, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        cli_error("%s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(CLI_DOC_MAX + 1);
    size_t n = buf ? fread(buf, 1, CLI_DOC_MAX + 1, f) : 0;
    bool bad = buf && ferror(f);
    if (f != stdin)
        fclose(f);
    if (!buf || bad || n > CLI_DOC_MAX) {
        cli_error("%s: %s", path, !buf ? "out of memory" : bad ? "cannot read" :
                  "larger than 1 MiB");
        free(buf);
        return NULL;
    }
    buf[n] = 0;
    *len = n;
    return buf;
}

int cmd_submit(const cli_opts_t *o, const cli_args_t *a)
{
    int rc = cli_check_args(a, NULL, 1, "submit FILE.json");
    if (rc)
        return rc;
    size_t len = 0;
    char *doc = s_read(a->argv[0], &len);
    if (!doc)
        return CLI_USAGE;
    cJSON *out = NULL;
    rc = cli_post_json(o, "/api/runs", doc, len, &out);
    free(doc);
    if (rc)
        return rc;
    if (o->json) {
        cli_print_json(out);
    } else {
        printf("%.0f\n", cli_num(out, "id"));
        if (isfinite(cli_num(out, "series")))
            fprintf(stderr, "capa: study series %.0f; run %.0f is its first step (capa series %.0f)\n",
                    cli_num(out, "series"), cli_num(out, "id"), cli_num(out, "series"));
        const cJSON *w;
        cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(out, "warnings"))
            if (cJSON_IsString(w))
                fprintf(stderr, "capa: warning: %s\n", w->valuestring);
    }
    cJSON_Delete(out);
    return CLI_OK;
}

/* ---- runs ---------------------------------------------------------------------- */

static bool s_query_ok(const char *v)
{
    for (const char *p = v; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == ','))
            return false;
    return true;
}

int cmd_runs(const cli_opts_t *o, const cli_args_t *a)
{
    static const char *const allowed[] = { "status", "kind", "limit", NULL };
    int rc = cli_check_args(a, allowed, 0, "runs [--status S] [--kind K] [--limit N]");
    if (rc)
        return rc;
    char path[256] = "/api/runs";
    char sep = '?';
    for (int i = 0; allowed[i]; i++) {
        const char *v = cli_opt(a, allowed[i]);
        if (!v)
            continue;
        if (!s_query_ok(v) || strlen(v) > 60) {
            cli_error("--%s \"%s\": letters, digits and commas only", allowed[i], v);
            return CLI_USAGE;
        }
        size_t n = strlen(path);
        snprintf(path + n, sizeof path - n, "%c%s=%s", sep, allowed[i], v);
        sep = '&';
    }
    cJSON *out = NULL;
    rc = cli_get_or_print(o, path, &out);
    if (rc || !out)
        return rc;
    static const char *const heads[] = { "id", "kind", "status", "name", "pairs", "planned",
                                         "result", "created (UTC)" };
    table_t *t = table_new(8, heads, "rlllrrll");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(out, "runs")) {
        char when[32];
        cli_time_utc(cli_num(r, "created_at_ms"), when, sizeof when);
        const cJSON *res = cJSON_GetObjectItemCaseSensitive(r, "result");
        table_addf(t, "%.0f", cli_num(r, "id"));
        table_addf(t, "%s", cli_str(r, "kind"));
        table_addf(t, "%s", cli_str(r, "status"));
        table_addf(t, "%s", cli_str(r, "name"));
        table_addf(t, "%.0f", cli_num(r, "pairs"));
        table_addf(t, "%.0f", cli_num(r, "pairs_planned"));
        table_addf(t, "%s", cli_str(res, "verdict"));
        table_addf(t, "%s", when);
    }
    cJSON_Delete(out);
    return cli_print_table(t);
}

/* ---- show ---------------------------------------------------------------------- */

static void s_print_interval(const char *label, const cJSON *o, const char *fmt)
{
    double v, lo, hi;
    s_interval(o, &v, &lo, &hi);
    printf("  %-14s ", label);
    if (!isfinite(v)) {
        puts("-");
        return;
    }
    printf(fmt, v);
    if (isfinite(lo) && isfinite(hi)) {
        fputs("  [", stdout);
        printf(fmt, lo);
        fputs(", ", stdout);
        printf(fmt, hi);
        fputs("]", stdout);
    }
    putchar('\n');
}

/* "+0.25 [-0.10, +0.61]" of an interval object into a table cell; "-" for null. */
void cli_cell(table_t *t, const cJSON *o, const char *fmt)
{
    if (!cJSON_IsObject(o)) {
        table_addf(t, "-");
        return;
    }
    double v, lo, hi;
    s_interval(o, &v, &lo, &hi);
    char a[32], b[32], c[32];
    snprintf(a, sizeof a, fmt, v);
    snprintf(b, sizeof b, fmt, lo);
    snprintf(c, sizeof c, fmt, hi);
    table_addf(t, "%s [%s, %s]", a, b, c);
}

static void s_show_values(const cJSON *rep)
{
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(rep, "values");
    if (!cJSON_IsObject(vals)) {
        printf("piece values: %s\n", cli_str(rep, "values_error"));
    } else {
        printf("contrasts (first piece minus second, 95%% intervals), %.0f games:\n", cli_num(vals, "games"));
        cli_print_fit(vals);
    }
    const cJSON *e;
    int first = 1;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(rep, "endings")) {
        printf("%s %s %.1f%%", first ? "games ended by:" : ",", cli_str(e, "end"), 100.0 * cli_num(e, "share"));
        first = 0;
    }
    if (!first)
        putchar('\n');
    puts("imbalances (side under test):");
    static const char *const heads[] = { "imbalance", "games", "W", "D", "L", "score" };
    table_t *t = table_new(6, heads, "lrrrrr");
    const cJSON *im;
    cJSON_ArrayForEach(im, cJSON_GetObjectItemCaseSensitive(rep, "imbalances")) {
        table_addf(t, "%s", cli_str(im, "name"));
        table_addf(t, "%.0f", cli_num(im, "games"));
        table_addf(t, "%.0f", cli_num(im, "wins"));
        table_addf(t, "%.0f", cli_num(im, "draws"));
        table_addf(t, "%.0f", cli_num(im, "losses"));
        double sc = cli_num(im, "score");
        table_addf(t, isfinite(sc) ? "%.3f" : "-", sc);
    }
    cli_print_table(t);
}

static void s_show(const cJSON *rep)
{
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(rep, "totals");
    char when[32];
    printf("run %.0f: %s\n", cli_num(rep, "id"), cli_str(rep, "name"));
    printf("  kind %s, status %s, priority %.0f, seed %.0f\n", cli_str(rep, "kind"),
           cli_str(rep, "status"), cli_num(rep, "priority"), cli_num(rep, "seed"));
    cli_time_utc(cli_num(rep, "created_at_ms"), when, sizeof when);
    printf("  pairs %.0f of %.0f, CPU %.2f h, created %s UTC\n", cli_num(tot, "pairs"),
           cli_num(rep, "pairs_planned"), cli_num(tot, "cpu_ms") / 3.6e6, when);
    const cJSON *series = cJSON_GetObjectItemCaseSensitive(rep, "series");
    if (cJSON_IsObject(series))
        printf("  step %.0f of study series %.0f (capa series %.0f)\n", cli_num(series, "step"),
               cli_num(series, "id"), cli_num(series, "id"));
    const char *kind = cli_str(rep, "kind");
    if (strcmp(kind, "sprt") == 0) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(rep, "sprt");
        printf("SPRT %s [%g, %g], alpha %g, beta %g\n",
               strcmp(cli_str(s, "model"), "logistic") == 0 ? "Elo" : "nElo", cli_num(s, "elo0"),
               cli_num(s, "elo1"), cli_num(s, "alpha"), cli_num(s, "beta"));
        printf("  %-14s %.3f  (%.3f, %.3f)  %s\n", "LLR", cli_num(s, "llr"),
               cli_num(s, "lower_bound"), cli_num(s, "upper_bound"), cli_str(s, "verdict"));
        s_print_interval("Elo", cJSON_GetObjectItemCaseSensitive(s, "elo"), "%.2f");
        s_print_interval("nElo", cJSON_GetObjectItemCaseSensitive(s, "nelo"), "%.2f");
        printf("  %-14s %.1f%%\n", "LOS", cli_num(s, "los") * 100);
        printf("  %-14s %.0f / %.0f / %.0f\n", "W / D / L", cli_num(s, "wins"), cli_num(s, "draws"),
               cli_num(s, "losses"));
        const cJSON *pt = cJSON_GetObjectItemCaseSensitive(s, "penta");
        printf("  %-14s", "pentanomial");
        const cJSON *e;
        cJSON_ArrayForEach(e, pt)
            printf(" %.0f", e->valuedouble);
        putchar('\n');
    } else if (strcmp(kind, "values") == 0) {
        s_show_values(rep);
    } else if (strcmp(kind, "spsa") == 0) {
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(rep, "spsa");
        printf("SPSA iteration %.0f of %.0f\n", cli_num(sp, "iteration"),
               cli_num(sp, "iterations"));
        static const char *const heads[] = { "parameter", "theta" };
        table_t *t = table_new(2, heads, "lr");
        const cJSON *th;
        cJSON_ArrayForEach(th, cJSON_GetObjectItemCaseSensitive(sp, "theta")) {
            table_addf(t, "%s", th->string);
            table_addf(t, "%.2f", th->valuedouble);
        }
        cli_print_table(t);
    }
}

int cmd_show(const cli_opts_t *o, const cli_args_t *a)
{
    int64_t id;
    char path[64];
    int rc = cli_run_args(a, NULL, "show ID", "", &id, path, sizeof path);
    if (rc)
        return rc;
    cJSON *rep = NULL;
    rc = cli_get_json(o, path, &rep);
    if (rc)
        return rc;
    if (o->json)
        cli_print_json(rep);
    else
        s_show(rep);
    cJSON_Delete(rep);
    return CLI_OK;
}

/* ---- watch --------------------------------------------------------------------- */

static volatile sig_atomic_t s_interrupted;

static void s_on_sigint(int sig)
{
    (void) sig;
    s_interrupted = 1;
}

/* One status line of a report into buf. */
static void s_watch_line(const cJSON *rep, char *buf, size_t cap)
{
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(rep, "totals");
    double done = cli_num(tot, "pairs"), planned = cli_num(rep, "pairs_planned");
    char bar[96];
    progress_bar(bar, sizeof bar, 24, done, planned);
    int n = snprintf(buf, cap, "run %.0f %s %s %.0f/%.0f pairs", cli_num(rep, "id"),
                     cli_str(rep, "status"), bar, done, planned);
    if (n < 0 || (size_t) n >= cap)
        return;
    const char *kind = cli_str(rep, "kind");
    if (strcmp(kind, "sprt") == 0) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(rep, "sprt");
        char llr[96];
        progress_llr(llr, sizeof llr, 21, cli_num(s, "llr"), cli_num(s, "lower_bound"),
                     cli_num(s, "upper_bound"));
        double v, lo, hi;
        bool logistic = strcmp(cli_str(s, "model"), "logistic") == 0;
        s_interval(cJSON_GetObjectItemCaseSensitive(s, logistic ? "elo" : "nelo"), &v, &lo, &hi);
        snprintf(buf + n, cap - (size_t) n, " | LLR %.2f %s | %s %+.1f [%+.1f, %+.1f]",
                 cli_num(s, "llr"), llr, logistic ? "Elo" : "nElo", v, lo, hi);
    } else if (strcmp(kind, "values") == 0) {
        const cJSON *pieces = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(rep, "values"), "values");
        const char *order = "NBRACQ";
        for (const char *p = order; *p; p++) {
            char key[2] = { *p, 0 };
            const cJSON *pv = cJSON_GetObjectItemCaseSensitive(pieces, key);
            if (!cJSON_IsObject(pv))
                continue;
            double v, lo, hi;
            s_interval(pv, &v, &lo, &hi);
            size_t len = strlen(buf);
            snprintf(buf + len, cap - len, " | %s %.2f [%.2f, %.2f]", key, v, lo, hi);
        }
    } else if (strcmp(kind, "spsa") == 0) {
        const cJSON *sp = cJSON_GetObjectItemCaseSensitive(rep, "spsa");
        const cJSON *th;
        cJSON_ArrayForEach(th, cJSON_GetObjectItemCaseSensitive(sp, "theta")) {
            size_t len = strlen(buf);
            snprintf(buf + len, cap - len, " | %s %.1f", th->string, th->valuedouble);
        }
    }
    for (char *p = buf; *p; p++)   /* names come from users: no escapes to the terminal */
        if ((unsigned char) *p < 0x20)
            *p = '?';
}

static bool s_ended(const char *status)
{
    return strcmp(status, "finished") == 0 || strcmp(status, "stopped") == 0 ||
           strcmp(status, "failed") == 0;
}

int cmd_watch(const cli_opts_t *o, const cli_args_t *a)
{
    static const char *const allowed[] = { "interval", NULL };
    int64_t id;
    char path[64], line[2048], last[2048] = "";
    int rc = cli_run_args(a, allowed, "watch ID [--interval SECONDS]", "/report", &id, path,
                          sizeof path);
    if (rc)
        return rc;
    int interval_ms = o->interval_ms;
    const char *iv = cli_opt(a, "interval");
    if (iv) {
        char *end;
        double s = strtod(iv, &end);
        if (!*iv || *end || !(s >= 0.05 && s <= 3600)) {
            cli_error("--interval takes seconds, 0.05 .. 3600");
            return CLI_USAGE;
        }
        interval_ms = (int) (s * 1000);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = s_on_sigint;
    sigaction(SIGINT, &sa, NULL);
    bool tty = isatty(STDOUT_FILENO);
    int failures = 0;
    for (;;) {
        cJSON *rep = NULL;
        rc = cli_get_json(o, path, &rep);
        if (rc == CLI_UNREACHABLE || rc == CLI_SERVER) {
            /* A coordinator restart: keep trying for a while. */
            if (++failures > 30)
                return rc;
        } else if (rc) {
            return rc;
        } else {
            failures = 0;
            const char *status = cli_str(rep, "status");
            if (o->json) {
                char *text = cJSON_PrintUnformatted(rep);
                if (text)
                    puts(text);
                free(text);
            } else {
                s_watch_line(rep, line, sizeof line);
                if (tty)
                    printf("\r\033[K%s", line);
                else if (strcmp(line, last) != 0)
                    puts(line);
                snprintf(last, sizeof last, "%s", line);
            }
            fflush(stdout);
            if (s_ended(status)) {
                if (tty && !o->json)
                    putchar('\n');
                const cJSON *s = cJSON_GetObjectItemCaseSensitive(rep, "sprt");
                bool pass = strcmp(status, "finished") == 0 &&
                            (!cJSON_IsObject(s) || strcmp(cli_str(s, "verdict"), "H0") != 0);
                cJSON_Delete(rep);
                return pass ? CLI_OK : CLI_RUN_FAILED;
            }
            cJSON_Delete(rep);
        }
        for (int waited = 0; waited < interval_ms && !s_interrupted; waited += 50)
            usleep(50 * 1000);
        if (s_interrupted) {
            if (tty && !o->json)
                putchar('\n');
            return CLI_OK;
        }
    }
}

/* ---- stop, pgn ----------------------------------------------------------------- */

/* POST /api/runs/ID/stop or /resume; prints the run's new status. */
static int s_run_set(const cli_opts_t *o, const cli_args_t *a, const char *verb, const char *done)
{
    int64_t id;
    char path[64], usage[32], suffix[16];
    snprintf(usage, sizeof usage, "%s ID", verb);
    snprintf(suffix, sizeof suffix, "/%s", verb);
    int rc = cli_run_args(a, NULL, usage, suffix, &id, path, sizeof path);
    if (rc)
        return rc;
    cJSON *out = NULL;
    rc = cli_post_json(o, path, NULL, 0, &out);
    if (rc)
        return rc;
    if (o->json)
        cli_print_json(out);
    else
        printf("run %lld %s\n", (long long) id, done);
    cJSON_Delete(out);
    return CLI_OK;
}

int cmd_stop(const cli_opts_t *o, const cli_args_t *a)
{
    return s_run_set(o, a, "stop", "stopped");
}

int cmd_resume(const cli_opts_t *o, const cli_args_t *a)
{
    return s_run_set(o, a, "resume", "resumed");
}

int cmd_pgn(const cli_opts_t *o, const cli_args_t *a)
{
    int64_t id;
    char path[64];
    int rc = cli_run_args(a, NULL, "pgn ID > games.pgn", "/pgn", &id, path, sizeof path);
    if (rc)
        return rc;
    client_response_t r;
    cli_opts_t slow = *o;
    slow.timeout_s = 600;
    rc = cli_fetch(&slow, "GET", path, NULL, 0, &r);
    if (rc)
        return rc;
    size_t len = r.len;
    size_t w = fwrite(r.body, 1, len, stdout);
    client_response_free(&r);
    if (w != len || fflush(stdout) != 0) {
        cli_error("cannot write the PGN: %s", strerror(errno));
        return CLI_USAGE;
    }
    return CLI_OK;
}
