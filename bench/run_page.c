/* bench/run_page.c - how long the page and the report of a large
 * piece-value study take: GET /runs/{id} and GET /api/runs/{id} against a
 * real capa-coordinator, on a finished values run with N stored pairs.
 *
 *   bench_run_page [--pairs N] [--repeat R] [--coordinator PATH] [--db CONNINFO]
 *
 * N defaults to 1000000, R to 5. Without --db a private cluster
 * (scripts/pgtmp.sh) in a temporary folder, destroyed at the end; with
 * --db that (scratch!) database. The run has the six imbalances of the HTTP
 * tests and scores drawn from the HTTP tests' model (A = 8, C = 9, R = 5,
 * N = 3 pawns, 0.45 logit per pawn, draws up to 20%); its pairs go in through the store in batches of 1000, and after
 * every tenth of them the run's estimate is fitted and stored as the
 * coordinator does (report_build with REPORT_FIT, store_estimate_put), so
 * the run has an estimate and a history of ten fits. Then the run is marked
 * finished and the coordinator at PATH (default: this build's) is started on
 * the database with HTTP on a free loopback port and the migrations of this
 * source tree; each URL is fetched once to warm up, then R times, and the
 * minimum, median and maximum wall time of a whole response are printed
 * with its size. An older coordinator given with --coordinator (e.g. one
 * built at an earlier commit) gives the figure before a change.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bench_util.h"
#include "admin.h"
#include "err.h"
#include "log.h"
#include "report.h"
#include "store.h"

static const char *const IMB[] = { "A vs C", "A vs R", "C vs R", "R vs N", "knight odds",
                                   "pawn odds" };
static const char *const SIDE[] = { "A", "A", "C", "R", "", "" };
static const char *const OTHER[] = { "C", "R", "R", "N", "N", "P" };

/* GET path over HTTP/1.0; the status, and the body's bytes in *bytes and
 * (when want is non-NULL) its text in *want (malloc'ed); -1 if no answer. */
