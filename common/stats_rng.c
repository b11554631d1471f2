/* stats_rng.c - xoshiro256** (Blackman and Vigna) seeded by splitmix64. */
#include "stats_rng.h"

#include <math.h>

static uint64_t s_splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t s_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

void stats_rng_seed(stats_rng_t *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        rng->s[i] = s_splitmix(&x);
}

uint64_t stats_rng_next(stats_rng_t *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = s_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = s_rotl(s[3], 45);
    return result;
}

double stats_rng_uniform(stats_rng_t *rng)
{
    return (double) (stats_rng_next(rng) >> 11) * 0x1.0p-53;
}

double stats_rng_normal(stats_rng_t *rng)
{
    for (;;) {
        double u = 2.0 * stats_rng_uniform(rng) - 1.0;
        double v = 2.0 * stats_rng_uniform(rng) - 1.0;
        double q = u * u + v * v;
        if (q > 0.0 && q < 1.0)
            return u * sqrt(-2.0 * log(q) / q);
    }
}

int stats_rng_pick(stats_rng_t *rng, const double *p, int n)
{
    double total = 0.0;
    for (int i = 0; i < n; i++)
        total += p[i] > 0.0 ? p[i] : 0.0;
    double u = stats_rng_uniform(rng) * total;
    for (int i = 0; i < n; i++) {
        double q = p[i] > 0.0 ? p[i] : 0.0;
        if (u < q)
            return i;
        u -= q;
    }
    /* Rounding (or an empty distribution): the last index with weight. */
    for (int i = n - 1; i > 0; i--)
        if (p[i] > 0.0)
            return i;
    return n - 1;
}

int stats_rng_sign(stats_rng_t *rng)
{
    return (stats_rng_next(rng) >> 63) ? 1 : -1;
}
