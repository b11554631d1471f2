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
 * A, C, Q = 4; the capablanca start has 40). A pure function of the
 * position and the parameters; the pawn table only saves time.
 *
 * The pawn table caches the terms that depend on the pawns alone (isolated,
 * doubled, connected, backward, centralised pawns, the passed pawns' rank
 * bonus and which pawns are passed), keyed by board_pawn_key. It remembers
 * the values of the pawn parameters its entries were computed with and
 * empties itself when called with other values, so eval_evaluate_cached
 * returns exactly what eval_evaluate does for any parameters, whatever
 * came before. Not thread-safe: one table per thread (each search_t owns
 * one).
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

typedef struct eval_pawn_table_s eval_pawn_table_t;
/* An empty pawn table (about 400 KB). NULL on allocation failure. The
 * caller owns it; free with eval_pawn_table_destroy. */
eval_pawn_table_t *eval_pawn_table_new(void);
void eval_pawn_table_destroy(eval_pawn_table_t **self_p);
/* eval_evaluate, with the pawn-structure terms taken from or stored into t
 * (NULL: none, the same as eval_evaluate). The same score either way. */
int eval_evaluate_cached(const board_t *b, const params_t *p, eval_pawn_table_t *t);
/* The game phase of b, 0 (bare kings and pawns) .. EVAL_PHASE_MAX. */
int eval_phase(const board_t *b);

#endif
