/* test_openings.c - start positions per pair. */
#include <stdlib.h>
#include <unistd.h>

#include "board.h"
#include "check.h"
#include "crc.h"
#include "err.h"
#include "openings.h"

static board_t s_board;

static int s_count(const char *fen, char piece)
{
    int n = 0;
    for (const char *c = fen; *c && *c != ' '; c++)
        n += *c == piece;
    return n;
}

static void crc_pairs_are_rebuilt_from_seed_and_pair_number(void)
{
    opening_source_t src;
    opening_source_default(&src);
    src.kind = OPENING_CRC;
    char a[FEN_MAX], b[FEN_MAX], c[FEN_MAX];
    variant_t v;
    CHECK_EQ_INT(opening_for_pair(&src, 1234, 17, a, &v, NULL, 0), 0);
    CHECK_EQ_INT(v, VARIANT_CAPARANDOM);
    CHECK_EQ_INT(opening_for_pair(&src, 1234, 17, b, &v, NULL, 0), 0);
    CHECK_EQ_STR(a, b);
    int differ = 0;
    for (uint64_t k = 0; k < 10; k++) {
        CHECK_EQ_INT(opening_for_pair(&src, 1234, 100 + k, c, &v, NULL, 0), 0);
        CHECK_EQ_INT(board_set_fen(&s_board, c, v, NULL, 0), 0);
        differ += strcmp(a, c) != 0;
    }
    CHECK(differ >= 9);
    src.crc_number = 5;
    CHECK_EQ_INT(opening_for_pair(&src, 1, 2, a, &v, NULL, 0), 0);
    CHECK_EQ_INT(crc_start_fen(5, b, sizeof b), 0);
    CHECK_EQ_STR(a, b);
    src.crc_number = crc_count();
    CHECK_EQ_INT(opening_for_pair(&src, 1, 2, a, &v, NULL, 0), CAPA_ERANGE);
}

static void an_imbalance_removes_the_named_pieces_from_each_side(void)
{
    char wl[16], bl[16], err[256];
    CHECK_EQ_INT(opening_parse_imbalance("A vs R+N", wl, bl, err, sizeof err), 0);
    CHECK_EQ_STR(wl, "RN");
    CHECK_EQ_STR(bl, "A");
    CHECK_EQ_INT(opening_parse_imbalance("A vs K", wl, bl, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(opening_parse_imbalance("A C", wl, bl, err, sizeof err), CAPA_EINVAL);

    opening_source_t src;
    opening_source_default(&src);
    src.kind = OPENING_CRC;
    snprintf(src.imbalance, sizeof src.imbalance, "A vs C");
    char fen[FEN_MAX];
    variant_t v;
    CHECK_EQ_INT(opening_for_pair(&src, 9, 3, fen, &v, err, sizeof err), 0);
    CHECK_EQ_INT(s_count(fen, 'A'), 1);
    CHECK_EQ_INT(s_count(fen, 'C'), 0);
    CHECK_EQ_INT(s_count(fen, 'a'), 0);
    CHECK_EQ_INT(s_count(fen, 'c'), 1);
    CHECK_EQ_INT(board_set_fen(&s_board, fen, v, NULL, 0), 0);

    opening_source_default(&src);
    snprintf(src.imbalance, sizeof src.imbalance, "- vs P");
    CHECK_EQ_INT(opening_for_pair(&src, 9, 3, fen, &v, err, sizeof err), 0);
    CHECK_EQ_INT(s_count(fen, 'P'), 9);
    CHECK_EQ_INT(s_count(fen, 'p'), 10);
    snprintf(src.imbalance, sizeof src.imbalance, "R vs -");
    CHECK_EQ_INT(opening_for_pair(&src, 9, 3, fen, &v, err, sizeof err), 0);
    CHECK_EQ_INT(s_count(fen, 'r'), 1);
    CHECK_EQ_INT(board_set_fen(&s_board, fen, v, err, sizeof err), 0);
}

static void random_plies_are_legal_and_reproducible(void)
{
    opening_source_t src;
    opening_source_default(&src);
    src.variant = VARIANT_GOTHIC;
    src.random_plies = 8;
    char a[FEN_MAX], b[FEN_MAX];
    variant_t v;
    CHECK_EQ_INT(opening_for_pair(&src, 77, 0, a, &v, NULL, 0), 0);
    CHECK_EQ_INT(opening_for_pair(&src, 77, 0, b, &v, NULL, 0), 0);
    CHECK_EQ_STR(a, b);
    CHECK_EQ_INT(v, VARIANT_GOTHIC);
    CHECK(strcmp(a, "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1") != 0);
    CHECK_EQ_INT(board_set_fen(&s_board, a, v, NULL, 0), 0);
    CHECK_EQ_INT(board_fullmove(&s_board), 5);
    CHECK_EQ_INT(opening_for_pair(&src, 78, 0, b, &v, NULL, 0), 0);
    CHECK(strcmp(a, b) != 0);
}

static void a_fen_file_gives_line_k_to_pair_k_and_reports_bad_lines(void)
{
    char path[] = "/tmp/capa_openings_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "# two positions\n\n");
    fprintf(f, "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w KQkq - 0 1\n");
    fprintf(f, "rnbqckabnr/pppp1ppppp/10/4p5/4P5/10/PPPP1PPPPP/RNBQCKABNR w KQkq - id \"e4e5\";\n");
    fclose(f);
    char err[256] = "";
    opening_book_t *book = opening_book_load(path, VARIANT_GOTHIC, err, sizeof err);
    CHECK_MSG(book, "%s", err);
    CHECK_EQ_INT(opening_book_count(book), 2);
    opening_source_t src;
    opening_source_default(&src);
    src.kind = OPENING_BOOK;
    src.variant = VARIANT_GOTHIC;
    src.book = book;
    char fen[FEN_MAX];
    variant_t v;
    CHECK_EQ_INT(opening_for_pair(&src, 0, 3, fen, &v, NULL, 0), 0);
    CHECK_EQ_STR(fen, "rnbqckabnr/pppp1ppppp/10/4p5/4P5/10/PPPP1PPPPP/RNBQCKABNR w KQkq - 0 1");
    opening_book_destroy(&book);
    CHECK(book == NULL);

    f = fopen(path, "a");
    fprintf(f, "this is no fen at all\n");
    fclose(f);
    book = opening_book_load(path, VARIANT_GOTHIC, err, sizeof err);
    CHECK(book == NULL);
    CHECK_MSG(strstr(err, ":5:") != NULL, "%s", err);
    unlink(path);
    book = opening_book_load("/nonexistent/book.epd", VARIANT_CAPABLANCA, err, sizeof err);
    CHECK(book == NULL);
    CHECK(strstr(err, "nonexistent") != NULL);
}

static const check_case_t CASES[] = {
    CASE(crc_pairs_are_rebuilt_from_seed_and_pair_number),
    CASE(an_imbalance_removes_the_named_pieces_from_each_side),
    CASE(random_plies_are_legal_and_reproducible),
    CASE(a_fen_file_gives_line_k_to_pair_k_and_reports_bad_lines),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
