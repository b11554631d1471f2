/* openings.c - start positions per pair: variant starts, CRC arrays, FEN/EPD
 * files, random plies and material imbalances. */
#include "openings.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc.h"
#include "err.h"
#include "movegen.h"
#include "rules.h"

struct opening_book_s {
    char (*fens)[FEN_MAX];
    int count;
};

void opening_source_default(opening_source_t *src)
{
    memset(src, 0, sizeof *src);
    src->kind = OPENING_VARIANT_START;
    src->variant = VARIANT_CAPABLANCA;
    src->crc_number = -1;
}

/* "A+R" / "AR" / "-" -> "AR"; 0 or CAPA_EINVAL. */
static int s_piece_list(const char *text, size_t len, char out[16], char *err, size_t errlen)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        char c = (char) toupper((unsigned char) text[i]);
        if (c == '+' || c == ' ' || c == '-')
            continue;
        if (!strchr("PNBRACQ", c))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "imbalance: '%c' is not a removable piece (P N B R A C Q)", text[i]);
        if (n + 1 >= 16)
            return capa_fail(err, errlen, CAPA_EINVAL, "imbalance: too many pieces");
        out[n++] = c;
    }
    out[n] = 0;
    return CAPA_OK;
}

int opening_parse_imbalance(const char *text, char white_loses[16], char black_loses[16],
                            char *err, size_t errlen)
{
    white_loses[0] = black_loses[0] = 0;
    if (!text || !*text)
        return CAPA_OK;
    const char *vs = strstr(text, " vs ");
    size_t sep = 4;
    if (!vs) {
        vs = strstr(text, "vs");
        sep = 2;
    }
    if (!vs)
        return capa_fail(err, errlen, CAPA_EINVAL, "imbalance \"%s\": expected \"X vs Y\"", text);
    /* White keeps X (black loses X), black keeps Y (white loses Y). */
    int rc = s_piece_list(text, (size_t) (vs - text), black_loses, err, errlen);
    if (rc == CAPA_OK)
        rc = s_piece_list(vs + sep, strlen(vs + sep), white_loses, err, errlen);
    if (rc == CAPA_OK && !white_loses[0] && !black_loses[0])
        return capa_fail(err, errlen, CAPA_EINVAL, "imbalance \"%s\" removes nothing", text);
    return rc;
}

/* Removes pieces from a FEN's placement (any variant): each letter takes
 * the piece of that type on the side's back rank nearest the a-file (pawns:
 * on its second rank), else the first found from its own side of the board.
 * Castling rights are dropped for a side that loses a rook. */
