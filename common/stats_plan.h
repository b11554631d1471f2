/* stats_plan.h - what a piece-value study will determine before a game is
 * played: for each contrast and value the expected 95% half-width at the
 * planned number of pairs, and the pairs a target half-width needs.
 *
 * The expected covariance is the fit's own (stats_values.h), evaluated at
 * assumed true values: for each imbalance and colour, a game at logit
 * eta = w +- k * sum_i v_i x_i scores p = logistic(eta) on average with
 * variance p(1 - p) - d/4 (a draw ratio d, lowered where it must be), so
 * H = sum n p(1 - p) z z', B = sum n Var z z' and V = H^-1 B H^-1. Games are
 * taken as independent: a start-position effect shared by the two games of
 * a pair widens the real intervals (docs/methods.md gives the size).
 * Ratios (values and contrasts in pawns) get half the length of the
 * Fieller interval the fit would report at the assumed values (infinite
 * when that interval is unbounded: the pawn is not determined enough).
 */
#ifndef CAPA_STATS_PLAN_H
#define CAPA_STATS_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "stats_design.h"

typedef struct {
    double logit_per_pawn;            /* k */
    double draw_ratio;                /* d, 0..1 */
    double white;                     /* w: White's edge in logit */
    double value[STATS_PIECE_NB];     /* assumed values in pawns (P = 1) */
} stats_plan_assume_t;

/* What this engine measured (docs/methods.md, "Planning a study"):
 * k 0.30 (a study on a clock; see stats_plan_assume_for_nodes), d 0.13,
 * w 0.10, and H. G. Muller's values for the pieces. */
void stats_plan_assume_default(stats_plan_assume_t *a);
/* The pawn's logit effect this engine showed at a fixed node count: pawn
 * odds measured at a few counts (STATS_PLAN_K_POINTS in stats_plan.c, with
 * their studies in docs/methods.md), interpolated in log(nodes) and held at
 * the nearest measured count outside them; nodes <= 0 (a clock) gives the
 * default's k. */
double stats_plan_logit_per_pawn_at(int64_t nodes);
/* stats_plan_assume_default with k for a study at that many nodes. */
void stats_plan_assume_for_nodes(stats_plan_assume_t *a, int64_t nodes);

typedef struct {
    int8_t diff[STATS_PIECE_NB];      /* side under test minus the other side */
    int64_t pairs;
} stats_plan_row_t;

typedef struct {
    char name[24];                    /* "A-C", or a piece letter */
    int estimable;                    /* 0: the design cannot determine it */
    double hw_logit, hw_elo;          /* expected 95% half-widths */
    int in_pawns;                     /* 1: the pawn is determined too */
    double hw_pawns;
    int64_t pairs_for_target;         /* the study's pairs, scaled in proportion,
                                       * at which hw_pawns reaches the target
                                       * (0: no target) */
} stats_plan_item_t;

typedef struct {
    int64_t pairs, games;
    int pawn_identified;
    stats_plan_item_t contrasts[STATS_CONTRAST_MAX];
    int n_contrasts;
    stats_plan_item_t values[STATS_PIECE_NB]; /* P: the pawn's own effect */
    int n_notes;
    char notes[STATS_PIECE_NB][STATS_NOTE_MAX];
    double target;                    /* pawns; 0 = none */
} stats_plan_t;

/* Plans n rows. target > 0 asks for pairs_for_target. Errors (CAPA_EINVAL
 * with a sentence): no rows or no pairs, a difference beyond the fit's
 * limit, a design that determines nothing (no imbalance changes the
 * material), assumptions out of range (k <= 0, d outside [0, 1), a value
 * not finite). */
int stats_plan_make(const stats_plan_row_t *rows, size_t n, const stats_plan_assume_t *a, double target,
                    stats_plan_t *out, char *err, size_t errlen);

/* Parses an imbalance side as rundoc.h writes it ("RN", "PP", ""): adds one
 * per letter of side and subtracts one per letter of other. CAPA_EINVAL on a
 * letter that is not one of P N B R A C Q. */
int stats_plan_diff(const char *side, const char *other, int8_t diff[STATS_PIECE_NB]);

/* Human-readable plan into buf (0 or CAPA_EFULL), and the same as JSON
 * (caller owns; NULL on ENOMEM). */
int stats_plan_format(const stats_plan_t *p, char *buf, size_t len);
cJSON *stats_plan_to_json(const stats_plan_t *p);

#endif
