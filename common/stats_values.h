/* stats_values.h - piece values from material-imbalance games.
 *
 * Every game has a material difference (side under test minus the other
 * side, per piece type P N B R A C Q), the side under test's colour, its
 * score and the pair it belongs to. The model, fitted to all games at once
 * by maximum likelihood (draws count as half points, quasi-binomial):
 *
 *   P(White scores) = logistic(w + sum_i beta_i * x_i + sum_k gamma_k * u_k)
 *
 * with x the difference from White's view, beta_i the logit effect of piece
 * i, w White's edge and gamma_k the logit effect of covariate k of the start
 * (u_k: how many more the side under test had, from White's view): one more
 * unprotected start pawn, one more pawn missing from the king's shelter.
 * A covariate is left out where no game has any or the columns before it
 * explain it. A design need not separate every piece: the fit
 * keeps a basis of its columns (stats_design.h) and reports what the
 * imbalances determine, in this order:
 *   1. contrasts (A-C, Q-A, Q-C, then other differences of two pieces) in
 *      logit and Elo, with Wald intervals, and in pawns (ratios to the pawn's
 *      effect, Fieller intervals) where the pawn is determined;
 *   2. each piece's value in pawns, v_i = beta_i / beta_P (Fieller), where
 *      the piece and the pawn are separately determined and the pawn's
 *      effect is significantly above zero ("scaled"); in Elo where the piece
 *      alone is determined;
 *   3. a sentence per combination the design cannot separate;
 *   4. the raw score of each imbalance (split by stratum, e.g. the file of a
 *      removed pawn) against the model's prediction, and a lack-of-fit
 *      chi-squared over those rows.
 * Covariances are cluster-robust (sandwich): with rounds (stats_rounds_t)
 * the clusters are the rounds of a values run, whose pairs of every
 * imbalance share one start array; otherwise the pairs. With rounds the
 * pair-clustered contrasts and values are kept beside for comparison.
 * Method and sources: docs/methods.md, "Piece values".
 */
#ifndef CAPA_STATS_VALUES_H
#define CAPA_STATS_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "stats_design.h"

#define STATS_DIFF_MAX 16 /* |difference| per piece type accepted */
#define STATS_UNIT_MAX 512 /* bytes of the unit's sentence */

typedef struct {
    int8_t diff[STATS_PIECE_NB]; /* side under test minus the other side */
    int8_t test_white;           /* 1: the side under test had White */
    int8_t stratum;              /* 0, or a label that splits the imbalance's raw
                                  * scores: 1..10 = file a..j of the removed pawn */
    double cov[STATS_COV_NB];    /* covariates of the start, the side under test's
                                  * minus the other side's: [STATS_COV_UNPROT] start
                                  * pawns no piece protects, [STATS_COV_SHELTER] pawns
                                  * missing from the king's file and its neighbours
                                  * beyond chance (0 on average: startpos_shelter) */
    double score;                /* 0, 0.5 or 1 for the side under test */
    int64_t pair;                /* the two games of a pair share this id */
    int64_t count;               /* identical pairs this record stands for (0 = 1):
                                  * a pair-level summary fits exactly as the games */
} stats_game_t;

/* Rounds as clusters, given as sums that do not grow with the number of
 * pairs. Pairs are grouped into classes (an imbalance); for round r and
 * class j let N_rj be its pairs, A_rj White's points and S_rj the side under
 * test's points in their games (a pair holds one game per colour). Then a
 * round's score sum is s_r = sum_j (A_rj u + S_rj v_j - N_rj c_j) with
 * vectors that depend on the fit only through the class, so the meat
 * sum_r s_r s_r' needs only the moments sum_r X_rj Y_rl (X, Y in N, A, S)
 * of every ordered pair of classes (j, l) that meet in a round (j = l too). */
enum { STATS_MOM_N, STATS_MOM_A, STATS_MOM_S, STATS_MOM_NB };

typedef struct {
    int8_t diff[STATS_PIECE_NB]; /* the class's imbalance (side under test) */
    double cov[STATS_COV_NB];    /* and its covariates (as in the games) */
} stats_class_t;

typedef struct {
    int32_t j, l;                           /* classes (indices) */
    double m[STATS_MOM_NB][STATS_MOM_NB];   /* m[x][y] = sum over rounds of X_rj Y_rl */
} stats_moment_t;

typedef struct {
    const stats_class_t *classes;
    size_t n_classes;
    const stats_moment_t *moments;
    size_t n_moments;
    int64_t rounds;                         /* clusters: rounds with a counted pair */
} stats_rounds_t;

typedef struct {
    int estimated;             /* 1: value in pawns given (pawn: fixed at 1) */
    double value, se, lo, hi;  /* pawns; se by the delta method, [lo, hi] Fieller 95% */
    int identified;            /* 1: the piece's own effect is determined */
    double elo, elo_lo, elo_hi;/* that effect in logistic Elo, 95% (Wald) */
} stats_piece_value_t;

typedef struct {
    char name[24];                      /* "A-C": value of A minus value of C */
    int estimable;                      /* 0: the design cannot tell (figures 0) */
    double logit, logit_lo, logit_hi;   /* 95% (Wald) */
    double elo, elo_lo, elo_hi;         /* the same in logistic Elo */
    int in_pawns;                       /* 1: pawns given (the fit is scaled) */
    double pawns, pawns_lo, pawns_hi;   /* ratio to the pawn, Fieller 95% */
} stats_contrast_t;

