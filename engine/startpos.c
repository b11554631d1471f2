/* startpos.c - start positions of a run's pairs (see startpos.h). */
#include "startpos.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include <sodium.h>

#include "attacks.h"
#include "board.h"
#include "crc.h"
#include "err.h"
#include "movegen.h"

/* A 64-bit value drawn from (seed, stream, k): the same on every machine. */
static uint64_t s_draw(uint64_t seed, uint64_t stream, uint64_t k)
{
    uint64_t st = seed ^ (stream * UINT64_C(0xD1B54A32D192ED03));
    st += k * UINT64_C(0x9E3779B97F4A7C15);
    crc_splitmix64(&st);
    return crc_splitmix64(&st);
}

static int s_parse_pieces(const char *text, size_t len, char *out, size_t cap, char *err,
                          size_t errlen)
{
    while (len && isspace((unsigned char) *text))
        text++, len--;
    while (len && isspace((unsigned char) text[len - 1]))
        len--;
    if (len == 7 && strncasecmp(text, "nothing", 7) == 0) {
        out[0] = 0;
        return 0;
    }
    size_t n = 0;
    bool want_piece = true;
    for (size_t i = 0; i < len; i++) {
        char c = (char) toupper((unsigned char) text[i]);
        if (isspace((unsigned char) c))
            continue;
        if (want_piece) {
            if (!strchr("QCARBNP", c))
                return capa_fail(err, errlen, CAPA_EINVAL,
                                 "imbalance: '%c' is not a piece (Q C A R B N P)", text[i]);
            if (n + 1 >= cap)
                return capa_fail(err, errlen, CAPA_EINVAL, "imbalance: too many pieces");
            out[n++] = c;
            want_piece = false;
        } else if (c == '+') {
            want_piece = true;
        } else {
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "imbalance: expected '+' between pieces, found '%c'", text[i]);
        }
    }
    if (n == 0 || want_piece)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "imbalance: a side must name pieces or \"nothing\"");
    out[n] = 0;
    return 0;
}

int startpos_imbalance_parse(const char *text, startpos_imbalance_t *out, char *err,
                             size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!text || !*text)
        return capa_fail(err, errlen, CAPA_EINVAL, "imbalance: empty");
    if (strlen(text) >= sizeof out->label)
        return capa_fail(err, errlen, CAPA_EINVAL, "imbalance: longer than %zu bytes",
                         sizeof out->label - 1);
    const char *vs = strstr(text, " vs ");
    if (!vs)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "imbalance \"%s\": expected \"PIECES vs PIECES\"", text);
    int rc = s_parse_pieces(text, (size_t) (vs - text), out->side, sizeof out->side, err, errlen);
    if (rc == 0)
        rc = s_parse_pieces(vs + 4, strlen(vs + 4), out->other, sizeof out->other, err, errlen);
    if (rc < 0)
        return rc;
    if (!out->side[0] && !out->other[0])
        return capa_fail(err, errlen, CAPA_EINVAL, "imbalance \"%s\": both sides empty", text);
    snprintf(out->label, sizeof out->label, "%s", text);
    return 0;
}

/* Plays `plies` random legal plies from fen (variant v) drawn from st and
 * writes the position reached into out. */
