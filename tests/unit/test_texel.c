/* test_texel.c - the PGN reader, the position sampler and the logistic fit
 * of capa tune (engine/pgnread.h, engine/texel.h). */
#include <math.h>
#include <stdlib.h>

#include "board.h"
#include "check.h"
#include "crc.h"
#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "pgnread.h"
#include "texel.h"

static pgn_game_t s_game;
static board_t s_board;

/* The UCI text of game g's move i, replayed from its start. */
static void s_uci(const pgn_game_t *g, int upto, char *out)
{
    CHECK_EQ_INT(board_set_fen(&s_board, g->start_fen, g->variant, NULL, 0), 0);
    for (int i = 0; i < upto; i++)
        board_make(&s_board, g->moves[i]);
    move_to_uci(&s_board, g->moves[upto], g->variant == VARIANT_CAPARANDOM, out);
}

static const char TWO_GAMES[] =
    "[Event \"t\"]\n[Result \"1/2-1/2\"]\n[Variant \"capablanca\"]\n\n"
    "1. e4 e5 2. Ci3 {a comment\n over two lines} Nc6 $1 (2... d6 3. d4) 1/2-1/2\n"
    "\n"
    "% an escape line\n"
    "[Event \"t\"]\n[Result \"0-1\"]\n[Variant \"caparandom\"]\n[SetUp \"1\"]\n"
    "[FEN \"nbrnbqakcr/pppppppppp/10/10/10/10/PPPPPPPPPP/NBRNBQAKCR w JCjc - 0 1\"]\n\n"
    "1. f4 f5 2. Ch3 ; to the end of the line\n 2... Bi4 0-1\n";

static void pgn_games_replay_with_their_tags_comments_and_variations(void)
{
    pgn_cursor_t c = { TWO_GAMES, 1, 0 };
    char err[256] = "";
    char uci[UCI_MOVE_MAX];
    CHECK_MSG(pgn_read_game(&c, &s_game, err, sizeof err) == 1, "%s", err);
    CHECK_EQ_INT(s_game.variant, VARIANT_CAPABLANCA);
    CHECK_EQ_INT(s_game.result, RESULT_DRAW);
    CHECK_EQ_INT(s_game.plies, 4);
    CHECK(strcmp(s_game.start_fen, variant_start_fen(VARIANT_CAPABLANCA)) == 0);
    s_uci(&s_game, 2, uci);
    CHECK_MSG(strcmp(uci, "h1i3") == 0, "%s", uci);
    s_uci(&s_game, 3, uci);
    CHECK_MSG(strcmp(uci, "b8c6") == 0, "%s", uci);

    CHECK_MSG(pgn_read_game(&c, &s_game, err, sizeof err) == 1, "%s", err);
    CHECK_EQ_INT(s_game.variant, VARIANT_CAPARANDOM);
    CHECK_EQ_INT(s_game.result, RESULT_BLACK_WINS);
    CHECK_EQ_INT(s_game.plies, 4);
    CHECK(strncmp(s_game.start_fen, "nbrnbqakcr/", 11) == 0);
    s_uci(&s_game, 3, uci);
    CHECK_MSG(strcmp(uci, "e8i4") == 0, "%s", uci);
    CHECK_EQ_INT(pgn_read_game(&c, &s_game, err, sizeof err), 0);
    CHECK_EQ_INT(c.games, 2);
}

