/* bench/store.c - how many pair results per second store_insert_pairs stores,
 * in batches of 1, 10, 100 and 1000, with and without move lists.
 *
 *   bench_store                 starts a private cluster (scripts/pgtmp.sh) in
 *                               a temporary folder, destroys it at the end
 *   bench_store CONNINFO        uses that (scratch!) database instead
 *   CAPA_BENCH_SECONDS=N        time per configuration (default 2)
 *
 * Every commit is durable (fsync on, synchronous_commit on): a batch is one
 * round trip, a commit one WAL flush, which is what the coordinator pays
 * before an ACK. "batches/commit" > 1 uses store_insert_batches (several
 * RESULTs committed together). Prints one line per configuration.
 */
#include "bench_util.h"
#include "err.h"
#include "log.h"
#include "store.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Inserts batches of `batch` new pairs for `seconds`, `group` batches per
 * commit (store_insert_batches) or one (store_insert_pairs); returns pairs/s
 * and the time per commit. */
static double s_measure(store_t *st, int64_t run, int64_t *next_pair, size_t batch, size_t group,
                        const char *moves, double seconds, double *ms_per_commit)
{
    size_t total = batch * group;
    store_pair_t *p = calloc(total, sizeof *p);
    bool *fresh = calloc(total, sizeof *fresh);
    store_batch_t *b = calloc(group, sizeof *b);
    if (!p || !fresh || !b) {
        free(p);
        free(fresh);
        free(b);
        return -1;
    }
    int64_t stored = 0, commits = 0;
    double t0 = bench_now(), t = t0;
    while (t - t0 < seconds) {
        for (size_t i = 0; i < total; i++) {
            int64_t k = (*next_pair)++;
            int r0 = (int) (k % 3), r1 = (int) ((k / 3) % 3);
            p[i] = (store_pair_t) {
                .pair_no = k, .worker_id = "bench-worker",
                .fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
                .result = { r0, r1 }, .b_white = { false, true },
                .end = { "checkmate", "repetition" }, .plies = { 90, 130 },
                .moves = { moves, moves }, .score = (2 - r0) + r1, .cpu_ms = 2500,
            };
        }
        int rc;
        if (group == 1) {
            size_t n_new = 0;
            rc = store_insert_pairs(st, run, p, batch, fresh, &n_new);
            stored += (int64_t) n_new;
        } else {
            for (size_t g = 0; g < group; g++)
                b[g] = (store_batch_t) { .run_id = run, .pairs = p + g * batch, .n = batch,
                                         .new_p = fresh + g * batch };
            rc = store_insert_batches(st, b, group);
            for (size_t g = 0; g < group; g++)
                stored += (int64_t) b[g].n_new;
        }
        if (rc < 0) {
            fprintf(stderr, "bench_store: %s\n", store_last_error(st));
            stored = -1;
            break;
        }
        commits++;
        t = bench_now();
    }
    free(p);
    free(fresh);
    free(b);
    if (stored < 0)
        return -1;
    *ms_per_commit = (t - t0) * 1e3 / (double) commits;
    return (double) stored / (t - t0);
}

