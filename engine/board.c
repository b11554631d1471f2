/* board.c - the position: piece placement, make/unmake, attacks on squares,
 * repetition and self-checks. FEN text lives in fen.c. */
#include "board.h"

#include <stdio.h>
#include <string.h>

#include "err.h"
#include "zobrist.h"

/* ---- placing pieces ---- */

static inline void s_put(board_t *b, piece_t p, square_t s)
{
    bitboard_t bb = bb_square(s);
    b->by_type[NO_PIECE_TYPE] |= bb;
    b->by_type[piece_type(p)] |= bb;
    b->by_color[piece_color(p)] |= bb;
    b->squares[s] = (uint8_t) p;
    b->piece_count[p]++;
}

static inline void s_remove(board_t *b, square_t s)
{
    piece_t p = (piece_t) b->squares[s];
    bitboard_t bb = bb_square(s);
    b->by_type[NO_PIECE_TYPE] ^= bb;
    b->by_type[piece_type(p)] ^= bb;
    b->by_color[piece_color(p)] ^= bb;
    b->squares[s] = NO_PIECE;
    b->piece_count[p]--;
}

static inline void s_move(board_t *b, square_t from, square_t to)
{
    piece_t p = (piece_t) b->squares[from];
    bitboard_t bb = bb_square(from) | bb_square(to);
    b->by_type[NO_PIECE_TYPE] ^= bb;
    b->by_type[piece_type(p)] ^= bb;
    b->by_color[piece_color(p)] ^= bb;
    b->squares[from] = NO_PIECE;
    b->squares[to] = (uint8_t) p;
}

/* Used by fen.c while building a position. */
void board_put_piece_(board_t *b, piece_t p, square_t s);
void board_put_piece_(board_t *b, piece_t p, square_t s)
{
    s_put(b, p, s);
    if (piece_type(p) == KING)
        b->king_sq[piece_color(p)] = (uint8_t) s;
}

/* ---- attacks ---- */

bitboard_t board_attackers_to(const board_t *b, square_t s, bitboard_t occ)
{
    bitboard_t diag = b->by_type[BISHOP] | b->by_type[ARCHBISHOP] | b->by_type[QUEEN];
    bitboard_t straight = b->by_type[ROOK] | b->by_type[CHANCELLOR] | b->by_type[QUEEN];
    bitboard_t leapers = b->by_type[KNIGHT] | b->by_type[ARCHBISHOP] | b->by_type[CHANCELLOR];
    return (attacks_pawn(BLACK, s) & b->by_color[WHITE] & b->by_type[PAWN]) |
           (attacks_pawn(WHITE, s) & b->by_color[BLACK] & b->by_type[PAWN]) |
           (attacks_knight(s) & leapers) | (attacks_king(s) & b->by_type[KING]) |
           (attacks_bishop(s, occ) & diag) | (attacks_rook(s, occ) & straight);
}

bool board_is_attacked(const board_t *b, square_t s, color_t by)
{
    return (board_attackers_to(b, s, board_occupied(b)) & b->by_color[by]) != 0;
}

bitboard_t board_blockers(const board_t *b, color_t c)
{
    square_t ksq = b->king_sq[c];
    bitboard_t them = b->by_color[!c];
    bitboard_t diag = (b->by_type[BISHOP] | b->by_type[ARCHBISHOP] | b->by_type[QUEEN]) & them;
    bitboard_t straight = (b->by_type[ROOK] | b->by_type[CHANCELLOR] | b->by_type[QUEEN]) & them;
    bitboard_t snipers = (attacks_bishop(ksq, 0) & diag) | (attacks_rook(ksq, 0) & straight);
    bitboard_t occ = board_occupied(b) ^ snipers;
    bitboard_t blockers = 0;
    while (snipers) {
        square_t s = bb_pop_lsb(&snipers);
        bitboard_t between = attacks_between(ksq, s) & occ;
        if (between && !bb_more_than_one(between))
            blockers |= between;
    }
    return blockers;
}

