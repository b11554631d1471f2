/* movepick.h - staged move ordering for the search.
 *
 * Order: the hash move; captures and promotions that do not lose material
 * (SEE >= 0) by most valuable victim / least valuable attacker; the two
 * killer moves; the counter move (movepick_set_counter); the other quiet
 * moves by history score, raised for a move that takes a piece out of an
 * attack by a lesser enemy man and lowered for one that puts it into one;
 * the losing captures. In quiescence mode (not in check) only the winning
 * or equal captures and promotions are produced. Every move produced is
 * legal and produced once.
 */
#ifndef CAPA_ENGINE_MOVEPICK_H
#define CAPA_ENGINE_MOVEPICK_H

#include "board.h"
#include "movegen.h"

/* history[side][from][to], bounded by MOVEPICK_HISTORY_MAX in absolute value. */
#define MOVEPICK_HISTORY_MAX 16384
typedef int16_t history_table_t[COLOR_NB][SQ_NB][SQ_NB];
/* Counter-move history: for the previous move's piece (colour x 9 + kind)
 * and target square, the score of a quiet reply by its piece kind and
 * target square; same bound and gravity as the butterfly history. */
#define MOVEPICK_CONT_PIECES (COLOR_NB * PIECE_TYPE_NB)
typedef int16_t cont_entry_t[PIECE_TYPE_NB][SQ_NB];
typedef cont_entry_t cont_history_t[MOVEPICK_CONT_PIECES][SQ_NB];

typedef struct {
    move_list_t noisy;
    move_list_t quiet;
    int noisy_score[MAX_MOVES];
    int quiet_score[MAX_MOVES];
    int stage;
    int idx;
    int bad_count;         /* losing captures parked at noisy.moves[0..bad_count) */
    bool qsearch;
    move_t tt_move;
    move_t killer[2];
    move_t counter;        /* the counter move, once its stage has produced it */
    const board_t *board;
    const history_table_t *history;
    const cont_entry_t *cont;   /* the previous move's counter-move history, or NULL */
} movepick_t;

/* Starts picking in b (which must not change until the picker is done).
 * killers may be NULL; history may be NULL (no quiet ordering); cont may be
 * NULL (no previous move, or a null move): otherwise quiet moves are ordered
 * by their butterfly plus counter-move history (and the threats above). */
void movepick_init(movepick_t *mp, const board_t *b, move_t tt_move, const move_t *killers,
                   const history_table_t *history, const cont_entry_t *cont, bool qsearch);
/* Produces no more quiet moves (killers and the counter move included);
 * the losing captures still follow. For late move pruning, which once it
 * prunes one quiet move at a node prunes every later one. */
void movepick_skip_quiets(movepick_t *mp);
/* Sets the counter move: the quiet move that last refuted the previous
 * move. It comes after the killers when it is a legal quiet move other than
 * the hash move and the killers, and then not again; otherwise it changes
 * nothing. Call after movepick_init, before the first movepick_next. */
void movepick_set_counter(movepick_t *mp, move_t counter);
/* The next move, or MOVE_NONE when there are no more. */
move_t movepick_next(movepick_t *mp);
/* Whether the last move produced came from the last stage: a losing
 * capture or an under-promotion. Every other capture or promotion but the
 * hash move is known to have SEE >= 0. */
bool movepick_losing(const movepick_t *mp);
/* Adds bonus (may be negative) to a quiet move's history with gravity. */
void movepick_history_update(history_table_t *h, color_t side, move_t m, int bonus);
/* The same for one entry of a counter-move history. */
void movepick_cont_update(cont_entry_t *c, piece_type_t t, square_t to, int bonus);
/* The counter-move history's index of the piece p that made the previous move. */
static inline int movepick_cont_index(piece_t p)
{
    return piece_color(p) * PIECE_TYPE_NB + piece_type(p);
}

#endif