static int s_get(int port, const char *path, size_t *bytes, char **want)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval tv = { 600, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (fd < 0 || connect(fd, (struct sockaddr *) &a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", path);
    if (write(fd, req, (size_t) n) != n) {
        close(fd);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    ssize_t got;
    while (buf && (got = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t) got;
        if (len + 1 == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            } else {
                buf = b;
            }
        }
    }
    close(fd);
    if (!buf)
        return -1;
    buf[len] = 0;
    int status = -1;
    sscanf(buf, "HTTP/%*s %d", &status);
    const char *body = strstr(buf, "\r\n\r\n");
    *bytes = body ? len - (size_t) (body + 4 - buf) : 0;
    if (want)
        *want = strdup(body ? body + 4 : "");
    free(buf);
    return status;
}

static int s_cmp(const void *x, const void *y)
{
    double a = *(const double *) x, b = *(const double *) y;
    return (a > b) - (a < b);
}

/* Fills pairs [from, from + n) with the model's scores (B white in game 1). */
static int s_fill(store_t *st, int64_t run, int64_t from, int64_t n, uint64_t *rng)
{
    static const double VALUE[128] = { ['P'] = 1, ['N'] = 3, ['B'] = 3.2, ['R'] = 5,
                                       ['A'] = 8, ['C'] = 9, ['Q'] = 9.5 };
    store_pair_t p[1000];
    for (int64_t done = 0; done < n;) {
        size_t m = n - done < 1000 ? (size_t) (n - done) : 1000;
        for (size_t i = 0; i < m; i++) {
            int64_t k = from + done + (int64_t) i;
            int imb = (int) (k % 6);
            double d = 0;
            for (const char *c = SIDE[imb]; *c; c++)
                d += VALUE[(unsigned char) *c];
            for (const char *c = OTHER[imb]; *c; c++)
                d -= VALUE[(unsigned char) *c];
            int half[2];
            for (int g = 0; g < 2; g++) {
                double prob = 1 / (1 + exp(-(0.45 * d + (g == 0 ? 0.1 : -0.1))));
                *rng = *rng * 6364136223846793005ULL + 1442695040888963407ULL;
                double u = (double) (*rng >> 11) / 9007199254740992.0;
                /* B's half points: expected score prob, draws up to 20%. */
                double r = fmin(0.2, fmin(2 * prob, 2 * (1 - prob)));
                half[g] = u < prob - r / 2 ? 2 : u < prob + r / 2 ? 1 : 0;
            }
            /* result = White's half points: B is White in game 1, Black in game 2. */
            p[i] = (store_pair_t) {
                .pair_no = k, .imbalance = IMB[imb],
                .fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
                .result = { half[0], 2 - half[1] }, .b_white = { true, false },
                .end = { "checkmate", "checkmate" }, .plies = { 80, 80 },
                .score = half[0] + half[1], .cpu_ms = 100,
            };
        }
        if (store_insert_pairs(st, run, p, m, NULL, NULL) < 0) {
            fprintf(stderr, "bench_run_page: insert: %s\n", store_last_error(st));
            return -1;
        }
        done += (int64_t) m;
    }
    return 0;
}

static int s_estimate(store_t *st, int64_t run)
{
    char err[512];
    cJSON *rep = NULL;
    if (report_build(st, run, REPORT_FIT, &rep, err, sizeof err) < 0) {
        fprintf(stderr, "bench_run_page: fit: %s\n", err);
        return -1;
    }
    char *text = cJSON_PrintUnformatted(rep);
    int64_t pairs = (int64_t) cJSON_GetObjectItemCaseSensitive(
                        cJSON_GetObjectItemCaseSensitive(rep, "totals"), "pairs")->valuedouble;
    int rc = text ? store_estimate_put(st, run, pairs, text) : CAPA_ENOMEM;
    free(text);
    cJSON_Delete(rep);
    return rc;
}

/* min, median and max of t[0..n) in ms, sorted in place */
static void s_print_times(const char *what, double *t, int n)
{
    qsort(t, (size_t) n, sizeof *t, s_cmp);
    printf("%-44s min %8.1f ms, median %8.1f ms, max %8.1f ms (%d runs)\n", what, t[0], t[n / 2], t[n - 1], n);
}

/* The coordinator's refit of the run (report_build with REPORT_FIT: the
 * aggregate queries and the fit) and, alone, its two aggregate queries:
 * the pairs by kind and the round moments (round clustering). */
static int s_time_refit(store_t *st, int64_t run, int repeat)
{
    double *t = calloc((size_t) repeat * 3, sizeof *t);
    if (!t)
        return -1;
    char err[512];
    /* the run deals its six imbalances alike: one segment of six a round */
    int64_t k0[1] = { 0 }, r0[1] = { 0 }, w[1] = { 6 };
    int rc = 0;
    for (int i = 0; i < repeat && rc == 0; i++) {
        cJSON *rep = NULL;
        double t0 = bench_now();
        rc = report_build(st, run, REPORT_FIT, &rep, err, sizeof err);
        t[i] = (bench_now() - t0) * 1e3;
        if (i == 0 && rc == 0) {
            const cJSON *cl = cJSON_GetObjectItemCaseSensitive(
                cJSON_GetObjectItemCaseSensitive(rep, "values"), "clusters");
            printf("refit: clusters by %s, %.0f of them\n",
                   cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cl, "by")),
                   cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cl, "count")));
        }
        cJSON_Delete(rep);
        store_pair_type_t *kinds = NULL;
        size_t n = 0;
        t0 = bench_now();
        rc |= store_pair_types(st, run, 1, &kinds, &n);
        t[repeat + i] = (bench_now() - t0) * 1e3;
        free(kinds);
        store_round_moment_t *m = NULL;
        int64_t rounds = 0;
        t0 = bench_now();
        rc |= store_round_moments(st, run, k0, r0, w, 1, &m, &n, &rounds);
        t[2 * repeat + i] = (bench_now() - t0) * 1e3;
        free(m);
    }
    if (rc == 0) {
        s_print_times("refit (report_build, REPORT_FIT)", t, repeat);
        s_print_times("  of which: pairs by kind (store_pair_types)", t + repeat, repeat);
        s_print_times("  of which: round moments (store_round_moments)", t + 2 * repeat, repeat);
    } else {
        fprintf(stderr, "bench_run_page: refit: %s\n", err);
    }
    free(t);
    return rc;
}

static void s_measure(int port, const char *path, int repeat)
{
    size_t bytes = 0;
    char *body = NULL;
    int status = s_get(port, path, &bytes, &body);   /* warm-up */
    int series = 0;
    for (const char *s = body ? body : ""; (s = strstr(s, "class=\"series\"")); s++)
        series++;
    if (getenv("CAPA_BENCH_DUMP"))
        fputs(body ? body : "", stderr);
    free(body);
    double *t = calloc((size_t) repeat, sizeof *t);
    if (!t)
        return;
    for (int i = 0; i < repeat; i++) {
        double t0 = bench_now();
        s_get(port, path, &bytes, NULL);
        t[i] = (bench_now() - t0) * 1e3;
    }
    qsort(t, (size_t) repeat, sizeof *t, s_cmp);
    printf("GET %-22s status %d, %7zu bytes, %2d chart lines: min %8.1f ms, median %8.1f ms, "
           "max %8.1f ms (%d requests)\n",
           path, status, bytes, series, t[0], t[repeat / 2], t[repeat - 1], repeat);
    free(t);
}

