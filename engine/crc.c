/* crc.c - Capablanca Random Chess start arrays: rules, numbering, seeded draws. */
#include "crc.h"

#include <ctype.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

/* Upper bound on valid arrays (the real count is checked at build time of the table). */
#define CRC_TABLE_MAX 100000

static char (*s_arrays)[10];
static int s_count;
static pthread_once_t s_once = PTHREAD_ONCE_INIT;

uint64_t crc_splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static bool s_has_rook_moves(char c) { return c == 'R' || c == 'Q' || c == 'C' || c == 'K'; }
static bool s_has_bishop_moves(char c) { return c == 'B' || c == 'Q' || c == 'A' || c == 'K'; }
static bool s_has_knight_moves(char c) { return c == 'N' || c == 'A' || c == 'C'; }

int crc_validate(const char *a, char *err, size_t errlen)
{
    static const char LETTERS[] = "KQACRBN";
    static const int WANTED[] = { 1, 1, 1, 1, 2, 2, 2 };
    if (!a || strlen(a) != 10)
        return capa_fail(err, errlen, CAPA_EINVAL, "an array has 10 letters");
    int count[7] = { 0 };
    for (int f = 0; f < 10; f++) {
        const char *p = strchr(LETTERS, a[f]);
        if (!p || !a[f])
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "'%c' on file %c is not one of K Q A C R B N", a[f], 'a' + f);
        count[p - LETTERS]++;
    }
    for (int i = 0; i < 7; i++)
        if (count[i] != WANTED[i])
            return capa_fail(err, errlen, CAPA_EINVAL, "piece count: %d %c instead of %d", count[i],
                             LETTERS[i], WANTED[i]);
    int king = (int) (strchr(a, 'K') - a);
    int rook1 = (int) (strchr(a, 'R') - a), rook2 = (int) (strrchr(a, 'R') - a);
    if (!(rook1 < king && king < rook2))
        return capa_fail(err, errlen, CAPA_EINVAL, "the king is not between the rooks");
    int bishop1 = (int) (strchr(a, 'B') - a), bishop2 = (int) (strrchr(a, 'B') - a);
    if ((bishop1 & 1) == (bishop2 & 1))
        return capa_fail(err, errlen, CAPA_EINVAL, "the bishops stand on squares of one colour");
    int queen = (int) (strchr(a, 'Q') - a), arch = (int) (strchr(a, 'A') - a);
    if ((queen & 1) == (arch & 1))
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "the queen and the archbishop stand on squares of one colour");
    for (int f = 0; f < 10; f++) {
        bool guarded = s_has_rook_moves(a[f]);
        for (int d = -1; d <= 1; d += 2) {
            if (f + d >= 0 && f + d < 10 && s_has_bishop_moves(a[f + d]))
                guarded = true;
            if (f + 2 * d >= 0 && f + 2 * d < 10 && s_has_knight_moves(a[f + 2 * d]))
                guarded = true;
        }
        if (!guarded)
            return capa_fail(err, errlen, CAPA_EINVAL, "the %c-pawn is unprotected", 'a' + f);
    }
    return CAPA_OK;
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

static void s_build(void)
{
    char a[11] = "ABBCKNNQRR";  /* sorted: permutations come in lexicographic order */
    s_arrays = malloc(sizeof *s_arrays * CRC_TABLE_MAX);
    if (!s_arrays)
        return;
    do {
        if (crc_validate(a, NULL, 0) == CAPA_OK && s_count < CRC_TABLE_MAX)
            memcpy(s_arrays[s_count++], a, 10);
    } while (s_next_permutation(a, 10));
}

static void s_ensure(void)
{
    pthread_once(&s_once, s_build);
}

int crc_count(void)
{
    s_ensure();
    return s_count;
}

int crc_array_from_number(int n, char out[CRC_ARRAY_LEN])
{
    s_ensure();
    if (n < 0 || n >= s_count)
        return CAPA_ERANGE;
    memcpy(out, s_arrays[n], 10);
    out[10] = '\0';
    return CAPA_OK;
}

int crc_number_of(const char *array, char *err, size_t errlen)
{
    int rc = crc_validate(array, err, errlen);
    if (rc)
        return rc;
    s_ensure();
    int lo = 0, hi = s_count - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        int c = memcmp(s_arrays[mid], array, 10);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return capa_fail(err, errlen, CAPA_EINVAL, "array not in the table");
}

int crc_from_seed(uint64_t seed)
{
    uint64_t state = seed;
    uint64_t n = (uint64_t) crc_count();
    if (n == 0)
        return CAPA_ENOMEM;  /* the table could not be allocated */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;  /* reject the uneven tail */
    uint64_t r;
    do
        r = crc_splitmix64(&state);
    while (r >= limit);
    return (int) (r % n);
}

/* Writes the FEN of a back rank (upper case = white pieces), pawns per file
 * (1 = present) and castling letters into buf. */
