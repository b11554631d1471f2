/* bench.c - the fixed bench positions and the bench command. */
#include "bench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "crc.h"
#include "err.h"
#include "search.h"
#include "timeman.h"

typedef struct {
    const char *variant;
    const char *fen;   /* NULL: the CRC array crc_number */
    int crc_number;
} bench_pos_t;

static const bench_pos_t POSITIONS[] = {
    { "capablanca", "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1", 0 },
    { "capablanca", "r1abqkbc1r/pppp1ppppp/2n4n2/4p5/4P5/2N4N2/PPPP1PPPPP/R1ABQKBC1R w KQkq - 4 4", 0 },
    { "capablanca", "rnabqkbcnr/pppp1ppppp/10/4p5/4P5/10/PPPPQPPPPP/RNAB1KBCNR b KQkq - 1 2", 0 },
    { "capablanca", "r4k3r/ppp1cppppp/2n1b2n2/3p6/3P6/2N1B2N2/PPP1CPPPPP/R4K3R w - - 0 10", 0 },
    { "capablanca", "r1b2k3r/pp3ppppp/2n7/2ap2q3/10/2NB1Q4/PPP2PPPPP/R3AK3R w - - 0 12", 0 },
    { "gothic", "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1", 0 },
    { "gothic", "r1bqckab1r/ppp2ppppp/2np3n2/4p5/4P5/2NP3N2/PPP2PPPPP/R1BQCKAB1R w KQkq - 0 5", 0 },
    { "embassy", "rnbqkcabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQKCABNR w KQkq - 0 1", 0 },
    { "janus", "rjnbkqbnjr/pppppppppp/10/10/10/10/PPPPPPPPPP/RJNBKQBNJR w KQkq - 0 1", 0 },
    { "caparandom", NULL, 0 },
    { "caparandom", NULL, 12345 },
    { "capablanca", "3q2k3/5pp2p/7p2/10/10/7P2/5PP2P/3C2K3 w - - 0 30", 0 },
    { "capablanca", "4a1k3/pp3pp1p1/7p2/10/10/7P2/PP3PP1P1/4R1K3 w - - 0 40", 0 },
    { "capablanca", "10/5k4/10/3P6/10/2c7/10/4K1A3 w - - 0 50", 0 },
    { "capablanca", "10/10/4k5/10/10/10/10/A4K4 w - - 0 60", 0 },
    { "capablanca", "10/10/10/5k4/10/10/10/4K4C w - - 0 60", 0 },
    { "capablanca", "10/2P7/10/10/10/10/6p3/K8k w - - 0 70", 0 },
};

#define BENCH_N ((int) (sizeof POSITIONS / sizeof POSITIONS[0]))

int bench_count(void)
{
    return BENCH_N;
}

int bench_position(int i, const char **variant, char *fen, size_t fenlen)
{
    if (i < 0 || i >= BENCH_N)
        return CAPA_ERANGE;
    *variant = POSITIONS[i].variant;
    if (POSITIONS[i].fen) {
        if (strlen(POSITIONS[i].fen) + 1 > fenlen)
            return CAPA_EFULL;
        strcpy(fen, POSITIONS[i].fen);
        return CAPA_OK;
    }
    return crc_start_fen(POSITIONS[i].crc_number % crc_count(), fen, fenlen);
}

static int s_run(int depth, size_t hash_mb, uint64_t *nodes, int64_t *ms, bool verbose,
                 char *err, size_t errlen)
{
    search_t *s = search_new(hash_mb);
    board_t *b = malloc(sizeof *b);
    if (!s || !b) {
        search_destroy(&s);
        free(b);
        return capa_fail(err, errlen, CAPA_ENOMEM, "bench: out of memory");
    }
    int rc = CAPA_OK;
    uint64_t total = 0;
    int64_t t0 = timeman_now_ms();
    for (int i = 0; i < BENCH_N && rc == CAPA_OK; i++) {
        const char *vname;
        char fen[FEN_MAX];
        variant_t v;
        rc = bench_position(i, &vname, fen, sizeof fen);
        if (rc == CAPA_OK && variant_from_name(vname, &v) < 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "bench: unknown variant %s", vname);
        if (rc == CAPA_OK)
            rc = board_set_fen(b, fen, v, err, errlen);
        if (rc < 0)
            break;
        search_new_game(s);
        search_limits_t lim;
        search_limits_init(&lim);
        lim.depth = depth;
        search_result_t res;
        rc = search_go(s, b, &lim, &res);
        total += res.nodes;
        if (verbose)
            printf("position %2d %-10s nodes %10" PRIu64 "  score %6d  %s\n", i + 1, vname,
                   res.nodes, res.score, fen);
    }
    *ms = timeman_now_ms() - t0;
    *nodes = total;
    search_destroy(&s);
    free(b);
    return rc;
}

int bench_run(int depth, size_t hash_mb, uint64_t *nodes, int64_t *ms, char *err, size_t errlen)
{
    return s_run(depth, hash_mb, nodes, ms, false, err, errlen);
}

int bench_main(int argc, char **argv)
{
    int depth = BENCH_DEFAULT_DEPTH;
    long hash = BENCH_DEFAULT_HASH_MB;
    if (argc > 1) {
        char *end;
        long d = strtol(argv[1], &end, 10);
        if (*end || d < 1 || d > SEARCH_MAX_DEPTH) {
            fprintf(stderr, "bench: depth must be 1..%d\n", SEARCH_MAX_DEPTH);
            return 2;
        }
        depth = (int) d;
    }
    if (argc > 2) {
        char *end;
        hash = strtol(argv[2], &end, 10);
        if (*end || hash < 1 || hash > 65536) {
            fprintf(stderr, "bench: hash must be 1..65536 MB\n");
            return 2;
        }
    }
    uint64_t nodes;
    int64_t ms;
    char err[256] = "";
    if (s_run(depth, (size_t) hash, &nodes, &ms, true, err, sizeof err) < 0) {
        fprintf(stderr, "bench: %s\n", err);
        return 1;
    }
    printf("===========================\n");
    printf("Total time (ms) : %" PRId64 "\n", ms);
    printf("Nodes searched  : %" PRIu64 "\n", nodes);
    printf("Nodes/second    : %" PRIu64 "\n", ms > 0 ? nodes * 1000 / (uint64_t) ms : nodes);
    printf("%" PRIu64 " nodes %" PRIu64 " nps\n", nodes, ms > 0 ? nodes * 1000 / (uint64_t) ms : nodes);
    return 0;
}
