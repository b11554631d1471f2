/* bench/worker_spool.c - how fast the worker's spool takes RESULT batches
 * and ACKs (each one an fsync on the disk of the state folder).
 *
 *   bench_worker_spool [BATCHES [BYTES [DIR]]]    defaults 200, 8000, /tmp
 *
 * Prints appends/s and removals/s (tombstones, plus the compactions they
 * trigger) and the file size at the peak. A worker sends a batch every few
 * finished pairs (seconds to minutes apart), so anything above a few dozen
 * per second leaves the spool far off the critical path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "spool.h"

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int batches = argc > 1 ? atoi(argv[1]) : 200;
    size_t bytes = argc > 2 ? (size_t) atol(argv[2]) : 8000;
    const char *base = argc > 3 ? argv[3] : "/tmp";
    if (batches < 1 || bytes < 1 || bytes > SPOOL_RECORD_MAX)
        return 2;
    char dir[512];
    snprintf(dir, sizeof dir, "%s/capa-bench-spool-XXXXXX", base);
    if (!mkdtemp(dir)) {
        perror(dir);
        return 1;
    }
    char err[256];
    spool_t *sp = NULL;
    if (spool_open(dir, &sp, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    char *frame = malloc(bytes);
    memset(frame, 'r', bytes);
    double t0 = s_now();
    for (int b = 0; b < batches; b++)
        if (spool_append(sp, 1, b, frame, bytes, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    double t1 = s_now();
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, SPOOL_FILE);
    struct stat st;
    stat(path, &st);
    long peak = (long) st.st_size;
    for (int b = 0; b < batches; b++)
        if (spool_remove(sp, 1, b, err, sizeof err) < 0) {
            fprintf(stderr, "%s\n", err);
            return 1;
        }
    double t2 = s_now();
    printf("spool in %s: %d batches of %zu bytes\n", base, batches, bytes);
    printf("  append+fsync: %8.1f batches/s (%.2f ms each)\n", batches / (t1 - t0),
           1e3 * (t1 - t0) / batches);
    printf("  ACK removal:  %8.1f batches/s (%.2f ms each)\n", batches / (t2 - t1),
           1e3 * (t2 - t1) / batches);
    printf("  file at the peak: %ld bytes\n", peak);
    spool_destroy(&sp);
    free(frame);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
