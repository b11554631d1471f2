/* stats_values.h - piece values from material-imbalance games.
 *
 * Every game has a material difference (side under test minus the other
 * side, per piece type P N B R A C Q), the side under test's colour, its
 * score and the pair it belongs to. The model, fitted to all games at once
 * by maximum likelihood (draws count as half points, quasi-binomial):
 *
 *   P(White scores) = logistic(w + k * sum_i v_i * x_i)
 *
 * with x the difference from White's view, v_P = 1 (values in pawns), k the
 * fitted logit per pawn and w White's edge. Internally beta_i = k v_i is
 * fitted (Newton-Raphson with step halving, at most 100 iterations) and
 * v_i = beta_i / beta_P. Intervals are 95% from a cluster-robust (sandwich)
 * covariance with pairs as clusters and the delta method for the ratios.
 * Pieces that never appear in an imbalance are reported as not estimated;
 * a study without pawns in any imbalance has no scale and is refused. While
 * the pawn's coefficient is not significantly above zero (its 95% interval
 * reaches 0, or it is negative) the ratios are unbounded: the fit succeeds
 * with scaled = 0, no piece estimated, and the imbalances' raw scores.
 * Method and sources: docs/methods.md, "Piece values".
 */
#ifndef CAPA_STATS_VALUES_H
#define CAPA_STATS_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

enum { STATS_P, STATS_N, STATS_B, STATS_R, STATS_A, STATS_C, STATS_Q, STATS_PIECE_NB };

/* Piece letters in the order above: "PNBRACQ". */
char stats_piece_letter(int piece);

#define STATS_DIFF_MAX 16 /* |difference| per piece type accepted */

typedef struct {
    int8_t diff[STATS_PIECE_NB]; /* side under test minus the other side */
    int8_t test_white;           /* 1: the side under test had White */
    double score;                /* 0, 0.5 or 1 for the side under test */
    int64_t pair;                /* the two games of a pair share this id */
    int64_t count;               /* identical pairs this record stands for (0 = 1):
                                  * a pair-level summary fits exactly as the games */
} stats_game_t;

typedef struct {
    int estimated;             /* 0: never in an imbalance (pawn: fixed at 1) */
    double value, se, lo, hi;  /* pawns, 95% interval */
} stats_piece_value_t;

typedef struct {
    int8_t diff[STATS_PIECE_NB]; /* as in the games (side under test) */
    int64_t games, pairs;
    double score, score_lo, score_hi; /* side under test, pair-robust 95% */
    double elo, elo_lo, elo_hi;       /* logistic Elo of those scores */
    double predicted;                 /* the fitted model's mean expected score */
} stats_imbalance_t;

typedef struct {
    stats_piece_value_t piece[STATS_PIECE_NB];
    int scaled;                       /* 1: k significantly > 0, values in pawns given */
    double scale, scale_se;           /* k: logit per pawn */
    double elo_per_pawn;              /* k * 400 / ln 10 */
    double white, white_lo, white_hi; /* w: White's edge in logit */
    double white_score;               /* logistic(w): White's score when level */
    int iterations;                   /* Newton steps taken */
    double loglik;                    /* quasi-log-likelihood at the fit */
    int64_t games, pairs;
    int n_imbalances;
    stats_imbalance_t *imbalances;    /* owned by this struct, most games first */
} stats_values_t;

/* Fits the model to n games. On success *out is a new result the caller
 * owns (stats_values_destroy). Errors, each with a sentence in err:
 * CAPA_EINVAL (no games, a score other than 0/0.5/1, no pawn in any
 * imbalance, pieces whose values the imbalances cannot separate, or a fit
 * that does not converge, e.g. an imbalance won in every game), CAPA_ERANGE
 * (a difference beyond STATS_DIFF_MAX), CAPA_ENOMEM. */
int stats_values_fit(const stats_game_t *games, size_t n, stats_values_t **out,
                     char *err, size_t errlen);

void stats_values_destroy(stats_values_t **self_p);

/* One sentence on the scale: how sure it is, or why no values are given. */
void stats_values_note(const stats_values_t *v, char *buf, size_t len);

/* Human-readable tables (values, then imbalances) into buf; 0 or CAPA_EFULL. */
int stats_values_format(const stats_values_t *v, char *buf, size_t len);

/* The result as JSON; the caller owns it (cJSON_Delete); NULL on ENOMEM. */
cJSON *stats_values_to_json(const stats_values_t *v);

#endif