static int s_random_plies(const char *fen, int variant, int plies, uint64_t st, char *out,
                          size_t cap, char *err, size_t errlen)
{
    if (variant < 0 || variant >= VARIANT_NB)
        return capa_fail(err, errlen, CAPA_ERANGE, "start positions: unknown variant %d", variant);
    if (plies < 0 || plies > 40)
        return capa_fail(err, errlen, CAPA_ERANGE, "start positions: random_plies %d not in 0..40",
                         plies);
    board_t *b = malloc(sizeof *b);
    move_list_t *list = malloc(sizeof *list);
    if (!b || !list) {
        free(b);
        free(list);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    int rc = board_set_fen(b, fen, (variant_t) variant, err, errlen);
    /* A line that ends the game early is redrawn; after 16 tries the
     * position is taken as far as the last try got. */
    for (int attempt = 0; rc == 0 && attempt < 16; attempt++) {
        board_set_fen(b, fen, (variant_t) variant, NULL, 0);
        int played = 0;
        while (played < plies) {
            int n = movegen_legal(b, list);
            if (n == 0)
                break;
            board_make(b, list->moves[crc_splitmix64(&st) % (uint64_t) n]);
            played++;
        }
        if (played == plies && movegen_legal(b, list) > 0)
            break;
    }
    if (rc == 0 && board_get_fen(b, out, cap) < 0)
        rc = capa_fail(err, errlen, CAPA_EFULL, "start position FEN too long");
    free(b);
    free(list);
    return rc;
}

int startpos_imbalance_of(const startpos_spec_t *spec, int64_t k, size_t *imbalance,
                          int64_t *round)
{
    size_t n = spec->imbalance_count;
    bool limited = false;
    for (size_t i = 0; i < n; i++)
        limited |= spec->imbalances[i].pairs > 0;
    if (n == 0 || k < 0)
        return CAPA_ERANGE;
    if (!limited) {
        *imbalance = (size_t) (k % (int64_t) n);
        *round = k / (int64_t) n;
        return 0;
    }
    /* C(r) = pairs dealt before round r = sum_i min(r, pairs_i) (0 = no limit). */
    int64_t lo = 0, hi = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t p = spec->imbalances[i].pairs > 0 ? spec->imbalances[i].pairs : INT64_C(1) << 40;
        if (p > hi)
            hi = p;
    }
    #define C_OF(r, out)                                                                  \
        do {                                                                              \
            int64_t c_ = 0;                                                               \
            for (size_t i_ = 0; i_ < n; i_++) {                                           \
                int64_t p_ = spec->imbalances[i_].pairs > 0 ? spec->imbalances[i_].pairs  \
                                                            : INT64_C(1) << 40;           \
                c_ += (r) < p_ ? (r) : p_;                                                \
            }                                                                             \
            (out) = c_;                                                                   \
        } while (0)
    int64_t total;
    C_OF(hi, total);
    if (k >= total)
        return CAPA_ERANGE;
    /* The largest r with C(r) <= k. */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2, c;
        C_OF(mid, c);
        if (c <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    int64_t base;
    C_OF(lo, base);
    #undef C_OF
    int64_t idx = k - base;
    for (size_t i = 0; i < n; i++) {
        int64_t p = spec->imbalances[i].pairs;
        if (p > 0 && p <= lo)
            continue;
        if (idx-- == 0) {
            *imbalance = i;
            *round = lo;
            return 0;
        }
    }
    return CAPA_ERANGE;
}

int startpos_unprotected_pawns(const char *fen, int out[2], char *err, size_t errlen)
{
    out[0] = out[1] = 0;
    board_t *b = malloc(sizeof *b);
    if (!b)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = board_set_fen(b, fen, VARIANT_CAPARANDOM, err, errlen);
    if (rc == 0) {
        bitboard_t occ = board_occupied(b);
        for (int c = WHITE; c <= BLACK; c++) {
            bitboard_t pawns = board_pieces(b, (color_t) c, PAWN);
            while (pawns) {
                square_t s = bb_pop_lsb(&pawns);
                out[c] += (board_attackers_to(b, s, occ) & board_color_bb(b, (color_t) c)) == 0;
            }
        }
    }
    free(b);
    return rc;
}

int startpos_shelter(const char *fen, int missing[2], double excess[2], char *err, size_t errlen)
{
    missing[0] = missing[1] = 0;
    excess[0] = excess[1] = 0.0;
    board_t *b = malloc(sizeof *b);
    if (!b)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = board_set_fen(b, fen, VARIANT_CAPARANDOM, err, errlen);
    if (rc == 0)
        for (int c = WHITE; c <= BLACK; c++) {
            int kf = square_file(board_king_sq(b, (color_t) c)), files = 0, gone = 0;
            bitboard_t pawns = board_pieces(b, (color_t) c, PAWN);
            for (int f = 0; f < FILE_NB; f++) {
                bool empty = (pawns & bb_file(f)) == 0, near = f >= kf - 1 && f <= kf + 1;
                gone += empty;
                files += near;
                missing[c] += empty && near;
            }
            excess[c] = missing[c] - gone * (double) files / FILE_NB;
        }
    free(b);
    return rc;
}

int startpos_round_segments(const startpos_spec_t *spec, int64_t *first_pair, int64_t *first_round,
                            int64_t *width, int max)
{
    size_t n = spec->imbalance_count;
    if (n == 0 || max < 1)
        return CAPA_ERANGE;
    int segs = 0;
    int64_t round = 0, pair = 0;
    for (;;) {
        /* imbalances still dealt in this round, and the next round where one ends */
        int64_t w = 0, end = -1;
        for (size_t i = 0; i < n; i++) {
            int64_t p = spec->imbalances[i].pairs;
            if (p > 0 && p <= round)
                continue;
            w++;
            if (p > 0 && (end < 0 || p < end))
                end = p;
        }
        if (w == 0)
            return segs;
        if (segs == max)
            return CAPA_ERANGE;
        first_pair[segs] = pair;
        first_round[segs] = round;
        width[segs] = w;
        segs++;
        if (end < 0)
            return segs; /* no limit: this segment runs on */
        pair += (end - round) * w;
        round = end;
    }
}

/* Which pieces of one side come off, as crc_fen_with_removed reads them.
 * Balanced by construction rather than by chance, so that a study's
 * imbalances do not start from systematically different positions:
 * - the first removed pawn's file turns with the round (round + a seeded
 *   offset, mod 10): over every 10 rounds each file a..j once; further pawns
 *   ("PP", "PPP") get other files drawn from st;
 * - a rook, bishop or knight removed alone (the array has two) is the one on
 *   the queen's side (lower file) in even rounds, the king's side in odd
 *   ones, each kind and colour with its own seeded phase (before: always the
 *   one nearest the a-file).
 * "P" -> "P@e", "R" -> "R@j". */
static void s_removals(const char *pieces, const char *array, int64_t round, uint64_t phase, uint64_t st,
                       char *out, size_t cap)
{
    size_t o = 0;
    unsigned used = 0; /* files already given a removed pawn */
    int pawns = 0;
    for (const char *p = pieces; *p && o + 4 < cap; p++) {
        out[o++] = *p;
        int f = -1;
        if (*p == 'P') {
            if (pawns++ == 0) {
                f = (int) ((uint64_t) (round % 10) + phase % 10) % 10;
            } else {
                do
                    f = (int) (crc_splitmix64(&st) % 10);
                while ((used >> f & 1) && used != 0x3ff);
            }
            used |= 1u << f;
        } else if (strchr("RBN", *p) && strchr(pieces, *p) == strrchr(pieces, *p)) {
            const char *first = strchr(array, *p), *second = first ? strchr(first + 1, *p) : NULL;
            if (first && second) {
                int salt = (int) (phase >> (8 * (strchr("RBN", *p) - "RBN" + 1)) & 1);
                f = (int) (((round + salt) & 1) ? second - array : first - array);
            }
        }
        if (f >= 0) {
            out[o++] = '@';
            out[o++] = (char) ('a' + f);
        }
    }
    out[o] = 0;
}

int startpos_for_pair(const startpos_spec_t *spec, int64_t k, startpos_t *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->crc_number = -1;
    if (k < 0)
        return capa_fail(err, errlen, CAPA_ERANGE, "pair number %lld < 0", (long long) k);
    if (spec->imbalance_count > 0) {
        if (spec->source != STARTPOS_CRC)
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "values runs play from CRC arrays (source \"crc\")");
        if (spec->imbalance_count > STARTPOS_IMB_MAX || !spec->imbalances)
            return capa_fail(err, errlen, CAPA_ERANGE, "too many imbalances");
        size_t which;
        int64_t round;
        if (startpos_imbalance_of(spec, k, &which, &round) < 0)
            return capa_fail(err, errlen, CAPA_ERANGE, "pair %lld is beyond the study's pairs",
                             (long long) k);
        const startpos_imbalance_t *imb = &spec->imbalances[which];
        int n = crc_from_seed(s_draw(spec->seed, 1, (uint64_t) round));
        out->crc_number = n;
        snprintf(out->imbalance, sizeof out->imbalance, "%s", imb->label);
        char side[3 * STARTPOS_PIECES_MAX], other[3 * STARTPOS_PIECES_MAX], array[CRC_ARRAY_LEN];
        if (crc_array_from_number(n, array) < 0)
            return capa_fail(err, errlen, CAPA_ERANGE, "CRC array %d", n);
        /* the phases come from the seed alone, the extra pawns' files from the round */
        s_removals(imb->side, array, round, s_draw(spec->seed, 4, 0), s_draw(spec->seed, 6, (uint64_t) round),
                   side, sizeof side);
        s_removals(imb->other, array, round, s_draw(spec->seed, 5, 0), s_draw(spec->seed, 7, (uint64_t) round),
                   other, sizeof other);
        /* fen: B is White, so White loses `other` and Black loses `side`. */
        int rc = crc_fen_with_removed(n, other, side, out->fen, sizeof out->fen, err, errlen);
        if (rc == 0)
            rc = crc_fen_with_removed(n, side, other, out->fen2, sizeof out->fen2, err, errlen);
        return rc;
    }
    switch (spec->source) {
    case STARTPOS_CRC: {
        int n = crc_from_seed(s_draw(spec->seed, 1, (uint64_t) k));
        out->crc_number = n;
        if (crc_start_fen(n, out->fen, sizeof out->fen) < 0)
            return capa_fail(err, errlen, CAPA_ERANGE, "CRC array %d", n);
        if (spec->random_plies == 0)
            return 0;
        char start[STARTPOS_FEN_MAX];
        snprintf(start, sizeof start, "%s", out->fen);
        return s_random_plies(start, VARIANT_CAPARANDOM, spec->random_plies,
                              s_draw(spec->seed, 2, (uint64_t) k), out->fen, sizeof out->fen,
                              err, errlen);
    }
    case STARTPOS_VARIANT:
        if (spec->variant < 0 || spec->variant >= VARIANT_NB)
            return capa_fail(err, errlen, CAPA_ERANGE, "start positions: unknown variant %d",
                             spec->variant);
        return s_random_plies(variant_start_fen((variant_t) spec->variant), spec->variant,
                              spec->random_plies, s_draw(spec->seed, 2, (uint64_t) k), out->fen,
                              sizeof out->fen, err, errlen);
    case STARTPOS_BOOK: {
        if (!spec->book || spec->book_count == 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "start positions: empty book");
        uint64_t off = s_draw(spec->seed, 3, 0) % spec->book_count;
        const char *fen = spec->book[((uint64_t) k + off) % spec->book_count];
        if (strlen(fen) >= sizeof out->fen)
            return capa_fail(err, errlen, CAPA_EINVAL, "book FEN longer than 127 bytes");
        snprintf(out->fen, sizeof out->fen, "%s", fen);
        if (spec->random_plies == 0)
            return 0;
        char start[STARTPOS_FEN_MAX];
        snprintf(start, sizeof start, "%s", out->fen);
        return s_random_plies(start, spec->variant, spec->random_plies,
                              s_draw(spec->seed, 2, (uint64_t) k), out->fen, sizeof out->fen,
                              err, errlen);
    }
    }
    return capa_fail(err, errlen, CAPA_EINVAL, "start positions: unknown source %d",
                     (int) spec->source);
}

