/* test_game.c - whole games in the library: rules, adjudication, pairs,
 * determinism and several games at once on threads. */
#include <pthread.h>
#include <stdlib.h>

#include "board.h"
#include "check.h"
#include "game.h"
#include "movegen.h"
#include "startpos.h"
#include "rules.h"
#include "selfplay.h"

static game_record_t s_rec[4];

static void s_config(game_config_t *cfg, const char *fen, uint64_t nodes)
{
    game_config_default(cfg);
    cfg->hash_mb = 2;
    cfg->nodes = nodes;
    if (fen)
        snprintf(cfg->start_fen, sizeof cfg->start_fen, "%s", fen);
}

/* Replays a record and checks every move is legal and the end agrees. */
static void s_check_replay(const game_record_t *rec)
{
    board_t *b = malloc(sizeof *b);
    CHECK(b);
    CHECK_EQ_INT(board_set_fen(b, rec->start_fen, rec->variant, NULL, 0), 0);
    for (int i = 0; i < rec->plies; i++) {
        CHECK_MSG(movegen_is_legal(b, rec->moves[i].move), "ply %d illegal", i);
        CHECK_MSG(rules_result(b, NULL) == RESULT_ONGOING, "game went on after its end at ply %d", i);
        board_make(b, rec->moves[i].move);
    }
    char fen[FEN_MAX];
    board_get_fen(b, fen, sizeof fen);
    CHECK_EQ_STR(fen, rec->final_fen);
    result_reason_t reason;
    game_result_t r = rules_result(b, &reason);
    if (rec->termination == TERM_CHECKMATE || rec->termination == TERM_STALEMATE ||
        rec->termination == TERM_INSUFFICIENT_MATERIAL || rec->termination == TERM_FIFTY_MOVE ||
        rec->termination == TERM_THREEFOLD || rec->termination == TERM_FIVEFOLD)
        CHECK_EQ_INT(r, rec->result);
    free(b);
}

static void a_game_from_the_start_ends_by_the_rules_with_legal_moves(void)
{
    game_config_t cfg;
    s_config(&cfg, NULL, 1500);
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK(s_rec[0].result != RESULT_ONGOING);
    CHECK(s_rec[0].termination != TERM_NONE && s_rec[0].termination != TERM_ILLEGAL_MOVE);
    CHECK(s_rec[0].plies > 10);
    CHECK(s_rec[0].moves[0].nodes > 0 && s_rec[0].moves[0].nodes <= 1500);
    s_check_replay(&s_rec[0]);
}

static void an_archbishop_mates_a_bare_king(void)
{
    game_config_t cfg;
    s_config(&cfg, "10/10/4k5/10/10/10/10/A4K4 w - - 0 1", 20000);
    cfg.resign_moves = 0;
    cfg.draw_moves = 0;
    cfg.max_moves = 150;
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK_EQ_STR(game_termination_name(s_rec[0].termination), "checkmate");
    CHECK_EQ_INT(s_rec[0].result, RESULT_WHITE_WINS);
    s_check_replay(&s_rec[0]);
}

static void terminal_start_positions_end_at_once(void)
{
    game_config_t cfg;
    params_t p;
    params_default(&p);
    s_config(&cfg, "k9/3N6/1K8/10/10/10/10/10 b - - 0 1", 1000);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK_EQ_INT(s_rec[0].termination, TERM_STALEMATE);
    CHECK_EQ_INT(s_rec[0].plies, 0);
    CHECK_EQ_INT(s_rec[0].result, RESULT_DRAW);
    s_config(&cfg, "k9/10/1K8/10/10/10/10/9N w - - 0 1", 1000);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK_EQ_INT(s_rec[0].termination, TERM_INSUFFICIENT_MATERIAL);
    s_config(&cfg, "3C2k3/5ppp2/10/10/10/10/10/6K3 b - - 0 1", 1000);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK_EQ_INT(s_rec[0].termination, TERM_CHECKMATE);
    CHECK_EQ_INT(s_rec[0].result, RESULT_WHITE_WINS);
}

