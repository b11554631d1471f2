/* movegen.h - legal move generation and move validation.
 *
 * Every generator produces only legal moves (check evasions, pins, en
 * passant discovered checks and castling through attacked squares are all
 * handled), appended to a caller-owned move_list_t after resetting it.
 * Castling is encoded king-from -> own-rook square (see types.h).
 */
#ifndef CAPA_ENGINE_MOVEGEN_H
#define CAPA_ENGINE_MOVEGEN_H

#include "board.h"
#include "types.h"

typedef struct {
    move_t moves[MAX_MOVES];
    int count;
} move_list_t;

/* All legal moves; returns the count. */
int movegen_legal(const board_t *b, move_list_t *list);
/* Legal captures (en passant included) and all promotions (quiescence). */
int movegen_noisy(const board_t *b, move_list_t *list);
/* Legal moves that are neither captures nor promotions (castling included);
 * noisy + quiet = legal, without overlap. */
int movegen_quiet(const board_t *b, move_list_t *list);
/* The quiet moves of the men on the squares of `from` only, in the order
 * movegen_quiet lists them. */
int movegen_quiet_of(const board_t *b, move_list_t *list, bitboard_t from);
/* The number of legal moves, without storing them (perft bulk counting). */
int movegen_count(const board_t *b);
/* Whether m is a legal move in this position: any 32-bit value may be
 * passed (hash-table or killer moves); never accepts an illegal move. */
bool movegen_is_legal(const board_t *b, move_t m);

/* Whether a move captures (en passant included; castling never does). */
static inline bool move_is_capture(const board_t *b, move_t m)
{
    return move_is_ep(m) || (!move_is_castle(m) && board_piece_on(b, move_to(m)) != NO_PIECE);
}
/* The piece type a move captures (PAWN for en passant), or NO_PIECE_TYPE. */
static inline piece_type_t move_captured_type(const board_t *b, move_t m)
{
    if (move_is_ep(m))
        return PAWN;
    if (move_is_castle(m))
        return NO_PIECE_TYPE;
    return piece_type(board_piece_on(b, move_to(m)));
}

#endif
