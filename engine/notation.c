/* notation.c - UCI and SAN move strings, both ways. */
#include "notation.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "movegen.h"

void square_to_string(square_t s, char *buf)
{
    buf[0] = (char) ('a' + square_file(s));
    buf[1] = (char) ('1' + square_rank(s));
    buf[2] = '\0';
}

square_t square_from_string(const char *str)
{
    if (!str || str[0] < 'a' || str[0] >= 'a' + FILE_NB || str[1] < '1' || str[1] >= '1' + RANK_NB)
        return SQ_NONE;
    return square_make(str[0] - 'a', str[1] - '1');
}

static char s_promo_letter(variant_t v, piece_type_t t)
{
    return (char) tolower((unsigned char) piece_char(v, piece_make(WHITE, t)));
}

static int s_castle_index(const board_t *b, move_t m)
{
    return board_side(b) * 2 + (move_to(m) > move_from(m) ? CASTLE_SIDE_KING : CASTLE_SIDE_QUEEN);
}

int move_to_uci(const board_t *b, move_t m, bool chess960, char *buf)
{
    if (m == MOVE_NONE || m == MOVE_NULL) {
        strcpy(buf, "0000");
        return CAPA_OK;
    }
    square_t from = move_from(m), to = move_to(m);
    if (from >= SQ_NB || to >= SQ_NB) {
        strcpy(buf, "0000");
        return CAPA_EINVAL;
    }
    if (move_is_castle(m) && !chess960 && board_variant(b) != VARIANT_CAPARANDOM) {
        square_t kto = board_castle_king_to(b, s_castle_index(b, m));
        if (abs(square_file(kto) - square_file(from)) > 1)
            to = kto;
    }
    square_to_string(from, buf);
    square_to_string(to, buf + 2);
    buf[4] = '\0';
    if (move_is_promotion(m)) {
        buf[4] = s_promo_letter(board_variant(b), move_promo(m));
        buf[5] = '\0';
    }
    return CAPA_OK;
}

int move_from_uci(const board_t *b, const char *str, move_t *m)
{
    size_t n = str ? strlen(str) : 0;
    if (n < 4 || n > 5)
        return CAPA_EINVAL;
    square_t from = square_from_string(str), to = square_from_string(str + 2);
    if (from == SQ_NONE || to == SQ_NONE)
        return CAPA_EINVAL;
    piece_type_t promo = NO_PIECE_TYPE;
    if (n == 5) {
        piece_t p = piece_from_char((char) tolower((unsigned char) str[4]));
        promo = piece_type(p);
        if (p == NO_PIECE || promo == PAWN || promo == KING)
            return CAPA_EINVAL;
    }
    move_list_t list;
    movegen_legal(b, &list);
    move_t castle = MOVE_NONE;
    for (int i = 0; i < list.count; i++) {
        move_t c = list.moves[i];
        if (move_from(c) != from)
            continue;
        if (move_is_castle(c)) {
            if (promo == NO_PIECE_TYPE &&
                (move_to(c) == to || board_castle_king_to(b, s_castle_index(b, c)) == to))
                castle = castle ? castle : c;
            continue;
        }
        if (move_to(c) == to && move_promo(c) == promo) {
            *m = c;
            return CAPA_OK;
        }
    }
    if (castle) {
        *m = castle;
        return CAPA_OK;
    }
    return CAPA_EILLEGAL;
}

/* ---- SAN ---- */

int move_to_san(const board_t *b, move_t m, char *buf)
{
    variant_t v = board_variant(b);
    square_t from = move_from(m), to = move_to(m);
    if (!movegen_is_legal(b, m)) {
        strcpy(buf, "--");
        return CAPA_EILLEGAL;
    }
    piece_type_t t = piece_type(board_piece_on(b, from));
    size_t n = 0;

    if (move_is_castle(m)) {
        strcpy(buf, move_to(m) > from ? "O-O" : "O-O-O");
        n = strlen(buf);
    } else {
        bool capture = move_is_capture(b, m);
        if (t == PAWN) {
            if (capture) {
                buf[n++] = (char) ('a' + square_file(from));
                buf[n++] = 'x';
            }
        } else {
            buf[n++] = piece_char(v, piece_make(WHITE, t));
            if (t != KING) {
                move_list_t list;
                movegen_legal(b, &list);
                bool other = false, same_file = false, same_rank = false;
                for (int i = 0; i < list.count; i++) {
                    move_t c = list.moves[i];
                    if (c == m || move_is_castle(c) || move_to(c) != to || move_from(c) == from ||
                        piece_type(board_piece_on(b, move_from(c))) != t)
                        continue;
                    other = true;
                    same_file |= square_file(move_from(c)) == square_file(from);
                    same_rank |= square_rank(move_from(c)) == square_rank(from);
                }
                if (other) {
                    if (!same_file)
                        buf[n++] = (char) ('a' + square_file(from));
                    else if (!same_rank)
                        buf[n++] = (char) ('1' + square_rank(from));
                    else {
                        buf[n++] = (char) ('a' + square_file(from));
                        buf[n++] = (char) ('1' + square_rank(from));
                    }
                }
            }
            if (capture)
                buf[n++] = 'x';
        }
        square_to_string(to, buf + n);
        n += 2;
        if (move_is_promotion(m)) {
            buf[n++] = '=';
            buf[n++] = piece_char(v, piece_make(WHITE, move_promo(m)));
        }
    }
    if (board_gives_check(b, m)) {
        board_t *tmp = malloc(sizeof *tmp);
        bool mate = false;
        if (tmp) {
            board_copy(tmp, b);
            board_make(tmp, m);
            mate = movegen_count(tmp) == 0;
            free(tmp);
        }
        buf[n++] = mate ? '#' : '+';
    }
    buf[n] = '\0';
    return CAPA_OK;
}

