/* Unit tests for game-end rules and repetition (engine/rules.c, board.h). */
#include "check.h"

#include "board.h"
#include "movegen.h"
#include "notation.h"
#include "rules.h"

static board_t s_board;

static void s_set(const char *fen, variant_t v)
{
    char err[256];
    int rc = board_set_fen(&s_board, fen, v, err, sizeof err);
    CHECK_MSG(rc == 0, "%s: %s", fen, err);
}

static void s_play(const char *uci)
{
    move_t m;
    CHECK_MSG(move_from_uci(&s_board, uci, &m) == 0, "move %s not legal", uci);
    board_make(&s_board, m);
}

static bool s_dead(const char *fen)
{
    s_set(fen, VARIANT_CAPABLANCA);
    return rules_insufficient_material(&s_board);
}

static void insufficient_material_cases(void)
{
    CHECK(s_dead("4k5/10/10/10/10/10/10/4K5 w - - 0 1"));                /* K v K */
    CHECK(s_dead("4k5/10/10/10/10/10/10/2B1K5 w - - 0 1"));              /* K+B v K */
    CHECK(s_dead("4k5/10/10/10/10/10/10/1N2K5 b - - 0 1"));              /* K+N v K */
    CHECK(s_dead("3bk5/10/10/10/10/10/10/2B1K5 w - - 0 1"));             /* K+B v K+B, d8 and c1 dark */
}

static void bishops_on_one_colour_are_dead_and_on_two_are_not(void)
{
    /* a1 is dark: c1 and d8 are dark, c8 and h1 light. */
    CHECK(s_dead("3bk5/10/10/10/10/10/10/B1B1K5 w - - 0 1"));            /* a1, c1, d8 */
    CHECK(!s_dead("2b1k5/10/10/10/10/10/10/2B1K5 w - - 0 1"));           /* c8 light, c1 dark */
    CHECK(!s_dead("4k5/10/10/10/10/10/10/2B1K2B2 w - - 0 1"));           /* c1 dark, h1 light */
}

static void archbishop_or_chancellor_alone_can_still_win(void)
{
    CHECK(!s_dead("4k5/10/10/10/10/10/10/2A1K5 w - - 0 1"));
    CHECK(!s_dead("4k5/10/10/10/10/10/10/2C1K5 w - - 0 1"));
    CHECK(!s_dead("4k5/10/10/10/10/10/10/2R1K5 w - - 0 1"));
    CHECK(!s_dead("4k5/10/10/10/10/10/P9/4K5 w - - 0 1"));
    CHECK(!s_dead("4k5/10/10/10/10/10/10/1NN1K5 w - - 0 1"));
    CHECK(!s_dead("4k5/10/10/10/10/10/10/1NB1K5 w - - 0 1"));
    CHECK(!s_dead("4kn4/10/10/10/10/10/10/1N2K5 w - - 0 1"));
    CHECK_EQ_INT(rules_result(&s_board, NULL), RESULT_ONGOING);
}

static void checkmate_and_stalemate_are_recognised(void)
{
    result_reason_t why;
    s_set("R5k3/5ppp2/10/10/10/10/10/5K4 b - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_WHITE_WINS);
    CHECK_EQ_INT(why, REASON_CHECKMATE);
    CHECK_EQ_STR(rules_reason_name(why), "checkmate");
    /* Black king a8 boxed in by the white queen c7, not in check. */
    s_set("k9/2Q7/10/10/10/10/10/5K4 b - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_DRAW);
    CHECK_EQ_INT(why, REASON_STALEMATE);
    /* An archbishop mates alone (with its king's help). */
    s_set("k9/2A7/1K8/10/10/10/10/10 b - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_WHITE_WINS);
    CHECK_EQ_INT(why, REASON_CHECKMATE);
}

static void a_mate_on_the_hundredth_ply_is_a_mate(void)
{
    result_reason_t why;
    s_set("6k3/5ppp2/10/10/10/10/10/R4K4 w - - 99 80", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_ONGOING);
    s_play("a1a8");
    CHECK_EQ_INT(board_halfmove_clock(&s_board), 100);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_WHITE_WINS);
    CHECK_EQ_INT(why, REASON_CHECKMATE);
    /* Without mate the hundredth ply ends the game by the fifty-move rule. */
    s_set("6k3/5ppp2/10/10/10/10/10/R4K4 w - - 99 80", VARIANT_CAPABLANCA);
    s_play("a1a2");
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_DRAW);
    CHECK_EQ_INT(why, REASON_FIFTY_MOVE);
}

static void threefold_is_a_claim_and_fivefold_ends_the_game(void)
{
    static const char *const SHUFFLE[] = { "b1c3", "b8c6", "c3b1", "c6b8" };
    result_reason_t why;
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    for (int i = 0; i < 4; i++)
        s_play(SHUFFLE[i]);
    CHECK_EQ_INT(board_repetition_count(&s_board), 1);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_ONGOING);
    for (int i = 0; i < 4; i++)
        s_play(SHUFFLE[i]);
    CHECK_EQ_INT(board_repetition_count(&s_board), 2);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_DRAW);
    CHECK_EQ_INT(why, REASON_THREEFOLD);
    for (int i = 0; i < 8; i++)
        s_play(SHUFFLE[i % 4]);
    CHECK_EQ_INT(board_repetition_count(&s_board), 4);
    CHECK_EQ_INT(rules_result(&s_board, &why), RESULT_DRAW);
    CHECK_EQ_INT(why, REASON_FIVEFOLD);
}

