/* Unit tests for UCI and SAN move strings (engine/notation.c). */
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

static const char *s_uci(move_t m, bool chess960)
{
    static char buf[UCI_MOVE_MAX];
    move_to_uci(&s_board, m, chess960, buf);
    return buf;
}

static const char *s_san(move_t m)
{
    static char buf[SAN_MOVE_MAX];
    move_to_san(&s_board, m, buf);
    return buf;
}

static move_t s_from_uci(const char *str)
{
    move_t m = MOVE_NONE;
    CHECK_MSG(move_from_uci(&s_board, str, &m) == 0, "%s not accepted", str);
    return m;
}

static move_t s_from_san(const char *str)
{
    move_t m = MOVE_NONE;
    CHECK_MSG(move_from_san(&s_board, str, &m) == 0, "%s not accepted", str);
    return m;
}

static void castling_is_king_to_square_in_capablanca_and_king_takes_rook_in_crc(void)
{
    s_set("r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 0 1", VARIANT_CAPABLANCA);
    move_t oo = s_from_uci("f1i1");
    CHECK(move_is_castle(oo));
    CHECK_EQ_INT(s_from_uci("f1j1"), oo);
    CHECK_EQ_STR(s_uci(oo, false), "f1i1");
    CHECK_EQ_STR(s_uci(oo, true), "f1j1");
    CHECK_EQ_STR(s_uci(s_from_uci("f1a1"), false), "f1c1");
    s_set("r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w JAja - 0 1", VARIANT_CAPARANDOM);
    CHECK_EQ_STR(s_uci(s_from_uci("f1i1"), false), "f1j1");
    CHECK_EQ_STR(s_uci(s_from_uci("f1c1"), false), "f1a1");
}

static void castling_that_reads_as_a_king_step_is_written_king_takes_rook(void)
{
    /* King h1 castles to i1: "h1i1" is the ordinary king move, castling is "h1j1". */
    s_set("5k4/10/10/10/10/10/10/R6K1R w KQ - 0 1", VARIANT_CAPABLANCA);
    move_t step = s_from_uci("h1i1");
    CHECK(!move_is_castle(step));
    move_t oo = s_from_uci("h1j1");
    CHECK(move_is_castle(oo));
    CHECK_EQ_STR(s_uci(oo, false), "h1j1");
    CHECK_EQ_STR(s_uci(s_from_uci("h1c1"), false), "h1c1");
    CHECK_EQ_STR(s_san(oo), "O-O");
    CHECK_EQ_STR(s_san(s_from_uci("h1a1")), "O-O-O");
}

