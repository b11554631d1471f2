/* test_movepick.c - the search's move ordering: every legal move once, in
 * stages, quiet moves by butterfly plus counter-move history and by the
 * attacks of lesser enemy men on their squares. */
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "check.h"
#include "movegen.h"
#include "movepick.h"
#include "notation.h"

static board_t s_board;

static void s_set(const char *fen)
{
    char err[256];
    int rc = board_set_fen(&s_board, fen, VARIANT_CAPABLANCA, err, sizeof err);
    CHECK_MSG(rc == 0, "%s: %s", fen, err);
}

static move_t s_move(const char *uci)
{
    move_t m = MOVE_NONE;
    CHECK_MSG(move_from_uci(&s_board, uci, &m) == 0, "%s", uci);
    return m;
}

/* Picks every move into out (at most MAX_MOVES); returns the count. */
static int s_pick_all(movepick_t *mp, move_t *out)
{
    int n = 0;
    move_t m;
    while ((m = movepick_next(mp)) != MOVE_NONE) {
        CHECK(n < MAX_MOVES);
        out[n++] = m;
    }
    return n;
}

static int s_index(const move_t *list, int n, move_t m)
{
    for (int i = 0; i < n; i++)
        if (list[i] == m)
            return i;
    return -1;
}

static const char *const FENS[] = {
    "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
    "r1abqkb1nr/ppp1pppppp/2n7/3p6/4P1c3/2N7/PPPP1PPPPP/R1ABQKBCNR w KQkq - 2 4",
    "4k5/2q7/10/3pP5/10/2N3a3/6C3/4K5 w - d6 0 1",
};

static void every_legal_move_comes_exactly_once_in_every_mode(void)
{
    history_table_t *h = calloc(1, sizeof *h);
    cont_entry_t *cont = calloc(1, sizeof *cont);
    CHECK(h && cont);
    for (size_t f = 0; f < sizeof FENS / sizeof FENS[0]; f++) {
        s_set(FENS[f]);
        move_list_t legal;
        movegen_legal(&s_board, &legal);
        /* A hash move that is legal, one that is not (from another
         * position), and killers that are a capture and nonsense. */
        move_t elsewhere = move_make(0, SQ_NB - 1, MOVE_NORMAL, NO_PIECE_TYPE);
        move_t killers[2] = { legal.moves[legal.count - 1], elsewhere };
        for (int i = 0; i < legal.count; i++)
            movepick_history_update(h, board_side(&s_board), legal.moves[i], (i * 977) % 4000 - 2000);
        move_t tts[2] = { legal.moves[legal.count / 2], elsewhere };
        for (int t = 0; t < 2; t++) {
            movepick_t mp;
            movepick_init(&mp, &s_board, tts[t], killers, h, f == 1 ? cont : NULL, false);
            move_t got[MAX_MOVES];
            int n = s_pick_all(&mp, got);
            CHECK_EQ_INT(n, legal.count);
            for (int i = 0; i < legal.count; i++)
                CHECK_MSG(s_index(got, n, legal.moves[i]) >= 0, "%s: move %d missing", FENS[f], i);
            if (t == 0)
                CHECK(got[0] == tts[0]);
        }
    }
    free(h);
    free(cont);
}

/* After movepick_skip_quiets, the picker gives what it would have given but
 * the quiet moves: here the losing captures, in the same order. */
