/* movegen.c - legal move generation with a check mask and pin rays. */
#include "movegen.h"

enum { GEN_NOISY = 1, GEN_QUIET = 2, GEN_ALL = 3 };

static const piece_type_t PROMOS[] = { QUEEN, CHANCELLOR, ARCHBISHOP, ROOK, BISHOP, KNIGHT };
static const piece_type_t PROMOS_JANUS[] = { QUEEN, ARCHBISHOP, ROOK, BISHOP, KNIGHT };

static inline move_t *s_add_promotions(const board_t *b, move_t *out, square_t from, square_t to)
{
    if (board_variant(b) == VARIANT_JANUS) {
        for (int i = 0; i < 5; i++)
            *out++ = move_make(from, to, MOVE_PROMOTION, PROMOS_JANUS[i]);
    } else {
        for (int i = 0; i < 6; i++)
            *out++ = move_make(from, to, MOVE_PROMOTION, PROMOS[i]);
    }
    return out;
}

static inline move_t *s_add_targets(move_t *out, square_t from, bitboard_t targets)
{
    while (targets)
        *out++ = move_make(from, bb_pop_lsb(&targets), MOVE_NORMAL, NO_PIECE_TYPE);
    return out;
}

/* Pieces of colour us pinned to their king. */
static inline bitboard_t s_pinned(const board_t *b, color_t us, square_t ksq)
{
    bitboard_t them = b->by_color[!us];
    bitboard_t diag = (b->by_type[BISHOP] | b->by_type[ARCHBISHOP] | b->by_type[QUEEN]) & them;
    bitboard_t straight = (b->by_type[ROOK] | b->by_type[CHANCELLOR] | b->by_type[QUEEN]) & them;
    bitboard_t snipers = (attacks_bishop(ksq, them) & diag) | (attacks_rook(ksq, them) & straight);
    bitboard_t occ = board_occupied(b);
    bitboard_t pinned = 0;
    while (snipers) {
        square_t s = bb_pop_lsb(&snipers);
        bitboard_t between = attacks_between(ksq, s) & occ;
        if (between && !bb_more_than_one(between))
            pinned |= between;
    }
    return pinned & b->by_color[us];
}

static inline bool s_attacked(const board_t *b, square_t s, color_t by, bitboard_t occ)
{
    return (board_attackers_to(b, s, occ) & b->by_color[by]) != 0;
}

static move_t *s_castling(const board_t *b, move_t *out, color_t us, square_t ksq)
{
    int rights = board_castling(b) >> (us * 2) & 3;
    bitboard_t occ = board_occupied(b);
    for (int side = 0; side < 2; side++) {
        if (!(rights & (1 << side)))
            continue;
        int i = us * 2 + side;
        square_t rook = b->castle_rook_from[i];
        if (occ & b->castle_empty[i])
            continue;
        /* The king's path with the castling rook lifted off (a rook may be
         * shielding the king's landing square). */
        bitboard_t path = b->castle_safe[i];
        bitboard_t lifted = occ ^ bb_square(rook);
        bool safe = true;
        while (path && safe) {
            square_t s = bb_pop_lsb(&path);
            safe = !s_attacked(b, s, !us, lifted);
        }
        if (safe)
            *out++ = move_make(ksq, rook, MOVE_CASTLE, NO_PIECE_TYPE);
    }
    return out;
}

/* The generator behind every public entry point: moves of the pieces in
 * `from_mask` of the kinds in `gen`. Returns the end of the written list. */
