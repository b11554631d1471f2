/* Unit tests for Capablanca Random Chess arrays (engine/crc.c). */
#include "check.h"

#include "board.h"
#include "crc.h"
#include "err.h"
#include "movegen.h"

static board_t s_board;

/* Scharnagl's four rules of variants.md allow 21836 arrays (his later extra
 * rules - no Gothic array, no neighbouring bishops - are not part of them). */
static void the_count_of_valid_arrays_is_21836(void)
{
    CHECK_EQ_INT(crc_count(), 21836);
}

static bool s_next_permutation(char *a, int n)
{
    int i = n - 2;
    while (i >= 0 && a[i] >= a[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (a[j] <= a[i])
        j--;
    char t = a[i];
    a[i] = a[j];
    a[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

/* Independent check of the rules, written apart from crc.c. */
static bool s_valid(const char *a)
{
    int k = -1, r[2], nr = 0, b[2], nb = 0, q = -1, ar = -1;
    for (int f = 0; f < 10; f++) {
        switch (a[f]) {
        case 'K': k = f; break;
        case 'R': r[nr++] = f; break;
        case 'B': b[nb++] = f; break;
        case 'Q': q = f; break;
        case 'A': ar = f; break;
        default: break;
        }
    }
    if (!(r[0] < k && k < r[1]) || b[0] % 2 == b[1] % 2 || q % 2 == ar % 2)
        return false;
    for (int f = 0; f < 10; f++) {
        bool ok = strchr("RQCK", a[f]) != NULL;
        for (int d = -1; d <= 1; d += 2) {
            ok |= f + d >= 0 && f + d < 10 && strchr("BQAK", a[f + d]);
            ok |= f + 2 * d >= 0 && f + 2 * d < 10 && strchr("NAC", a[f + 2 * d]);
        }
        if (!ok)
            return false;
    }
    return true;
}

static void enumeration_numbering_and_validation_agree(void)
{
    char a[11] = "ABBCKNNQRR";
    int valid = 0;
    do {
        char err[128];
        bool v = s_valid(a);
        CHECK_MSG((crc_validate(a, err, sizeof err) == 0) == v, "%s: %s", a, err);
        int n = crc_number_of(a, NULL, 0);
        if (v) {
            CHECK_EQ_INT(n, valid);  /* numbers follow lexicographic order */
            char back[CRC_ARRAY_LEN];
            CHECK_EQ_INT(crc_array_from_number(n, back), 0);
            CHECK_EQ_STR(back, a);
            valid++;
        } else {
            CHECK_EQ_INT(n, CAPA_EINVAL);
        }
    } while (s_next_permutation(a, 10));
    CHECK_EQ_INT(valid, crc_count());
    char out[CRC_ARRAY_LEN];
    CHECK_EQ_INT(crc_array_from_number(-1, out), CAPA_ERANGE);
    CHECK_EQ_INT(crc_array_from_number(crc_count(), out), CAPA_ERANGE);
}

static void each_broken_rule_is_named(void)
{
    static const struct {
        const char *array;
        const char *reason;
    } BAD[] = {
        { "RNBQCKABN", "10 letters" },
        { "RNBQCKABNX", "not one of" },
        { "RNBQCKABNN", "piece count" },
        { "RRBQCKABNN", "king is not between the rooks" },
        { "RBNBQKACNR", "bishops stand on squares of one colour" },
        { "RNABQKBCNR", "queen and the archbishop" },  /* the Capablanca array */
                { "RBNQKABCNR", "queen and the archbishop" },
        { "ABBCNNRKRQ", "unprotected" },
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char err[128] = "";
        CHECK_EQ_INT(crc_validate(BAD[i].array, err, sizeof err), CAPA_EINVAL);
        CHECK_MSG(strstr(err, BAD[i].reason) != NULL, "%s: \"%s\" lacks \"%s\"", BAD[i].array, err,
                  BAD[i].reason);
    }
    CHECK_EQ_INT(crc_validate(NULL, NULL, 0), CAPA_EINVAL);
    /* Gothic and Embassy arrays are valid CRC arrays. */
    CHECK_EQ_INT(crc_validate("RNBQCKABNR", NULL, 0), 0);
    CHECK_EQ_INT(crc_validate("RNBQKCABNR", NULL, 0), 0);
}

static void seeded_draws_are_deterministic_and_roughly_uniform(void)
{
    CHECK_EQ_INT(crc_from_seed(12345), crc_from_seed(12345));
    /* The splitmix64 stream is fixed: its first value from state 0 is known. */
    uint64_t st = 0;
    CHECK_EQ_U64(crc_splitmix64(&st), 0xe220a8397b1dcdafULL);
    /* 16 buckets of array numbers, 64000 seeds: chi-square with 15 degrees
     * of freedom stays below 40 except with probability < 0.1%. */
    enum { BUCKETS = 16, DRAWS = 64000 };
    int count[BUCKETS] = { 0 };
    int n = crc_count();
    for (uint64_t s = 0; s < DRAWS; s++) {
        int k = crc_from_seed(s);
        CHECK(k >= 0 && k < n);
        count[(int) ((int64_t) k * BUCKETS / n)]++;
    }
    double chi = 0;
    for (int i = 0; i < BUCKETS; i++) {
        double expected = (double) DRAWS / BUCKETS;
        chi += (count[i] - expected) * (count[i] - expected) / expected;
    }
    CHECK_MSG(chi < 40, "chi-square %.1f", chi);
}

static void start_fens_are_legal_positions_with_file_letter_castling(void)
{
    char fen[160], err[256];
    for (int n = 0; n < crc_count(); n += 997) {
        CHECK_EQ_INT(crc_start_fen(n, fen, sizeof fen), 0);
        CHECK_MSG(board_set_fen(&s_board, fen, VARIANT_CAPARANDOM, err, sizeof err) == 0, "%s: %s", fen, err);
        char out[FEN_MAX];
        board_get_fen(&s_board, out, sizeof out);
        CHECK_EQ_STR(out, fen);
        CHECK_EQ_INT(board_castling(&s_board), CASTLE_ALL);
    }
    int gothic = crc_number_of("RNBQCKABNR", NULL, 0);
    CHECK_EQ_INT(crc_start_fen(gothic, fen, sizeof fen), 0);
    CHECK_EQ_STR(fen, "rnbqckabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCKABNR w JAja - 0 1");
    CHECK_EQ_INT(crc_start_fen(-5, fen, sizeof fen), CAPA_ERANGE);
    CHECK_EQ_INT(crc_start_fen(0, fen, 20), CAPA_EFULL);
}

static void removed_pieces_leave_their_squares_empty_and_drop_castling(void)
{
    char fen[160], err[256];
    int gothic = crc_number_of("RNBQCKABNR", NULL, 0);
    CHECK_EQ_INT(crc_fen_with_removed(gothic, "A", "c", fen, sizeof fen, err, sizeof err), 0);
    CHECK_EQ_STR(fen, "rnbq1kabnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNBQCK1BNR w JAja - 0 1");
    CHECK_EQ_INT(crc_fen_with_removed(gothic, "R", "R@j N", fen, sizeof fen, err, sizeof err), 0);
    CHECK_EQ_STR(fen, "r1bqckabn1/pppppppppp/10/10/10/10/PPPPPPPPPP/1NBQCKABNR w Ja - 0 1");
    CHECK_EQ_INT(crc_fen_with_removed(gothic, "P@f", "", fen, sizeof fen, err, sizeof err), 0);
    CHECK_EQ_STR(fen, "rnbqckabnr/pppppppppp/10/10/10/10/PPPPP1PPPP/RNBQCKABNR w JAja - 0 1");
    CHECK_EQ_INT(board_set_fen(&s_board, fen, VARIANT_CAPARANDOM, err, sizeof err), 0);
    CHECK_EQ_INT(crc_fen_with_removed(gothic, "K", NULL, fen, sizeof fen, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "king") != NULL);
    CHECK_EQ_INT(crc_fen_with_removed(gothic, "QQ", NULL, fen, sizeof fen, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "no Q left") != NULL);
    CHECK_EQ_INT(crc_fen_with_removed(gothic, "Z", NULL, fen, sizeof fen, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(crc_fen_with_removed(99999, "A", NULL, fen, sizeof fen, err, sizeof err), CAPA_ERANGE);
}

static const check_case_t CASES[] = {
    CASE(the_count_of_valid_arrays_is_21836),
    CASE(enumeration_numbering_and_validation_agree),
    CASE(each_broken_rule_is_named),
    CASE(seeded_draws_are_deterministic_and_roughly_uniform),
    CASE(start_fens_are_legal_positions_with_file_letter_castling),
    CASE(removed_pieces_leave_their_squares_empty_and_drop_castling),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
