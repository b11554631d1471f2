/* fen.c - reading and writing positions as FEN (board_set_fen, board_get_fen). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "err.h"
#include "zobrist.h"

void board_put_piece_(board_t *b, piece_t p, square_t s);

static const char PIECE_LETTERS[PIECE_TYPE_NB] = { '?', 'P', 'N', 'B', 'R', 'A', 'C', 'Q', 'K' };

/* Castling landing files per variant: [side][king, rook]. */
static const int CASTLE_FILES[VARIANT_NB][2][2] = {
    [VARIANT_CAPABLANCA] = { { 8, 7 }, { 2, 3 } },
    [VARIANT_CAPARANDOM] = { { 8, 7 }, { 2, 3 } },
    [VARIANT_GOTHIC] = { { 8, 7 }, { 2, 3 } },
    [VARIANT_EMBASSY] = { { 7, 6 }, { 1, 2 } },
    [VARIANT_JANUS] = { { 8, 7 }, { 1, 2 } },
};

char piece_char(variant_t v, piece_t p)
{
    piece_type_t t = piece_type(p);
    if (t < PAWN || t > KING)
        return '?';
    char c = (v == VARIANT_JANUS && t == ARCHBISHOP) ? 'J' : PIECE_LETTERS[t];
    return piece_color(p) == BLACK ? (char) tolower(c) : c;
}

piece_t piece_from_char(char c)
{
    color_t color = isupper((unsigned char) c) ? WHITE : BLACK;
    switch (toupper((unsigned char) c)) {
    case 'P': return piece_make(color, PAWN);
    case 'N': return piece_make(color, KNIGHT);
    case 'B': return piece_make(color, BISHOP);
    case 'R': return piece_make(color, ROOK);
    case 'A':
    case 'J': return piece_make(color, ARCHBISHOP);
    case 'C': return piece_make(color, CHANCELLOR);
    case 'Q': return piece_make(color, QUEEN);
    case 'K': return piece_make(color, KING);
    default: return NO_PIECE;
    }
}