static void repetition_in_search_counts_once_after_the_root_and_twice_before(void)
{
    static const char *const SHUFFLE[] = { "b1c3", "b8c6", "c3b1", "c6b8" };
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    for (int i = 0; i < 4; i++)
        s_play(SHUFFLE[i]);
    /* One earlier occurrence, 4 plies back. */
    CHECK(board_is_repetition(&s_board, 4));   /* inside the search tree */
    CHECK(!board_is_repetition(&s_board, 3));  /* before the root: needs two */
    for (int i = 0; i < 4; i++)
        s_play(SHUFFLE[i]);
    CHECK(board_is_repetition(&s_board, 0));
    /* An irreversible move cuts the history. */
    s_play("e2e4");
    CHECK(!board_is_repetition(&s_board, 100));
    CHECK_EQ_INT(board_repetition_count(&s_board), 0);
}

static void castling_rights_make_positions_differ(void)
{
    /* Rook out and back: same placement, but castling rights lost. */
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    s_play("a2a4");
    s_play("a7a5");
    uint64_t before = board_key(&s_board);
    s_play("a1a2");
    s_play("a8a7");
    s_play("a2a1");
    s_play("a7a8");
    CHECK(board_key(&s_board) != before);
    CHECK_EQ_INT(board_repetition_count(&s_board), 0);
}

static void games_longer_than_the_history_keep_working(void)
{
    static const char *const SHUFFLE[] = { "b1c3", "b8c6", "c3b1", "c6b8" };
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    int plies = 3 * BOARD_HISTORY_MAX + 2;
    for (int i = 0; i < plies; i++)
        s_play(SHUFFLE[i % 4]);
    CHECK_EQ_INT(board_game_ply(&s_board), plies);
    CHECK(board_undo_depth(&s_board) < BOARD_HISTORY_MAX);
    CHECK(board_undo_depth(&s_board) >= BOARD_HISTORY_MAX / 2 - 1);
    CHECK_EQ_INT(board_fullmove(&s_board), 1 + plies / 2);
    CHECK_EQ_INT(board_side(&s_board), WHITE);  /* an even number of plies */
    CHECK(board_is_repetition(&s_board, 0));
    char err[256];
    CHECK_EQ_INT(board_validate(&s_board, err, sizeof err), 0);
    for (int i = 0; i < 10; i++)
        board_unmake(&s_board);
    CHECK_EQ_U64(board_key(&s_board), board_compute_key(&s_board));
}

static void result_strings(void)
{
    CHECK_EQ_STR(rules_result_string(RESULT_WHITE_WINS), "1-0");
    CHECK_EQ_STR(rules_result_string(RESULT_BLACK_WINS), "0-1");
    CHECK_EQ_STR(rules_result_string(RESULT_DRAW), "1/2-1/2");
    CHECK_EQ_STR(rules_result_string(RESULT_ONGOING), "*");
}

static const check_case_t CASES[] = {
    CASE(insufficient_material_cases),
    CASE(bishops_on_one_colour_are_dead_and_on_two_are_not),
    CASE(archbishop_or_chancellor_alone_can_still_win),
    CASE(checkmate_and_stalemate_are_recognised),
    CASE(a_mate_on_the_hundredth_ply_is_a_mate),
    CASE(threefold_is_a_claim_and_fivefold_ends_the_game),
    CASE(repetition_in_search_counts_once_after_the_root_and_twice_before),
    CASE(castling_rights_make_positions_differ),
    CASE(games_longer_than_the_history_keep_working),
    CASE(result_strings),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
