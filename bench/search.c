/* bench/search.c - search speed: nodes per second from the capablanca start
 * position (and the bench set), one thread. Prints figures; asserts nothing.
 *
 *   bench_search [SECONDS_PER_RUN [RUNS]]    (defaults 5 and 3; best run reported)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "bench_util.h"
#include "board.h"
#include "search.h"

int main(int argc, char **argv)
{
    int seconds = argc > 1 ? atoi(argv[1]) : 5;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (seconds < 1 || runs < 1) {
        fprintf(stderr, "usage: bench_search [SECONDS_PER_RUN [RUNS]]\n");
        return 2;
    }
    board_t *b = malloc(sizeof *b);
    search_t *s = search_new(64);
    if (!b || !s)
        return 1;
    board_set_startpos(b, VARIANT_CAPABLANCA);
    double best_wall = 0, best_cpu = 0;
    for (int r = 0; r < runs; r++) {
        search_new_game(s);
        search_limits_t lim;
        search_limits_init(&lim);
        lim.movetime_ms = seconds * 1000;
        search_result_t res;
        double c0 = bench_cpu_seconds();
        search_go(s, b, &lim, &res);
        double cpu = bench_cpu_seconds() - c0;
        double wall_nps = res.time_ms > 0 ? res.nodes * 1000.0 / res.time_ms : 0;
        double cpu_nps = cpu > 0 ? res.nodes / cpu : 0;
        printf("run %d: capablanca start, depth %d, %" PRIu64 " nodes in %" PRId64
               " ms: %.0f nodes/s wall, %.0f nodes/s cpu\n", r + 1, res.depth, res.nodes,
               res.time_ms, wall_nps, cpu_nps);
        if (wall_nps > best_wall)
            best_wall = wall_nps;
        if (cpu_nps > best_cpu)
            best_cpu = cpu_nps;
    }
    printf("best: %.0f nodes/s wall, %.0f nodes/s per cpu-second\n", best_wall, best_cpu);

    uint64_t nodes;
    int64_t ms;
    char err[256];
    double c0 = bench_cpu_seconds();
    if (bench_run(BENCH_DEFAULT_DEPTH, BENCH_DEFAULT_HASH_MB, &nodes, &ms, err, sizeof err) == 0) {
        double cpu = bench_cpu_seconds() - c0;
        printf("bench set: %" PRIu64 " nodes (signature), %" PRId64 " ms, %.0f nodes/s wall, "
               "%.0f nodes/s cpu\n", nodes, ms, ms > 0 ? nodes * 1000.0 / ms : 0.0,
               cpu > 0 ? nodes / cpu : 0.0);
    }
    search_destroy(&s);
    free(b);
    return 0;
}