static void skipping_quiets_leaves_the_losing_captures(void)
{
    static const char *const SKIP_FENS[] = {
        "4k5/10/3p6/4p5/10/10/10/4Q4K w - - 0 1",
        "4k5/2q7/10/3pP5/10/2N3a3/6C3/4K5 w - d6 0 1",
        "r1abqkb1nr/ppp1pppppp/2n7/3p6/4P1c3/2N7/PPPP1PPPPP/R1ABQKBCNR w KQkq - 2 4",
    };
    history_table_t *h = calloc(1, sizeof *h);
    CHECK(h != NULL);
    int losing_after_skip = 0;
    for (size_t f = 0; f < sizeof SKIP_FENS / sizeof SKIP_FENS[0]; f++) {
        s_set(SKIP_FENS[f]);
        move_list_t legal;
        movegen_legal(&s_board, &legal);
        for (int i = 0; i < legal.count; i++)
            movepick_history_update(h, board_side(&s_board), legal.moves[i], (i * 613) % 3000 - 1500);
        move_t killers[2] = { MOVE_NONE, MOVE_NONE };
        for (int i = legal.count - 1, k = 0; i >= 0 && k < 2; i--)
            if (!move_is_capture(&s_board, legal.moves[i]) && !move_is_promotion(legal.moves[i]))
                killers[k++] = legal.moves[i];
        movepick_t mp;
        movepick_init(&mp, &s_board, MOVE_NONE, killers, h, NULL, false);
        move_t all[MAX_MOVES];
        int n = s_pick_all(&mp, all);
        CHECK_EQ_INT(n, legal.count);
        for (int k = 1; k <= 6; k++) {
            movepick_init(&mp, &s_board, MOVE_NONE, killers, h, NULL, false);
            move_t got[MAX_MOVES];
            int g = 0, quiets = 0;
            move_t m;
            while ((m = movepick_next(&mp)) != MOVE_NONE) {
                CHECK(g < MAX_MOVES);
                got[g++] = m;
                if (!move_is_capture(&s_board, m) && !move_is_promotion(m) && ++quiets == k)
                    movepick_skip_quiets(&mp);
            }
            /* the reference: the same up to the k-th quiet, then its non-quiets */
            int want = 0, seen = 0;
            for (int i = 0; i < n; i++) {
                bool quiet = !move_is_capture(&s_board, all[i]) && !move_is_promotion(all[i]);
                if (quiet && seen >= k)
                    continue;
                seen += quiet;
                if (seen >= k && !quiet && i > 0)
                    losing_after_skip++;
                CHECK_MSG(want < g && got[want] == all[i], "%s: k %d, move %d", SKIP_FENS[f], k, want);
                want++;
            }
            CHECK_EQ_INT(g, want);
        }
    }
    CHECK(losing_after_skip > 0);
    free(h);
}

static void captures_come_first_and_quiet_moves_follow_their_history(void)
{
    /* White's knight can take the queen on e4 and the undefended pawn on
     * b5; the bishop's capture on h6 loses it to the pawn on g7. */
    s_set("4k5/6p3/7p2/1p8/4q5/2N1B5/10/3K6 w - - 0 1");
    history_table_t *h = calloc(1, sizeof *h);
    CHECK(h);
    move_t quiet_a = s_move("d1c1"), quiet_b = s_move("c3d5");
    movepick_history_update(h, WHITE, quiet_a, 3000);
    movepick_history_update(h, WHITE, quiet_b, 5000);
    movepick_t mp;
    movepick_init(&mp, &s_board, MOVE_NONE, NULL, h, NULL, false);
    move_t got[MAX_MOVES];
    int n = 0;
    move_t m;
    while ((m = movepick_next(&mp)) != MOVE_NONE) {
        CHECK(n < MAX_MOVES);
        got[n++] = m;
        /* the picker says which moves come from its losing stage */
        CHECK_MSG(movepick_losing(&mp) == (m == s_move("e3h6")), "move %d", n - 1);
    }
    CHECK(got[0] == s_move("c3e4"));       /* the most valuable victim first */
    CHECK(got[1] == s_move("c3b5"));
    CHECK(got[2] == quiet_b);              /* the quiet moves by history */
    CHECK(got[3] == quiet_a);
    CHECK(got[n - 1] == s_move("e3h6"));   /* the losing capture last */
    free(h);
}

