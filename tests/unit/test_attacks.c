/* Unit tests for the slider attack lookups (engine/attacks.h): every
 * square, against a walk along the eight directions, on random and edge
 * occupancies. */
#include "check.h"

#include "attacks.h"
#include "stats_rng.h"

static const int DF[8] = { 0, 1, 1, -1, 0, -1, -1, 1 };
static const int DR[8] = { 1, 0, 1, 1, -1, 0, -1, -1 };

/* The squares reached from s along the straight (or the diagonal)
 * directions, each walk stopping on the first piece of occ, included. */
static bitboard_t s_walk(square_t s, bitboard_t occ, bool diagonal)
{
    bitboard_t a = 0;
    for (int d = 0; d < 8; d++) {
        bool is_diagonal = DF[d] != 0 && DR[d] != 0;
        if (is_diagonal != diagonal)
            continue;
        int f = square_file(s) + DF[d], r = square_rank(s) + DR[d];
        for (; f >= 0 && f < FILE_NB && r >= 0 && r < RANK_NB; f += DF[d], r += DR[d]) {
            square_t t = square_make(f, r);
            a |= bb_square(t);
            if (bb_test(occ, t))
                break;
        }
    }
    return a;
}

static stats_rng_t s_rng;

/* A random set of squares, each on with probability one half. */
static bitboard_t s_random_set(void)
{
    return (((bitboard_t) stats_rng_next(&s_rng) << 64) | stats_rng_next(&s_rng)) & bb_all();
}

static void s_check_all_squares(bitboard_t occ)
{
    for (square_t s = 0; s < SQ_NB; s++) {
        bitboard_t o = occ | bb_square(s); /* a slider stands on its square */
        bitboard_t rook = attacks_rook(s, o), bishop = attacks_bishop(s, o);
        bitboard_t want_rook = s_walk(s, o, false), want_bishop = s_walk(s, o, true);
        CHECK_MSG(rook == want_rook, "rook on %d: %016llx%016llx, want %016llx%016llx", s,
                  (unsigned long long) (rook >> 64), (unsigned long long) rook,
                  (unsigned long long) (want_rook >> 64), (unsigned long long) want_rook);
        CHECK_MSG(bishop == want_bishop, "bishop on %d: %016llx%016llx, want %016llx%016llx", s,
                  (unsigned long long) (bishop >> 64), (unsigned long long) bishop,
                  (unsigned long long) (want_bishop >> 64), (unsigned long long) want_bishop);
        CHECK(attacks_piece(QUEEN, WHITE, s, o) == (want_rook | want_bishop));
    }
}

static void slider_attacks_match_a_walk_on_an_empty_and_a_full_board(void)
{
    attacks_init();
    s_check_all_squares(0);
    s_check_all_squares(bb_all());
}

static void slider_attacks_match_a_walk_on_random_occupancies(void)
{
    attacks_init();
    stats_rng_seed(&s_rng, 1);
    for (int i = 0; i < 3000; i++) {
        bitboard_t occ = s_random_set();
        /* sparse, middling and dense boards */
        if (i % 3 == 0)
            occ &= s_random_set();
        if (i % 3 == 1)
            occ |= s_random_set();
        s_check_all_squares(occ);
    }
}

static void slider_attacks_stop_on_the_edges_of_the_board(void)
{
    attacks_init();
    /* Pieces on the files a and j and the ranks 1 and 8 only: no attack
     * wraps from one edge to the other. */
    bitboard_t edges = bb_file(0) | bb_file(FILE_NB - 1) | bb_rank(0) | bb_rank(RANK_NB - 1);
    s_check_all_squares(edges);
    for (int f = 0; f < FILE_NB; f++)
        s_check_all_squares(bb_file(f));
    for (int r = 0; r < RANK_NB; r++)
        s_check_all_squares(bb_rank(r));
}

static const check_case_t CASES[] = {
    CASE(slider_attacks_match_a_walk_on_an_empty_and_a_full_board),
    CASE(slider_attacks_match_a_walk_on_random_occupancies),
    CASE(slider_attacks_stop_on_the_edges_of_the_board),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
