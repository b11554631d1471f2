/* bench_perft - perft speed of the rules core on a fixed set of positions.
 *
 *   bench_perft [REPEATS]     (default 3; the best run of each position counts)
 *
 * Prints nodes, best time and nodes per second per position and in total.
 * Bulk counting at the last ply, single thread. Figures only: no assertions.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board.h"
#include "perft.h"

static const struct {
    variant_t variant;
    const char *fen;
    int depth;
} POSITIONS[] = {
    { VARIANT_CAPABLANCA, "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1", 5 },
    { VARIANT_GOTHIC, "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1", 5 },
    { VARIANT_JANUS, "rjnbkqbnjr/pppppppppp/10/10/10/10/PPPPPPPPPP/RJNBKQBNJR w KQkq - 0 1", 5 },
    { VARIANT_CAPABLANCA, "1nabqkbcn1/p1ppppppp1/1r6r1/1p6p1/3PP5/2N4N2/PPP2PPPPP/R1ABQKBC1R w KQ - 0 5", 4 },
    { VARIANT_CAPABLANCA, "r1b1c2rk1/p4a1ppp/1ppq2pn2/3p1p4/3A1Pn3/1PN3PN2/P1PQP1BPPP/3RC2RK1 w - - 0 1", 4 },
    { VARIANT_CAPARANDOM, "rbnqkbacnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RBNQKBACNR w KQkq - 0 1", 5 },
};

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 3;
    if (repeats < 1)
        repeats = 1;
    static board_t board;
    uint64_t total_nodes = 0;
    double total_time = 0;
    printf("%-11s %-5s %12s %9s %14s\n", "variant", "depth", "nodes", "best s", "nodes/s");
    for (size_t i = 0; i < sizeof POSITIONS / sizeof POSITIONS[0]; i++) {
        char err[256];
        if (board_set_fen(&board, POSITIONS[i].fen, POSITIONS[i].variant, err, sizeof err)) {
            fprintf(stderr, "bench_perft: %s\n", err);
            return 1;
        }
        double best = 1e30;
        uint64_t nodes = 0;
        for (int r = 0; r < repeats; r++) {
            double t0 = s_now();
            nodes = perft(&board, POSITIONS[i].depth);
            double t = s_now() - t0;
            if (t < best)
                best = t;
        }
        printf("%-11s %-5d %12" PRIu64 " %9.3f %14.0f\n", variant_name(POSITIONS[i].variant),
               POSITIONS[i].depth, nodes, best, (double) nodes / best);
        total_nodes += nodes;
        total_time += best;
    }
    printf("%-11s %-5s %12" PRIu64 " %9.3f %14.0f\n", "total", "", total_nodes, total_time,
           (double) total_nodes / total_time);
    return 0;
}