int main(int argc, char **argv)
{
    capa_log_init("bench_store");
    double seconds = getenv("CAPA_BENCH_SECONDS") ? atof(getenv("CAPA_BENCH_SECONDS")) : 2.0;
    if (seconds <= 0)
        seconds = 2.0;
    char conninfo[512], dir[] = "/tmp/capa-bench-store-XXXXXX";
    bool own = argc < 2;
    if (own) {
        if (!mkdtemp(dir) || bench_pg_cluster("start", dir, conninfo, sizeof conninfo) < 0) {
            fprintf(stderr, "bench_store: cannot start a cluster in %s\n", dir);
            return 1;
        }
    } else {
        snprintf(conninfo, sizeof conninfo, "%s", argv[1]);
    }
    int status = 1;
    char err[256];
    store_t *st = NULL;
    if (store_open(conninfo, &st, err, sizeof err) < 0) {
        fprintf(stderr, "bench_store: %s\n", err);
        goto out;
    }
    if (store_migrate(st, CAPA_SOURCE_DIR "/sql", NULL) < 0) {
        fprintf(stderr, "bench_store: %s\n", store_last_error(st));
        goto out;
    }
    char hash[65];
    snprintf(hash, sizeof hash, "%016llx%016llx%032d", (unsigned long long) getpid(),
             (unsigned long long) time(NULL), 0);
    char name[64];
    snprintf(name, sizeof name, "bench %d %lld", (int) getpid(), (long long) time(NULL));
    int64_t contributor = 0, run = 0;
    store_worker_t w = { .cores = 2, .concurrency = 2 };
    snprintf(w.id, sizeof w.id, "bench-worker");
    store_run_t r = { .kind = PROTO_KIND_SPRT, .name = name, .doc = "{}", .seed = 1,
                      .pairs_planned = INT64_MAX };
    if (store_contributor_add(st, name, hash, false, &contributor) < 0
        || (w.contributor_id = contributor, store_worker_upsert(st, &w)) < 0
        || store_run_insert(st, &r, &run) < 0) {
        fprintf(stderr, "bench_store: %s\n", store_last_error(st));
        goto out;
    }
    /* About 110 plies of UCI moves. */
    char moves[700] = "";
    for (int i = 0; i < 110; i++)
        strcat(moves, i % 2 ? "e7e6 " : "e2e4 ");
    printf("store_insert_pairs, one durable commit per batch, %.1f s per line\n", seconds);
    printf("%-6s %-8s %-6s %12s %12s\n", "batch", "batches", "moves", "pairs/s", "ms/commit");
    printf("%-6s %-8s %-6s\n", "", "/commit", "");
    int64_t next = 0;
    static const size_t sizes[][2] = { { 1, 1 }, { 10, 1 }, { 100, 1 }, { 1000, 1 },
                                       { 1, 10 }, { 10, 10 }, { 8, 50 } };
    for (int with_moves = 0; with_moves < 2; with_moves++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            double ms;
            double rate = s_measure(st, run, &next, sizes[i][0], sizes[i][1],
                                    with_moves ? moves : NULL, seconds, &ms);
            if (rate < 0)
                goto out;
            printf("%-6zu %-8zu %-6s %12.0f %12.3f\n", sizes[i][0], sizes[i][1],
                   with_moves ? "yes" : "no", rate, ms);
            fflush(stdout);
        }
    /* A replayed batch of 100: all duplicates. */
    {
        double t0 = bench_now();
        int reps = 0;
        store_pair_t p[100];
        for (int i = 0; i < 100; i++) {
            int r0 = i % 3, r1 = (i / 3) % 3;
            p[i] = (store_pair_t) {
                .pair_no = i, .worker_id = "bench-worker",
                .fen = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
                .result = { r0, r1 }, .b_white = { false, true },
                .end = { "checkmate", "repetition" }, .plies = { 90, 130 },
                .score = (2 - r0) + r1, .cpu_ms = 1,
            };
        }
        while (bench_now() - t0 < seconds) {
            size_t n_new = 1;
            if (store_insert_pairs(st, run, p, 100, NULL, &n_new) < 0 || n_new != 0) {
                fprintf(stderr, "bench_store: replay stored something: %s\n",
                        store_last_error(st));
                goto out;
            }
            reps++;
        }
        double dt = bench_now() - t0;
        printf("%-6d %-8d %-6s %12.0f %12.3f   (replays: all duplicates)\n", 100, 1, "no",
               reps * 100 / dt, dt * 1e3 / reps);
    }
    status = 0;
out:
    store_destroy(&st);
    if (own)
        bench_pg_cluster("destroy", dir, NULL, 0);
    return status;
}
