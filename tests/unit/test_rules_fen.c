/* Unit tests for FEN reading and writing (engine/fen.c, engine/board.h). */
#include "check.h"

#include "board.h"
#include "err.h"
#include "movegen.h"

static board_t s_board, s_other;

static int s_set(const char *fen, variant_t v)
{
    char err[256];
    return board_set_fen(&s_board, fen, v, err, sizeof err);
}

static const char *s_fen(void)
{
    static char buf[FEN_MAX];
    CHECK_EQ_INT(board_get_fen(&s_board, buf, sizeof buf), 0);
    return buf;
}

static void every_perft_table_fen_reads_and_writes_back(void)
{
    FILE *f = fopen(CAPA_SOURCE_DIR "/tests/data/perft.tsv", "r");
    CHECK(f != NULL);
    char line[1024];
    int rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "variant\t", 8) == 0)
            continue;
        char *vname = strtok(line, "\t"), *fen = strtok(NULL, "\t");
        variant_t v;
        CHECK(vname && fen);
        CHECK_EQ_INT(variant_from_name(vname, &v), 0);
        char err[256];
        CHECK_EQ_INT(board_set_fen_flags(&s_board, fen, v, BOARD_FEN_ALLOW_CAPTURE_KING, err, sizeof err), 0);
        char out[FEN_MAX], again[FEN_MAX];
        CHECK_EQ_INT(board_get_fen(&s_board, out, sizeof out), 0);
        /* Fairy-Stockfish writes file letters in caparandom: only KQkq rows change. */
        bool kqkq = strstr(fen, " KQkq ") || strstr(fen, " Q ");
        if (!(v == VARIANT_CAPARANDOM && kqkq))
            CHECK_EQ_STR(out, fen);
        CHECK_EQ_INT(board_set_fen_flags(&s_other, out, v, BOARD_FEN_ALLOW_CAPTURE_KING, err, sizeof err), 0);
        CHECK_EQ_INT(board_get_fen(&s_other, again, sizeof again), 0);
        CHECK_EQ_STR(again, out);
        CHECK_EQ_U64(board_key(&s_other), board_key(&s_board));
        rows++;
    }
    fclose(f);
    CHECK(rows >= 80);
}

static void start_positions_write_ten_for_an_empty_rank(void)
{
    for (int v = 0; v < VARIANT_NB; v++) {
        CHECK_EQ_INT(board_set_startpos(&s_board, (variant_t) v), 0);
        CHECK_EQ_STR(s_fen(), variant_start_fen((variant_t) v));
        CHECK(strstr(s_fen(), "/10/10/10/10/") != NULL);
    }
}

static void caparandom_writes_file_letters_and_others_write_kqkq(void)
{
    const char *pos = "rbnqkbacnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RBNQKBACNR w KQkq - 0 1";
    CHECK_EQ_INT(s_set(pos, VARIANT_CAPARANDOM), 0);
    CHECK_EQ_STR(s_fen(), "rbnqkbacnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RBNQKBACNR w JAja - 0 1");
    CHECK_EQ_INT(s_set("rbnqkbacnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RBNQKBACNR w JAja - 0 1",
                       VARIANT_CAPABLANCA), 0);
    CHECK_EQ_STR(s_fen(), pos);
}

static void an_inner_rook_right_is_written_as_its_file_letter(void)
{
    /* Rooks on a1 and b1: b1 is the inner queen-side rook. */
    const char *shredder = "rr3k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/RR3K3R w JBjb - 0 1";
    CHECK_EQ_INT(s_set(shredder, VARIANT_CAPABLANCA), 0);
    CHECK_EQ_STR(s_fen(), "rr3k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/RR3K3R w KBkb - 0 1");
    CHECK_EQ_INT(board_castle_rook_from(&s_board, 1), square_make(1, 0));
    CHECK_EQ_INT(s_set("rr3k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/RR3K3R w KQkq - 0 1", VARIANT_CAPABLANCA), 0);
    CHECK_EQ_INT(board_castle_rook_from(&s_board, 1), square_make(0, 0));
    CHECK_EQ_STR(s_fen(), "rr3k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/RR3K3R w KQkq - 0 1");
    CHECK_EQ_INT(s_set(shredder, VARIANT_CAPARANDOM), 0);
    CHECK_EQ_STR(s_fen(), shredder);
}

