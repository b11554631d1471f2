/* test_worker_player.c - games of a TASK played with the engine library on
 * the worker's game threads. */
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "check.h"
#include "err.h"
#include "game.h"
#include "notation.h"
#include "player.h"
#include "gamepool.h"
#include "protocol.h"

#define START_FEN "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1"
/* capablanca start without White's chancellor (a values-run imbalance) */
#define FEN_NO_WC "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKB1NR w KQkq - 0 1"
#define FEN_NO_BC "rnabqkb1nr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1"

static void s_task(proto_task_t *t, proto_kind_t kind, int pairs)
{
    memset(t, 0, sizeof *t);
    t->task_id = 1;
    t->run_id = 2;
    t->lease_id = 3;
    t->lease_seconds = 60;
    t->kind = kind;
    t->pair_count = (size_t) pairs;
    t->pairs = calloc((size_t) pairs, sizeof *t->pairs);
    for (int i = 0; i < pairs; i++) {
        t->pairs[i].pair = 10 + i;
        snprintf(t->pairs[i].fen, sizeof t->pairs[i].fen, "%s", START_FEN);
    }
    snprintf(t->game.variant, sizeof t->game.variant, "capablanca");
    t->game.nodes = 200;
    t->game.max_plies = 30;
    t->game.draw_min_ply = 100;
}

/* Replays the UCI move text from fen: every move legal, one per ply. */
static void s_replay(const char *fen, const char *moves, int plies)
{
    board_t *b = malloc(sizeof *b);
    CHECK(b != NULL);
    CHECK_EQ_INT(board_set_fen(b, fen, VARIANT_CAPABLANCA, NULL, 0), 0);
    char *copy = strdup(moves), *save = NULL;
    int n = 0;
    for (char *tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        move_t m;
        CHECK_MSG(move_from_uci(b, tok, &m) == 0, "move %d \"%s\" is not legal", n + 1, tok);
        board_make(b, m);
        n++;
    }
    free(copy);
    free(b);
    CHECK_EQ_INT(n, plies);
}

static void an_sprt_pair_gives_a_white_first_and_b_white_second(void)
{
    proto_task_t t;
    s_task(&t, PROTO_KIND_SPRT, 1);
    params_t a, b;
    char err[256];
    CHECK_EQ_INT(player_params(&t.a, &a, err, sizeof err), 0);
    CHECK_EQ_INT(player_params(&t.b, &b, err, sizeof err), 0);
    player_t *p = player_new(1);
    CHECK(p != NULL);
    for (int g = 0; g < 2; g++) {
        player_game_t out;
        CHECK_EQ_INT(player_play(p, &t, &a, &b, 0, g, true, &out, err, sizeof err), 0);
        CHECK_EQ_INT(out.result.white, g == 0 ? PROTO_SIDE_A : PROTO_SIDE_B);
        CHECK(out.result.plies > 0 && out.result.plies <= 30);
        CHECK(out.result.moves != NULL);
        s_replay(START_FEN, out.result.moves, out.result.plies);
        CHECK(out.cpu_seconds > 0);
        CHECK(out.nodes > 0);
        CHECK(out.pgn != NULL && strstr(out.pgn, "[Variant \"capablanca\"]") != NULL);
        CHECK(strstr(out.pgn, g == 0 ? "[White \"A\"]" : "[White \"B\"]") != NULL);
        if (out.result.plies == 30)
            CHECK_EQ_INT(out.result.end, PROTO_END_MOVE_CAP);
        player_game_free(&out);
    }
    player_destroy(&p);
    CHECK(p == NULL);
    proto_task_free(&t);
}

static void a_values_pair_gives_b_white_from_fen_and_a_white_from_fen2(void)
{
    proto_task_t t;
    s_task(&t, PROTO_KIND_VALUES, 1);
    snprintf(t.pairs[0].fen, sizeof t.pairs[0].fen, "%s", FEN_NO_BC);
    snprintf(t.pairs[0].fen2, sizeof t.pairs[0].fen2, "%s", FEN_NO_WC);
    params_t a, b;
    char err[256];
    CHECK_EQ_INT(player_params(&t.a, &a, err, sizeof err), 0);
    b = a;
    player_t *p = player_new(1);
    player_game_t g0, g1;
    CHECK_EQ_INT(player_play(p, &t, &a, &b, 0, 0, false, &g0, err, sizeof err), 0);
    CHECK_EQ_INT(player_play(p, &t, &a, &b, 0, 1, false, &g1, err, sizeof err), 0);
    CHECK_EQ_INT(g0.result.white, PROTO_SIDE_B);
    CHECK_EQ_INT(g1.result.white, PROTO_SIDE_A);
    CHECK(g0.pgn == NULL);
    s_replay(FEN_NO_BC, g0.result.moves, g0.result.plies);
    s_replay(FEN_NO_WC, g1.result.moves, g1.result.plies);
    player_game_free(&g0);
    player_game_free(&g1);
    player_destroy(&p);
    proto_task_free(&t);
}

