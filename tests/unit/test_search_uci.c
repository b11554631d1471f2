/* test_search_uci.c - the UCI loop on in-memory streams. */
#include <stdlib.h>

#include "board.h"
#include "check.h"
#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "params.h"
#include "uci.h"

/* Runs the loop on input and returns everything it wrote (caller frees). */
static char *s_run(const char *input)
{
    FILE *in = fmemopen((void *) input, strlen(input), "r");
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream(&out, &len);
    CHECK(in && o);
    CHECK_EQ_INT(uci_loop(in, o), 0);
    fclose(in);
    fclose(o);
    return out;
}

static void s_bestmove_is_legal(const char *out, const char *fen, variant_t v)
{
    const char *bm = strstr(out, "bestmove ");
    CHECK_MSG(bm, "no bestmove in:\n%s", out);
    char mv[16] = "";
    sscanf(bm, "bestmove %15s", mv);
    board_t *b = malloc(sizeof *b);
    CHECK_EQ_INT(board_set_fen(b, fen, v, NULL, 0), 0);
    move_t m;
    CHECK_MSG(move_from_uci(b, mv, &m) == 0, "bestmove %s is not legal in %s", mv, fen);
    free(b);
}

static void the_handshake_lists_variants_and_every_parameter(void)
{
    char *out = s_run("uci\nisready\nquit\n");
    CHECK(strstr(out, "id name capalab"));
    CHECK(strstr(out, "option name UCI_Variant type combo default capablanca var capablanca var "
                      "caparandom var gothic var embassy var janus\n"));
    CHECK(strstr(out, "option name UCI_Chess960 type check default false\n"));
    CHECK(strstr(out, "option name Hash type spin default 16 min 1 max"));
    CHECK(strstr(out, "option name ArchbishopValueMg type spin default 825 min 0 max 4000\n"));
    for (int i = 0; i < params_count(); i++) {
        char want[128];
        snprintf(want, sizeof want, "option name %s type spin", params_info(i)->name);
        CHECK_MSG(strstr(out, want), "missing %s", want);
    }
    CHECK(strstr(out, "uciok\nreadyok\n"));
    free(out);
}

static void go_depth_answers_with_info_and_a_legal_bestmove(void)
{
    char *out = s_run("position startpos moves e2e4 e7e5\ngo depth 5\nisready\n");
    CHECK(strstr(out, "info depth 5 "));
    CHECK(strstr(out, " score cp "));
    CHECK(strstr(out, " pv "));
    s_bestmove_is_legal(out, "rnabqkbcnr/pppp1ppppp/10/4p5/4P5/10/PPPP1PPPPP/RNABQKBCNR w KQkq - 0 2",
                        VARIANT_CAPABLANCA);
    free(out);
}

static void caparandom_positions_take_shredder_fens_and_king_takes_rook_castling(void)
{
    /* White can castle king side at once: king g1, rook j1, nothing between. */
    const char *fen = "rbbqnakncr/pppppppppp/10/10/10/10/PPPPPPPPPP/RBBQNAK2R w JAja - 0 1";
    char input[512];
    snprintf(input, sizeof input,
             "setoption name UCI_Variant value caparandom\nposition fen %s moves g1j1 e7e5\n"
             "go perft 1\ngo depth 3\n", fen);
    char *out = s_run(input);
    CHECK_MSG(!strstr(out, "illegal move"), "%s", out);
    CHECK(strstr(out, "Nodes searched: "));
    board_t *b = malloc(sizeof *b);
    CHECK_EQ_INT(board_set_fen(b, fen, VARIANT_CAPARANDOM, NULL, 0), 0);
    move_t m;
    CHECK_EQ_INT(move_from_uci(b, "g1j1", &m), 0);
    board_make(b, m);
    CHECK_EQ_INT(move_from_uci(b, "e7e5", &m), 0);
    board_make(b, m);
    char want[64];
    snprintf(want, sizeof want, "Nodes searched: %d\n", movegen_count(b));
    CHECK_MSG(strstr(out, want), "%s", out);
    char after[FEN_MAX];
    board_get_fen(b, after, sizeof after);
    s_bestmove_is_legal(out, after, VARIANT_CAPARANDOM);
    free(b);
    free(out);
}

