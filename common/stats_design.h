/* stats_design.h - what a piece-value study can determine: the columns of
 * its design, the combinations of piece values it estimates, and the
 * contrasts it reports. Shared by the fit (stats_values) and the planner
 * (stats_plan), so that a study is judged the same way before and after it
 * is played.
 *
 * Coefficients live in one "full" index space: 0 is White's edge, 1 + p the
 * logit effect of piece p (STATS_P .. STATS_Q), STATS_COEF_COV + k the
 * logit effect of covariate k (STATS_COV_UNPROT: one more unprotected start
 * pawn; STATS_COV_SHELTER: one more pawn missing from the king's shelter;
 * covariates are not pieces: games record how many more the side under test
 * had). A design row is a game seen from White: (1, sign * diff, sign * cov)
 * with sign +1 when the side under test had White. A linear combination c of the coefficients is estimable when c lies
 * in the row space of the design, i.e. c is orthogonal to every direction in
 * which the coefficients can move without changing any game's prediction
 * (the null space of the Gram matrix X'X). Method: docs/methods.md, "Piece
 * values".
 */
#ifndef CAPA_STATS_DESIGN_H
#define CAPA_STATS_DESIGN_H

#include <stddef.h>
#include <stdint.h>

enum { STATS_P, STATS_N, STATS_B, STATS_R, STATS_A, STATS_C, STATS_Q, STATS_PIECE_NB };

/* Covariates of the start position (side under test minus the other side):
 * start pawns that no piece protects (pairs.unprotected, sql/005) and pawns
 * missing from the king's file and the files beside it beyond chance
 * (pairs.shelter, sql/006). */
enum { STATS_COV_UNPROT, STATS_COV_SHELTER, STATS_COV_NB };

#define STATS_COEF_COV (STATS_PIECE_NB + 1)              /* the first covariate's column */
#define STATS_COEF_NB (STATS_PIECE_NB + 1 + STATS_COV_NB) /* White's edge + pieces + covariates */
#define STATS_NOTE_MAX 256                 /* bytes of one sentence */
#define STATS_CONTRAST_MAX 32              /* contrasts a report lists at most */

/* Piece letters in the order above: "PNBRACQ"; '?' out of range. */
char stats_piece_letter(int piece);

typedef struct {
    int m;                          /* columns kept: a basis of the design */
    int full[STATS_COEF_NB];        /* kept column -> full index */
    int col[STATS_COEF_NB];         /* full index -> kept column, or -1 */
    int active[STATS_PIECE_NB];     /* the piece differs in some game */
    int covariate[STATS_COV_NB];    /* 1: covariate k varies and is kept (the covariates'
                                     * columns come last); 0: absent, or no different from
                                     * a combination of the columns before it, so left out
                                     * of the model (no null direction is recorded) */
    int covariate_confounded[STATS_COV_NB]; /* 1: it varies but the columns before explain it */
    int n_null;                     /* dimension of the null space */
    double null[STATS_COEF_NB][STATS_COEF_NB]; /* its basis, full coordinates */
} stats_design_t;

/* Small symmetric positive-definite matrices (m <= STATS_COEF_NB).
 * stats_cholesky: the lower factor L of a; 0, or -(j + 1) when column j's
 * pivot is not clearly positive (relative to its diagonal). */
int stats_cholesky(const double a[STATS_COEF_NB][STATS_COEF_NB], int m, double l[STATS_COEF_NB][STATS_COEF_NB]);

/* Solves L L' x = b. */
void stats_chol_solve(const double l[STATS_COEF_NB][STATS_COEF_NB], int m, const double *b, double *x);

/* The sandwich V = f H^-1 B H^-1; 0, or -1 when H is not positive definite. */
int stats_sandwich(const double h[STATS_COEF_NB][STATS_COEF_NB], const double b[STATS_COEF_NB][STATS_COEF_NB],
                   int m, double f, double v[STATS_COEF_NB][STATS_COEF_NB]);

/* Accumulates one design row (White's view) into the Gram matrix g; cov
 * holds the covariates (side under test minus the other side; NULL: none). */
void stats_design_add(double g[STATS_COEF_NB][STATS_COEF_NB], const int8_t diff[STATS_PIECE_NB],
                      const double cov[STATS_COV_NB], int test_white, double weight);

/* Analyses a Gram matrix: keeps a basis of columns (White's edge first, then
 * the pieces in P N B R A C Q order, then the covariates) and records one
 * null direction per piece column left out. Errors (CAPA_EINVAL with a sentence): no game at all, no
 * piece ever differs (nothing can be estimated), or White's edge cannot be
 * told from the material (the side under test always had the same colour). */
int stats_design_analyse(const double g[STATS_COEF_NB][STATS_COEF_NB], stats_design_t *d, char *err,
                         size_t errlen);

/* 1 when c (full coordinates) is estimable. */
int stats_design_estimable(const stats_design_t *d, const double c[STATS_COEF_NB]);

/* 1 when piece p's own effect (in logit) is estimable. */
int stats_design_piece_estimable(const stats_design_t *d, int piece);

/* One sentence per null direction saying which pieces the design cannot
 * separate, how they always appear, and a combination it does value, e.g.
 * "in every imbalance R = N + B: R, N and B are not valued one by one,
 * only together (such as R + N)". Returns the number written (<= max). */
int stats_design_explain(const stats_design_t *d, char notes[][STATS_NOTE_MAX], int max);

typedef struct {
    char name[24];                  /* "A-C", "Q-A", ... */
    double coef[STATS_COEF_NB];     /* full coordinates */
    int estimable;
} stats_contrast_def_t;

/* The contrasts a report lists: A-C, Q-A, Q-C first (whenever both pieces
 * take part, estimable or not), then every other estimable difference of
 * two non-pawn pieces that take part, the stronger piece first. Returns how
 * many (<= max). */
int stats_design_contrasts(const stats_design_t *d, stats_contrast_def_t *out, int max);

/* Fieller's 95%-type interval for the ratio a / b of two jointly normal
 * estimates with variances vaa, vbb and covariance vab, at the normal
 * quantile z: the set of r with (a - r b)^2 <= z^2 (vaa - 2 r vab + r^2 vbb).
 * Returns 0 with [*lo, *hi] when b is significantly non-zero (b^2 > z^2 vbb),
 * else -1 (the set is unbounded). */
int stats_fieller(double a, double b, double vaa, double vab, double vbb, double z, double *lo,
                  double *hi);

#endif