/* Splits fen into at most 6 whitespace-separated fields (copied into store). */
static int s_split(const char *fen, char *store, size_t storelen, char **fields)
{
    size_t n = strlen(fen);
    if (n >= storelen)
        return -1;
    memcpy(store, fen, n + 1);
    int count = 0;
    char *save = NULL;
    for (char *tok = strtok_r(store, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
        if (count == 6)
            return 7;
        fields[count++] = tok;
    }
    return count;
}

static int s_parse_placement(board_t *b, const char *field, char *err, size_t errlen)
{
    int slashes = 0;
    for (const char *p = field; *p; p++)
        slashes += *p == '/';
    if (slashes >= RANK_NB)
        return capa_fail(err, errlen, CAPA_EINVAL, "more than %d ranks", RANK_NB);
    if (slashes < RANK_NB - 1)
        return capa_fail(err, errlen, CAPA_EINVAL, "%d ranks, not %d", slashes + 1, RANK_NB);
    int rank = RANK_NB - 1, file = 0;
    for (const char *p = field;; p++) {
        char c = *p;
        if (c == '/' || c == '\0') {
            if (file != FILE_NB)
                return capa_fail(err, errlen, CAPA_EINVAL, "rank %d has %d files, not %d", rank + 1,
                                 file, FILE_NB);
            if (c == '\0')
                break;
            if (--rank < 0)
                return capa_fail(err, errlen, CAPA_EINVAL, "more than %d ranks", RANK_NB);
            file = 0;
        } else if (isdigit((unsigned char) c)) {
            int n = 0;
            while (isdigit((unsigned char) *p) && n <= FILE_NB)
                n = n * 10 + (*p++ - '0');
            p--;
            if (n == 0 || file + n > FILE_NB)
                return capa_fail(err, errlen, CAPA_EINVAL, "rank %d has more than %d files",
                                 rank + 1, FILE_NB);
            file += n;
        } else {
            piece_t pc = piece_from_char(c);
            if (pc == NO_PIECE)
                return capa_fail(err, errlen, CAPA_EINVAL, "unknown piece letter '%c'", c);
            if (file >= FILE_NB)
                return capa_fail(err, errlen, CAPA_EINVAL, "rank %d has more than %d files",
                                 rank + 1, FILE_NB);
            if (piece_type(pc) == PAWN && (rank == 0 || rank == RANK_NB - 1))
                return capa_fail(err, errlen, CAPA_EINVAL, "pawn on rank %d", rank + 1);
            if (piece_type(pc) == KING && b->piece_count[pc] > 0)
                return capa_fail(err, errlen, CAPA_EINVAL, "two %s kings",
                                 piece_color(pc) == WHITE ? "white" : "black");
            board_put_piece_(b, pc, square_make(file, rank));
            file++;
        }
    }
    if (rank != 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "%d ranks, not %d", RANK_NB - rank, RANK_NB);
    for (int c = 0; c < COLOR_NB; c++)
        if (b->piece_count[piece_make((color_t) c, KING)] != 1)
            return capa_fail(err, errlen, CAPA_EINVAL, "no %s king", c == WHITE ? "white" : "black");
    return CAPA_OK;
}

/* Records castling right for the rook of colour c on rook_sq. */
static int s_add_castling(board_t *b, color_t c, square_t rook_sq, char letter, char *err,
                          size_t errlen)
{
    square_t ksq = b->king_sq[c];
    int back = c == WHITE ? 0 : RANK_NB - 1;
    if (square_rank(ksq) != back)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "castling right '%c' but the %s king is not on its back rank", letter,
                         c == WHITE ? "white" : "black");
    if (rook_sq == SQ_NONE || board_piece_on(b, rook_sq) != piece_make(c, ROOK))
        return capa_fail(err, errlen, CAPA_EINVAL, "castling right '%c' without its rook", letter);
    int side = square_file(rook_sq) > square_file(ksq) ? CASTLE_SIDE_KING : CASTLE_SIDE_QUEEN;
    int i = c * 2 + side;
    if (b->castle_rook_from[i] != SQ_NONE)
        return capa_fail(err, errlen, CAPA_EINVAL, "two castling rights for one side in '%c'",
                         letter);
    const int *files = CASTLE_FILES[b->variant][side];
    square_t kto = square_make(files[0], back), rto = square_make(files[1], back);
    b->castle_rook_from[i] = (uint8_t) rook_sq;
    b->castle_king_to[i] = (uint8_t) kto;
    b->castle_rook_to[i] = (uint8_t) rto;
    bitboard_t movers = bb_square(ksq) | bb_square(rook_sq);
    b->castle_empty[i] = (attacks_between(ksq, kto) | bb_square(kto) | attacks_between(rook_sq, rto) |
                          bb_square(rto)) & ~movers;
    b->castle_safe[i] = attacks_between(ksq, kto) | bb_square(kto);
    b->castle_lost[ksq] |= (uint8_t) (3 << (c * 2));
    b->castle_lost[rook_sq] |= (uint8_t) (1 << i);
    b->history[0].castling |= (uint8_t) (1 << i);
    return CAPA_OK;
}

static int s_parse_castling(board_t *b, const char *field, char *err, size_t errlen)
{
    if (strcmp(field, "-") == 0)
        return CAPA_OK;
    for (const char *p = field; *p; p++) {
        char ch = *p;
        color_t c = isupper((unsigned char) ch) ? WHITE : BLACK;
        char up = (char) toupper((unsigned char) ch);
        int back = c == WHITE ? 0 : RANK_NB - 1;
        square_t ksq = b->king_sq[c];
        square_t rook = SQ_NONE;
        piece_t r = piece_make(c, ROOK);
        if (up == 'K' || up == 'Q') {
            if (square_rank(ksq) != back)
                return capa_fail(err, errlen, CAPA_EINVAL,
                                 "castling right '%c' but the %s king is not on its back rank", ch,
                                 c == WHITE ? "white" : "black");
            if (up == 'K') {
                for (int f = FILE_NB - 1; f > square_file(ksq) && rook == SQ_NONE; f--)
                    if (board_piece_on(b, square_make(f, back)) == r)
                        rook = square_make(f, back);
            } else {
                for (int f = 0; f < square_file(ksq) && rook == SQ_NONE; f++)
                    if (board_piece_on(b, square_make(f, back)) == r)
                        rook = square_make(f, back);
            }
        } else if (up >= 'A' && up < 'A' + FILE_NB) {
            rook = square_make(up - 'A', back);
            if (square_file(rook) == square_file(ksq))
                return capa_fail(err, errlen, CAPA_EINVAL, "castling right '%c' names the king's file", ch);
        } else {
            return capa_fail(err, errlen, CAPA_EINVAL, "bad castling letter '%c'", ch);
        }
        int rc = s_add_castling(b, c, rook, ch, err, errlen);
        if (rc)
            return rc;
    }
    return CAPA_OK;
}