static int s_remove_from_fen(const char *fen, const char *white, const char *black,
                             variant_t v, char out[FEN_MAX], char *err, size_t errlen)
{
    board_t *b = malloc(sizeof *b);
    if (!b)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = board_set_fen(b, fen, v, err, errlen);
    if (rc < 0) {
        free(b);
        return rc;
    }
    char grid[SQ_NB];
    for (square_t s = 0; s < SQ_NB; s++) {
        piece_t p = board_piece_on(b, s);
        grid[s] = p == NO_PIECE ? 0 : piece_char(VARIANT_CAPABLANCA, p);
    }
    bool rook_gone[COLOR_NB] = { false, false };
    const char *lists[COLOR_NB] = { white, black };
    for (int c = 0; c < COLOR_NB; c++) {
        for (const char *l = lists[c]; *l; l++) {
            char want = c == WHITE ? (char) toupper((unsigned char) *l) : (char) tolower((unsigned char) *l);
            square_t found = SQ_NONE;
            int start_rank = toupper((unsigned char) *l) == 'P' ? 1 : 0;
            for (int k = 0; k < RANK_NB && found == SQ_NONE; k++) {
                int rr = (start_rank + k) % RANK_NB;
                int r = c == WHITE ? rr : RANK_NB - 1 - rr;
                for (int f = 0; f < FILE_NB; f++)
                    if (grid[square_make(f, r)] == want) {
                        found = square_make(f, r);
                        break;
                    }
            }
            if (found == SQ_NONE) {
                free(b);
                return capa_fail(err, errlen, CAPA_EINVAL, "imbalance: %s has no %c to remove",
                                 c == WHITE ? "white" : "black", toupper((unsigned char) *l));
            }
            grid[found] = 0;
            if (toupper((unsigned char) *l) == 'R')
                rook_gone[c] = true;
        }
    }
    char place[FEN_MAX];
    size_t n = 0;
    for (int r = RANK_NB - 1; r >= 0; r--) {
        int empty = 0;
        for (int f = 0; f < FILE_NB; f++) {
            char ch = grid[square_make(f, r)];
            if (!ch) {
                empty++;
                continue;
            }
            if (empty)
                n += (size_t) snprintf(place + n, sizeof place - n, "%d", empty);
            empty = 0;
            place[n++] = ch;
        }
        if (empty)
            n += (size_t) snprintf(place + n, sizeof place - n, "%d", empty);
        if (r)
            place[n++] = '/';
    }
    place[n] = 0;
    /* Keep the other fields; filter castling letters of a side that lost a rook. */
    char side[4] = "w", castle[32] = "-", ep[8] = "-";
    int half = 0, full = 1;
    sscanf(fen, "%*s %3s %31s %7s %d %d", side, castle, ep, &half, &full);
    char keep[32];
    size_t k = 0;
    for (char *c = castle; *c; c++) {
        if (*c == '-')
            continue;
        int col = isupper((unsigned char) *c) ? WHITE : BLACK;
        if (!rook_gone[col])
            keep[k++] = *c;
    }
    keep[k] = 0;
    char whole[FEN_MAX * 2];
    snprintf(whole, sizeof whole, "%s %s %s %s %d %d", place, side, k ? keep : "-", ep, half, full);
    if (strlen(whole) >= FEN_MAX) {
        free(b);
        return capa_fail(err, errlen, CAPA_EFULL, "imbalance: FEN too long");
    }
    memcpy(out, whole, strlen(whole) + 1);
    rc = board_set_fen(b, out, v, err, errlen);
    free(b);
    return rc;
}

/* Plays n random legal plies from fen (retrying other random lines if one
 * ends the game). */
static int s_random_plies(char fen[FEN_MAX], variant_t v, int n, uint64_t *rng, char *err,
                          size_t errlen)
{
    board_t *b = malloc(sizeof *b);
    if (!b)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = CAPA_OK;
    move_list_t list;
    for (int attempt = 0; attempt < 1000; attempt++) {
        rc = board_set_fen(b, fen, v, err, errlen);
        if (rc < 0)
            break;
        int i;
        for (i = 0; i < n; i++) {
            if (rules_result(b, NULL) != RESULT_ONGOING)
                break;
            movegen_legal(b, &list);
            board_make(b, list.moves[crc_splitmix64(rng) % (uint64_t) list.count]);
        }
        if (i == n && rules_result(b, NULL) == RESULT_ONGOING) {
            board_get_fen(b, fen, FEN_MAX);
            free(b);
            return CAPA_OK;
        }
    }
    free(b);
    return rc < 0 ? rc : capa_fail(err, errlen, CAPA_EINVAL,
                                   "no line of %d random plies keeps the game going", n);
}

int opening_for_pair(const opening_source_t *src, uint64_t seed, uint64_t pair_number,
                     char fen[FEN_MAX], variant_t *variant, char *err, size_t errlen)
{
    uint64_t rng = seed ^ (pair_number * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL);
    crc_splitmix64(&rng);
    char wl[16], bl[16];
    int rc = opening_parse_imbalance(src->imbalance, wl, bl, err, errlen);
    if (rc < 0)
        return rc;
    if (src->random_plies < 0 || src->random_plies > 200)
        return capa_fail(err, errlen, CAPA_EINVAL, "random plies must be 0..200");
    variant_t v = src->variant;
    switch (src->kind) {
    case OPENING_VARIANT_START:
        if ((unsigned) v >= VARIANT_NB)
            return capa_fail(err, errlen, CAPA_EINVAL, "unknown variant");
        snprintf(fen, FEN_MAX, "%s", variant_start_fen(v));
        if (wl[0] || bl[0]) {
            char tmp[FEN_MAX];
            rc = s_remove_from_fen(fen, wl, bl, v, tmp, err, errlen);
            if (rc < 0)
                return rc;
            memcpy(fen, tmp, FEN_MAX);
        }
        break;
    case OPENING_CRC: {
        v = VARIANT_CAPARANDOM;
        int n = src->crc_number;
        if (n < 0)
            n = crc_from_seed(crc_splitmix64(&rng));
        if (n >= crc_count())
            return capa_fail(err, errlen, CAPA_ERANGE, "CRC array number %d is not below %d", n,
                             crc_count());
        rc = wl[0] || bl[0] ? crc_fen_with_removed(n, wl, bl, fen, FEN_MAX, err, errlen)
                            : crc_start_fen(n, fen, FEN_MAX);
        if (rc < 0)
            return rc;
        break;
    }
    case OPENING_BOOK: {
        if (!src->book || src->book->count == 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "no opening file loaded");
        snprintf(fen, FEN_MAX, "%s", src->book->fens[pair_number % (uint64_t) src->book->count]);
        if (wl[0] || bl[0]) {
            char tmp[FEN_MAX];
            rc = s_remove_from_fen(fen, wl, bl, v, tmp, err, errlen);
            if (rc < 0)
                return rc;
            memcpy(fen, tmp, FEN_MAX);
        }
        break;
    }
    default:
        return capa_fail(err, errlen, CAPA_EINVAL, "unknown opening source");
    }
    if (src->random_plies > 0) {
        rc = s_random_plies(fen, v, src->random_plies, &rng, err, errlen);
        if (rc < 0)
            return rc;
    }
    *variant = v;
    return CAPA_OK;
}

