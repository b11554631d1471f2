/* test_search.c - the search: tactics, mates, determinism, limits, stop. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attacks.h"
#include "board.h"
#include "crc.h"
#include "check.h"
#include "movegen.h"
#include "notation.h"
#include "search.h"
#include "see.h"
#include "timeman.h"

static board_t s_board;

static void s_set(const char *fen, variant_t v)
{
    char err[256];
    int rc = board_set_fen(&s_board, fen, v, err, sizeof err);
    CHECK_MSG(rc == 0, "%s: %s", fen, err);
}

static search_result_t s_search_depth(search_t *s, int depth)
{
    search_limits_t lim;
    search_limits_init(&lim);
    lim.depth = depth;
    search_result_t r;
    CHECK_EQ_INT(search_go(s, &s_board, &lim, &r), 0);
    return r;
}

static void s_check_move(move_t m, const char *uci)
{
    char buf[UCI_MOVE_MAX];
    move_to_uci(&s_board, m, false, buf);
    CHECK_EQ_STR(buf, uci);
}

static void a_chancellor_mates_on_the_back_rank_in_one(void)
{
    search_t *s = search_new(4);
    s_set("6k3/5ppp2/10/10/10/10/10/3C2K3 w - - 0 1", VARIANT_CAPABLANCA);
    search_result_t r = s_search_depth(s, 4);
    s_check_move(r.best, "d1d8");
    CHECK_EQ_INT(r.score, SCORE_MATE - 1);
    CHECK_EQ_INT(search_mate_in(r.score), 1);
    search_destroy(&s);
    CHECK(s == NULL);
}

static void the_mated_side_sees_the_mate_against_it(void)
{
    search_t *s = search_new(4);
    /* Black to move: every move allows Cd8 mate (the king is boxed in). */
    s_set("6k3/5ppp2/10/10/10/10/PP8/K2C6 b - - 0 1", VARIANT_CAPABLANCA);
    search_result_t r = s_search_depth(s, 5);
    CHECK(r.best != MOVE_NONE);
    CHECK(r.score > -SCORE_MATE_IN_MAX || search_mate_in(r.score) < 0);
    search_destroy(&s);
}

static void a_hanging_queen_is_taken(void)
{
    search_t *s = search_new(4);
    s_set("rnab1kbcnr/pppppppppp/10/10/4q5/10/PPPP1PPPPP/RNABQKBCNR w KQkq - 0 3",
          VARIANT_CAPABLANCA);
    search_result_t r = s_search_depth(s, 5);
    s_check_move(r.best, "e1e4");
    CHECK(r.score > 700);
    search_destroy(&s);
}

/* White may take a free rook on j4 with the queen, but then the chancellor's
 * quiet move c7c2 mates by a knight jump (the king on a1 is boxed in by its
 * own pawns and rook). At depth 1 that mate lies in the quiescence search,
 * which sees it only because it tries quiet checks by the compound pieces;
 * the queen must stay on a square that guards c2 instead. */
static void a_quiet_mate_past_the_horizon_is_not_walked_into(void)
{
    search_t *s = search_new(4);
    s_set("9k/2c5pp/10/10/9r/10/PP8/KR7Q w - - 0 1", VARIANT_CAPABLANCA);
    search_result_t r = s_search_depth(s, 1);
    char buf[UCI_MOVE_MAX];
    move_to_uci(&s_board, r.best, false, buf);
    CHECK_MSG(strcmp(buf, "j1j4") != 0, "took the rook into Cc2 mate (score %d)", r.score);
    CHECK(r.score > -SCORE_MATE_IN_MAX);
    search_destroy(&s);
}

static void a_checkmated_root_has_no_best_move(void)
{
    search_t *s = search_new(1);
    s_set("3C2k3/5ppp2/10/10/10/10/10/6K3 b - - 0 1", VARIANT_CAPABLANCA);
    search_result_t r = s_search_depth(s, 3);
    CHECK(r.best == MOVE_NONE);
    CHECK_EQ_INT(r.score, -SCORE_MATE);
    s_set("k9/3N6/1K8/10/10/10/10/10 b - - 0 1", VARIANT_CAPABLANCA);
    r = s_search_depth(s, 3);
    CHECK(r.best == MOVE_NONE);
    CHECK_EQ_INT(r.score, 0);
    search_destroy(&s);
}