typedef struct {
    int8_t diff[STATS_PIECE_NB]; /* as in the games (side under test) */
    int8_t stratum;              /* as in the games */
    int64_t games, pairs;
    double score, score_lo, score_hi; /* side under test, pair-robust 95% */
    double elo, elo_lo, elo_hi;       /* logistic Elo of those scores */
    double predicted;                 /* the fitted model's mean expected score */
    double residual_z;                /* (score - predicted) / its standard error */
} stats_imbalance_t;

/* A covariate of the start: the logit effect of one more unprotected start
 * pawn (or one more pawn missing from the king's shelter) on the side under
 * test. The values and contrasts above it are adjusted for it; the
 * unadjusted ones (the same fit without this covariate, the others kept)
 * are kept for comparison. */
typedef struct {
    int fitted;                         /* 1: in the model */
    int confounded;                     /* 1: it varies, but always with the material
                                         * (not separable: left out, values unadjusted) */
    int dropped;                        /* 1: the fit with the covariates does not converge
                                         * (e.g. a small study that one of them separates),
                                         * so every figure is the fit without them */
    char why[160];                      /* dropped: the fit's reason */
    stats_contrast_t effect;            /* fitted: in logit and Elo (Wald 95%) and, as a
                                         * ratio to the pawn, in pawns (Fieller 95%) */
    double mean;                        /* mean over the games (side under test) */
    stats_contrast_t unadj_contrasts[STATS_CONTRAST_MAX]; /* fitted: the fit without it */
    stats_piece_value_t unadj_piece[STATS_PIECE_NB];
} stats_covariate_t;

/* The covariate's JSON key ("unprotected_pawns", "king_shelter"), and its
 * name in one effect ("unprotected pawn", "pawn missing from the king's
 * shelter"); NULL out of range. */
const char *stats_covariate_key(int k);
const char *stats_covariate_name(int k);

typedef struct {
    stats_contrast_t contrasts[STATS_CONTRAST_MAX];
    int n_contrasts;
    stats_piece_value_t piece[STATS_PIECE_NB];
    int pawn_identified;              /* 1: the pawn's own effect is determined */
    int scaled;                       /* 1: and significantly > 0: values in pawns given */
    double scale, scale_se;           /* k = beta_P: logit per pawn (0 if not identified) */
    double elo_per_pawn;              /* k * 400 / ln 10 */
    double white, white_lo, white_hi; /* w: White's edge in logit */
    double white_score;               /* logistic(w): White's score when level */
    int iterations;                   /* Newton steps taken */
    double loglik;                    /* quasi-log-likelihood at the fit */
    int64_t games, pairs;
    int by_round;                     /* 1: rounds are the clusters, else pairs */
    int64_t clusters;                 /* rounds or pairs */
    /* by_round: the same figures with pairs as clusters, for comparison */
    stats_contrast_t pair_contrasts[STATS_CONTRAST_MAX];
    stats_piece_value_t pair_piece[STATS_PIECE_NB];
    double pair_scale_se;
    int n_imbalances;
    stats_imbalance_t *imbalances;    /* owned by this struct, most games first */
    int n_notes;                      /* what the design cannot separate */
    char notes[STATS_PIECE_NB][STATS_NOTE_MAX];
    stats_covariate_t cov[STATS_COV_NB]; /* the covariates of the start */
    int lof_df;                       /* lack of fit over the imbalance rows: 0 = */
    double lof_chi2, lof_p;           /* no test (as many parameters as rows) */
} stats_values_t;

/* Fits the model to n games. On success *out is a new result the caller
 * owns (stats_values_destroy). Errors, each with a sentence in err:
 * CAPA_EINVAL (no games, a score other than 0/0.5/1, no imbalance that
 * changes the material, a side under test that always had one colour, or a
 * fit that does not converge, e.g. an imbalance won in every game),
 * CAPA_ERANGE (a difference beyond STATS_DIFF_MAX), CAPA_ENOMEM. */
int stats_values_fit(const stats_game_t *games, size_t n, stats_values_t **out,
                     char *err, size_t errlen);

/* As stats_values_fit with rounds as the clusters (rounds may be NULL:
 * pairs). More errors: CAPA_EINVAL for a moment naming a class out of
 * range, a moment that is not finite, or rounds < 1. */
int stats_values_fit_rounds(const stats_game_t *games, size_t n, const stats_rounds_t *rounds,
                            stats_values_t **out, char *err, size_t errlen);

void stats_values_destroy(stats_values_t **self_p);

/* One sentence on the scale: how sure it is, or why no values in pawns are
 * given. */
void stats_values_note(const stats_values_t *v, char *buf, size_t len);

/* One sentence defining the unit: what "one pawn" is in this study, with
 * the pawn-odds games per file of the missing pawn when the games record it. */
void stats_values_unit(const stats_values_t *v, char *buf, size_t len);

/* Human-readable tables (values, then imbalances) into buf; 0 or CAPA_EFULL. */
int stats_values_format(const stats_values_t *v, char *buf, size_t len);

/* The result as JSON; the caller owns it (cJSON_Delete); NULL on ENOMEM. */
cJSON *stats_values_to_json(const stats_values_t *v);

#endif