bool board_gives_check(const board_t *b, move_t m)
{
    color_t us = board_side(b), them = !us;
    square_t from = move_from(m), to = move_to(m);
    square_t ksq = b->king_sq[them];
    bitboard_t occ = board_occupied(b);
    bitboard_t ours = b->by_color[us];
    piece_type_t moved = piece_type(board_piece_on(b, from));
    square_t dest = to;
    bitboard_t vacated = bb_square(from);

    if (move_is_castle(m)) {
        int i = us * 2 + (to > from ? CASTLE_SIDE_KING : CASTLE_SIDE_QUEEN);
        square_t kto = b->castle_king_to[i], rto = b->castle_rook_to[i];
        occ = (occ & ~(bb_square(from) | bb_square(to))) | bb_square(kto) | bb_square(rto);
        ours = (ours & ~(bb_square(from) | bb_square(to))) | bb_square(kto) | bb_square(rto);
        vacated |= bb_square(to);
        moved = ROOK;
        dest = rto;
    } else {
        occ = (occ & ~bb_square(from)) | bb_square(to);
        ours = (ours & ~bb_square(from)) | bb_square(to);
        if (move_is_ep(m))
            occ &= ~bb_square(us == WHITE ? to - FILE_NB : to + FILE_NB);
        if (move_is_promotion(m))
            moved = move_promo(m);
    }
    if (moved != KING && (attacks_piece(moved, us, dest, occ) & bb_square(ksq)))
        return true;
    /* Discovered checks by sliders that did not move. */
    bitboard_t stay = ours & ~vacated & ~bb_square(dest);
    bitboard_t diag = (b->by_type[BISHOP] | b->by_type[ARCHBISHOP] | b->by_type[QUEEN]) & stay;
    bitboard_t straight = (b->by_type[ROOK] | b->by_type[CHANCELLOR] | b->by_type[QUEEN]) & stay;
    return ((attacks_bishop(ksq, occ) & diag) | (attacks_rook(ksq, occ) & straight)) != 0;
}

/* ---- make / unmake ---- */

/* Forgets the oldest half of the history when it is full. */
static void s_compact(board_t *b)
{
    int drop = BOARD_HISTORY_MAX / 2;
    memmove(&b->history[0], &b->history[drop], (size_t) (b->ply - drop + 1) * sizeof b->history[0]);
    b->ply -= drop;
    b->dropped += drop;
}

void board_make(board_t *b, move_t m)
{
    const zobrist_keys_t *z = &zobrist_keys;
    if (__builtin_expect(b->ply + 1 >= BOARD_HISTORY_MAX, 0))
        s_compact(b);
    board_state_t *prev = &b->history[b->ply];
    board_state_t *st = &b->history[++b->ply];
    color_t us = board_side(b), them = !us;
    square_t from = move_from(m), to = move_to(m);
    uint64_t key = prev->key ^ z->side;
    uint64_t pawn_key = prev->pawn_key;
    uint64_t np_us = prev->nonpawn_key[us], np_them = prev->nonpawn_key[them];

    if (prev->ep != SQ_NONE)
        key ^= z->ep[square_file(prev->ep)];
    st->move = m;
    st->halfmove = prev->halfmove + 1;
    st->since_null = prev->since_null + 1;
    st->ep = SQ_NONE;
    st->captured = NO_PIECE;

    piece_t pc = board_piece_on(b, from);
    int kind = move_kind(m);
    if (kind == MOVE_CASTLE) {
        int i = us * 2 + (to > from ? CASTLE_SIDE_KING : CASTLE_SIDE_QUEEN);
        square_t kto = b->castle_king_to[i], rto = b->castle_rook_to[i];
        piece_t rook = board_piece_on(b, to);
        s_remove(b, from);
        s_remove(b, to);
        s_put(b, pc, kto);
        s_put(b, rook, rto);
        b->king_sq[us] = (uint8_t) kto;
        uint64_t moved =
            z->piece[pc][from] ^ z->piece[pc][kto] ^ z->piece[rook][to] ^ z->piece[rook][rto];
        key ^= moved;
        np_us ^= moved;
    } else {
        if (kind == MOVE_EN_PASSANT) {
            square_t cap = us == WHITE ? to - FILE_NB : to + FILE_NB;
            st->captured = b->squares[cap];
            key ^= z->piece[st->captured][cap];
            pawn_key ^= z->piece[st->captured][cap];
            s_remove(b, cap);
            st->halfmove = 0;
        } else if (b->squares[to] != NO_PIECE) {
            st->captured = b->squares[to];
            key ^= z->piece[st->captured][to];
            if (piece_type((piece_t) st->captured) == PAWN)
                pawn_key ^= z->piece[st->captured][to];
            else
                np_them ^= z->piece[st->captured][to];
            s_remove(b, to);
            st->halfmove = 0;
        }
        s_move(b, from, to);
        uint64_t moved = z->piece[pc][from] ^ z->piece[pc][to];
        key ^= moved;
        if (piece_type(pc) == PAWN) {
            st->halfmove = 0;
            pawn_key ^= moved;
            if (to - from == 2 * FILE_NB || from - to == 2 * FILE_NB) {
                square_t ep = (from + to) / 2;
                if (attacks_pawn(us, ep) & board_pieces(b, them, PAWN)) {
                    st->ep = (uint8_t) ep;
                    key ^= z->ep[square_file(ep)];
                }
            } else if (kind == MOVE_PROMOTION) {
                piece_t promo = piece_make(us, move_promo(m));
                s_remove(b, to);
                s_put(b, promo, to);
                key ^= z->piece[pc][to] ^ z->piece[promo][to];
                pawn_key ^= z->piece[pc][to];
                np_us ^= z->piece[promo][to];
            }
        } else {
            np_us ^= moved;
            if (piece_type(pc) == KING)
                b->king_sq[us] = (uint8_t) to;
        }
    }
    st->castling = prev->castling & ~(b->castle_lost[from] | b->castle_lost[to]);
    if (st->castling != prev->castling)
        key ^= z->castling[prev->castling] ^ z->castling[st->castling];
    b->side = (uint8_t) them;
    st->key = key;
    st->pawn_key = pawn_key;
    st->nonpawn_key[us] = np_us;
    st->nonpawn_key[them] = np_them;
    st->checkers = board_attackers_to(b, b->king_sq[them], board_occupied(b)) & b->by_color[us];
}