static void node_limited_searches_repeat_exactly(void)
{
    search_limits_t lim;
    search_limits_init(&lim);
    lim.nodes = 20000;
    move_t first = MOVE_NONE;
    uint64_t nodes = 0;
    int score = 0;
    for (int run = 0; run < 3; run++) {
        search_t *s = search_new(8);
        s_set("r1abqkbc1r/pppp1ppppp/2n4n2/4p5/4P5/2N4N2/PPPP1PPPPP/R1ABQKBC1R w KQkq - 4 4",
              VARIANT_CAPABLANCA);
        search_result_t r;
        CHECK_EQ_INT(search_go(s, &s_board, &lim, &r), 0);
        CHECK(r.nodes <= lim.nodes);
        CHECK(r.nodes >= lim.nodes - 1);
        CHECK(movegen_is_legal(&s_board, r.best));
        if (run == 0) {
            first = r.best;
            nodes = r.nodes;
            score = r.score;
        } else {
            CHECK(r.best == first);
            CHECK_EQ_U64(r.nodes, nodes);
            CHECK_EQ_INT(r.score, score);
        }
        search_destroy(&s);
    }
}

static void a_new_game_forgets_and_repeats_the_same_search(void)
{
    search_t *s = search_new(8);
    s_set("rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1", VARIANT_GOTHIC);
    search_result_t a = s_search_depth(s, 7);
    search_result_t warm = s_search_depth(s, 7);
    search_new_game(s);
    search_result_t b = s_search_depth(s, 7);
    CHECK(a.best == b.best);
    CHECK_EQ_U64(a.nodes, b.nodes);
    CHECK(warm.nodes < a.nodes);  /* the table helped the second search */
    search_destroy(&s);
}

static void new_parameters_search_with_their_own_evaluation(void)
{
    /* One engine searches with the defaults, then gets material-only
     * parameters and a new game; it must then search exactly as a fresh
     * engine with those parameters (nothing evaluated under the old ones,
     * in the hash table or the evaluation cache, is reused). */
    const char *fen = "r1abqkbc1r/pppp1ppppp/2n4n2/4p5/4P5/2N4N2/PPPP1PPPPP/R1ABQKBC1R w KQkq - 4 4";
    params_t material;
    params_default(&material);
    params_material_only(&material);
    search_t *used = search_new(8), *fresh = search_new(8);
    s_set(fen, VARIANT_CAPABLANCA);
    search_result_t before = s_search_depth(used, 7);
    search_set_params(used, &material);
    search_new_game(used);
    search_result_t a = s_search_depth(used, 7);
    search_set_params(fresh, &material);
    search_result_t b = s_search_depth(fresh, 7);
    CHECK(a.best == b.best);
    CHECK_EQ_INT(a.score, b.score);
    CHECK_EQ_U64(a.nodes, b.nodes);
    CHECK(before.nodes != a.nodes);  /* the parameters did change the search */
    search_destroy(&used);
    search_destroy(&fresh);
}

static void a_stop_request_ends_an_infinite_search_with_a_legal_move(void)
{
    search_t *s = search_new(1);
    s_set("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
          VARIANT_CAPABLANCA);
    search_stop(s);
    search_limits_t lim;
    search_limits_init(&lim);
    lim.infinite = true;
    search_result_t r;
    CHECK_EQ_INT(search_go(s, &s_board, &lim, &r), 0);
    CHECK(movegen_is_legal(&s_board, r.best));
    CHECK(r.nodes < 5000);
    search_clear_stop(s);
    search_destroy(&s);
}

typedef struct {
    search_t *s;
    search_result_t r;
} s_thread_arg_t;

static void *s_thread(void *arg)
{
    s_thread_arg_t *a = arg;
    search_limits_t lim;
    search_limits_init(&lim);
    lim.infinite = true;
    search_go(a->s, &s_board, &lim, &a->r);
    return NULL;
}

static void stop_from_another_thread_interrupts_a_running_search(void)
{
    s_thread_arg_t a = { search_new(4), { 0 } };
    s_set("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
          VARIANT_CAPABLANCA);
    pthread_t t;
    pthread_create(&t, NULL, s_thread, &a);
    struct timespec ts = { 0, 200 * 1000 * 1000 };
    nanosleep(&ts, NULL);
    search_stop(a.s);
    pthread_join(t, NULL);
    CHECK(movegen_is_legal(&s_board, a.r.best));
    CHECK(a.r.depth >= 1);
    search_destroy(&a.s);
}