void startpos_book_free(char ***lines_p, size_t n)
{
    if (!lines_p || !*lines_p)
        return;
    for (size_t i = 0; i < n; i++)
        free((*lines_p)[i]);
    free(*lines_p);
    *lines_p = NULL;
}

int startpos_book_load(const char *path, const char *sha256_hex, char ***lines_p,
                       size_t *n_out, char *err, size_t errlen)
{
    *lines_p = NULL;
    *n_out = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return capa_fail(err, errlen, CAPA_EIO, "book %s: cannot open", path);
    if (sodium_init() < 0) {
        fclose(f);
        return capa_fail(err, errlen, CAPA_EIO, "libsodium failed to start");
    }
    crypto_hash_sha256_state hs;
    crypto_hash_sha256_init(&hs);
    char **lines = NULL;
    size_t n = 0, cap = 0;
    char buf[512];
    int rc = 0;
    size_t lineno = 0;
    while (fgets(buf, sizeof buf, f)) {
        size_t len = strlen(buf);
        crypto_hash_sha256_update(&hs, (const unsigned char *) buf, len);
        lineno++;
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            rc = capa_fail(err, errlen, CAPA_EINVAL, "book %s line %zu: too long", path, lineno);
            break;
        }
        while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r' || buf[len - 1] == ' '))
            buf[--len] = 0;
        char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        if (!*s || *s == '#')
            continue;
        if (strlen(s) >= STARTPOS_FEN_MAX || strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/ -") != strlen(s)) {
            rc = capa_fail(err, errlen, CAPA_EINVAL, "book %s line %zu: not a FEN", path, lineno);
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            char **nl = realloc(lines, cap * sizeof *nl);
            if (!nl) {
                rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
                break;
            }
            lines = nl;
        }
        if (!(lines[n] = strdup(s))) {
            rc = capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
            break;
        }
        n++;
    }
    if (rc == 0 && ferror(f))
        rc = capa_fail(err, errlen, CAPA_EIO, "book %s: read error", path);
    fclose(f);
    if (rc == 0 && n == 0)
        rc = capa_fail(err, errlen, CAPA_EINVAL, "book %s: no FEN lines", path);
    if (rc == 0 && sha256_hex && *sha256_hex) {
        unsigned char dig[crypto_hash_sha256_BYTES];
        char hex[2 * crypto_hash_sha256_BYTES + 1];
        crypto_hash_sha256_final(&hs, dig);
        sodium_bin2hex(hex, sizeof hex, dig, sizeof dig);
        if (strcasecmp(hex, sha256_hex) != 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "book %s: sha256 %s, the run expects %s",
                           path, hex, sha256_hex);
    }
    if (rc < 0) {
        startpos_book_free(&lines, n);
        return rc;
    }
    *lines_p = lines;
    *n_out = n;
    return 0;
}