static void the_move_cap_ends_a_long_game_as_a_draw(void)
{
    game_config_t cfg;
    s_config(&cfg, NULL, 500);
    cfg.max_moves = 5;
    cfg.resign_moves = 0;
    cfg.draw_moves = 0;
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK_EQ_INT(s_rec[0].termination, TERM_MOVE_CAP);
    CHECK_EQ_INT(s_rec[0].plies, 10);
    CHECK_EQ_INT(s_rec[0].result, RESULT_DRAW);
}

static void a_hopeless_side_is_adjudicated_lost(void)
{
    game_config_t cfg;
    s_config(&cfg, "rnab1kb1nr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1", 2000);
    cfg.resign_score = 600;
    cfg.resign_moves = 2;
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK_EQ_INT(s_rec[0].termination, TERM_ADJUDICATION_RESIGN);
    CHECK_EQ_INT(s_rec[0].result, RESULT_WHITE_WINS);
    CHECK(s_rec[0].plies <= 6);
}

static void node_limited_games_repeat_exactly(void)
{
    game_config_t cfg;
    s_config(&cfg, NULL, 1000);
    cfg.max_moves = 60;
    params_t p, q;
    params_default(&p);
    params_default(&q);
    q.value[PARAM_ArchbishopValueMg] = 900;
    CHECK_EQ_INT(game_play(&cfg, &p, &q, &s_rec[0]), 0);
    game_workspace_t *ws = game_workspace_new(2);
    CHECK_EQ_INT(game_play_ws(ws, &cfg, &p, &p, &s_rec[2], NULL, 0), 0);  /* dirty the tables */
    CHECK_EQ_INT(game_play_ws(ws, &cfg, &p, &q, &s_rec[1], NULL, 0), 0);
    game_workspace_destroy(&ws);
    CHECK(ws == NULL);
    CHECK_EQ_INT(s_rec[0].plies, s_rec[1].plies);
    CHECK(memcmp(s_rec[0].moves, s_rec[1].moves, sizeof(game_move_t) * (size_t) s_rec[0].plies) == 0);
    CHECK_EQ_STR(s_rec[0].final_fen, s_rec[1].final_fen);
}

static void a_pair_swaps_colours_and_scores_quarters_for_b(void)
{
    game_config_t cfg;
    s_config(&cfg, NULL, 800);
    cfg.max_moves = 80;
    params_t a, b;
    params_default(&a);
    params_default(&b);
    params_material_only(&a);
    int q = -1;
    CHECK_EQ_INT(game_play_pair(NULL, &cfg, &a, &b, s_rec, &q, NULL, 0), 0);
    CHECK(q >= 0 && q <= 4);
    CHECK_EQ_INT(q, game_half_points(&s_rec[0], BLACK) + game_half_points(&s_rec[1], WHITE));
    CHECK_EQ_STR(s_rec[0].start_fen, s_rec[1].start_fen);
    /* Quarter arithmetic on made-up results. */
    game_record_t *x = &s_rec[2], *y = &s_rec[3];
    x->result = RESULT_BLACK_WINS;
    y->result = RESULT_DRAW;
    CHECK_EQ_INT(game_pair_quarters(x, y), 3);
    x->result = RESULT_WHITE_WINS;
    y->result = RESULT_BLACK_WINS;
    CHECK_EQ_INT(game_pair_quarters(x, y), 0);
}

static void a_clock_game_finishes_without_losing_on_time(void)
{
    game_config_t cfg;
    s_config(&cfg, NULL, 0);
    cfg.tc_base_ms = 3000;
    cfg.tc_inc_ms = 30;
    cfg.max_moves = 15;
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec[0]), 0);
    CHECK(s_rec[0].termination != TERM_TIME_FORFEIT);
    CHECK(s_rec[0].time_ms[WHITE] < 3000 + 15 * 30);
    s_check_replay(&s_rec[0]);
}