static void a_movetime_limit_is_respected(void)
{
    search_t *s = search_new(4);
    s_set("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
          VARIANT_CAPABLANCA);
    search_limits_t lim;
    search_limits_init(&lim);
    lim.movetime_ms = 100;
    search_result_t r;
    CHECK_EQ_INT(search_go(s, &s_board, &lim, &r), 0);
    CHECK(r.time_ms <= 400);
    CHECK(movegen_is_legal(&s_board, r.best));
    search_destroy(&s);
}

static void the_clock_gives_soft_and_hard_limits_within_what_is_left(void)
{
    timeman_t tm;
    /* movetime: both limits at movetime less the overhead (not below half) */
    timeman_init(&tm, 500, -1, 0, 0, 200);
    CHECK(tm.soft_ms == 300 && tm.hard_ms == 300 && tm.fixed);
    CHECK(timeman_soft_scaled(&tm, 2.0) == 300 && timeman_soft_scaled(&tm, 0.5) == 300);
    timeman_init(&tm, 100, -1, 0, 0, 0);
    CHECK_EQ_INT(tm.hard_ms, 70); /* the default overhead, 30 ms */
    /* no limit */
    timeman_init(&tm, 0, -1, 0, 0, 0);
    CHECK(tm.soft_ms < 0 && tm.hard_ms < 0 && timeman_soft_scaled(&tm, 1.0) < 0);
    /* a clock: 35 moves to go, three quarters of the increment */
    timeman_init(&tm, 0, 10030, 100, 0, 0);
    CHECK(!tm.fixed);
    CHECK_EQ_INT(tm.soft_ms, (10000 / 35 + 75) * 9 / 10);
    CHECK_EQ_INT(tm.hard_ms, (10000 / 35 + 75) * 4);
    /* the overhead comes off the clock first */
    timeman_t more;
    timeman_init(&more, 0, 10030, 100, 0, 1030);
    CHECK(more.soft_ms < tm.soft_ms && more.hard_ms < tm.hard_ms);
    /* a short clock: the hard limit is at most a quarter of what is left */
    timeman_init(&tm, 0, 230, 20, 0, 0);
    CHECK(tm.hard_ms <= 50 && tm.soft_ms <= tm.hard_ms);
    /* an overhead beyond the clock still leaves a positive limit */
    timeman_init(&tm, 0, 100, 0, 0, 500);
    CHECK(tm.soft_ms >= 1 && tm.hard_ms >= 1);
}

static void the_soft_limit_scales_with_stability_and_never_passes_the_hard_one(void)
{
    /* a new best move gets the most time, a settled one the least */
    CHECK(timeman_scale(0, 0) > timeman_scale(1, 0));
    for (int st = 1; st < 6; st++)
        CHECK(timeman_scale(st, 0) <= timeman_scale(st - 1, 0));
    CHECK(timeman_scale(5, 0) < 1.0 && timeman_scale(0, 0) > 1.0);
    /* a falling score asks for more */
    CHECK(timeman_scale(3, 30) > timeman_scale(3, 0));
    CHECK(timeman_scale(3, 100) > timeman_scale(3, 30));
    CHECK(timeman_scale(3, -50) == timeman_scale(3, 0));
    timeman_t tm;
    timeman_init(&tm, 0, 60030, 0, 0, 0);
    CHECK_EQ_INT(timeman_soft_scaled(&tm, 1.0), tm.soft_ms);
    CHECK_EQ_INT(timeman_soft_scaled(&tm, 0.1), tm.soft_ms / 2);
    CHECK_EQ_INT(timeman_soft_scaled(&tm, 1.5), tm.soft_ms * 3 / 2);
    CHECK(timeman_soft_scaled(&tm, 100.0) <= 2 * tm.soft_ms);
    /* with movestogo 1 the hard limit is close to the soft one: never passed */
    timeman_init(&tm, 0, 1030, 0, 1, 0);
    CHECK(timeman_soft_scaled(&tm, 2.0) <= tm.hard_ms);
}