int main(int argc, char **argv)
{
    int64_t npairs = 1000000;
    int repeat = 5;
    const char *coord = NULL, *db_arg = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc)
            npairs = atoll(argv[++i]);
        else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc)
            repeat = atoi(argv[++i]);
        else if (strcmp(argv[i], "--coordinator") == 0 && i + 1 < argc)
            coord = argv[++i];
        else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            db_arg = argv[++i];
        else {
            fprintf(stderr, "usage: bench_run_page [--pairs N] [--repeat R] [--coordinator PATH] "
                            "[--db CONNINFO]\n");
            return 2;
        }
    }
    if (npairs < 6000 || repeat < 1)
        return 2;
    capa_log_init("bench_run_page");
    capa_log_set_level(LOG_ERROR);
    char exe[4096] = "";
    if (!coord) {
        if (bench_build_program("capa-coordinator", exe, sizeof exe) < 0)
            return 1;
        coord = exe;
    }
    char dir[] = "/tmp/capa_bench_page_XXXXXX", db[512];
    bool own = !db_arg;
    if (own) {
        if (!mkdtemp(dir) || bench_pg_cluster("start", dir, db, sizeof db) < 0) {
            fprintf(stderr, "bench_run_page: cannot start a cluster in %s\n", dir);
            return 1;
        }
    } else {
        snprintf(db, sizeof db, "%s", db_arg);
    }
    int rc = 1;
    char err[1024];
    store_t *st = NULL;
    pid_t pid = -1;
    if (store_open(db, &st, err, sizeof err) < 0 ||
        store_migrate(st, CAPA_SOURCE_DIR "/sql", NULL) < 0) {
        fprintf(stderr, "bench_run_page: database: %s\n", st ? store_last_error(st) : err);
        goto out;
    }
    char doc[2048];
    int64_t per = (npairs + 5) / 6;
    int len = snprintf(doc, sizeof doc,
                       "{\"kind\":\"values\",\"name\":\"page bench\",\"seed\":3,"
                       "\"variant\":\"caparandom\",\"game\":{\"nodes\":1000},"
                       "\"pairs_per_imbalance\":%lld,\"imbalances\":[", (long long) per);
    for (int i = 0; i < 6; i++)
        len += snprintf(doc + len, sizeof doc - (size_t) len,
                        "%s{\"name\":\"%s\",\"side\":\"%s\",\"other\":\"%s\"}", i ? "," : "",
                        IMB[i], SIDE[i], OTHER[i]);
    snprintf(doc + len, sizeof doc - (size_t) len, "]}");
    int64_t run = 0;
    if (admin_run_submit(st, doc, strlen(doc), 0, &run, NULL, err, sizeof err) < 0) {
        fprintf(stderr, "bench_run_page: run: %s\n", err);
        goto out;
    }
    double t0 = bench_now();
    uint64_t rng = 42;
    for (int step = 0; step < 10; step++) {
        int64_t from = npairs * step / 10, to = npairs * (step + 1) / 10;
        if (s_fill(st, run, from, to - from, &rng) < 0 || s_estimate(st, run) < 0)
            goto out;
    }
    if (store_run_finish(st, run, STORE_RUN_FINISHED, "{\"verdict\":\"complete\"}") < 0) {
        fprintf(stderr, "bench_run_page: finish: %s\n", store_last_error(st));
        goto out;
    }
    printf("run %lld: %lld pairs stored and 10 estimates fitted in %.1f s\n", (long long) run,
           (long long) npairs, bench_now() - t0);
    if (s_time_refit(st, run, repeat) < 0)
        goto out;
    int port = bench_free_port(), zport = bench_free_port();
    char http[64], bind_ep[64];
    snprintf(http, sizeof http, "127.0.0.1:%d", port);
    snprintf(bind_ep, sizeof bind_ep, "tcp://127.0.0.1:%d", zport);
    pid = fork();
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execl(coord, coord, "--db", db, "--bind", bind_ep, "--http", http, "--bench", "4242",
              "--log-level", "error", "--sql-dir", CAPA_SOURCE_DIR "/sql", (char *) NULL);
        _exit(127);
    }
    size_t bytes;
    int up = 0;
    for (int i = 0; i < 300 && up != 200; i++) {
        usleep(100 * 1000);
        up = s_get(port, "/health", &bytes, NULL);
    }
    if (up != 200) {
        fprintf(stderr, "bench_run_page: %s answers no /health on %s\n", coord, http);
        goto out;
    }
    printf("coordinator %s\n", coord);
    char path[64];
    snprintf(path, sizeof path, "/runs/%lld", (long long) run);
    s_measure(port, path, repeat);
    snprintf(path, sizeof path, "/api/runs/%lld", (long long) run);
    s_measure(port, path, repeat);
    rc = 0;
out:
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, NULL, 0);
    }
    store_destroy(&st);
    if (own)
        bench_pg_cluster("destroy", dir, NULL, 0);
    return rc;
}