static void bad_configurations_are_errors_not_crashes(void)
{
    game_config_t cfg;
    params_t p;
    params_default(&p);
    char err[256] = "";
    s_config(&cfg, "not a fen", 100);
    CHECK_EQ_INT(game_play_ws(NULL, &cfg, &p, &p, &s_rec[0], err, sizeof err), -1);
    CHECK(err[0]);
    s_config(&cfg, NULL, 0);
    CHECK(game_play_ws(NULL, &cfg, &p, &p, &s_rec[0], err, sizeof err) < 0);
    s_config(&cfg, NULL, 100);
    cfg.max_moves = GAME_MAX_PLIES;
    CHECK(game_play_ws(NULL, &cfg, &p, &p, &s_rec[0], err, sizeof err) < 0);
}

static void termination_names_round_trip(void)
{
    for (int t = 0; t < TERM_NB; t++) {
        game_termination_t back;
        CHECK_EQ_INT(game_termination_from_name(game_termination_name((game_termination_t) t), &back), 0);
        CHECK_EQ_INT(back, t);
    }
    game_termination_t x;
    CHECK(game_termination_from_name("resign", &x) < 0);
}

typedef struct {
    uint64_t pair;
    game_record_t rec;
    int rc;
} s_job_t;

static void *s_play_job(void *arg)
{
    s_job_t *j = arg;
    game_config_t cfg;
    s_config(&cfg, NULL, 1000);
    cfg.max_moves = 50;
    startpos_spec_t spec = { .source = STARTPOS_CRC, .seed = 42 };
    startpos_t sp;
    j->rc = startpos_for_pair(&spec, (int64_t) j->pair, &sp, NULL, 0);
    snprintf(cfg.start_fen, sizeof cfg.start_fen, "%s", sp.fen);
    cfg.variant = VARIANT_CAPARANDOM;
    params_t p;
    params_default(&p);
    if (j->rc == 0)
        j->rc = game_play(&cfg, &p, &p, &j->rec);
    return NULL;
}

static void games_on_two_threads_match_the_same_games_played_alone(void)
{
    static s_job_t jobs[2], alone[2];
    pthread_t t[2];
    for (int i = 0; i < 2; i++) {
        jobs[i].pair = alone[i].pair = (uint64_t) i + 7;
        pthread_create(&t[i], NULL, s_play_job, &jobs[i]);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        s_play_job(&alone[i]);
        CHECK_EQ_INT(jobs[i].rc, 0);
        CHECK_EQ_INT(jobs[i].rec.plies, alone[i].rec.plies);
        CHECK_EQ_STR(jobs[i].rec.final_fen, alone[i].rec.final_fen);
        CHECK_EQ_INT(jobs[i].rec.variant, VARIANT_CAPARANDOM);
        s_check_replay(&jobs[i].rec);
    }
}

static void a_threaded_selfplay_counts_every_game_and_writes_pgn_in_pair_order(void)
{
    selfplay_config_t cfg;
    selfplay_config_default(&cfg);
    cfg.pairs = 3;
    cfg.threads = 2;
    cfg.game.nodes = 500;
    cfg.game.hash_mb = 1;
    cfg.game.max_moves = 40;
    cfg.starts.source = STARTPOS_CRC;
    cfg.starts.seed = 5;
    params_material_only(&cfg.a);
    char *text = NULL;
    size_t len = 0;
    cfg.pgn = open_memstream(&text, &len);
    selfplay_stats_t st;
    char err[256] = "";
    CHECK_MSG(selfplay_run(&cfg, &st, err, sizeof err) == 0, "%s", err);
    fclose(cfg.pgn);
    CHECK_EQ_INT(st.pairs, 3);
    CHECK_EQ_INT(st.wins + st.draws + st.losses, 6);
    CHECK_EQ_INT(st.penta[0] + st.penta[1] + st.penta[2] + st.penta[3] + st.penta[4], 3);
    CHECK_EQ_INT(st.white_wins + st.black_wins + st.draws, 6);
    int terms = 0;
    for (int t = 0; t < TERM_NB; t++)
        terms += st.terminations[t];
    CHECK_EQ_INT(terms, 6);
    CHECK_EQ_INT(st.illegal, 0);
    const char *r11 = strstr(text, "[Round \"1.1\"]"), *r12 = strstr(text, "[Round \"1.2\"]");
    const char *r32 = strstr(text, "[Round \"3.2\"]");
    CHECK(r11 && r12 && r32 && r11 < r12 && r12 < r32);
    free(text);
}

