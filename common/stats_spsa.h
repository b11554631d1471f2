/* stats_spsa.h - fishtest-style SPSA for named engine parameters.
 *
 * Each iteration is one game pair: theta + c_k delta plays theta - c_k delta
 * with delta a vector of random signs. Gains, per parameter i, as fishtest
 * derives them from the planned number of iterations N:
 *   c_i = c_end_i N^gamma,       c_k = c_i / k^gamma
 *   a_i = r_end_i c_end_i^2 (A + N)^alpha,   a_k = a_i / (A + k)^alpha
 * with A = A_ratio N. A batch of n pairs played with one perturbation and
 * scoring (wins - losses) for the plus side moves
 *   theta_i += delta_i (wins - losses) / (n c_i,k) * sum_{j=1..n} a_i,(k0 + j)
 * (k0 = iterations already done), then clips to [min, max]; for n = 1 that
 * is fishtest's theta += R c (wins - losses) delta with R = a_k / c_k^2.
 * docs/methods.md, "SPSA", explains the batch formula.
 *
 * The object owns its parameters and history; state round-trips through
 * JSON exactly (cJSON prints doubles with 17 significant digits).
 */
#ifndef CAPA_STATS_SPSA_H
#define CAPA_STATS_SPSA_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define STATS_SPSA_MAX_PARAMS 128
#define STATS_SPSA_NAME_MAX 64

typedef struct {
    char name[STATS_SPSA_NAME_MAX]; /* unique, non-empty */
    double start, min, max;         /* min < max, start within */
    double c_end, r_end;            /* final perturbation and learning rate, > 0 */
} stats_spsa_param_t;

typedef struct {
    int n_params;
    const stats_spsa_param_t *params;
    int64_t iterations;   /* planned iterations (pairs), >= 1 */
    double A_ratio;       /* A = A_ratio * iterations; 0.1 if negative */
    double alpha, gamma;  /* 0.602 and 0.101 when 0 */
} stats_spsa_config_t;

typedef struct stats_spsa stats_spsa_t;

/* One perturbation handed out for a batch of pairs. */
typedef struct {
    int64_t iter;   /* iterations done when it was proposed; k = iter + 1 */
    int n;
    int8_t sign[STATS_SPSA_MAX_PARAMS];
    double c[STATS_SPSA_MAX_PARAMS];     /* c_k of each parameter */
    double plus[STATS_SPSA_MAX_PARAMS];  /* theta + c delta, clipped to bounds */
    double minus[STATS_SPSA_MAX_PARAMS]; /* theta - c delta, clipped */
} stats_spsa_step_t;

/* A new run at theta = start; NULL with a message on bad configuration.
 * The caller owns the result (stats_spsa_destroy). */
stats_spsa_t *stats_spsa_new(const stats_spsa_config_t *cfg, char *err, size_t errlen);
void stats_spsa_destroy(stats_spsa_t **self_p);

int stats_spsa_size(const stats_spsa_t *self);
/* The parameter's definition (owned by self). */
const stats_spsa_param_t *stats_spsa_param(const stats_spsa_t *self, int i);
double stats_spsa_theta(const stats_spsa_t *self, int i);
int64_t stats_spsa_iter(const stats_spsa_t *self);
double stats_spsa_A(const stats_spsa_t *self);
/* c_k and a_k of parameter i at iteration k >= 1. */
double stats_spsa_c_k(const stats_spsa_t *self, int i, int64_t k);
double stats_spsa_a_k(const stats_spsa_t *self, int i, int64_t k);

/* The perturbation for the next batch from caller-drawn signs (+1 or -1 per
 * parameter, e.g. stats_rng_sign from a per-iteration seed). */
int stats_spsa_propose(const stats_spsa_t *self, const int8_t *signs, stats_spsa_step_t *step,
                       char *err, size_t errlen);

/* Applies a batch's result: `pairs` pairs played with `step`, wins and
 * losses counted in games from the plus side's view. Advances the
 * iteration count by `pairs` and appends theta to the history. */
int stats_spsa_update(stats_spsa_t *self, const stats_spsa_step_t *step, int64_t pairs,
                      int64_t wins, int64_t losses, char *err, size_t errlen);

/* History: entry h (0 = the start) holds the iteration count and theta. */
int stats_spsa_history_size(const stats_spsa_t *self);
int64_t stats_spsa_history_iter(const stats_spsa_t *self, int h);
double stats_spsa_history_theta(const stats_spsa_t *self, int h, int i);

/* The whole state as JSON; the caller owns it (cJSON_Delete); NULL when
 * memory runs out. */
cJSON *stats_spsa_to_json(const stats_spsa_t *self);

/* Rebuilds a run from stats_spsa_to_json's output; NULL with a message when
 * a field is missing, mistyped or out of range. The caller owns the result. */
stats_spsa_t *stats_spsa_from_json(const cJSON *json, char *err, size_t errlen);

#endif