static void counter_move_history_reorders_the_quiet_moves(void)
{
    s_set("4k5/6p3/7p2/10/10/2N7/10/4K5 w - - 0 1");
    history_table_t *h = calloc(1, sizeof *h);
    cont_entry_t *cont = calloc(1, sizeof *cont);
    CHECK(h && cont);
    move_t king = s_move("e1d2"), knight = s_move("c3a4");
    movepick_history_update(h, WHITE, king, 3000);
    movepick_history_update(h, WHITE, knight, 1000);
    movepick_t mp;
    move_t got[MAX_MOVES];
    movepick_init(&mp, &s_board, MOVE_NONE, NULL, h, cont, false);
    s_pick_all(&mp, got);
    CHECK(got[0] == king);
    /* The reply by a knight to a4 has answered the previous move well. */
    movepick_cont_update(cont, KNIGHT, move_to(knight), 4000);
    CHECK((*cont)[KNIGHT][move_to(knight)] > 0);
    movepick_init(&mp, &s_board, MOVE_NONE, NULL, h, cont, false);
    s_pick_all(&mp, got);
    CHECK(got[0] == knight);
    CHECK(got[1] == king);
    free(h);
    free(cont);
}

/* Picks with the given killers and counter move, with a history that puts
 * the king's moves first; out gets every move, the count is returned. */
static int s_pick_with_counter(const history_table_t *h, move_t tt, const move_t *killers,
                               move_t counter, move_t *out)
{
    movepick_t mp;
    movepick_init(&mp, &s_board, tt, killers, h, NULL, false);
    movepick_set_counter(&mp, counter);
    return s_pick_all(&mp, out);
}

static int s_count(const move_t *list, int n, move_t m)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += list[i] == m;
    return c;
}

/* got (n moves) starts with the k moves of want, each of them only once */
static void s_check_start(const move_t *got, int n, const move_t *want, int k)
{
    CHECK(n >= k);
    for (int i = 0; i < k; i++) {
        CHECK_MSG(got[i] == want[i], "move %d", i);
        CHECK_MSG(s_count(got, n, want[i]) == 1, "move %d twice", i);
    }
}

static void the_counter_move_follows_the_killers_once(void)
{
    s_set("4k5/6p3/7p2/10/10/2N7/10/4K5 w - - 0 1");
    history_table_t *h = calloc(1, sizeof *h);
    CHECK(h);
    move_t king = s_move("e1d2"), k1 = s_move("c3b5"), k2 = s_move("c3e4"),
           counter = s_move("c3a4");
    movepick_history_update(h, WHITE, king, 5000);
    move_list_t legal;
    movegen_legal(&s_board, &legal);
    move_t killers[2] = { k1, k2 };
    move_t got[MAX_MOVES];
    /* killers, the counter move, then the quiet moves by history, the
     * counter move not among them again */
    int n = s_pick_with_counter(h, MOVE_NONE, killers, counter, got);
    CHECK_EQ_INT(n, legal.count);
    s_check_start(got, n, (move_t[]) { k1, k2, counter, king }, 4);
    /* without a counter move the history decides */
    n = s_pick_with_counter(h, MOVE_NONE, killers, MOVE_NONE, got);
    CHECK_EQ_INT(n, legal.count);
    CHECK(got[2] == king);
    /* a counter move that is a killer or not a legal move here changes
     * nothing */
    move_t no_change[] = { k2, move_make(0, SQ_NB - 1, MOVE_NORMAL, NO_PIECE_TYPE) };
    for (size_t i = 0; i < sizeof no_change / sizeof no_change[0]; i++) {
        n = s_pick_with_counter(h, MOVE_NONE, killers, no_change[i], got);
        CHECK_EQ_INT(n, legal.count);
        CHECK(got[2] == king);
        CHECK_EQ_INT(s_count(got, n, k2), 1);
    }
    /* one that is the hash move comes first, as the hash move, and once */
    n = s_pick_with_counter(h, counter, killers, counter, got);
    CHECK_EQ_INT(n, legal.count);
    s_check_start(got, n, (move_t[]) { counter, k1, k2, king }, 4);
    free(h);
}