static void pgn_errors_name_the_game_the_line_and_the_move(void)
{
    static const char BAD_MOVE[] = "[Result \"1-0\"]\n\n1. e4 e5 2. Ci3 Nc6 1-0\n\n"
                                   "[Result \"1-0\"]\n\n1. e4 e5\n2. Qz9 Nc6 1-0\n\n"
                                   "[Result \"0-1\"]\n\n1. d4 0-1\n";
    pgn_cursor_t c = { BAD_MOVE, 1, 0 };
    char err[256] = "";
    CHECK_EQ_INT(pgn_read_game(&c, &s_game, err, sizeof err), 1);
    CHECK(pgn_read_game(&c, &s_game, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "game 2 (from line 5)") && strstr(err, "move 2. Qz9"), "%s", err);
    /* the reader stands after the bad game */
    CHECK_EQ_INT(pgn_read_game(&c, &s_game, err, sizeof err), 1);
    CHECK_EQ_INT(s_game.result, RESULT_BLACK_WINS);

    static const char *const BAD[] = {
        "[FEN \"rnabqkbcnr/pppppppppp/10 w - - 0 1\"]\n\n1. e4 *\n",
        "[Variant \"xiangqi\"]\n\n1. e4 *\n",
        "[Result \"1-0]\n\n1. e4 1-0\n",
        "[Result \"1-0\"]\n\n1. e4 {never closed 1-0\n",
        "[Result \"1-0\"]\n\n1. Ke2 1-0\n",
    };
    static const char *const WHY[] = { "FEN tag", "unknown variant", "unterminated",
                                       "unclosed comment", "not a legal move" };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        pgn_cursor_t b = { BAD[i], 1, 0 };
        CHECK_MSG(pgn_read_game(&b, &s_game, err, sizeof err) < 0, "case %zu read", i);
        CHECK_MSG(strstr(err, "game 1") && strstr(err, WHY[i]), "case %zu: %s", i, err);
    }
}

static void quiet_means_no_check_no_promotion_and_no_winning_capture(void)
{
    static const struct {
        const char *fen;
        bool quiet;
    } POS[] = {
        { "5k4/10/10/10/10/10/10/R4K4 w - - 0 1", true },
        { "5k4/10/10/10/10/10/10/R1n2K4 w - - 0 1", false },      /* Rxc1 wins a knight */
        { "5k4/10/10/10/10/10/1p8/R1n2K4 w - - 0 1", true },      /* c1 is defended: R for N */
        { "R4k4/10/10/10/10/10/10/5K4 b - - 0 1", false },        /* in check */
        { "5k4/3P6/10/10/10/10/10/5K4 w - - 0 1", false },        /* d8=Q */
    };
    for (size_t i = 0; i < sizeof POS / sizeof POS[0]; i++) {
        char err[256];
        CHECK_MSG(board_set_fen(&s_board, POS[i].fen, VARIANT_CAPABLANCA, err, sizeof err) == 0,
                  "%s", err);
        CHECK_MSG(texel_is_quiet(&s_board) == POS[i].quiet, "%s", POS[i].fen);
    }
}

/* A rook against a knight: plies 1, 3 and 6 are checks, ply 0 has a winning capture. */
static const char SAMPLE_FEN[] = "5k4/10/10/10/10/10/10/R1n2K4 w - - 0 1";
static const char SAMPLE_MOVES[] = "a1a8 f8e7 a8a7 e7d6 f1e1 c1d3 e1d2";

