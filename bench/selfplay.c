/* bench/selfplay.c - self-play throughput: games per minute per core at a
 * fixed node count per move (default 10,000), one thread, CRC starts.
 * Prints figures; asserts nothing.
 *
 *   bench_selfplay [PAIRS [NODES [THREADS]]]   (defaults 10, 10000, 1)
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "selfplay.h"

int main(int argc, char **argv)
{
    selfplay_config_t cfg;
    selfplay_config_default(&cfg);
    cfg.pairs = argc > 1 ? atoi(argv[1]) : 10;
    cfg.game.nodes = argc > 2 ? (uint64_t) atoll(argv[2]) : 10000;
    cfg.threads = argc > 3 ? atoi(argv[3]) : 1;
    if (cfg.pairs < 1 || cfg.game.nodes < 1 || cfg.threads < 1) {
        fprintf(stderr, "usage: bench_selfplay [PAIRS [NODES [THREADS]]]\n");
        return 2;
    }
    cfg.starts.source = STARTPOS_CRC;
    cfg.starts.seed = 2026;
    selfplay_stats_t st;
    char err[256];
    double c0 = bench_cpu_seconds();
    if (selfplay_run(&cfg, &st, err, sizeof err) < 0) {
        fprintf(stderr, "bench_selfplay: %s\n", err);
        return 1;
    }
    double cpu = bench_cpu_seconds() - c0;
    selfplay_print(stdout, &st);
    int games = 2 * st.pairs;
    printf("throughput at %llu nodes/move: %.1f games/min wall (%d threads), %.1f games/min "
           "per cpu-minute, %.0f nodes/s per cpu-second\n",
           (unsigned long long) cfg.game.nodes, st.seconds > 0 ? games * 60.0 / st.seconds : 0.0,
           cfg.threads, cpu > 0 ? games * 60.0 / cpu : 0.0, cpu > 0 ? st.nodes / cpu : 0.0);
    return 0;
}