/* Picks every move of the current position into out with only the
 * butterfly history h; returns the count. */
static int s_pick_plain(const history_table_t *h, move_t *out)
{
    movepick_t mp;
    movepick_init(&mp, &s_board, MOVE_NONE, NULL, h, NULL, false);
    return s_pick_all(&mp, out);
}

static void a_piece_attacked_by_a_lesser_man_moves_first_and_not_into_one(void)
{
    history_table_t *h = calloc(1, sizeof *h);
    CHECK(h);
    move_t got[MAX_MOVES];
    /* The black pawn on e5 attacks the knight on d4: every knight move,
     * even one without history, comes before a king move with history. */
    s_set("4k5/10/10/4p5/3N6/10/10/4K5 w - - 0 1");
    move_t king = s_move("e1d2"), knight = s_move("d4b3");
    movepick_history_update(h, WHITE, king, 5000);
    int n = s_pick_plain(h, got);
    CHECK(s_index(got, n, knight) >= 0 && s_index(got, n, knight) < s_index(got, n, king));
    /* A knight move into the pawn's attack comes after one out of it,
     * whatever their histories. */
    s_set("4k5/10/10/4p5/10/10/2N7/4K5 w - - 0 1");
    move_t into = s_move("c2d4"), away = s_move("c2b4");
    memset(h, 0, sizeof *h);
    movepick_history_update(h, WHITE, into, 5000);
    n = s_pick_plain(h, got);
    CHECK(s_index(got, n, away) >= 0 && s_index(got, n, away) < s_index(got, n, into));
    /* So does a rook that a knight attacks. */
    s_set("4k5/10/10/2n7/10/3R6/10/4K5 w - - 0 1");
    move_t rook = s_move("d3d6");
    memset(h, 0, sizeof *h);
    movepick_history_update(h, WHITE, king, 5000);
    n = s_pick_plain(h, got);
    CHECK(s_index(got, n, rook) >= 0 && s_index(got, n, rook) < s_index(got, n, king));
    free(h);
}

static void history_updates_are_bounded(void)
{
    history_table_t *h = calloc(1, sizeof *h);
    cont_entry_t *cont = calloc(1, sizeof *cont);
    CHECK(h && cont);
    s_set(FENS[0]);
    move_t m = s_move("b1c3");
    for (int i = 0; i < 200; i++) {
        movepick_history_update(h, WHITE, m, 40000);
        movepick_cont_update(cont, KNIGHT, move_to(m), 40000);
    }
    CHECK((*h)[WHITE][move_from(m)][move_to(m)] <= MOVEPICK_HISTORY_MAX);
    CHECK((*h)[WHITE][move_from(m)][move_to(m)] > MOVEPICK_HISTORY_MAX / 2);
    CHECK((*cont)[KNIGHT][move_to(m)] <= MOVEPICK_HISTORY_MAX);
    for (int i = 0; i < 200; i++)
        movepick_cont_update(cont, KNIGHT, move_to(m), -40000);
    CHECK((*cont)[KNIGHT][move_to(m)] >= -MOVEPICK_HISTORY_MAX);
    CHECK((*cont)[KNIGHT][move_to(m)] < -MOVEPICK_HISTORY_MAX / 2);
    free(h);
    free(cont);
}

static const check_case_t CASES[] = {
    CASE(every_legal_move_comes_exactly_once_in_every_mode),
    CASE(captures_come_first_and_quiet_moves_follow_their_history),
    CASE(skipping_quiets_leaves_the_losing_captures),
    CASE(counter_move_history_reorders_the_quiet_moves),
    CASE(the_counter_move_follows_the_killers_once),
    CASE(a_piece_attacked_by_a_lesser_man_moves_first_and_not_into_one),
    CASE(history_updates_are_bounded),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