static void the_sampler_skips_the_opening_checks_and_captures_and_labels_from_white(void)
{
    texel_sample_t o;
    texel_sample_default(&o);
    o.skip_plies = 0;
    o.per_game = 0;
    texel_set_t s;
    texel_set_init(&s);
    char err[256] = "";
    CHECK_MSG(texel_add_game_uci(&s, &o, VARIANT_CAPABLANCA, SAMPLE_FEN, SAMPLE_MOVES,
                                 RESULT_BLACK_WINS, err, sizeof err) == 0, "%s", err);
    /* 8 positions (plies 0..7): 3 in check, 1 with Rxc1, 4 kept */
    CHECK_MSG(s.games == 1 && s.plies == 8 && s.opening == 0 && s.in_check == 3 &&
              s.noisy == 1 && s.n == 4,
              "games %zu plies %zu opening %zu check %zu noisy %zu kept %zu", s.games, s.plies,
              s.opening, s.in_check, s.noisy, s.n);
    for (size_t i = 0; i < s.n; i++) {
        CHECK(s.pos[i].result == 0.0f);
        CHECK_EQ_INT(s.pos[i].variant, VARIANT_CAPABLANCA);
        CHECK_EQ_INT(board_set_fen(&s_board, s.pos[i].fen, VARIANT_CAPABLANCA, NULL, 0), 0);
        CHECK(texel_is_quiet(&s_board));
    }
    /* the first candidate is ply 2: after 1. Ra8+ Ke7 */
    CHECK_MSG(strncmp(s.pos[0].fen, "R9/4k5/", 7) == 0, "%s", s.pos[0].fen);

    /* skip 3 plies, draw 2 per game: two of the three late candidates, the same each time */
    o.skip_plies = 3;
    o.per_game = 2;
    texel_set_t a, b;
    texel_set_init(&a);
    texel_set_init(&b);
    for (int rep = 0; rep < 2; rep++) {
        texel_set_t *t = rep ? &b : &a;
        CHECK_EQ_INT(texel_add_game_uci(t, &o, VARIANT_CAPABLANCA, SAMPLE_FEN, SAMPLE_MOVES,
                                        RESULT_DRAW, err, sizeof err), 0);
        CHECK_EQ_INT(t->opening, 3);
        CHECK_EQ_INT(t->n, 2);
        CHECK(t->pos[0].result == 0.5f);
    }
    for (size_t i = 0; i < 2; i++) {
        CHECK(strcmp(a.pos[i].fen, b.pos[i].fen) == 0);
        bool late = false;
        for (size_t j = 1; j < s.n; j++)
            late = late || strcmp(a.pos[i].fen, s.pos[j].fen) == 0;
        CHECK_MSG(late, "%s is not one of the candidates after ply 3", a.pos[i].fen);
    }
    CHECK(strcmp(a.pos[0].fen, a.pos[1].fen) != 0);

    /* an unfinished game adds nothing; an illegal move adds nothing and says which */
    CHECK_EQ_INT(texel_add_game_uci(&a, &o, VARIANT_CAPABLANCA, SAMPLE_FEN, SAMPLE_MOVES,
                                    RESULT_ONGOING, err, sizeof err), 0);
    CHECK_EQ_INT(a.unfinished, 1);
    CHECK_EQ_INT(a.n, 2);
    CHECK(texel_add_game_uci(&a, &o, VARIANT_CAPABLANCA, SAMPLE_FEN, "a1a8 f8e7 a8a9",
                             RESULT_DRAW, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "ply 3: a8a9"), "%s", err);
    CHECK(texel_add_game_uci(&a, &o, VARIANT_CAPABLANCA, SAMPLE_FEN, "a1a8 a8a1",
                             RESULT_DRAW, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "ply 2: a8a1 is not a legal move"), "%s", err);
    CHECK_EQ_INT(a.n, 2);
    CHECK(texel_add_position(&a, "not a fen", VARIANT_CAPABLANCA, 0.5, err, sizeof err) < 0);
    CHECK(texel_add_position(&a, SAMPLE_FEN, VARIANT_CAPABLANCA, 1.5, err, sizeof err) < 0);
    texel_set_free(&s);
    texel_set_free(&a);
    texel_set_free(&b);
}

/* Positions from random play from CRC arrays, plies 6..40 of each game. */
static void s_random_positions(texel_set_t *s, int games)
{
    uint64_t x = 12345;
    char fen[FEN_MAX], err[256];
    for (int g = 0; g < games; g++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        CHECK_EQ_INT(crc_start_fen((x >> 33) % crc_count(), fen, sizeof fen), 0);
        CHECK_EQ_INT(board_set_fen(&s_board, fen, VARIANT_CAPARANDOM, NULL, 0), 0);
        for (int ply = 0; ply < 40; ply++) {
            move_list_t list;
            if (movegen_legal(&s_board, &list) == 0)
                break;
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            board_make(&s_board, list.moves[(x >> 33) % (uint64_t) list.count]);
            if (ply >= 6 && ply % 3 == 0 && texel_is_quiet(&s_board)) {
                board_get_fen(&s_board, fen, sizeof fen);
                CHECK_EQ_INT(texel_add_position(s, fen, VARIANT_CAPARANDOM, 0.5, err, sizeof err),
                             0);
            }
        }
    }
}