static int s_write_fen(const char *white, const char *black, const bool *wpawn, const bool *bpawn,
                       const char *castling, char *buf, size_t len)
{
    char out[160];
    size_t n = 0;
    const char *ranks[8];
    char r7[11], r2[11];
    for (int f = 0; f < 10; f++) {
        r7[f] = bpawn[f] ? 'p' : ' ';
        r2[f] = wpawn[f] ? 'P' : ' ';
    }
    r7[10] = r2[10] = '\0';
    ranks[0] = black;
    ranks[1] = r7;
    ranks[2] = ranks[3] = ranks[4] = ranks[5] = "          ";
    ranks[6] = r2;
    ranks[7] = white;
    for (int r = 0; r < 8; r++) {
        int empty = 0;
        for (int f = 0; f < 10; f++) {
            char c = ranks[r][f];
            if (c == ' ') {
                empty++;
                continue;
            }
            if (empty)
                n += (size_t) sprintf(out + n, "%d", empty);
            empty = 0;
            out[n++] = c;
        }
        if (empty)
            n += (size_t) sprintf(out + n, "%d", empty);
        out[n++] = r < 7 ? '/' : ' ';
    }
    n += (size_t) snprintf(out + n, sizeof out - n, "w %s - 0 1", castling[0] ? castling : "-");
    if (n + 1 > len)
        return CAPA_EFULL;
    memcpy(buf, out, n + 1);
    return CAPA_OK;
}

/* Castling letters for the rooks still on the back ranks. */
static void s_castling(const char *white, const char *black, const char *array, char *out)
{
    int king = (int) (strchr(array, 'K') - array);
    int rook_k = (int) (strrchr(array, 'R') - array), rook_q = (int) (strchr(array, 'R') - array);
    size_t n = 0;
    (void) king;
    if (white[rook_k] == 'R')
        out[n++] = (char) ('A' + rook_k);
    if (white[rook_q] == 'R')
        out[n++] = (char) ('A' + rook_q);
    if (black[rook_k] == 'r')
        out[n++] = (char) ('a' + rook_k);
    if (black[rook_q] == 'r')
        out[n++] = (char) ('a' + rook_q);
    out[n] = '\0';
}

int crc_start_fen(int n, char *buf, size_t len)
{
    return crc_fen_with_removed(n, NULL, NULL, buf, len, NULL, 0);
}

/* Applies a removal list to one side's back rank and pawns. */
static int s_remove(const char *spec, char *rank, bool *pawns, const char *side, char *err,
                    size_t errlen)
{
    for (const char *p = spec; p && *p; p++) {
        if (isspace((unsigned char) *p) || *p == ',' || *p == '+')
            continue;
        char letter = (char) toupper((unsigned char) *p);
        int file = -1;
        if (p[1] == '@') {
            if (p[2] < 'a' || p[2] > 'j')
                return capa_fail(err, errlen, CAPA_EINVAL, "%s: '@' must be followed by a file a-j", side);
            file = p[2] - 'a';
            p += 2;
        }
        if (letter == 'K')
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: the king cannot be removed", side);
        if (letter == 'P') {
            int f = file;
            if (f < 0)
                for (f = 0; f < 10 && !pawns[f]; f++) {}
            if (f >= 10 || !pawns[f])
                return capa_fail(err, errlen, CAPA_EINVAL, "%s: no pawn left to remove%s", side,
                                 file >= 0 ? " on that file" : "");
            pawns[f] = false;
            continue;
        }
        if (!strchr("QACRBN", letter) || letter == '\0')
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: '%c' is not a piece letter", side, *p);
        int f = -1;
        for (int g = 0; g < 10; g++)
            if (toupper((unsigned char) rank[g]) == letter && (file < 0 || file == g)) {
                f = g;
                break;
            }
        if (f < 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: no %c left to remove%s", side, letter,
                             file >= 0 ? " on that file" : "");
        rank[f] = ' ';
    }
    return CAPA_OK;
}

int crc_fen_with_removed(int n, const char *white, const char *black, char *buf, size_t len,
                         char *err, size_t errlen)
{
    char array[CRC_ARRAY_LEN];
    if (crc_array_from_number(n, array))
        return capa_fail(err, errlen, CAPA_ERANGE, "array number %d is not in 0..%d", n,
                         crc_count() - 1);
    char w[11], bl[11];
    bool wp[10], bp[10];
    for (int f = 0; f < 10; f++) {
        w[f] = array[f];
        bl[f] = (char) tolower((unsigned char) array[f]);
        wp[f] = bp[f] = true;
    }
    w[10] = bl[10] = '\0';
    int rc = s_remove(white, w, wp, "white", err, errlen);
    if (rc == CAPA_OK)
        rc = s_remove(black, bl, bp, "black", err, errlen);
    if (rc)
        return rc;
    char castling[5];
    s_castling(w, bl, array, castling);
    rc = s_write_fen(w, bl, wp, bp, castling, buf, len);
    if (rc)
        return capa_fail(err, errlen, rc, "buffer too small for the FEN");
    return CAPA_OK;
}
