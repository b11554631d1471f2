/* Unit tests for legal move generation, make/unmake and hashing
 * (engine/movegen.c, engine/board.c). */
#include "check.h"

#include "board.h"
#include "crc.h"
#include "err.h"
#include "movegen.h"
#include "notation.h"

static board_t s_board;

static void s_set(const char *fen, variant_t v)
{
    char err[256];
    int rc = board_set_fen(&s_board, fen, v, err, sizeof err);
    CHECK_MSG(rc == 0, "%s: %s", fen, err);
}

/* Whether the UCI move (in the variant's own convention) is legal here. */
static bool s_has(const char *uci)
{
    move_t m;
    return move_from_uci(&s_board, uci, &m) == 0;
}

static move_t s_move(const char *uci)
{
    move_t m = MOVE_NONE;
    CHECK_MSG(move_from_uci(&s_board, uci, &m) == 0, "move %s not legal", uci);
    return m;
}

static const char *s_fen(void)
{
    static char buf[FEN_MAX];
    board_get_fen(&s_board, buf, sizeof buf);
    return buf;
}

static int s_castles(void)
{
    move_list_t list;
    movegen_legal(&s_board, &list);
    int n = 0;
    for (int i = 0; i < list.count; i++)
        n += move_is_castle(list.moves[i]);
    return n;
}