static void counters_may_be_left_out(void)
{
    CHECK_EQ_INT(s_set("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq -", VARIANT_CAPABLANCA), 0);
    CHECK_EQ_STR(s_fen(), variant_start_fen(VARIANT_CAPABLANCA));
    CHECK_EQ_INT(s_set("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR b", VARIANT_CAPABLANCA), 0);
    CHECK_EQ_STR(s_fen(), "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR b - - 0 1");
    CHECK_EQ_INT(s_set("4k5/10/10/10/10/10/10/4K5 b - - 37 112", VARIANT_CAPABLANCA), 0);
    CHECK_EQ_INT(board_halfmove_clock(&s_board), 37);
    CHECK_EQ_INT(board_fullmove(&s_board), 112);
}

static void en_passant_square_is_kept_only_when_a_pawn_can_take(void)
{
    CHECK_EQ_INT(s_set("4k5/10/10/3pP5/10/10/10/4K5 w - d6 0 2", VARIANT_CAPABLANCA), 0);
    CHECK_EQ_INT(board_ep_square(&s_board), square_make(3, 5));
    CHECK_EQ_STR(s_fen(), "4k5/10/10/3pP5/10/10/10/4K5 w - d6 0 2");
    CHECK_EQ_INT(s_set("4k5/10/10/3p6/10/10/10/4K5 w - d6 0 2", VARIANT_CAPABLANCA), 0);
    CHECK_EQ_INT(board_ep_square(&s_board), SQ_NONE);
    CHECK_EQ_STR(s_fen(), "4k5/10/10/3p6/10/10/10/4K5 w - - 0 2");
}

static void fen_after_moves_matches_the_position(void)
{
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    move_list_t list;
    movegen_legal(&s_board, &list);
    move_t e4 = move_make(square_make(4, 1), square_make(4, 3), MOVE_NORMAL, NO_PIECE_TYPE);
    CHECK(movegen_is_legal(&s_board, e4));
    board_make(&s_board, e4);
    CHECK_EQ_STR(s_fen(), "rnabqkbcnr/pppppppppp/10/10/4P5/10/PPPP1PPPPP/RNABQKBCNR b KQkq - 0 1");
    move_t d5 = move_make(square_make(3, 6), square_make(3, 4), MOVE_NORMAL, NO_PIECE_TYPE);
    board_make(&s_board, d5);
    CHECK_EQ_STR(s_fen(), "rnabqkbcnr/ppp1pppppp/10/3p6/4P5/10/PPPP1PPPPP/RNABQKBCNR w KQkq - 0 2");
    board_unmake(&s_board);
    board_unmake(&s_board);
    CHECK_EQ_STR(s_fen(), variant_start_fen(VARIANT_CAPABLANCA));
}