static void the_fit_recovers_the_parameters_the_labels_came_from(void)
{
    texel_set_t s;
    texel_set_init(&s);
    s_random_positions(&s, 700);
    CHECK_MSG(s.n > 1500, "%zu positions", s.n);
    params_t truth, start;
    params_default(&truth);
    params_default(&start);
    static const struct {
        int id, value;
    } SHIFT[] = {
        { PARAM_KnightMobilityMg, 9 }, { PARAM_RookOpenFileMg, 45 }, { PARAM_BishopPairEg, 20 },
        { PARAM_KingCentreMg, -20 },   { PARAM_ThreatByPawnMg, 35 }, { PARAM_KnightValueMg, 340 },
    };
    const int n = (int) (sizeof SHIFT / sizeof SHIFT[0]);
    for (int i = 0; i < n; i++)
        truth.value[SHIFT[i].id] = SHIFT[i].value;
    /* labels: the expected score under the true parameters, K = 1.3 */
    const double k_true = 1.3;
    for (size_t i = 0; i < s.n; i++) {
        CHECK_EQ_INT(board_set_fen(&s_board, s.pos[i].fen, VARIANT_CAPARANDOM, NULL, 0), 0);
        double e = texel_eval_white(&s_board, &truth);
        s.pos[i].result = (float) (1.0 / (1.0 + pow(10.0, -k_true * e / 400.0)));
    }
    double k = texel_fit_k(&s, &truth);
    CHECK_MSG(fabs(k - k_true) < 0.01, "K %.4f", k);
    CHECK(texel_error(&s, &truth, k_true) < 1e-8);

    texel_fit_opts_t o;
    texel_fit_default(&o);
    memset(o.tune, 0, sizeof o.tune);
    for (int i = 0; i < n; i++)
        o.tune[SHIFT[i].id] = true;
    o.iterations = 8;
    texel_fit_result_t r;
    char err[256];
    CHECK_MSG(texel_fit(&s, &start, k_true, &o, &r, err, sizeof err) == 0, "%s", err);
    CHECK(r.error_end < r.error_start / 20);
    for (int i = 0; i < PARAM_NB; i++) {
        int want = truth.value[i];
        CHECK_MSG(abs(r.best.value[i] - want) <= (o.tune[i] ? 2 : 0), "%s: %d, expected %d",
                  params_info(i)->name, (int) r.best.value[i], want);
    }
    /* ridge: a heavy l2 keeps the start; a moderate one shrinks every step
     * toward it (each fitted value between the start and the truth) */
    o.l2 = 1.0;
    CHECK_EQ_INT(texel_fit(&s, &start, k_true, &o, &r, err, sizeof err), 0);
    CHECK(params_equal(&r.best, &start));
    o.l2 = 2e-5;
    CHECK_EQ_INT(texel_fit(&s, &start, k_true, &o, &r, err, sizeof err), 0);
    int moved = 0;
    for (int i = 0; i < n; i++) {
        int id = SHIFT[i].id, s0 = start.value[id], t = truth.value[id], v = r.best.value[id];
        CHECK_MSG((v - s0) * (t - v) >= 0, "%s: %d is not between %d and %d",
                  params_info(id)->name, v, s0, t);
        moved += v != s0 && v != t;
    }
    CHECK_MSG(moved > 0, "l2 shrank nothing");
    o.l2 = 0;
    /* nothing to fit, nothing to tune */
    texel_set_t empty;
    texel_set_init(&empty);
    CHECK(texel_fit(&empty, &start, 1.0, &o, &r, err, sizeof err) < 0);
    memset(o.tune, 0, sizeof o.tune);
    CHECK(texel_fit(&s, &start, 1.0, &o, &r, err, sizeof err) < 0);
    texel_set_free(&s);
}

static const check_case_t CASES[] = {
    CASE(pgn_games_replay_with_their_tags_comments_and_variations),
    CASE(pgn_errors_name_the_game_the_line_and_the_move),
    CASE(quiet_means_no_check_no_promotion_and_no_winning_capture),
    CASE(the_sampler_skips_the_opening_checks_and_captures_and_labels_from_white),
    CASE(the_fit_recovers_the_parameters_the_labels_came_from),
    { 0 },
};

int main(int argc, char **argv)
{
    eval_init();
    return check_main(argc, argv, CASES);
}