/* An imbalance follows the run document: B holds the named pieces in both
 * games of a pair, white in game 1 and black in game 2. */
static void a_selfplay_imbalance_gives_b_its_pieces_in_both_games(void)
{
    selfplay_config_t cfg;
    selfplay_config_default(&cfg);
    cfg.pairs = 2;
    cfg.game.nodes = 200;
    cfg.game.hash_mb = 1;
    cfg.game.max_moves = 4;
    cfg.name_a = "Aside";
    cfg.name_b = "Bside";
    startpos_imbalance_t imb;
    char err[256] = "";
    CHECK(startpos_imbalance_parse("A vs C", &imb, err, sizeof err) == 0);
    cfg.starts.source = STARTPOS_CRC;
    cfg.starts.seed = 9;
    cfg.starts.imbalances = &imb;
    cfg.starts.imbalance_count = 1;
    char *text = NULL;
    size_t len = 0;
    cfg.pgn = open_memstream(&text, &len);
    selfplay_stats_t st;
    CHECK_MSG(selfplay_run(&cfg, &st, err, sizeof err) == 0, "%s", err);
    fclose(cfg.pgn);
    CHECK_EQ_INT(st.pairs, 2);
    /* Game 1.1: Bside is White and White has the archbishop, not the chancellor. */
    const char *g1 = strstr(text, "[Round \"1.1\"]"), *g2 = strstr(text, "[Round \"1.2\"]");
    CHECK(g1 && g2 && g1 < g2);
    const char *w1 = strstr(g1, "[White \""), *f1 = strstr(g1, "[FEN \"");
    const char *w2 = strstr(g2, "[White \""), *f2 = strstr(g2, "[FEN \"");
    CHECK(w1 && f1 && w2 && f2);
    CHECK(strncmp(w1, "[White \"Bside\"]", 15) == 0);
    CHECK(strncmp(w2, "[White \"Aside\"]", 15) == 0);
    int wa1 = 0, wc1 = 0, ba2 = 0, bc2 = 0;
    for (const char *c = f1 + 6; *c && *c != ' '; c++) {
        wa1 += *c == 'A';
        wc1 += *c == 'C';
    }
    for (const char *c = f2 + 6; *c && *c != ' '; c++) {
        ba2 += *c == 'a';
        bc2 += *c == 'c';
    }
    CHECK_EQ_INT(wa1, 1);
    CHECK_EQ_INT(wc1, 0);
    CHECK_EQ_INT(ba2, 1);   /* game 2: Bside is Black and Black has the archbishop */
    CHECK_EQ_INT(bc2, 0);
    free(text);
}

static const check_case_t CASES[] = {
    CASE(a_game_from_the_start_ends_by_the_rules_with_legal_moves),
    CASE(an_archbishop_mates_a_bare_king),
    CASE(terminal_start_positions_end_at_once),
    CASE(the_move_cap_ends_a_long_game_as_a_draw),
    CASE(a_hopeless_side_is_adjudicated_lost),
    CASE(node_limited_games_repeat_exactly),
    CASE(a_pair_swaps_colours_and_scores_quarters_for_b),
    CASE(a_clock_game_finishes_without_losing_on_time),
    CASE(bad_configurations_are_errors_not_crashes),
    CASE(termination_names_round_trip),
    CASE(games_on_two_threads_match_the_same_games_played_alone),
    CASE(a_threaded_selfplay_counts_every_game_and_writes_pgn_in_pair_order),
    CASE(a_selfplay_imbalance_gives_b_its_pieces_in_both_games),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