static move_t *s_generate(const board_t *b, move_t *out, int gen, bitboard_t from_mask)
{
    color_t us = board_side(b), them = !us;
    square_t ksq = board_king_sq(b, us);
    bitboard_t occ = board_occupied(b);
    bitboard_t ours = b->by_color[us], theirs = b->by_color[them];
    bitboard_t checkers = board_checkers(b);
    bitboard_t targets = 0;
    if (!b->piece_count[piece_make(us, KING)])
        return out;  /* the king was taken (BOARD_FEN_ALLOW_CAPTURE_KING) */
    if (gen & GEN_NOISY)
        targets |= theirs;
    if (gen & GEN_QUIET)
        targets |= ~occ & bb_all();

    /* King moves. */
    if (from_mask & bb_square(ksq)) {
        bitboard_t att = attacks_king(ksq) & targets;
        bitboard_t occ_without_king = occ ^ bb_square(ksq);
        while (att) {
            square_t to = bb_pop_lsb(&att);
            if (!s_attacked(b, to, them, occ_without_king))
                *out++ = move_make(ksq, to, MOVE_NORMAL, NO_PIECE_TYPE);
        }
        if ((gen & GEN_QUIET) && !checkers && (board_castling(b) >> (us * 2) & 3))
            out = s_castling(b, out, us, ksq);
    }
    if (bb_more_than_one(checkers))
        return out;

    bitboard_t check_mask = checkers ? attacks_between(ksq, bb_lsb(checkers)) | checkers : bb_all();
    bitboard_t pinned = s_pinned(b, us, ksq);
    bitboard_t pieces = ours & from_mask & ~b->by_type[PAWN] & ~b->by_type[KING];

    while (pieces) {
        square_t from = bb_pop_lsb(&pieces);
        piece_type_t t = piece_type(board_piece_on(b, from));
        bitboard_t att = attacks_piece(t, us, from, occ) & targets & check_mask;
        if (pinned & bb_square(from))
            att &= attacks_line(ksq, from);
        out = s_add_targets(out, from, att);
    }

    /* Pawns. */
    bitboard_t pawns = ours & b->by_type[PAWN] & from_mask;
    int up = us == WHITE ? FILE_NB : -FILE_NB;
    square_t ep = board_ep_square(b);
    bitboard_t ep_or_theirs = theirs | (ep != SQ_NONE ? bb_square(ep) : 0);
    while (pawns) {
        square_t from = bb_pop_lsb(&pawns);
        bitboard_t allowed = check_mask;
        if (pinned & bb_square(from))
            allowed &= attacks_line(ksq, from);
        square_t to = from + up;
        bool promotes = square_relative_rank(us, to) == RANK_NB - 1;
        if (gen == GEN_NOISY && !promotes && !(attacks_pawn(us, from) & ep_or_theirs))
            continue;
        if (!(occ & bb_square(to))) {
            if (allowed & bb_square(to)) {
                if (promotes) {
                    if (gen & GEN_NOISY)
                        out = s_add_promotions(b, out, from, to);
                } else if (gen & GEN_QUIET) {
                    *out++ = move_make(from, to, MOVE_NORMAL, NO_PIECE_TYPE);
                }
            }
            square_t to2 = to + up;
            if ((gen & GEN_QUIET) && square_relative_rank(us, from) == 1 &&
                !(occ & bb_square(to2)) && (allowed & bb_square(to2)))
                *out++ = move_make(from, to2, MOVE_NORMAL, NO_PIECE_TYPE);
        }
        if (!(gen & GEN_NOISY))
            continue;
        bitboard_t caps = attacks_pawn(us, from) & theirs & allowed;
        while (caps) {
            square_t cto = bb_pop_lsb(&caps);
            if (promotes)
                out = s_add_promotions(b, out, from, cto);
            else
                *out++ = move_make(from, cto, MOVE_NORMAL, NO_PIECE_TYPE);
        }
        if (ep != SQ_NONE && (attacks_pawn(us, from) & bb_square(ep))) {
            square_t cap = ep - up;
            bitboard_t after = (occ ^ bb_square(from) ^ bb_square(cap)) | bb_square(ep);
            if (!(board_attackers_to(b, ksq, after) & theirs & ~bb_square(cap)))
                *out++ = move_make(from, ep, MOVE_EN_PASSANT, NO_PIECE_TYPE);
        }
    }
    return out;
}

int movegen_legal(const board_t *b, move_list_t *list)
{
    list->count = (int) (s_generate(b, list->moves, GEN_ALL, bb_all()) - list->moves);
    return list->count;
}

int movegen_noisy(const board_t *b, move_list_t *list)
{
    list->count = (int) (s_generate(b, list->moves, GEN_NOISY, bb_all()) - list->moves);
    return list->count;
}

int movegen_quiet(const board_t *b, move_list_t *list)
{
    list->count = (int) (s_generate(b, list->moves, GEN_QUIET, bb_all()) - list->moves);
    return list->count;
}

int movegen_quiet_of(const board_t *b, move_list_t *list, bitboard_t from)
{
    list->count = (int) (s_generate(b, list->moves, GEN_QUIET, from) - list->moves);
    return list->count;
}

int movegen_count(const board_t *b)
{
    move_t moves[MAX_MOVES];
    return (int) (s_generate(b, moves, GEN_ALL, bb_all()) - moves);
}

bool movegen_is_legal(const board_t *b, move_t m)
{
    if (m >> 20)
        return false;
    square_t from = move_from(m), to = move_to(m);
    if (from >= SQ_NB || to >= SQ_NB || from == to)
        return false;
    piece_t pc = board_piece_on(b, from);
    if (pc == NO_PIECE || piece_color(pc) != board_side(b))
        return false;
    if (move_kind(m) != MOVE_PROMOTION && move_promo(m) != NO_PIECE_TYPE)
        return false;
    /* A plain move of a piece other than a pawn (most hash moves, killers
     * and counter moves) is checked directly; the rest by generating the
     * moves of the pawn or king on `from`. */
    piece_type_t t = piece_type(pc);
    color_t us = board_side(b);
    if (move_kind(m) == MOVE_NORMAL && t != PAWN && t != KING) {
        square_t ksq = board_king_sq(b, us);
        bitboard_t checkers = board_checkers(b);
        bitboard_t occ = board_occupied(b);
        if (!b->piece_count[piece_make(us, KING)] || bb_more_than_one(checkers))
            return false;
        bitboard_t att = attacks_piece(t, us, from, occ) & ~b->by_color[us];
        if (checkers)
            att &= attacks_between(ksq, bb_lsb(checkers)) | checkers;
        if (!bb_test(att, to))
            return false;
        if (attacks_line(ksq, from) && (s_pinned(b, us, ksq) & bb_square(from)))
            return bb_test(attacks_line(ksq, from), to);
        return true;
    }
    /* A plain king move: to a square next to it, not ours, not attacked
     * once the king has left its square. */
    if (move_kind(m) == MOVE_NORMAL && t == KING)
        return bb_test(attacks_king(from) & ~b->by_color[us], to) &&
               !s_attacked(b, to, (color_t) !us, board_occupied(b) ^ bb_square(from));
    move_t moves[MAX_MOVES];
    move_t *end = s_generate(b, moves, GEN_ALL, bb_square(from));
    for (move_t *p = moves; p < end; p++)
        if (*p == m)
            return true;
    return false;
}
