/* test_pgn.c - PGN output of game records. */
#include <stdlib.h>

#include "board.h"
#include "check.h"
#include "crc.h"
#include "game.h"
#include "movegen.h"
#include "notation.h"
#include "pgn.h"

static game_record_t s_rec;

/* A record of the given UCI moves from fen. */
static void s_record(const char *fen, variant_t v, const char *const *moves, int n)
{
    board_t *b = malloc(sizeof *b);
    memset(&s_rec, 0, sizeof s_rec);
    s_rec.variant = v;
    CHECK_EQ_INT(board_set_fen(b, fen, v, NULL, 0), 0);
    board_get_fen(b, s_rec.start_fen, sizeof s_rec.start_fen);
    for (int i = 0; i < n; i++) {
        move_t m;
        CHECK_MSG(move_from_uci(b, moves[i], &m) == 0, "%s", moves[i]);
        s_rec.moves[s_rec.plies].move = m;
        s_rec.moves[s_rec.plies].score = (int16_t) (i * 10);
        s_rec.moves[s_rec.plies].depth = 7;
        s_rec.plies++;
        board_make(b, m);
    }
    board_get_fen(b, s_rec.final_fen, sizeof s_rec.final_fen);
    free(b);
}

static void a_standard_start_game_has_the_roster_variant_and_san_moves(void)
{
    static const char *const moves[] = { "e2e4", "e7e5", "h1i3", "b8c6" };
    s_record(variant_start_fen(VARIANT_CAPABLANCA), VARIANT_CAPABLANCA, moves, 4);
    s_rec.result = RESULT_DRAW;
    s_rec.termination = TERM_ADJUDICATION_DRAW;
    pgn_tags_t tags = { "capalab test", "here", "2026.11.29", "3", "base", "dev", false };
    char *pgn = pgn_format(&s_rec, &tags);
    CHECK(pgn);
    CHECK(strstr(pgn, "[Event \"capalab test\"]\n[Site \"here\"]\n[Date \"2026.11.29\"]\n"
                      "[Round \"3\"]\n[White \"base\"]\n[Black \"dev\"]\n[Result \"1/2-1/2\"]\n"));
    CHECK(strstr(pgn, "[Variant \"capablanca\"]"));
    CHECK(!strstr(pgn, "[FEN "));
    CHECK(strstr(pgn, "[PlyCount \"4\"]"));
    CHECK(strstr(pgn, "[Termination \"adjudication\"]"));
    CHECK_MSG(strstr(pgn, "\n\n1. e4 e5 2. Ci3 Nc6 {Draw by adjudication} 1/2-1/2\n\n"), "%s", pgn);
    free(pgn);
}

static void a_caparandom_game_carries_its_fen_and_comments_when_asked(void)
{
    char fen[FEN_MAX];
    CHECK_EQ_INT(crc_start_fen(100, fen, sizeof fen), 0);
    board_t *b = malloc(sizeof *b);
    CHECK_EQ_INT(board_set_fen(b, fen, VARIANT_CAPARANDOM, NULL, 0), 0);
    move_list_t list;
    movegen_legal(b, &list);
    char m1[UCI_MOVE_MAX];
    move_to_uci(b, list.moves[0], true, m1);
    free(b);
    const char *moves[] = { m1 };
    s_record(fen, VARIANT_CAPARANDOM, moves, 1);
    s_rec.result = RESULT_WHITE_WINS;
    s_rec.termination = TERM_TIME_FORFEIT;
    s_rec.moves[0].score = 31995;
    pgn_tags_t tags = { 0 };
    tags.comments = true;
    char *pgn = pgn_format(&s_rec, &tags);
    CHECK(pgn);
    CHECK(strstr(pgn, "[Variant \"caparandom\"]"));
    CHECK(strstr(pgn, "[SetUp \"1\"]"));
    char tag[200];
    snprintf(tag, sizeof tag, "[FEN \"%s\"]", fen);
    CHECK(strstr(pgn, tag));
    CHECK(strstr(pgn, "[Event \"?\"]"));
    CHECK(strstr(pgn, "[Date \"????.??.??\"]"));
    CHECK(strstr(pgn, "[Termination \"time forfeit\"]"));
    CHECK_MSG(strstr(pgn, "{+M3/7}"), "%s", pgn);
    CHECK(strstr(pgn, "{Black loses on time} 1-0"));
    free(pgn);
}

static void long_games_wrap_at_80_columns_and_black_first_moves_read_1_dots(void)
{
    game_config_t cfg;
    game_config_default(&cfg);
    cfg.nodes = 300;
    cfg.hash_mb = 1;
    cfg.max_moves = 60;
    snprintf(cfg.start_fen, sizeof cfg.start_fen, "%s",
             "rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR b KQkq - 0 1");
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(game_play(&cfg, &p, &p, &s_rec), 0);
    pgn_tags_t tags = { 0 };
    tags.comments = true;
    char *pgn = pgn_format(&s_rec, &tags);
    CHECK(pgn);
    CHECK(strstr(pgn, "\n1...") != NULL);
    CHECK(strstr(pgn, "[SetUp \"1\"]"));
    int col = 0, lines = 0;
    for (const char *c = pgn; *c; c++) {
        if (*c == '\n') {
            lines++;
            col = 0;
        } else {
            col++;
            CHECK_MSG(col <= 80, "line %d longer than 80 columns", lines + 1);
        }
    }
    CHECK(lines > 12);
    free(pgn);
}

static void a_corrupt_record_gives_no_pgn(void)
{
    static const char *const moves[] = { "e2e4" };
    s_record(variant_start_fen(VARIANT_CAPABLANCA), VARIANT_CAPABLANCA, moves, 1);
    s_rec.moves[0].move = move_make(0, 79, 0, NO_PIECE_TYPE);
    CHECK(pgn_format(&s_rec, NULL) == NULL);
}

static void an_abandoned_game_carries_the_given_termination_and_reason(void)
{
    static const char *const moves[] = { "e2e4" };
    s_record(variant_start_fen(VARIANT_CAPABLANCA), VARIANT_CAPABLANCA, moves, 1);
    s_rec.result = RESULT_WHITE_WINS;
    s_rec.termination = TERM_ILLEGAL_MOVE;
    char *pgn = pgn_format_ended(&s_rec, NULL, "abandoned",
                                 "old-build crashed or exited, a reason longer than sixty-four "
                                 "characters");
    CHECK(pgn);
    CHECK_MSG(strstr(pgn, "[Termination \"abandoned\"]"), "%s", pgn);
    CHECK_MSG(strstr(pgn, "{old-build crashed or exited, a reason longer than sixty-four "
                          "characters}"), "%s", pgn);
    free(pgn);
    /* NULL keeps the record's own ending. */
    pgn = pgn_format_ended(&s_rec, NULL, NULL, NULL);
    CHECK(pgn && strstr(pgn, "[Termination \"rules infraction\"]"));
    free(pgn);
}

static const check_case_t CASES[] = {
    CASE(a_standard_start_game_has_the_roster_variant_and_san_moves),
    CASE(a_caparandom_game_carries_its_fen_and_comments_when_asked),
    CASE(long_games_wrap_at_80_columns_and_black_first_moves_read_1_dots),
    CASE(a_corrupt_record_gives_no_pgn),
    CASE(an_abandoned_game_carries_the_given_termination_and_reason),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
