/* texel.h - tuning the evaluation's parameters on labelled positions
 * (P. Österlund's "Texel's tuning method", 2014), the engine half of
 * `capa tune` (cli/cmd_tune.c reads the games).
 *
 * Positions. texel_add_game replays a finished game and keeps up to
 * per_game of its quiet positions, each labelled with the game's result
 * from White's view (1, 0.5, 0). A position is a candidate after the first
 * skip_plies plies, when the side to move is not in check and has no
 * promotion and no capture that wins material by static exchange
 * (see_ge(..., 1)): the static evaluation of such a position is what a
 * quiescence search would return, so the eval is fitted to the same
 * numbers the search uses. The draw among the candidates is seeded by the
 * sampler's seed and the game's number: the same games give the same set.
 *
 * Model. The predicted score of a position is sigmoid(K * E / 400) with
 * sigmoid(x) = 1 / (1 + 10^-x) and E the static evaluation from White's
 * view; the error is the mean squared difference to the labels. K is fitted
 * first on the starting parameters (golden-section search) and then held.
 *
 * Fit. The evaluation is linear in each parameter for a given phase (a
 * term's Mg weight counts phase/40 of its coefficient, its Eg weight the
 * rest), apart from integer rounding and the few branches that depend on
 * piece values (drawish-material scaling, the mop-up condition). So each
 * iteration linearises it: every position's coefficient of every tuned
 * parameter is measured once by a central difference of the real
 * eval_evaluate (+-20 cp: rounding costs at most 0.05 of a coefficient),
 * then `steps` Adam steps on that linear model use the analytic gradient
 * (a dot product per position instead of an evaluation per parameter). The
 * step's parameters are rounded, clamped to their ranges and scored with
 * the real evaluation: kept when the error fell, else the step size halves
 * and the iteration is repeated from the best point. One iteration costs
 * 2 x tuned + 1 evaluations per position. With l2 > 0 the objective is the
 * error plus l2 x the squared distance from the start (ridge): a few hundred
 * games cannot pin 70 parameters down, and without it the fit follows their
 * noise (docs/strength.md).
 */
#ifndef CAPA_ENGINE_TEXEL_H
#define CAPA_ENGINE_TEXEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "params.h"
#include "rules.h"

/* The longest game texel_add_game_uci replays. */
#define TEXEL_MAX_PLIES 4096

/* One labelled position. */
typedef struct {
    char fen[FEN_MAX];
    uint8_t variant;       /* variant_t */
    float result;          /* White's expected score: 1, 0.5, 0 (or any value in [0, 1]) */
} texel_pos_t;

/* What the sampler keeps and counts. */
typedef struct {
    texel_pos_t *pos;      /* heap */
    size_t n, cap;
    size_t games;          /* games given to texel_add_game */
    size_t unfinished;     /* of them, without a result ("*"): not sampled */
    size_t plies;          /* positions looked at (all plies of sampled games) */
    size_t opening;        /* skipped: within the first skip_plies */
    size_t in_check;       /* skipped: side to move in check */
    size_t noisy;          /* skipped: a winning capture or a promotion */
} texel_set_t;

typedef struct {
    int skip_plies;        /* opening plies never sampled (8) */
    int per_game;          /* positions kept per game (10); 0 = every candidate */
    uint64_t seed;         /* (1) */
} texel_sample_t;

void texel_set_init(texel_set_t *s);
void texel_set_free(texel_set_t *s);
void texel_sample_default(texel_sample_t *o);
/* Appends one position as it is (tests, EPD files). 0, CAPA_EINVAL (a bad
 * FEN or a result outside [0, 1], with a message) or CAPA_ENOMEM. */
int texel_add_position(texel_set_t *s, const char *fen, variant_t v, double result, char *err,
                       size_t errlen);
/* Whether the side to move is not in check and has no promotion and no
 * capture with a positive static exchange. */
bool texel_is_quiet(const board_t *b);
/* Replays moves[0..plies) from start_fen ("" = the variant's start) and
 * samples the game (see above). A game without a result counts in
 * `unfinished` and adds nothing. 0, CAPA_EINVAL / CAPA_EILLEGAL (a bad FEN or
 * move, with a message; nothing added) or CAPA_ENOMEM. */
int texel_add_game(texel_set_t *s, const texel_sample_t *o, variant_t v, const char *start_fen,
                   const move_t *moves, int plies, game_result_t result, char *err,
                   size_t errlen);
/* The same with the moves as UCI text ("e2e4 e7e5 ...", as the store keeps
 * them). */
int texel_add_game_uci(texel_set_t *s, const texel_sample_t *o, variant_t v,
                       const char *start_fen, const char *uci_moves, game_result_t result,
                       char *err, size_t errlen);

/* The static evaluation of a position from White's view. */
int texel_eval_white(const board_t *b, const params_t *p);
/* The mean squared error of the set under p and K (the real evaluation). */
double texel_error(const texel_set_t *s, const params_t *p, double k);
/* The K in [0.01, 10] that minimises texel_error(s, p, K). */
double texel_fit_k(const texel_set_t *s, const params_t *p);

typedef struct {
    bool tune[PARAM_NB];   /* which parameters move */
    int iterations;        /* linearisations (10) */
    int steps;             /* Adam steps per linearisation (300) */
    double rate;           /* Adam step size in centipawns (1.0) */
    double l2;             /* ridge weight: l2 x (p - start)^2 summed over the tuned
                            * parameters (cp^2) is added to the error (0 = none) */
    FILE *log;             /* a line per iteration; NULL = quiet */
} texel_fit_opts_t;

typedef struct {
    double error_start;    /* under the starting parameters */
    double error_end;      /* under best (the error alone, without the l2 term) */
    int iterations;        /* linearisations done */
    params_t best;
} texel_fit_result_t;

void texel_fit_default(texel_fit_opts_t *o);
/* Fits the tuned parameters, starting from *start, with K held. 0,
 * CAPA_EINVAL (an empty set, nothing to tune) or CAPA_ENOMEM. */
int texel_fit(const texel_set_t *s, const params_t *start, double k, const texel_fit_opts_t *o,
              texel_fit_result_t *out, char *err, size_t errlen);

#endif
