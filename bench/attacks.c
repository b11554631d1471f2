/* bench/attacks.c - slider attack lookups: rook and bishop attack sets per
 * CPU-second over random occupancies of every square. Prints figures;
 * asserts nothing.
 *
 *   bench_attacks [MILLION_CALLS]    (default 200; each of rook, bishop)
 */
#include <stdio.h>
#include <stdlib.h>

#include "attacks.h"
#include "bench_util.h"
#include "stats_rng.h"

#define OCCUPANCIES 4096

static stats_rng_t s_rng;

/* A random set of squares, each on with probability one half. */
static bitboard_t s_random_set(void)
{
    return (((bitboard_t) stats_rng_next(&s_rng) << 64) | stats_rng_next(&s_rng)) & bb_all();
}

int main(int argc, char **argv)
{
    long millions = argc > 1 ? atol(argv[1]) : 200;
    if (millions < 1) {
        fprintf(stderr, "usage: bench_attacks [MILLION_CALLS]\n");
        return 2;
    }
    attacks_init();
    stats_rng_seed(&s_rng, 1);
    /* about a quarter of the board occupied, as in a middle game */
    static bitboard_t occ[OCCUPANCIES];
    for (int i = 0; i < OCCUPANCIES; i++)
        occ[i] = s_random_set() & s_random_set();
    long calls = millions * 1000000L;
    for (int kind = 0; kind < 2; kind++) {
        bitboard_t sink = 0;
        double c0 = bench_cpu_seconds();
        for (long i = 0; i < calls; i++) {
            square_t s = (square_t) (i % SQ_NB);
            bitboard_t o = occ[(i ^ (i >> 7)) & (OCCUPANCIES - 1)];
            sink ^= kind == 0 ? attacks_rook(s, o) : attacks_bishop(s, o);
        }
        double cpu = bench_cpu_seconds() - c0;
        printf("%s: %ld calls in %.2f cpu-s: %.1f ns a call (checksum %d)\n",
               kind == 0 ? "rook" : "bishop", calls, cpu, cpu * 1e9 / (double) calls,
               bb_popcount(sink));
    }
    return 0;
}