static void capablanca_castles_to_i1_and_c1(void)
{
    s_set("r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(s_castles(), 2);
    board_make(&s_board, s_move("f1i1"));
    CHECK_EQ_STR(s_fen(), "r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R6RK1 b kq - 1 1");
    board_make(&s_board, s_move("f8c8"));
    CHECK_EQ_STR(s_fen(), "2kr5r/pppppppppp/10/10/10/10/PPPPPPPPPP/R6RK1 w - - 2 2");
}

static void embassy_and_janus_castle_to_their_own_squares(void)
{
    s_set("r3k4r/pppppppppp/10/10/10/10/PPPPPPPPPP/R3K4R w KQkq - 0 1", VARIANT_EMBASSY);
    board_make(&s_board, s_move("e1h1"));
    CHECK_EQ_STR(s_fen(), "r3k4r/pppppppppp/10/10/10/10/PPPPPPPPPP/R5RK2 b kq - 1 1");
    board_make(&s_board, s_move("e8b8"));
    CHECK_EQ_STR(s_fen(), "1kr6r/pppppppppp/10/10/10/10/PPPPPPPPPP/R5RK2 w - - 2 2");
    s_set("r3k4r/pppppppppp/10/10/10/10/PPPPPPPPPP/R3K4R w KQkq - 0 1", VARIANT_JANUS);
    board_make(&s_board, s_move("e1i1"));
    CHECK_EQ_STR(s_fen(), "r3k4r/pppppppppp/10/10/10/10/PPPPPPPPPP/R6RK1 b kq - 1 1");
    board_make(&s_board, s_move("e8b8"));
    CHECK_EQ_STR(s_fen(), "1kr6r/pppppppppp/10/10/10/10/PPPPPPPPPP/R6RK1 w - - 2 2");
    s_set("rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 0 1", VARIANT_GOTHIC);
    board_make(&s_board, s_move("f1c1"));
    CHECK_EQ_STR(s_fen(), "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/2KR5R b kq - 1 1");
}

static void crc_castling_where_the_king_does_not_move(void)
{
    /* King already on c1: queen-side castling moves only the rook a1 -> d1. */
    s_set("4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/R1K6R w AJ - 0 1", VARIANT_CAPARANDOM);
    move_t m = s_move("c1a1");
    CHECK(move_is_castle(m));
    board_make(&s_board, m);
    CHECK_EQ_STR(s_fen(), "4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/2KR5R b - - 1 1");
    board_unmake(&s_board);
    CHECK_EQ_STR(s_fen(), "4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/R1K6R w JA - 0 1");
}

static void crc_castling_that_swaps_king_and_rook(void)
{
    /* King d1, queen-side rook c1: after castling the king is on c1, the rook on d1. */
    s_set("4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/2RK5R w CJ - 0 1", VARIANT_CAPARANDOM);
    board_make(&s_board, s_move("d1c1"));
    CHECK_EQ_STR(s_fen(), "4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/2KR5R b - - 1 1");
    CHECK_EQ_INT(board_key(&s_board), board_compute_key(&s_board));
    board_unmake(&s_board);
    /* King h1, king-side rook i1: swap the other way. */
    s_set("4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/R6KR1 w AI - 0 1", VARIANT_CAPARANDOM);
    board_make(&s_board, s_move("h1i1"));
    CHECK_EQ_STR(s_fen(), "4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/R6RK1 b - - 1 1");
}

static void castling_needs_a_safe_king_path_but_the_rook_may_cross_attacks(void)
{
    /* Black rook on the b-file attacks b1, which only the rook crosses: legal. */
    s_set("1r3k4/10/10/10/10/10/10/R4K3R w KQ - 0 1", VARIANT_CAPABLANCA);
    CHECK(s_has("f1c1"));
    CHECK(s_has("f1i1"));
    /* Black rook on the d-file attacks d1, which the king crosses: illegal. */
    s_set("3r1k4/10/10/10/10/10/10/R4K3R w KQ - 0 1", VARIANT_CAPABLANCA);
    CHECK(!s_has("f1c1"));
    CHECK(s_has("f1i1"));
    /* Landing square attacked. */
    s_set("2r2k4/10/10/10/10/10/10/R4K3R w KQ - 0 1", VARIANT_CAPABLANCA);
    CHECK(!s_has("f1c1"));
    /* In check: no castling at all. */
    s_set("5r2k1/10/10/10/10/10/10/R4K3R w KQ - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(s_castles(), 0);
}

static void castling_is_blocked_by_any_other_piece(void)
{
    s_set("5k4/10/10/10/10/10/10/RN3K3R w KQ - 0 1", VARIANT_CAPABLANCA);
    CHECK(!s_has("f1c1"));
    CHECK(s_has("f1i1"));
    s_set("5k4/10/10/10/10/10/10/R4K2NR w KQ - 0 1", VARIANT_CAPABLANCA);
    CHECK(!s_has("f1i1"));
    CHECK(s_has("f1c1"));
}

static void a_castling_rook_that_shields_the_king_square_cannot_castle(void)
{
    /* Rook b1 castles to d1, the king e1 -> c1: the black rook on a1 would then attack c1. */
    s_set("4k5/10/10/10/10/10/10/rR2K4R w Q - 0 1", VARIANT_CAPARANDOM);
    CHECK(!s_has("e1b1"));
    /* King already on c1, rook b1 shields it from a1: castling would expose it. */
    s_set("4k5/10/10/10/10/10/10/rRK6R w BJ - 0 1", VARIANT_CAPARANDOM);
    CHECK(!s_has("c1b1"));
    CHECK(s_has("c1j1"));
}

static void en_passant_is_generated_and_undone(void)
{
    s_set("4k5/3p6/10/4P5/10/10/10/4K5 b - - 0 1", VARIANT_CAPABLANCA);
    board_make(&s_board, s_move("d7d5"));
    CHECK_EQ_INT(board_ep_square(&s_board), square_make(3, 5));
    move_t ep = s_move("e5d6");
    CHECK(move_is_ep(ep));
    CHECK(move_is_capture(&s_board, ep));
    board_make(&s_board, ep);
    CHECK_EQ_STR(s_fen(), "4k5/10/3P6/10/10/10/10/4K5 b - - 0 2");
    board_unmake(&s_board);
    CHECK_EQ_STR(s_fen(), "4k5/10/10/3pP5/10/10/10/4K5 w - d6 0 2");
}

static void en_passant_is_illegal_when_it_exposes_the_king_along_the_rank(void)
{
    s_set("4k5/3p6/10/K3P4r/10/10/10/10 b - - 0 1", VARIANT_CAPABLANCA);
    board_make(&s_board, s_move("d7d5"));
    CHECK(!s_has("e5d6"));
    CHECK(s_has("e5e6"));
    /* The capturing pawn is pinned on the diagonal b2-g7 and would leave it. */
    s_set("4k5/3p2b3/10/4P5/10/10/1K8/10 b - - 0 1", VARIANT_CAPABLANCA);
    board_make(&s_board, s_move("d7d5"));
    CHECK(!s_has("e5d6"));
}

static void en_passant_may_capture_a_checking_pawn(void)
{
    s_set("10/3p6/10/4P5/2K7/10/10/9k b - - 0 1", VARIANT_CAPABLANCA);
    board_make(&s_board, s_move("d7d5"));
    CHECK(board_in_check(&s_board));
    CHECK(s_has("e5d6"));
}

static void promotion_offers_every_piece_of_the_variant(void)
{
    s_set("4k5/P9/10/10/10/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA);
    static const char *const PROMOS[] = { "a7a8q", "a7a8c", "a7a8a", "a7a8r", "a7a8b", "a7a8n" };
    for (int i = 0; i < 6; i++) {
        move_t m = s_move(PROMOS[i]);
        board_make(&s_board, m);
        CHECK_EQ_INT(board_piece_on(&s_board, square_make(0, 7)),
                     piece_make(WHITE, move_promo(m)));
        board_unmake(&s_board);
    }
    CHECK(!s_has("a7a8"));
    CHECK(!s_has("a7a8k"));
    CHECK(!s_has("a7a8p"));
    move_list_t list;
    CHECK_EQ_INT(movegen_legal(&s_board, &list), 6 + 5);
    s_set("4k5/P9/10/10/10/10/10/4K5 w - - 0 1", VARIANT_JANUS);
    CHECK_EQ_INT(movegen_legal(&s_board, &list), 5 + 5);
    CHECK(s_has("a7a8j"));
    CHECK(!s_has("a7a8c"));
}

static void a_pinned_archbishop_keeps_only_its_moves_along_the_pin(void)
{
    /* White archbishop d2 pinned by the bishop g5 against the king c1. */
    s_set("9k/10/10/6b3/10/10/3A6/2K7 w - - 0 1", VARIANT_CAPABLANCA);
    move_list_t list;
    movegen_legal(&s_board, &list);
    int arch = 0;
    for (int i = 0; i < list.count; i++)
        if (move_from(list.moves[i]) == square_make(3, 1))
            arch++;
    CHECK_EQ_INT(arch, 3); /* e3, f4, xg5 */
}

static void double_check_allows_only_king_moves(void)
{
    /* Rook a1 and knight e3 both check the king f1; the rook d2 could block or take one. */
    s_set("4k5/10/10/10/10/4n5/3R6/r4K4 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(bb_popcount(board_checkers(&s_board)), 2);
    move_list_t list;
    CHECK(movegen_legal(&s_board, &list) > 0);
    for (int i = 0; i < list.count; i++)
        CHECK_EQ_INT(move_from(list.moves[i]), square_make(5, 0));
    /* Single check by the rook: the rook d2 may block on d1. */
    s_set("4k5/10/10/10/10/10/3R6/r4K4 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK(s_has("d2d1"));
    CHECK(!s_has("d2d3"));
}

/* Plays seeded random games, checking at every ply: incremental key ==
 * recomputed key, board self-consistency, noisy+quiet == legal, every
 * generated move passes movegen_is_legal, gives_check agrees with the
 * position after the move, and unmake restores the FEN. */
static void s_random_games(variant_t v, const char *fen, uint64_t seed, int games)
{
    uint64_t rng = seed;
    for (int g = 0; g < games; g++) {
        if (fen)
            s_set(fen, v);
        else
            CHECK_EQ_INT(board_set_startpos(&s_board, v), 0);
        char start[FEN_MAX];
        board_get_fen(&s_board, start, sizeof start);
        int plies = 0;
        for (; plies < 300; plies++) {
            char err[256];
            CHECK_MSG(board_validate(&s_board, err, sizeof err) == 0, "%s at %s", err, s_fen());
            move_list_t all, noisy, quiet;
            movegen_legal(&s_board, &all);
            movegen_noisy(&s_board, &noisy);
            movegen_quiet(&s_board, &quiet);
            CHECK_EQ_INT(noisy.count + quiet.count, all.count);
            CHECK_EQ_INT(movegen_count(&s_board), all.count);
            for (int i = 0; i < noisy.count; i++)
                CHECK(move_is_capture(&s_board, noisy.moves[i]) || move_is_promotion(noisy.moves[i]));
            for (int i = 0; i < all.count; i++)
                CHECK(movegen_is_legal(&s_board, all.moves[i]));
            for (int i = 0; i < 20; i++) {
                move_t junk = (move_t) crc_splitmix64(&rng) & 0xfffffu;
                bool listed = false;
                for (int k = 0; k < all.count; k++)
                    listed |= all.moves[k] == junk;
                CHECK_EQ_INT(movegen_is_legal(&s_board, junk), listed);
            }
            /* The quiet moves of some men: movegen_quiet's list with the
             * other men's moves left out, in the same order. */
            bitboard_t some = ((bitboard_t) crc_splitmix64(&rng) << 64) | crc_splitmix64(&rng);
            move_list_t part;
            movegen_quiet_of(&s_board, &part, some);
            int at = 0;
            for (int i = 0; i < quiet.count; i++)
                if (bb_test(some, move_from(quiet.moves[i])))
                    CHECK(at < part.count && part.moves[at++] == quiet.moves[i]);
            CHECK_EQ_INT(at, part.count);
            /* Every plain move of every own man to every square: accepted
             * exactly when generated (pins, checks, own men in the way). */
            bitboard_t ours = board_color_bb(&s_board, board_side(&s_board));
            while (ours) {
                square_t from = bb_pop_lsb(&ours);
                for (square_t to = 0; to < SQ_NB; to++) {
                    move_t plain = move_make(from, to, MOVE_NORMAL, NO_PIECE_TYPE);
                    bool listed = false;
                    for (int k = 0; k < all.count; k++)
                        listed |= all.moves[k] == plain;
                    CHECK_EQ_INT(movegen_is_legal(&s_board, plain), listed);
                }
            }
            if (all.count == 0 || board_halfmove_clock(&s_board) >= 100)
                break;
            move_t m = all.moves[crc_splitmix64(&rng) % (uint64_t) all.count];
            bool checks = board_gives_check(&s_board, m);
            char before[FEN_MAX];
            board_get_fen(&s_board, before, sizeof before);
            board_make(&s_board, m);
            CHECK_EQ_INT(board_in_check(&s_board), checks);
            CHECK_EQ_U64(board_key(&s_board), board_compute_key(&s_board));
            CHECK_EQ_U64(board_pawn_key(&s_board), board_compute_pawn_key(&s_board));
            board_unmake(&s_board);
            CHECK_EQ_STR(s_fen(), before);
            board_make(&s_board, m);
        }
        while (board_game_ply(&s_board) > 0)
            board_unmake(&s_board);
        CHECK_EQ_STR(s_fen(), start);
    }
}

static void random_games_keep_the_incremental_state_exact(void)
{
    for (int v = 0; v < VARIANT_NB; v++)
        s_random_games((variant_t) v, NULL, 1000 + (uint64_t) v, 6);
    s_random_games(VARIANT_CAPARANDOM, "1r2k3r1/pppppppppp/10/10/10/10/PPPPPPPPPP/1R2K3R1 w IBib - 0 1", 7, 6);
    s_random_games(VARIANT_CAPARANDOM, "1rkr6/pppppppppp/10/10/10/10/PPPPPPPPPP/1RKR6 w DBdb - 0 1", 8, 6);
    s_random_games(VARIANT_CAPABLANCA, "4k5/pppppppppp/10/10/10/10/PPPPPPPPPP/4K5 w - - 0 1", 9, 6);
}

static void null_move_flips_the_side_and_restores_everything(void)
{
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    board_make(&s_board, s_move("e2e4"));
    uint64_t key = board_key(&s_board);
    board_make_null(&s_board);
    CHECK_EQ_INT(board_side(&s_board), WHITE);
    CHECK_EQ_U64(board_key(&s_board), board_compute_key(&s_board));
    board_unmake_null(&s_board);
    CHECK_EQ_U64(board_key(&s_board), key);
    CHECK_EQ_INT(board_side(&s_board), BLACK);
}

static void attackers_to_reports_both_colours(void)
{
    s_set("4k5/10/10/10/3p6/4N5/10/4K5 w - - 0 1", VARIANT_CAPABLANCA);
    bitboard_t occ = board_occupied(&s_board);
    /* e3 is attacked by the black pawn d4 (and defended by nobody else). */
    CHECK(board_attackers_to(&s_board, square_make(4, 2), occ) == bb_square(square_make(3, 3)));
    /* d5 is attacked by the white knight e3 only; e2 by the king e1 and nothing else. */
    CHECK(board_attackers_to(&s_board, square_make(3, 4), occ) == bb_square(square_make(4, 2)));
    CHECK(board_attackers_to(&s_board, square_make(4, 1), occ) == bb_square(square_make(4, 0)));
    CHECK(board_is_attacked(&s_board, square_make(2, 2), BLACK));
    CHECK(!board_is_attacked(&s_board, square_make(2, 2), WHITE));
}

static void the_pawn_key_depends_on_the_pawns_alone(void)
{
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    uint64_t start = board_pawn_key(&s_board);
    CHECK(start != 0);
    /* Knight moves there and back: the key changes, the pawn key does not. */
    board_make(&s_board, s_move("b1c3"));
    board_make(&s_board, s_move("i8h6"));
    CHECK_EQ_U64(board_pawn_key(&s_board), start);
    board_make(&s_board, s_move("e2e4"));
    uint64_t e4 = board_pawn_key(&s_board);
    CHECK(e4 != start);
    /* The same pawns reached by another order: the same pawn key. */
    s_set("rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR b KQkq - 0 1",
          VARIANT_CAPABLANCA);
    CHECK_EQ_U64(board_pawn_key(&s_board), e4);
    /* Without pawns it is 0; a pawn taken by a piece, en passant or
     * promoted leaves the key of the pawns that remain. */
    s_set("4k5/10/10/10/10/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_U64(board_pawn_key(&s_board), 0);
    s_set("4k5/1P8/10/10/10/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA);
    board_make(&s_board, s_move("b7b8q"));
    CHECK_EQ_U64(board_pawn_key(&s_board), 0);
    s_set("4k5/3p6/10/4P5/10/10/10/R3K5 b - - 0 1", VARIANT_CAPABLANCA);
    board_make(&s_board, s_move("d7d5"));
    board_make(&s_board, s_move("e5d6"));
    CHECK_EQ_U64(board_pawn_key(&s_board), board_compute_pawn_key(&s_board));
    uint64_t after_ep = board_pawn_key(&s_board);
    s_set("4k5/10/3P6/10/10/10/10/R3K5 b - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_U64(board_pawn_key(&s_board), after_ep);
    s_set("4k5/10/3p6/10/10/10/10/3RK5 w - - 0 1", VARIANT_CAPABLANCA);
    board_make(&s_board, s_move("d1d6"));
    CHECK_EQ_U64(board_pawn_key(&s_board), 0);
    board_unmake(&s_board);
    CHECK_EQ_U64(board_pawn_key(&s_board), board_compute_pawn_key(&s_board));
    CHECK(board_pawn_key(&s_board) != 0);
}

static const check_case_t CASES[] = {
    CASE(capablanca_castles_to_i1_and_c1),
    CASE(embassy_and_janus_castle_to_their_own_squares),
    CASE(crc_castling_where_the_king_does_not_move),
    CASE(crc_castling_that_swaps_king_and_rook),
    CASE(castling_needs_a_safe_king_path_but_the_rook_may_cross_attacks),
    CASE(castling_is_blocked_by_any_other_piece),
    CASE(a_castling_rook_that_shields_the_king_square_cannot_castle),
    CASE(en_passant_is_generated_and_undone),
    CASE(en_passant_is_illegal_when_it_exposes_the_king_along_the_rank),
    CASE(en_passant_may_capture_a_checking_pawn),
    CASE(promotion_offers_every_piece_of_the_variant),
    CASE(a_pinned_archbishop_keeps_only_its_moves_along_the_pin),
    CASE(double_check_allows_only_king_moves),
    CASE(random_games_keep_the_incremental_state_exact),
    CASE(null_move_flips_the_side_and_restores_everything),
    CASE(the_pawn_key_depends_on_the_pawns_alone),
    CASE(attackers_to_reports_both_colours),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