opening_book_t *opening_book_load(const char *path, variant_t v, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        capa_fail(err, errlen, CAPA_EIO, "%s: %s", path, strerror(errno));
        return NULL;
    }
    opening_book_t *book = calloc(1, sizeof *book);
    board_t *b = malloc(sizeof *b);
    int cap = 0, lineno = 0;
    char line[1024];
    bool ok = book && b;
    while (ok && fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (isspace((unsigned char) *p))
            p++;
        if (!*p || *p == '#')
            continue;
        char fields[6][FEN_MAX];
        int nf = 0;
        while (nf < 6 && *p) {
            int len = 0;
            while (p[len] && !isspace((unsigned char) p[len]))
                len++;
            if (len >= FEN_MAX) {
                capa_fail(err, errlen, CAPA_EINVAL, "%s:%d: field too long", path, lineno);
                ok = false;
                break;
            }
            memcpy(fields[nf], p, (size_t) len);
            fields[nf][len] = 0;
            nf++;
            p += len;
            while (isspace((unsigned char) *p))
                p++;
        }
        if (!ok)
            break;
        if (nf < 4) {
            capa_fail(err, errlen, CAPA_EINVAL, "%s:%d: expected a FEN or EPD line", path, lineno);
            ok = false;
            break;
        }
        bool counters = nf >= 6 && isdigit((unsigned char) fields[4][0]) &&
                        isdigit((unsigned char) fields[5][0]);
        char fen[FEN_MAX * 6 + 8];
        snprintf(fen, sizeof fen, "%s %s %s %s %s %s", fields[0], fields[1], fields[2], fields[3],
                 counters ? fields[4] : "0", counters ? fields[5] : "1");
        char msg[200] = "";
        if (strlen(fen) >= FEN_MAX || board_set_fen(b, fen, v, msg, sizeof msg) < 0) {
            capa_fail(err, errlen, CAPA_EINVAL, "%s:%d: %s", path, lineno, msg[0] ? msg : "FEN too long");
            ok = false;
            break;
        }
        if (book->count == cap) {
            cap = cap ? cap * 2 : 64;
            void *grown = realloc(book->fens, (size_t) cap * FEN_MAX);
            if (!grown) {
                capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
                ok = false;
                break;
            }
            book->fens = grown;
        }
        board_get_fen(b, book->fens[book->count++], FEN_MAX);
    }
    if (ok && book->count == 0) {
        capa_fail(err, errlen, CAPA_EINVAL, "%s: no positions", path);
        ok = false;
    }
    if (!book || !b)
        capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    fclose(f);
    free(b);
    if (!ok)
        opening_book_destroy(&book);
    return book;
}

void opening_book_destroy(opening_book_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free((*self_p)->fens);
    free(*self_p);
    *self_p = NULL;
}

int opening_book_count(const opening_book_t *book)
{
    return book ? book->count : 0;
}

const char *opening_book_fen(const opening_book_t *book, int i)
{
    return book && i >= 0 && i < book->count ? book->fens[i] : NULL;
}