static void malformed_fens_are_rejected_with_a_reason(void)
{
    static const struct {
        const char *fen;
        const char *reason;
    } BAD[] = {
        { "", "at least" },
        { "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCN w KQkq - 0 1", "rank 1 has 9 files" },
        { "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNRR w - - 0 1", "more than 10 files" },
        { "rnabqkbcnr/pppppppppp/11/10/10/10/PPPPPPPPPP/RNABQKBCNR w - - 0 1", "more than 10 files" },
        { "rnabqkbcnr/pppppppppp/10/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w - - 0 1", "more than 8 ranks" },
        { "rnabqkbcnr/pppppppppp/10/10/10/PPPPPPPPPP/RNABQKBCNR w - - 0 1", "7 ranks" },
        { "4k5/10/10/10/10/10/10/3KK5 w - - 0 1", "two white kings" },
        { "10/10/10/10/10/10/10/4K5 w - - 0 1", "no black king" },
        { "4k5/10/10/10/10/10/10/4K4P w - - 0 1", "pawn on rank 1" },
        { "4k4P/10/10/10/10/10/10/4K5 w - - 0 1", "pawn on rank 8" },
        { "4k5/4R5/10/10/10/10/10/4K5 w - - 0 1", "not to move (black) is in check" },
        { "4k5/10/10/10/10/10/10/4K5 w K - 0 1", "without its rook" },
        { "4k5/10/10/10/10/10/10/1R3K4 w A - 0 1", "without its rook" },
        { "4k5/10/10/10/10/10/5K4/R8R w KQ - 0 1", "not on its back rank" },
        { "4k5/10/10/10/10/10/10/4K5 w X - 0 1", "bad castling letter" },
        { "4k5/10/10/10/10/10/10/4K5 w - e3 0 1", "wrong rank" },
        { "4k5/10/10/10/10/10/10/4K5 w - d6 0 1", "no pawn can just have passed" },
        { "4k5/10/10/10/10/10/10/4K5 w - z9 0 1", "bad en passant" },
        { "4k5/10/10/10/10/10/10/4K5 w - - x 1", "bad halfmove" },
        { "4k5/10/10/10/10/10/10/4K5 w - - -3 1", "bad halfmove" },
        { "4k5/10/10/10/10/10/10/4K5 w - - 0 0", "bad fullmove" },
        { "4k5/10/10/10/10/10/10/4K5 w - - 0 1 extra", "more than 6 fields" },
        { "4k5/10/10/10/10/10/10/4X5 w - - 0 1", "unknown piece letter 'X'" },
        { "4k5/10/10/10/10/10/10/4K5 x - - 0 1", "neither w nor b" },
        { "rnabqkbcnr/pppppppppp/0/10/10/10/PPPPPPPPPP/RNABQKBCNR w - - 0 1", "more than 10 files" },
    };
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    uint64_t key = board_key(&s_board);
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char err[256] = "";
        int rc = board_set_fen(&s_board, BAD[i].fen, VARIANT_CAPABLANCA, err, sizeof err);
        CHECK_MSG(rc == CAPA_EINVAL, "accepted: %s", BAD[i].fen);
        CHECK_MSG(strstr(err, BAD[i].reason) != NULL, "%s: message \"%s\" lacks \"%s\"", BAD[i].fen,
                  err, BAD[i].reason);
        CHECK_EQ_U64(board_key(&s_board), key); /* the board is left as it was */
    }
    CHECK_EQ_INT(board_set_fen(&s_board, NULL, VARIANT_CAPABLANCA, NULL, 0), CAPA_EINVAL);
}

static void janus_writes_the_archbishop_as_j_and_reads_a_or_j(void)
{
    CHECK_EQ_INT(s_set("rjnbkqbnjr/pppppppppp/10/10/10/10/PPPPPPPPPP/RANBKQBNAR w KQkq - 0 1", VARIANT_JANUS), 0);
    CHECK_EQ_STR(s_fen(), variant_start_fen(VARIANT_JANUS));
    CHECK_EQ_INT(board_count(&s_board, W_ARCHBISHOP), 2);
    CHECK_EQ_INT(board_piece_on(&s_board, square_make(1, 7)), B_ARCHBISHOP);
}

static void variant_names_read_both_ways(void)
{
    for (int v = 0; v < VARIANT_NB; v++) {
        variant_t out;
        CHECK_EQ_INT(variant_from_name(variant_name((variant_t) v), &out), 0);
        CHECK_EQ_INT(out, v);
    }
    variant_t out;
    CHECK_EQ_INT(variant_from_name("chess", &out), CAPA_EINVAL);
    CHECK_EQ_INT(variant_from_name("Gothic", &out), 0);
    CHECK_EQ_INT(out, VARIANT_GOTHIC);
}

static const check_case_t CASES[] = {
    CASE(every_perft_table_fen_reads_and_writes_back),
    CASE(start_positions_write_ten_for_an_empty_rank),
    CASE(caparandom_writes_file_letters_and_others_write_kqkq),
    CASE(an_inner_rook_right_is_written_as_its_file_letter),
    CASE(counters_may_be_left_out),
    CASE(en_passant_square_is_kept_only_when_a_pawn_can_take),
    CASE(fen_after_moves_matches_the_position),
    CASE(malformed_fens_are_rejected_with_a_reason),
    CASE(janus_writes_the_archbishop_as_j_and_reads_a_or_j),
    CASE(variant_names_read_both_ways),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