static void see_judges_simple_exchanges(void)
{
    move_t m;
    /* Pawn takes a defended knight: wins material. */
    s_set("4k5/10/3p6/4n5/3P6/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(move_from_uci(&s_board, "d4e5", &m), 0);
    CHECK(see_ge(&s_board, m, 0));
    CHECK(see_ge(&s_board, m, 200));
    /* Queen takes a pawn defended by a pawn: loses. */
    s_set("4k5/10/3p6/4p5/10/10/10/4Q4K w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(move_from_uci(&s_board, "e1e5", &m), 0);
    CHECK(!see_ge(&s_board, m, 0));
    /* Rook takes an undefended archbishop: wins it whole. */
    s_set("4a4k/10/10/10/10/10/10/4R4K w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(move_from_uci(&s_board, "e1e8", &m), 0);
    CHECK(see_ge(&s_board, m, 825));
    CHECK(!see_ge(&s_board, m, 826));
}

/* The swap algorithm written the plain way: every attacker found anew after
 * each capture. see_ge adds only the sliders behind the man just moved. */
static bool s_see_plain(const board_t *b, move_t m, int threshold)
{
    if (move_is_castle(m))
        return threshold <= 0;
    square_t from = move_from(m), to = move_to(m);
    piece_type_t moving = piece_type(board_piece_on(b, from));
    int balance = SEE_VALUE[move_captured_type(b, m)] - threshold;
    if (move_is_promotion(m)) {
        balance += SEE_VALUE[move_promo(m)] - SEE_VALUE[PAWN];
        moving = move_promo(m);
    }
    if (balance < 0)
        return false;
    balance -= SEE_VALUE[moving];
    if (balance >= 0)
        return true;
    bitboard_t occ = (board_occupied(b) ^ bb_square(from)) | bb_square(to);
    if (move_is_ep(m))
        occ ^= bb_square(square_make(square_file(to), square_rank(from)));
    color_t side = (color_t) !piece_color(board_piece_on(b, from));
    for (;;) {
        bitboard_t mine = board_attackers_to(b, to, occ) & occ & board_color_bb(b, side);
        if (!mine)
            break;
        piece_type_t t = PAWN;
        while (!(mine & board_type_bb(b, t)))
            t++;
        occ ^= bb_square(bb_lsb(mine & board_type_bb(b, t)));
        side = (color_t) !side;
        balance = -balance - 1 - SEE_VALUE[t];
        if (balance >= 0) {
            if (t == KING && (board_attackers_to(b, to, occ) & occ & board_color_bb(b, side)))
                side = (color_t) !side;
            break;
        }
    }
    return side != piece_color(board_piece_on(b, from));
}

/* Batteries and x-rays on every line, and random games that favour
 * captures: see_ge agrees with the plain swap on every move at every
 * threshold. */
static void see_agrees_with_the_plain_swap(void)
{
    static const char *const FENS[] = {
        "4k5/4r5/4r5/4p5/10/10/4R5/4R4K w - - 0 1",
        "k9/8q1/7b2/10/5p4/10/3B6/2Q6K w - - 0 1",
        "k3c5/4c5/10/4n5/3P6/2A7/4R5/4C4K w - - 0 1",
        "k9/10/1q8/2a7/3p6/4P5/5B4/6Q2K b - - 0 1",
    };
    static const int THRESHOLDS[] = { -600, -100, -1, 0, 1, 100, 350, 900 };
    int compared = 0;
    for (size_t f = 0; f < sizeof FENS / sizeof FENS[0]; f++) {
        s_set(FENS[f], VARIANT_CAPABLANCA);
        move_list_t all;
        movegen_legal(&s_board, &all);
        for (int i = 0; i < all.count; i++)
            for (size_t k = 0; k < sizeof THRESHOLDS / sizeof THRESHOLDS[0]; k++, compared++)
                CHECK_EQ_INT(see_ge(&s_board, all.moves[i], THRESHOLDS[k]),
                             s_see_plain(&s_board, all.moves[i], THRESHOLDS[k]));
    }
    uint64_t rng = 42;
    for (int g = 0; g < 12; g++) {
        CHECK_EQ_INT(board_set_startpos(&s_board, g % 2 ? VARIANT_CAPABLANCA : VARIANT_GOTHIC), 0);
        for (int ply = 0; ply < 120; ply++) {
            move_list_t all, noisy;
            movegen_legal(&s_board, &all);
            movegen_noisy(&s_board, &noisy);
            if (all.count == 0)
                break;
            for (int i = 0; i < all.count; i++)
                for (size_t k = 0; k < sizeof THRESHOLDS / sizeof THRESHOLDS[0]; k++, compared++)
                    CHECK_EQ_INT(see_ge(&s_board, all.moves[i], THRESHOLDS[k]),
                                 s_see_plain(&s_board, all.moves[i], THRESHOLDS[k]));
            const move_list_t *from = noisy.count && crc_splitmix64(&rng) % 4 ? &noisy : &all;
            board_make(&s_board, from->moves[crc_splitmix64(&rng) % (uint64_t) from->count]);
        }
    }
    CHECK(compared > 50000);
}

static void searches_in_every_variant_return_legal_moves(void)
{
    search_t *s = search_new(2);
    for (int v = 0; v < VARIANT_NB; v++) {
        board_set_startpos(&s_board, (variant_t) v);
        search_result_t r = s_search_depth(s, 4);
        CHECK(movegen_is_legal(&s_board, r.best));
        CHECK(r.depth == 4);
    }
    search_destroy(&s);
}

/* The Search... parameters reach the search: a fixed-depth search from a
 * fresh table costs other node counts when a margin or the LMR table
 * changes, and the same count again when the defaults come back (so the
 * LMR table is rebuilt both ways). */
static void search_parameters_steer_the_search(void)
{
    s_set("rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR b KQkq e3 0 1",
          VARIANT_CAPABLANCA);
    search_t *s = search_new(16);
    params_t p;
    params_default(&p);
    search_result_t base = s_search_depth(s, 7);
    static const struct { int id, value; } CHANGES[] = {
        { PARAM_SearchLmrDivisor, 150 },  { PARAM_SearchLmrBase, 150 },
        { PARAM_SearchRfpMargin, 300 },   { PARAM_SearchNullBase, 1 },
        { PARAM_SearchLmpScale, 50 },     { PARAM_SearchSeeQuietMargin, 150 },
        { PARAM_SearchAspDelta, 5 },      { PARAM_SearchHistoryBonus, 200 },
        { PARAM_SearchLmrCutNode, 2 },    { PARAM_SearchQsTtStand, 1 },
    };
    for (size_t i = 0; i < sizeof CHANGES / sizeof CHANGES[0]; i++) {
        params_t q = p;
        q.value[CHANGES[i].id] = CHANGES[i].value;
        search_set_params(s, &q);
        search_new_game(s);
        search_result_t r = s_search_depth(s, 7);
        CHECK_MSG(r.nodes != base.nodes, "%s = %d searched as many nodes (%llu) as the default",
                  params_info(CHANGES[i].id)->name, CHANGES[i].value,
                  (unsigned long long) r.nodes);
        search_set_params(s, &p);
        search_new_game(s);
        r = s_search_depth(s, 7);
        CHECK_EQ_INT((long long) r.nodes, (long long) base.nodes);
    }
    search_destroy(&s);
}

static const check_case_t CASES[] = {
    CASE(a_chancellor_mates_on_the_back_rank_in_one),
    CASE(the_mated_side_sees_the_mate_against_it),
    CASE(a_hanging_queen_is_taken),
    CASE(a_quiet_mate_past_the_horizon_is_not_walked_into),
    CASE(a_checkmated_root_has_no_best_move),
    CASE(node_limited_searches_repeat_exactly),
    CASE(a_new_game_forgets_and_repeats_the_same_search),
    CASE(a_stop_request_ends_an_infinite_search_with_a_legal_move),
    CASE(stop_from_another_thread_interrupts_a_running_search),
    CASE(a_movetime_limit_is_respected),
    CASE(the_clock_gives_soft_and_hard_limits_within_what_is_left),
    CASE(the_soft_limit_scales_with_stability_and_never_passes_the_hard_one),
    CASE(see_judges_simple_exchanges),
    CASE(see_agrees_with_the_plain_swap),
    CASE(searches_in_every_variant_return_legal_moves),
    CASE(search_parameters_steer_the_search),
    CASE(new_parameters_search_with_their_own_evaluation),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
