/* startpos.c - start positions of a run's pairs (see startpos.h). */
#include "startpos.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <string.h>

#include <sodium.h>

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

static int s_variant_plies(const startpos_spec_t *spec, int64_t k, startpos_t *out, char *err,
                           size_t errlen)
{
    if (spec->variant < 0 || spec->variant >= VARIANT_NB)
        return capa_fail(err, errlen, CAPA_ERANGE, "start positions: unknown variant %d",
                         spec->variant);
    if (spec->random_plies < 0 || spec->random_plies > 40)
        return capa_fail(err, errlen, CAPA_ERANGE, "start positions: random_plies %d not in 0..40",
                         spec->random_plies);
    board_t *b = malloc(sizeof *b);
    move_list_t *list = malloc(sizeof *list);
    if (!b || !list) {
        free(b);
        free(list);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    uint64_t st = s_draw(spec->seed, 2, (uint64_t) k);
    /* A line that ends the game early is redrawn; after 16 tries the
     * position is taken as far as the last try got. */
    for (int attempt = 0; attempt < 16; attempt++) {
        board_set_startpos(b, (variant_t) spec->variant);
        int played = 0;
        while (played < spec->random_plies) {
            int n = movegen_legal(b, list);
            if (n == 0)
                break;
            board_make(b, list->moves[crc_splitmix64(&st) % (uint64_t) n]);
            played++;
        }
        if (played == spec->random_plies && movegen_legal(b, list) > 0)
            break;
    }
    int rc = board_get_fen(b, out->fen, sizeof out->fen);
    free(b);
    free(list);
    if (rc < 0)
        return capa_fail(err, errlen, CAPA_EFULL, "start position FEN too long");
    return 0;
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
        uint64_t n_imb = spec->imbalance_count;
        const startpos_imbalance_t *imb = &spec->imbalances[(uint64_t) k % n_imb];
        int n = crc_from_seed(s_draw(spec->seed, 1, (uint64_t) k / n_imb));
        out->crc_number = n;
        snprintf(out->imbalance, sizeof out->imbalance, "%s", imb->label);
        int rc = crc_fen_with_removed(n, imb->other, imb->side, out->fen, sizeof out->fen, err,
                                      errlen);
        if (rc == 0)
            rc = crc_fen_with_removed(n, imb->side, imb->other, out->fen2, sizeof out->fen2, err,
                                      errlen);
        return rc;
    }
    switch (spec->source) {
    case STARTPOS_CRC: {
        int n = crc_from_seed(s_draw(spec->seed, 1, (uint64_t) k));
        out->crc_number = n;
        if (crc_start_fen(n, out->fen, sizeof out->fen) < 0)
            return capa_fail(err, errlen, CAPA_ERANGE, "CRC array %d", n);
        return 0;
    }
    case STARTPOS_VARIANT:
        return s_variant_plies(spec, k, out, err, errlen);
    case STARTPOS_BOOK: {
        if (!spec->book || spec->book_count == 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "start positions: empty book");
        uint64_t off = s_draw(spec->seed, 3, 0) % spec->book_count;
        const char *fen = spec->book[((uint64_t) k + off) % spec->book_count];
        if (strlen(fen) >= sizeof out->fen)
            return capa_fail(err, errlen, CAPA_EINVAL, "book FEN longer than 127 bytes");
        snprintf(out->fen, sizeof out->fen, "%s", fen);
        return 0;
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