static piece_type_t s_san_piece(char c)
{
    switch (c) {
    case 'N': return KNIGHT;
    case 'B': return BISHOP;
    case 'R': return ROOK;
    case 'A':
    case 'J': return ARCHBISHOP;
    case 'C': return CHANCELLOR;
    case 'Q': return QUEEN;
    case 'K': return KING;
    default: return NO_PIECE_TYPE;
    }
}

int move_from_san(const board_t *b, const char *str, move_t *m)
{
    char s[SAN_MOVE_MAX + 8];
    size_t n = str ? strlen(str) : 0;
    if (n == 0 || n >= sizeof s)
        return CAPA_EINVAL;
    memcpy(s, str, n + 1);
    while (n > 0 && strchr("+#!?", s[n - 1]))
        s[--n] = '\0';
    if (n == 0)
        return CAPA_EINVAL;

    move_list_t list;
    movegen_legal(b, &list);
    int castle_side = -1;
    if (strcmp(s, "O-O") == 0 || strcmp(s, "0-0") == 0)
        castle_side = CASTLE_SIDE_KING;
    else if (strcmp(s, "O-O-O") == 0 || strcmp(s, "0-0-0") == 0)
        castle_side = CASTLE_SIDE_QUEEN;
    if (castle_side >= 0) {
        for (int i = 0; i < list.count; i++) {
            move_t c = list.moves[i];
            if (move_is_castle(c) &&
                (move_to(c) > move_from(c) ? CASTLE_SIDE_KING : CASTLE_SIDE_QUEEN) == castle_side) {
                *m = c;
                return CAPA_OK;
            }
        }
        return CAPA_EILLEGAL;
    }

    /* [Piece][from file][from rank][x|-]to[=promo] */
    size_t i = 0;
    piece_type_t t = PAWN;
    if (isupper((unsigned char) s[0])) {
        t = s_san_piece(s[0]);
        if (t == NO_PIECE_TYPE)
            return CAPA_EINVAL;
        i = 1;
    }
    piece_type_t promo = NO_PIECE_TYPE;
    if (n > i && isalpha((unsigned char) s[n - 1]) && isupper((unsigned char) s[n - 1])) {
        promo = s_san_piece(s[n - 1]);
        if (promo == NO_PIECE_TYPE || promo == KING)
            return CAPA_EINVAL;
        s[--n] = '\0';
        if (n > i && s[n - 1] == '=')
            s[--n] = '\0';
    } else if (n > i + 1 && s[n - 2] == '=') {
        promo = s_san_piece((char) toupper((unsigned char) s[n - 1]));
        if (promo == NO_PIECE_TYPE || promo == KING)
            return CAPA_EINVAL;
        n -= 2;
        s[n] = '\0';
    }
    if (n < i + 2)
        return CAPA_EINVAL;
    square_t to = square_from_string(s + n - 2);
    if (to == SQ_NONE)
        return CAPA_EINVAL;
    int from_file = -1, from_rank = -1;
    for (size_t k = i; k < n - 2; k++) {
        char c = s[k];
        if (c >= 'a' && c < 'a' + FILE_NB && from_file < 0)
            from_file = c - 'a';
        else if (c >= '1' && c < '1' + RANK_NB && from_rank < 0)
            from_rank = c - '1';
        else if ((c == 'x' || c == '-' || c == ':') && k == n - 3)
            continue;
        else
            return CAPA_EINVAL;
    }

    move_t found = MOVE_NONE;
    int matches = 0;
    for (int k = 0; k < list.count; k++) {
        move_t c = list.moves[k];
        square_t from = move_from(c);
        if (move_is_castle(c) || move_to(c) != to || move_promo(c) != promo ||
            piece_type(board_piece_on(b, from)) != t)
            continue;
        if ((from_file >= 0 && square_file(from) != from_file) ||
            (from_rank >= 0 && square_rank(from) != from_rank))
            continue;
        found = c;
        matches++;
    }
    if (matches != 1)
        return CAPA_EILLEGAL;
    *m = found;
    return CAPA_OK;
}
