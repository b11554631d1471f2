/* eval.h - the static evaluation, driven entirely by a params_t.
 *
 * Terms: material, piece-square terms (centralisation per piece kind),
 * bishop pair, mobility per piece type (attacked squares other than own
 * pawns and king and squares enemy pawns attack), rooks and
 * chancellors on open files, king attackers and pawn shield, king
 * centralisation, doubled / isolated / connected / passed pawns (with the
 * kings' distances in the ending), threats (pieces attacked by pawns, rooks
 * and better by minors, hanging pieces), a mop-up term for
 * pawnless won endings and a tempo bonus, each a (middle game, end game)
 * pair tapered by the game phase (non-pawn material: N, B = 1; R = 2;
 * A, C, Q = 4; the capablanca start has 40). Pure function: no state.
 */
#ifndef CAPA_ENGINE_EVAL_H
#define CAPA_ENGINE_EVAL_H

#include "board.h"
#include "params.h"

#define EVAL_PHASE_MAX 40

/* Fills the constant tables (pthread_once; search_new calls it). */
void eval_init(void);
/* The score of b in centipawns from the side to move's point of view. */
int eval_evaluate(const board_t *b, const params_t *p);
/* The game phase of b, 0 (bare kings and pawns) .. EVAL_PHASE_MAX. */
int eval_phase(const board_t *b);

#endif