void board_unmake(board_t *b)
{
    const board_state_t *st = &b->history[b->ply];
    move_t m = st->move;
    color_t them = board_side(b), us = !them;
    square_t from = move_from(m), to = move_to(m);
    int kind = move_kind(m);

    b->side = (uint8_t) us;
    if (kind == MOVE_CASTLE) {
        int i = us * 2 + (to > from ? CASTLE_SIDE_KING : CASTLE_SIDE_QUEEN);
        square_t kto = b->castle_king_to[i], rto = b->castle_rook_to[i];
        piece_t king = board_piece_on(b, kto), rook = board_piece_on(b, rto);
        s_remove(b, kto);
        s_remove(b, rto);
        s_put(b, king, from);
        s_put(b, rook, to);
        b->king_sq[us] = (uint8_t) from;
    } else {
        if (kind == MOVE_PROMOTION) {
            s_remove(b, to);
            s_put(b, piece_make(us, PAWN), to);
        }
        s_move(b, to, from);
        if (piece_type(board_piece_on(b, from)) == KING)
            b->king_sq[us] = (uint8_t) from;
        if (st->captured != NO_PIECE) {
            square_t cap = kind == MOVE_EN_PASSANT ? (us == WHITE ? to - FILE_NB : to + FILE_NB) : to;
            s_put(b, (piece_t) st->captured, cap);
        }
    }
    b->ply--;
}

void board_make_null(board_t *b)
{
    if (b->ply + 1 >= BOARD_HISTORY_MAX)
        s_compact(b);
    board_state_t *prev = &b->history[b->ply];
    board_state_t *st = &b->history[++b->ply];
    uint64_t key = prev->key ^ zobrist_keys.side;
    if (prev->ep != SQ_NONE)
        key ^= zobrist_keys.ep[square_file(prev->ep)];
    st->key = key;
    st->pawn_key = prev->pawn_key;
    st->nonpawn_key[WHITE] = prev->nonpawn_key[WHITE];
    st->nonpawn_key[BLACK] = prev->nonpawn_key[BLACK];
    st->move = MOVE_NULL;
    st->halfmove = prev->halfmove + 1;
    st->since_null = 0;
    st->castling = prev->castling;
    st->ep = SQ_NONE;
    st->captured = NO_PIECE;
    b->side ^= 1;
    st->checkers = board_attackers_to(b, b->king_sq[b->side], board_occupied(b)) &
                   b->by_color[!b->side];
}

void board_unmake_null(board_t *b)
{
    b->side ^= 1;
    b->ply--;
}

void board_copy(board_t *dst, const board_t *src)
{
    memcpy(dst, src, offsetof(board_t, history) + (size_t) (src->ply + 1) * sizeof src->history[0]);
}

int board_fullmove(const board_t *b)
{
    int plies = b->ply + b->dropped;
    int start_black = (b->side ^ (plies & 1)) == BLACK;
    return b->fullmove_base + (plies + start_black) / 2;
}

/* ---- repetition ---- */

bool board_is_repetition(const board_t *b, int ply_from_root)
{
    const board_state_t *st = &b->history[b->ply];
    int end = st->halfmove < st->since_null ? st->halfmove : st->since_null;
    int count = 0;
    if (end > b->ply)
        end = b->ply;
    for (int i = 4; i <= end; i += 2) {
        if (b->history[b->ply - i].key == st->key) {
            if (i <= ply_from_root || ++count >= 2)
                return true;
        }
    }
    return false;
}