static int s_parse_ep(board_t *b, const char *field, char *err, size_t errlen)
{
    if (strcmp(field, "-") == 0)
        return CAPA_OK;
    color_t us = board_side(b), them = !us;
    if (strlen(field) < 2 || field[0] < 'a' || field[0] >= 'a' + FILE_NB || !isdigit((unsigned char) field[1]))
        return capa_fail(err, errlen, CAPA_EINVAL, "bad en passant square '%s'", field);
    int file = field[0] - 'a';
    int rank = atoi(field + 1) - 1;
    if (rank != (us == WHITE ? 5 : 2) || strlen(field) != 2)
        return capa_fail(err, errlen, CAPA_EINVAL, "bad en passant square '%s': wrong rank", field);
    square_t ep = square_make(file, rank);
    int up = us == WHITE ? FILE_NB : -FILE_NB;
    if (board_piece_on(b, ep) != NO_PIECE || board_piece_on(b, ep + up) != NO_PIECE ||
        board_piece_on(b, ep - up) != piece_make(them, PAWN))
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "bad en passant square '%s': no pawn can just have passed it", field);
    /* Kept only when a pawn can take (as board_make does), so keys agree. */
    if (attacks_pawn(them, ep) & board_pieces(b, us, PAWN))
        b->history[0].ep = (uint8_t) ep;
    return CAPA_OK;
}

static int s_parse_counter(const char *field, int min, int max, int *out)
{
    if (!*field || strlen(field) > 6)
        return CAPA_EINVAL;
    for (const char *p = field; *p; p++)
        if (!isdigit((unsigned char) *p))
            return CAPA_EINVAL;
    int v = atoi(field);
    if (v < min || v > max)
        return CAPA_EINVAL;
    *out = v;
    return CAPA_OK;
}

static int s_set_fen(board_t *b, const char *fen, variant_t v, int flags, char *err, size_t errlen)
{
    char store[512];
    char *f[7];
    if (!fen)
        return capa_fail(err, errlen, CAPA_EINVAL, "no FEN");
    if ((unsigned) v >= VARIANT_NB)
        return capa_fail(err, errlen, CAPA_EINVAL, "unknown variant %d", (int) v);
    int n = s_split(fen, store, sizeof store, f);
    if (n < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "FEN too long");
    if (n < 2)
        return capa_fail(err, errlen, CAPA_EINVAL, "FEN needs at least a board and a side to move");
    if (n > 6)
        return capa_fail(err, errlen, CAPA_EINVAL, "FEN has more than 6 fields");

    memset(b, 0, offsetof(board_t, history) + sizeof b->history[0]);
    b->variant = (uint8_t) v;
    for (int i = 0; i < 4; i++)
        b->castle_rook_from[i] = b->castle_king_to[i] = b->castle_rook_to[i] = SQ_NONE;
    board_state_t *st = &b->history[0];
    st->ep = SQ_NONE;
    st->move = MOVE_NONE;
    st->captured = NO_PIECE;

    int rc = s_parse_placement(b, f[0], err, errlen);
    if (rc)
        return rc;
    if (strcmp(f[1], "w") == 0)
        b->side = WHITE;
    else if (strcmp(f[1], "b") == 0)
        b->side = BLACK;
    else
        return capa_fail(err, errlen, CAPA_EINVAL, "side to move '%s' is neither w nor b", f[1]);
    if (!(flags & BOARD_FEN_ALLOW_CAPTURE_KING) && board_is_attacked(b, b->king_sq[!b->side], b->side))
        return capa_fail(err, errlen, CAPA_EINVAL, "the side not to move (%s) is in check",
                         b->side == WHITE ? "black" : "white");
    if (n > 2 && (rc = s_parse_castling(b, f[2], err, errlen)))
        return rc;
    if (n > 3 && (rc = s_parse_ep(b, f[3], err, errlen)))
        return rc;
    int halfmove = 0, fullmove = 1;
    if (n > 4 && s_parse_counter(f[4], 0, 9999, &halfmove))
        return capa_fail(err, errlen, CAPA_EINVAL, "bad halfmove clock '%s'", f[4]);
    if (n > 5 && s_parse_counter(f[5], 1, 99999, &fullmove))
        return capa_fail(err, errlen, CAPA_EINVAL, "bad fullmove number '%s' (must be 1 or more)", f[5]);
    st->halfmove = (uint16_t) halfmove;
    st->since_null = 0;
    b->fullmove_base = fullmove;
    b->ply = 0;
    st->checkers = board_attackers_to(b, b->king_sq[b->side], board_occupied(b)) & b->by_color[!b->side];
    if (bb_popcount(st->checkers) > 2)
        return capa_fail(err, errlen, CAPA_EINVAL, "the side to move is in check by %d pieces",
                         bb_popcount(st->checkers));
    st->key = board_compute_key(b);
    st->pawn_key = board_compute_pawn_key(b);
    st->nonpawn_key[WHITE] = board_compute_nonpawn_key(b, WHITE);
    st->nonpawn_key[BLACK] = board_compute_nonpawn_key(b, BLACK);
    return CAPA_OK;
}

