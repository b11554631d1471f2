/* see.c - static exchange evaluation by the swap algorithm. */
#include "see.h"

#include "attacks.h"
#include "movegen.h"

const int SEE_VALUE[PIECE_TYPE_NB] = { 0, 100, 310, 350, 475, 825, 875, 950, 20000 };

/* The least valuable piece of side c in set, its type in *type. */
static square_t s_least(const board_t *b, bitboard_t set, piece_type_t *type)
{
    for (int t = PAWN; t <= KING; t++) {
        bitboard_t s = set & board_type_bb(b, (piece_type_t) t);
        if (s) {
            *type = (piece_type_t) t;
            return bb_lsb(s);
        }
    }
    return SQ_NONE;
}

bool see_ge(const board_t *b, move_t m, int threshold)
{
    if (move_is_castle(m))
        return threshold <= 0;
    square_t from = move_from(m), to = move_to(m);
    piece_type_t moving = piece_type(board_piece_on(b, from));
    int gain = SEE_VALUE[move_captured_type(b, m)];
    if (move_is_promotion(m)) {
        gain += SEE_VALUE[move_promo(m)] - SEE_VALUE[PAWN];
        moving = move_promo(m);
    }
    /* swap: value we stand to hold after the opponent's best reply sequence */
    int balance = gain - threshold;
    if (balance < 0)
        return false;
    balance -= SEE_VALUE[moving];
    if (balance >= 0)
        return true;

    bitboard_t occ = board_occupied(b) ^ bb_square(from);
    if (move_is_ep(m))
        occ ^= bb_square(square_make(square_file(to), square_rank(from)));
    occ |= bb_square(to);
    color_t side = (color_t) !piece_color(board_piece_on(b, from));
    bitboard_t attackers = board_attackers_to(b, to, occ) & occ;
    bitboard_t diag = board_type_bb(b, BISHOP) | board_type_bb(b, ARCHBISHOP) |
                      board_type_bb(b, QUEEN);
    bitboard_t straight = board_type_bb(b, ROOK) | board_type_bb(b, CHANCELLOR) |
                          board_type_bb(b, QUEEN);
    for (;;) {
        bitboard_t mine = attackers & board_color_bb(b, side);
        if (!mine)
            break;
        piece_type_t t = KING;
        square_t s = s_least(b, mine, &t);
        occ ^= bb_square(s);
        /* Sliders behind the piece just moved join in: only along the line
         * from it to the target (a knight's jump uncovers nothing). */
        if (square_file(s) == square_file(to) || square_rank(s) == square_rank(to))
            attackers |= attacks_rook(to, occ) & straight;
        else if (attacks_line(to, s))
            attackers |= attacks_bishop(to, occ) & diag;
        attackers &= occ;
        side = (color_t) !side;
        balance = -balance - 1 - SEE_VALUE[t];
        if (balance >= 0) {
            /* A king may not capture into a defended square. */
            if (t == KING && (attackers & board_color_bb(b, side)))
                side = (color_t) !side;
            break;
        }
    }
    /* side is the one that lost the exchange (could not or would not go on). */
    return side != piece_color(board_piece_on(b, from));
}
