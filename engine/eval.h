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

/* The evaluation's weights in groups, for the UCI command `eval` and for
 * comparing terms with another engine's scores (scripts/evalcmp.py). */
typedef enum {
    EVAL_TERM_MATERIAL,    /* piece values, bishop pair */
    EVAL_TERM_PLACEMENT,   /* centralisation of each kind, the king's too */
    EVAL_TERM_MOBILITY,
    EVAL_TERM_KING_DANGER, /* attacks on the king zone, safe checks, weak squares */
    EVAL_TERM_SHELTER,     /* the king's pawn shield, open files, storms */
    EVAL_TERM_PAWNS,       /* doubled, isolated, connected, backward */
    EVAL_TERM_PASSED,      /* passed pawns */
    EVAL_TERM_PIECES,      /* outposts, rooks' files and seventh rank, minors and pawns */
    EVAL_TERM_THREATS,
    EVAL_TERM_INITIATIVE,
    EVAL_TERM_ENDGAME,     /* end-game scale, mop-up */
    EVAL_TERM_TEMPO,
    EVAL_TERM_NB
} eval_term_t;

/* The short name of group t ("material", "king-danger", ...). */
const char *eval_term_name(eval_term_t t);
/* The group of parameter i (a param_id_t), or EVAL_TERM_NB for a search
 * parameter. Every evaluation weight has a group (a test checks it). */
eval_term_t eval_term_of(int i);
/* What each group adds to the score of b under p, in centipawns from
 * White's view: the score less the score with every parameter of the group
 * at 0. The terms interact (the end-game scale, king danger's square, the
 * quartered score without pawns), so the groups need not sum to the score;
 * the score itself (White's view) is returned. */
int eval_terms(const board_t *b, const params_t *p, int out[EVAL_TERM_NB]);

#endif