static void garbage_and_bad_input_get_info_strings_not_crashes(void)
{
    char *out = s_run("hello world\n\n   \nposition fen 10/10 w - - 0 1\nposition startpos moves e2e5\n"
                      "setoption name Nope value 3\nsetoption name QueenValueMg value 99999\n"
                      "setoption name QueenValueMg value abc\ngo depth x\ngo nodes 500\nstop\n"
                      "position\ngo perft\nsetoption\nisready\n");
    CHECK(strstr(out, "info string unknown command: hello"));
    CHECK(strstr(out, "info string bad FEN"));
    CHECK(strstr(out, "info string illegal move e2e5"));
    CHECK(strstr(out, "info string unknown option Nope"));
    CHECK(strstr(out, "QueenValueMg: 99999 is outside"));
    CHECK(strstr(out, "info string QueenValueMg needs a numeric value"));
    CHECK(strstr(out, "bestmove "));
    CHECK(strstr(out, "readyok"));
    free(out);
}

static void go_nodes_is_deterministic_across_new_games(void)
{
    char *a = s_run("setoption name Hash value 4\nucinewgame\nposition startpos\ngo nodes 30000\n");
    char *b = s_run("setoption name Hash value 4\nucinewgame\nposition startpos\ngo nodes 30000\n");
    const char *ba = strstr(a, "bestmove"), *bb = strstr(b, "bestmove");
    CHECK(ba && bb);
    CHECK_EQ_STR(ba, bb);
    free(a);
    free(b);
}

static void a_parameter_option_changes_the_evaluation(void)
{
    char *a = s_run("position fen 4k5/10/10/10/10/10/10/4K4A w - - 0 1\ngo depth 1\n");
    char *b = s_run("setoption name ArchbishopValueEg value 500\n"
                    "position fen 4k5/10/10/10/10/10/10/4K4A w - - 0 1\ngo depth 1\n");
    int sa = 0, sb = 0;
    CHECK(sscanf(strstr(a, "score cp "), "score cp %d", &sa) == 1);
    CHECK(sscanf(strstr(b, "score cp "), "score cp %d", &sb) == 1);
    CHECK(sa - sb > 250);
    free(a);
    free(b);
}

static void eval_prints_each_group_of_terms_and_the_score(void)
{
    /* Black to move, without its archbishop. */
    const char *fen = "rnb1qkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR b KQkq - 0 1";
    char input[256];
    snprintf(input, sizeof input, "position fen %s\neval\nquit\n", fen);
    char *out = s_run(input);
    for (int t = 0; t < EVAL_TERM_NB; t++) {
        char want[64];
        snprintf(want, sizeof want, "info string term %s ", eval_term_name((eval_term_t) t));
        CHECK_MSG(strstr(out, want), "no \"%s\" in:\n%s", want, out);
    }
    board_t *b = malloc(sizeof *b);
    CHECK_EQ_INT(board_set_fen(b, fen, VARIANT_CAPABLANCA, NULL, 0), 0);
    params_t p;
    params_default(&p);
    int stm = eval_evaluate(b, &p);
    char want[96];
    snprintf(want, sizeof want, "info string eval %d white %d phase %d\n", stm, -stm, eval_phase(b));
    CHECK_MSG(strstr(out, want), "no \"%s\" in:\n%s", want, out);
    CHECK(stm < -500);
    free(b);
    free(out);
}

static void infinite_search_waits_for_stop_before_bestmove(void)
{
    char *out = s_run("position startpos\ngo infinite\nisready\nstop\nquit\n");
    const char *ready = strstr(out, "readyok");
    const char *best = strstr(out, "bestmove");
    CHECK(ready && best && ready < best);
    free(out);
}