int board_set_fen(board_t *b, const char *fen, variant_t v, char *err, size_t errlen)
{
    return board_set_fen_flags(b, fen, v, BOARD_FEN_STRICT, err, errlen);
}

int board_set_fen_flags(board_t *b, const char *fen, variant_t v, int flags, char *err,
                        size_t errlen)
{
    attacks_init();
    zobrist_init();
    /* Build into a scratch copy of the header so that *b stays unchanged on error. */
    board_t *tmp = malloc(sizeof *tmp);
    if (!tmp)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    int rc = s_set_fen(tmp, fen, v, flags, err, errlen);
    if (rc == CAPA_OK)
        board_copy(b, tmp);
    free(tmp);
    return rc;
}

int board_set_startpos(board_t *b, variant_t v)
{
    return board_set_fen(b, variant_start_fen(v), v, NULL, 0);
}

/* The outermost rook of colour c on the back rank on the given side of the king. */
static square_t s_outer_rook(const board_t *b, color_t c, int side)
{
    square_t ksq = b->king_sq[c];
    int back = c == WHITE ? 0 : RANK_NB - 1;
    piece_t r = piece_make(c, ROOK);
    if (side == CASTLE_SIDE_KING) {
        for (int f = FILE_NB - 1; f > square_file(ksq); f--)
            if (board_piece_on(b, square_make(f, back)) == r)
                return square_make(f, back);
    } else {
        for (int f = 0; f < square_file(ksq); f++)
            if (board_piece_on(b, square_make(f, back)) == r)
                return square_make(f, back);
    }
    return SQ_NONE;
}

int board_get_fen(const board_t *b, char *buf, size_t len)
{
    char out[FEN_MAX + 32];
    size_t n = 0;
    variant_t v = board_variant(b);
    for (int r = RANK_NB - 1; r >= 0; r--) {
        int empty = 0;
        for (int f = 0; f < FILE_NB; f++) {
            piece_t p = board_piece_on(b, square_make(f, r));
            if (p == NO_PIECE) {
                empty++;
                continue;
            }
            if (empty)
                n += (size_t) sprintf(out + n, "%d", empty);
            empty = 0;
            out[n++] = piece_char(v, p);
        }
        if (empty)
            n += (size_t) sprintf(out + n, "%d", empty);
        if (r)
            out[n++] = '/';
    }
    out[n++] = ' ';
    out[n++] = board_side(b) == WHITE ? 'w' : 'b';
    out[n++] = ' ';
    int rights = board_castling(b);
    if (!rights)
        out[n++] = '-';
    for (int i = 0; i < 4; i++) {
        if (!(rights & (1 << i)))
            continue;
        color_t c = (color_t) (i / 2);
        square_t rook = b->castle_rook_from[i];
        char ch;
        if (v != VARIANT_CAPARANDOM && s_outer_rook(b, c, i % 2) == rook)
            ch = (i % 2) == CASTLE_SIDE_KING ? 'K' : 'Q';
        else
            ch = (char) ('A' + square_file(rook));
        out[n++] = c == WHITE ? ch : (char) tolower((unsigned char) ch);
    }
    out[n++] = ' ';
    square_t ep = board_ep_square(b);
    if (ep == SQ_NONE) {
        out[n++] = '-';
    } else {
        out[n++] = (char) ('a' + square_file(ep));
        out[n++] = (char) ('1' + square_rank(ep));
    }
    n += (size_t) sprintf(out + n, " %d %d", board_halfmove_clock(b), board_fullmove(b));
    if (n + 1 > len)
        return CAPA_ERANGE;
    memcpy(buf, out, n + 1);
    return CAPA_OK;
}