/* Plays game g of a one-pair task with sets a and b; returns its UCI moves (heap). */
static char *s_moves(player_t *p, const proto_task_t *t, const params_t *a, const params_t *b,
                     int g, proto_side_t want_white)
{
    player_game_t out;
    char err[256];
    CHECK_EQ_INT(player_play(p, t, a, b, 0, g, false, &out, err, sizeof err), 0);
    CHECK_EQ_INT(out.result.white, want_white);
    char *moves = strdup(out.result.moves ? out.result.moves : "");
    player_game_free(&out);
    return moves;
}

/* Per-side params of values runs: B's set plays B's colour in both games
 * of the pair (White in game 1, Black in game 2), A's set the other. */
static void a_values_pair_plays_each_set_for_its_own_side(void)
{
    proto_task_t t;
    s_task(&t, PROTO_KIND_VALUES, 1);   /* fen2 "": both games from the same start */
    proto_param_t odd_items[] = { { "KnightValueMg", 0 }, { "KnightValueEg", 0 },
                                  { "BishopValueMg", 0 }, { "BishopValueEg", 0 },
                                  { "QueenValueMg", 60 }, { "QueenValueEg", 60 },
                                  { "ChancellorValueMg", 60 }, { "ChancellorValueEg", 60 } };
    proto_params_t none = { 0 }, odd_set = { odd_items, 8 };
    params_t def, odd;
    char err[256];
    CHECK_EQ_INT(player_params(&none, &def, err, sizeof err), 0);
    CHECK_EQ_INT(player_params(&odd_set, &odd, err, sizeof err), 0);
    player_t *p = player_new(1);
    CHECK(p != NULL);
    char *both_default = s_moves(p, &t, &def, &def, 0, PROTO_SIDE_B);
    char *b_odd_white = s_moves(p, &t, &def, &odd, 0, PROTO_SIDE_B);
    char *a_odd_white = s_moves(p, &t, &odd, &def, 1, PROTO_SIDE_A);
    char *b_odd_black = s_moves(p, &t, &def, &odd, 1, PROTO_SIDE_A);
    /* the nonsense table changes the play of the side that has it */
    CHECK_MSG(strcmp(both_default, b_odd_white) != 0, "B's set did not play White in game 1");
    CHECK_MSG(strcmp(both_default, b_odd_black) != 0, "B's set did not play Black in game 2");
    /* game 1 with B odd = game 2 with A odd: in each the odd set had White */
    CHECK_EQ_STR(b_odd_white, a_odd_white);
    free(both_default);
    free(b_odd_white);
    free(a_odd_white);
    free(b_odd_black);
    player_destroy(&p);
    proto_task_free(&t);
}

static void the_same_game_is_played_twice_move_for_move(void)
{
    proto_task_t t;
    s_task(&t, PROTO_KIND_SPRT, 1);
    params_t a, b;
    char err[256];
    player_params(&t.a, &a, err, sizeof err);
    player_params(&t.b, &b, err, sizeof err);
    player_t *p = player_new(1), *q = player_new(1);
    player_game_t x, y;
    CHECK_EQ_INT(player_play(p, &t, &a, &b, 0, 0, false, &x, err, sizeof err), 0);
    CHECK_EQ_INT(player_play(q, &t, &a, &b, 0, 0, false, &y, err, sizeof err), 0);
    CHECK_EQ_STR(x.result.moves, y.result.moves);
    CHECK_EQ_INT(x.result.result, y.result.result);
    player_game_free(&x);
    player_game_free(&y);
    player_destroy(&p);
    player_destroy(&q);
    proto_task_free(&t);
}