static void bad_uci_strings_are_refused(void)
{
    CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
    move_t m;
    CHECK_EQ_INT(move_from_uci(&s_board, "", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_uci(&s_board, "k1a2", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_uci(&s_board, "a1a9", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_uci(&s_board, "e2e4qq", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_uci(&s_board, "e2e4x", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_uci(&s_board, "e2e5", &m), CAPA_EILLEGAL);
    CHECK_EQ_INT(move_from_uci(&s_board, "f1i1", &m), CAPA_EILLEGAL);
    CHECK_EQ_INT(move_from_uci(&s_board, NULL, &m), CAPA_EINVAL);
    CHECK_EQ_STR(s_uci(MOVE_NONE, false), "0000");
    CHECK_EQ_STR(s_uci(MOVE_NULL, false), "0000");
    char buf[SAN_MOVE_MAX];
    CHECK_EQ_INT(move_to_san(&s_board, move_make(4, 54, MOVE_NORMAL, NO_PIECE_TYPE), buf), CAPA_EILLEGAL);
    CHECK_EQ_STR(buf, "--");
    CHECK_EQ_INT(move_to_uci(&s_board, 0xfffffu, false, buf), CAPA_EINVAL);
}

static void promotions_use_the_variant_letters(void)
{
    s_set("4k5/1P8/10/10/10/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA);
    move_t m = s_from_uci("b7b8a");
    CHECK_EQ_INT(move_promo(m), ARCHBISHOP);
    CHECK_EQ_STR(s_uci(m, false), "b7b8a");
    CHECK_EQ_STR(s_san(m), "b8=A");
    CHECK_EQ_INT(s_from_san("b8=A"), m);
    CHECK_EQ_INT(s_from_san("b8A"), m);
    CHECK_EQ_STR(s_san(s_from_uci("b7b8c")), "b8=C+"); /* along the rank to e8 */
    s_set("4k5/1P8/10/10/10/10/10/4K5 w - - 0 1", VARIANT_JANUS);
    m = s_from_uci("b7b8j");
    CHECK_EQ_INT(s_from_uci("b7b8a"), m);
    CHECK_EQ_STR(s_uci(m, false), "b7b8j");
    CHECK_EQ_STR(s_san(m), "b8=J");
}

static void san_disambiguates_by_file_then_rank_then_both(void)
{
    /* Knights b1 and f1 can both reach d2: file letter. */
    s_set("4k5/10/10/10/10/10/10/1N2KN4 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_STR(s_san(s_from_uci("b1d2")), "Nbd2");
    CHECK_EQ_STR(s_san(s_from_uci("f1d2")), "Nfd2");
    CHECK_EQ_INT(s_from_san("Nbd2"), s_from_uci("b1d2"));
    move_t m;
    CHECK_EQ_INT(move_from_san(&s_board, "Nd2", &m), CAPA_EILLEGAL);
    /* Rooks a1 and a5 on one file: rank digit. */
    s_set("4k5/10/10/R9/10/10/10/R3K5 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_STR(s_san(s_from_uci("a1a3")), "R1a3");
    CHECK_EQ_INT(s_from_san("R5a3"), s_from_uci("a5a3"));
    /* Chancellors a1, a3, c3 reach b3: a3 shares the file, no other the rank. */
    s_set("4k5/10/10/10/10/C1C7/10/C3K5 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_STR(s_san(s_from_uci("a1b3")), "C1b3");
    /* Queens a1, a3, c1 reach b2: one shares the file, one the rank: both. */
    s_set("4k5/10/10/10/10/Q9/10/Q1Q1K5 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_STR(s_san(s_from_uci("a1b2")), "Qa1b2");
    CHECK_EQ_INT(s_from_san("Qa1b2"), s_from_uci("a1b2"));
    CHECK_EQ_INT(s_from_san("Qa1-b2"), s_from_uci("a1b2"));
}

static void san_marks_check_and_mate_and_captures(void)
{
    /* Archbishop mate: Kh6? Use the queen: back-rank mate. */
    s_set("6k3/5ppp2/10/10/10/10/10/R4K4 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_STR(s_san(s_from_uci("a1a8")), "Ra8#");
    s_set("6k3/5pp1p1/10/10/10/10/10/R4K4 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_STR(s_san(s_from_uci("a1a8")), "Ra8+");
    s_set("4k5/10/10/3p6/4P5/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_STR(s_san(s_from_uci("e4d5")), "exd5");
    CHECK_EQ_INT(s_from_san("exd5"), s_from_uci("e4d5"));
    CHECK_EQ_INT(s_from_san("exd5!?"), s_from_uci("e4d5"));
}

static void san_reads_castling_in_both_spellings(void)
{
    s_set("r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 0 1", VARIANT_CAPABLANCA);
    CHECK_EQ_INT(s_from_san("O-O"), s_from_uci("f1i1"));
    CHECK_EQ_INT(s_from_san("0-0-0"), s_from_uci("f1c1"));
    move_t m;
    CHECK_EQ_INT(move_from_san(&s_board, "Zf3", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_san(&s_board, "", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_san(&s_board, "Nf9", &m), CAPA_EINVAL);
    CHECK_EQ_INT(move_from_san(&s_board, "Qd4", &m), CAPA_EILLEGAL);
}

/* Every legal move of random games survives UCI (both conventions) and SAN. */
static void every_move_of_random_games_round_trips_through_uci_and_san(void)
{
    uint64_t rng = 42;
    for (int v = 0; v < VARIANT_NB; v++) {
        for (int g = 0; g < 4; g++) {
            CHECK_EQ_INT(board_set_startpos(&s_board, (variant_t) v), 0);
            for (int ply = 0; ply < 200; ply++) {
                move_list_t list;
                if (movegen_legal(&s_board, &list) == 0)
                    break;
                for (int i = 0; i < list.count; i++) {
                    move_t m = list.moves[i], back;
                    for (int c960 = 0; c960 < 2; c960++) {
                        const char *u = s_uci(m, c960);
                        CHECK_MSG(move_from_uci(&s_board, u, &back) == 0 && back == m, "uci %s", u);
                    }
                    const char *san = s_san(m);
                    CHECK_MSG(move_from_san(&s_board, san, &back) == 0 && back == m, "san %s", san);
                }
                board_make(&s_board, list.moves[crc_splitmix64(&rng) % (uint64_t) list.count]);
            }
        }
    }
}

static void squares_read_and_write(void)
{
    char buf[3];
    square_to_string(square_make(9, 7), buf);
    CHECK_EQ_STR(buf, "j8");
    CHECK_EQ_INT(square_from_string("a1"), 0);
    CHECK_EQ_INT(square_from_string("j8"), 79);
    CHECK_EQ_INT(square_from_string("k1"), SQ_NONE);
    CHECK_EQ_INT(square_from_string("a9"), SQ_NONE);
}

static const check_case_t CASES[] = {
    CASE(castling_is_king_to_square_in_capablanca_and_king_takes_rook_in_crc),
    CASE(castling_that_reads_as_a_king_step_is_written_king_takes_rook),
    CASE(bad_uci_strings_are_refused),
    CASE(promotions_use_the_variant_letters),
    CASE(san_disambiguates_by_file_then_rank_then_both),
    CASE(san_marks_check_and_mate_and_captures),
    CASE(san_reads_castling_in_both_spellings),
    CASE(every_move_of_random_games_round_trips_through_uci_and_san),
    CASE(squares_read_and_write),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
