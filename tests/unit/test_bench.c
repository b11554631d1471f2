/* test_bench.c - the bench signature: the node count of the fixed bench
 * positions at the default depth and hash size. Update BENCH_SIGNATURE
 * (and state it in the commit message) whenever search or eval change. */
#include "bench.h"
#include "board.h"
#include "check.h"

#define BENCH_SIGNATURE 776269ULL

static void every_bench_position_is_a_legal_position(void)
{
    board_t *b = malloc(sizeof *b);
    CHECK(bench_count() >= 10);
    for (int i = 0; i < bench_count(); i++) {
        const char *vn;
        char fen[128], err[256];
        variant_t v;
        CHECK_EQ_INT(bench_position(i, &vn, fen, sizeof fen), 0);
        CHECK_EQ_INT(variant_from_name(vn, &v), 0);
        int rc = board_set_fen(b, fen, v, err, sizeof err);
        CHECK_MSG(rc == 0, "%s: %s", fen, err);
    }
    free(b);
}

static void the_bench_signature_is_unchanged(void)
{
    uint64_t nodes = 0;
    int64_t ms = 0;
    char err[256] = "";
    int rc = bench_run(BENCH_DEFAULT_DEPTH, BENCH_DEFAULT_HASH_MB, &nodes, &ms, err, sizeof err);
    CHECK_MSG(rc == 0, "%s", err);
    CHECK_EQ_U64(nodes, BENCH_SIGNATURE);
}

static const check_case_t CASES[] = {
    CASE(every_bench_position_is_a_legal_position),
    CASE(the_bench_signature_is_unchanged),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