/* Random lines built from protocol words, numbers, squares and junk: the
 * loop must answer and end without crashing (run it under ASan). */
static void random_protocol_noise_never_crashes_the_loop(void)
{
    static const char *const WORDS[] = {
        "uci", "isready", "position", "startpos", "fen", "moves", "go", "stop", "setoption",
        "name", "value", "Hash", "UCI_Variant", "caparandom", "janus", "ucinewgame", "depth",
        "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "perft", "infinite",
        "e2e4", "f1i1", "b7b8a", "a1j8", "10/10", "w", "KQkq", "-", "0", "1", "-7", "3",
        "99999999999999999999", "Tempo", "\xff\x01", "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR",
        "ponderhit", "d", "searchmoves", "mate", "" };
    const int nw = (int) (sizeof WORDS / sizeof WORDS[0]);
    uint64_t rng = 12345;
    size_t cap = 1 << 16, len = 0;
    char *input = malloc(cap);
    for (int line = 0; line < 400; line++) {
        int n = 1 + (int) ((rng >> 33) % 8);
        for (int w = 0; w < n; w++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            const char *word = WORDS[(rng >> 33) % (uint64_t) nw];
            /* keep searches short: a number after "depth"/"nodes" is small */
            len += (size_t) snprintf(input + len, cap - len, "%s ", word);
        }
        len += (size_t) snprintf(input + len, cap - len, "\n");
        if (line % 5 == 4)
            len += (size_t) snprintf(input + len, cap - len, "stop\nposition startpos\n");
    }
    len += (size_t) snprintf(input + len, cap - len, "isready\n");
    CHECK(len < cap - 1);
    char *out = s_run(input);
    CHECK(strstr(out, "readyok"));
    free(out);
    free(input);
}

static void latency_is_learnt_from_the_clocks_and_forgotten_by_a_new_game(void)
{
    /* White's clock falls from 3000 to 500 ms over a move that took this
     * engine far less (the second go stops the first search at once): the
     * lag, capped at 1000 ms, is kept back; a clock that falls by what the
     * engine used teaches nothing, and ucinewgame forgets. */
    char *out = s_run("position startpos\ngo wtime 3000 btime 3000\n"
                      "position startpos moves e2e4 e7e5\ngo wtime 500 btime 3000\nisready\n");
    CHECK_MSG(strstr(out, "info string latency 1000 ms (learnt from the clocks) kept back\n"),
              "%s", out);
    free(out);
    out = s_run("position startpos\ngo wtime 3000 btime 3000 winc 100 binc 100\n"
                "position startpos moves e2e4 e7e5\ngo wtime 3100 btime 3000 winc 100 binc 100\n"
                "isready\n");
    CHECK_MSG(!strstr(out, "latency"), "%s", out);
    free(out);
    out = s_run("position startpos\ngo wtime 3000 btime 3000\nucinewgame\n"
                "position startpos moves e2e4 e7e5\ngo wtime 500 btime 3000\nisready\n");
    CHECK_MSG(!strstr(out, "latency"), "%s", out);
    free(out);
}

static const check_case_t CASES[] = {
    CASE(the_handshake_lists_variants_and_every_parameter),
    CASE(go_depth_answers_with_info_and_a_legal_bestmove),
    CASE(caparandom_positions_take_shredder_fens_and_king_takes_rook_castling),
    CASE(garbage_and_bad_input_get_info_strings_not_crashes),
    CASE(go_nodes_is_deterministic_across_new_games),
    CASE(a_parameter_option_changes_the_evaluation),
    CASE(eval_prints_each_group_of_terms_and_the_score),
    CASE(infinite_search_waits_for_stop_before_bestmove),
    CASE(random_protocol_noise_never_crashes_the_loop),
    CASE(latency_is_learnt_from_the_clocks_and_forgotten_by_a_new_game),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