static void a_task_the_engine_cannot_play_is_refused_with_a_reason(void)
{
    proto_task_t t;
    s_task(&t, PROTO_KIND_SPRT, 2);
    char err[256];
    CHECK_EQ_INT(player_check_task(&t, err, sizeof err), 0);
    snprintf(t.pairs[1].fen, sizeof t.pairs[1].fen, "10/10/10/10/10/10/10/10 w - - 0 1");
    CHECK(player_check_task(&t, err, sizeof err) < 0);
    CHECK(strstr(err, "pair 11") != NULL);
    snprintf(t.pairs[1].fen, sizeof t.pairs[1].fen, "%s", START_FEN);
    t.game.nodes = 0;
    CHECK(player_check_task(&t, err, sizeof err) < 0);
    proto_params_t bad = { 0 };
    proto_param_t item = { .name = "NoSuchParameter", .value = 1 };
    bad.items = &item;
    bad.count = 1;
    params_t out;
    CHECK(player_params(&bad, &out, err, sizeof err) < 0);
    CHECK(strstr(err, "NoSuchParameter") != NULL);
    proto_param_t big = { .name = "ArchbishopValueMg", .value = 1e6 };
    bad.items = &big;
    CHECK(player_params(&bad, &out, err, sizeof err) < 0);
    proto_param_t ok = { .name = "ArchbishopValueMg", .value = 900 };
    bad.items = &ok;
    CHECK_EQ_INT(player_params(&bad, &out, err, sizeof err), 0);
    CHECK_EQ_INT(out.value[PARAM_ArchbishopValueMg], 900);
    proto_task_free(&t);
}

static void every_engine_termination_maps_to_a_protocol_reason(void)
{
    proto_end_t e;
    for (int t = TERM_NONE + 1; t < TERM_NB; t++)
        CHECK_MSG(player_end_of(t, &e) == 0, "termination %d", t);
    CHECK(player_end_of(TERM_NONE, &e) < 0);
    player_end_of(TERM_THREEFOLD, &e);
    CHECK_EQ_INT(e, PROTO_END_REPETITION);
    player_end_of(TERM_FIVEFOLD, &e);
    CHECK_EQ_INT(e, PROTO_END_REPETITION);
    player_end_of(TERM_FIFTY_MOVE, &e);
    CHECK_EQ_INT(e, PROTO_END_FIFTY_MOVES);
    player_end_of(TERM_ADJUDICATION_RESIGN, &e);
    CHECK_EQ_INT(e, PROTO_END_ADJ_RESIGN);
}

static void the_pool_plays_every_job_and_cancels_queued_ones(void)
{
    proto_task_t t;
    s_task(&t, PROTO_KIND_SPRT, 6);
    params_t a, b;
    char err[256];
    player_params(&t.a, &a, err, sizeof err);
    player_params(&t.b, &b, err, sizeof err);
    gamepool_t *pool = NULL;
    CHECK_EQ_INT(gamepool_new(2, 1, &pool, err, sizeof err), 0);
    CHECK_EQ_INT(gamepool_threads(pool), 2);
    gamepool_job_t jobs[12];
    int owner_a, owner_b;
    for (int i = 0; i < 12; i++) {
        jobs[i] = (gamepool_job_t){ .owner = i < 4 ? (void *) &owner_a : (void *) &owner_b,
                                .task = &t, .a = &a, .b = &b, .pair_index = (size_t) i / 2,
                                .g = i % 2 };
        gamepool_submit(pool, &jobs[i]);
    }
    /* cancel owner_b's jobs that have not started */
    size_t cancelled = gamepool_cancel(pool, &owner_b);
    int played = 0, dropped = 0;
    while (played + dropped < 12) {
        struct pollfd pfd = { .fd = gamepool_fd(pool), .events = POLLIN };
        CHECK(poll(&pfd, 1, 30000) == 1);
        gamepool_job_t *j;
        while ((j = gamepool_take(pool))) {
            if (j->cancelled) {
                CHECK(j->owner == &owner_b);
                dropped++;
            } else {
                CHECK_EQ_INT(j->rc, 0);
                CHECK(j->game.result.plies > 0);
                played++;
            }
            player_game_free(&j->game);
        }
    }
    CHECK_EQ_INT((size_t) dropped, cancelled);
    CHECK(played >= 4);
    CHECK(gamepool_game_cpu(pool) > 0);
    CHECK_EQ_INT(gamepool_queued(pool), 0);
    CHECK_EQ_INT(gamepool_running(pool), 0);
    gamepool_destroy(&pool, true);
    CHECK(pool == NULL);
    proto_task_free(&t);
}

static const check_case_t CASES[] = {
    CASE(an_sprt_pair_gives_a_white_first_and_b_white_second),
    CASE(a_values_pair_gives_b_white_from_fen_and_a_white_from_fen2),
    CASE(a_values_pair_plays_each_set_for_its_own_side),
    CASE(the_same_game_is_played_twice_move_for_move),
    CASE(a_task_the_engine_cannot_play_is_refused_with_a_reason),
    CASE(every_engine_termination_maps_to_a_protocol_reason),
    CASE(the_pool_plays_every_job_and_cancels_queued_ones),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
