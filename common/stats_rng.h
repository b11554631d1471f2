/* stats_rng.h - a small seeded pseudo-random generator for simulations.
 *
 * xoshiro256** seeded through splitmix64: the same seed gives the same
 * stream on every machine, so simulations in tests, benchmarks and SPSA
 * perturbations are reproducible. The state is a plain value the caller
 * owns (no allocation, no globals); one generator per thread.
 */
#ifndef CAPA_STATS_RNG_H
#define CAPA_STATS_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} stats_rng_t;

/* Seeds the generator; any seed (including 0) gives a valid state. */
void stats_rng_seed(stats_rng_t *rng, uint64_t seed);

/* The next 64 random bits. */
uint64_t stats_rng_next(stats_rng_t *rng);

/* Uniform double in [0, 1) with 53 random bits. */
double stats_rng_uniform(stats_rng_t *rng);

/* Standard normal deviate (Marsaglia's polar method, no cached state). */
double stats_rng_normal(stats_rng_t *rng);

/* Index i with probability p[i] / sum(p) for i in [0, n); p[i] >= 0 and the
 * sum must be positive (otherwise returns n - 1). */
int stats_rng_pick(stats_rng_t *rng, const double *p, int n);

/* +1 or -1 with probability 1/2 each. */
int stats_rng_sign(stats_rng_t *rng);

#endif