int board_repetition_count(const board_t *b)
{
    const board_state_t *st = &b->history[b->ply];
    int end = st->halfmove < st->since_null ? st->halfmove : st->since_null;
    int count = 0;
    if (end > b->ply)
        end = b->ply;
    for (int i = 4; i <= end; i += 2)
        count += b->history[b->ply - i].key == st->key;
    return count;
}

/* ---- self-checks ---- */

uint64_t board_compute_key(const board_t *b)
{
    const board_state_t *st = &b->history[b->ply];
    uint64_t key = 0;
    for (square_t s = 0; s < SQ_NB; s++)
        if (b->squares[s] != NO_PIECE)
            key ^= zobrist_keys.piece[b->squares[s]][s];
    if (b->side == BLACK)
        key ^= zobrist_keys.side;
    key ^= zobrist_keys.castling[st->castling];
    if (st->ep != SQ_NONE)
        key ^= zobrist_keys.ep[square_file(st->ep)];
    return key;
}

/* The zobrist key of the men on the squares of men. */
static uint64_t s_key_of(const board_t *b, bitboard_t men)
{
    uint64_t key = 0;
    while (men) {
        square_t s = bb_pop_lsb(&men);
        key ^= zobrist_keys.piece[b->squares[s]][s];
    }
    return key;
}

uint64_t board_compute_pawn_key(const board_t *b)
{
    return s_key_of(b, b->by_type[PAWN]);
}

uint64_t board_compute_nonpawn_key(const board_t *b, color_t c)
{
    return s_key_of(b, b->by_color[c] & ~b->by_type[PAWN]);
}

int board_validate(const board_t *b, char *err, size_t errlen)
{
    bitboard_t by_type[PIECE_TYPE_NB] = { 0 }, by_color[COLOR_NB] = { 0 };
    int count[PIECE_NB] = { 0 };
    for (square_t s = 0; s < SQ_NB; s++) {
        piece_t p = board_piece_on(b, s);
        if (p == NO_PIECE)
            continue;
        if (piece_type(p) < PAWN || piece_type(p) > KING || piece_color(p) > BLACK)
            return capa_fail(err, errlen, CAPA_EINVAL, "bad piece code %d on square %d", p, s);
        by_type[NO_PIECE_TYPE] |= bb_square(s);
        by_type[piece_type(p)] |= bb_square(s);
        by_color[piece_color(p)] |= bb_square(s);
        count[p]++;
    }
    for (int t = 0; t < PIECE_TYPE_NB; t++)
        if (by_type[t] != b->by_type[t])
            return capa_fail(err, errlen, CAPA_EINVAL, "bitboard of piece type %d disagrees", t);
    for (int c = 0; c < COLOR_NB; c++) {
        if (by_color[c] != b->by_color[c])
            return capa_fail(err, errlen, CAPA_EINVAL, "bitboard of colour %d disagrees", c);
        if (board_piece_on(b, b->king_sq[c]) != piece_make((color_t) c, KING))
            return capa_fail(err, errlen, CAPA_EINVAL, "king square of colour %d is wrong", c);
    }
    for (int p = 0; p < PIECE_NB; p++)
        if (count[p] != b->piece_count[p])
            return capa_fail(err, errlen, CAPA_EINVAL, "count of piece %d is %d, not %d", p,
                             b->piece_count[p], count[p]);
    if (board_compute_key(b) != board_key(b))
        return capa_fail(err, errlen, CAPA_EINVAL, "incremental key differs from recomputed key");
    if (board_compute_pawn_key(b) != board_pawn_key(b))
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "incremental pawn key differs from recomputed pawn key");
    for (int c = 0; c < COLOR_NB; c++)
        if (board_compute_nonpawn_key(b, (color_t) c) != board_nonpawn_key(b, (color_t) c))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "incremental non-pawn key of colour %d differs from recomputed", c);
    color_t us = board_side(b);
    bitboard_t checkers = board_attackers_to(b, b->king_sq[us], board_occupied(b)) & b->by_color[!us];
    if (checkers != board_checkers(b))
        return capa_fail(err, errlen, CAPA_EINVAL, "checkers disagree");
    if (board_is_attacked(b, b->king_sq[!us], us))
        return capa_fail(err, errlen, CAPA_EINVAL, "the side not to move is in check");
    return CAPA_OK;
}
