/* stats_counts.c - counting match results and checking that reports agree. */
#include "stats_counts.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "err.h"

int64_t stats_counts_pairs(const stats_counts_t *c)
{
    int64_t n = 0;
    for (int i = 0; i < 5; i++)
        n += c->penta[i];
    return n;
}

int64_t stats_counts_games(const stats_counts_t *c)
{
    return c->wins + c->draws + c->losses;
}

int stats_counts_check(const stats_counts_t *c, char *err, size_t errlen)
{
    static const char *const NAMES[5] = { "0", "1/4", "1/2", "3/4", "1" };
    for (int i = 0; i < 5; i++)
        if (c->penta[i] < 0 || c->penta[i] > STATS_COUNT_MAX)
            return capa_fail(err, errlen, CAPA_ERANGE,
                             "pentanomial count of %s pairs is %lld, outside 0..2^50",
                             NAMES[i], (long long) c->penta[i]);
    const int64_t g[3] = { c->wins, c->draws, c->losses };
    static const char *const GNAMES[3] = { "wins", "draws", "losses" };
    for (int i = 0; i < 3; i++)
        if (g[i] < 0 || g[i] > STATS_COUNT_MAX)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s count is %lld, outside 0..2^50",
                             GNAMES[i], (long long) g[i]);
    int64_t pairs = stats_counts_pairs(c);
    int64_t games = stats_counts_games(c);
    if (pairs == 0 || games == 0)
        return 0; /* only one kind given (or none): nothing to compare */
    const int64_t *n = c->penta;
    if (games != 2 * pairs)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "W+D+L = %lld games but the pentanomial counts hold %lld pairs (%lld games)",
                         (long long) games, (long long) pairs, (long long) (2 * pairs));
    int64_t net = -2 * n[0] - n[1] + n[3] + 2 * n[4];
    if (c->wins - c->losses != net)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "W-L = %lld but the pentanomial counts imply W-L = %lld",
                         (long long) (c->wins - c->losses), (long long) net);
    int64_t dmin = n[1] + n[3], dmax = n[1] + n[3] + 2 * n[2];
    if (c->draws < dmin || c->draws > dmax)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "D = %lld but the pentanomial counts allow only %lld..%lld draws",
                         (long long) c->draws, (long long) dmin, (long long) dmax);
    /* D - n1 - n3 is then even by itself: W + D + L = 2N and the W - L rule
     * give D = n1 + n3 (mod 2). */
    return 0;
}

int stats_counts_add_pair(stats_counts_t *c, int game1, int game2)
{
    if (game1 < 0 || game1 > 2 || game2 < 0 || game2 > 2)
        return CAPA_EINVAL;
    c->penta[game1 + game2]++;
    const int g[2] = { game1, game2 };
    for (int i = 0; i < 2; i++) {
        if (g[i] == 2)
            c->wins++;
        else if (g[i] == 1)
            c->draws++;
        else
            c->losses++;
    }
    return 0;
}

int stats_counts_parse(const char *text, int n, int64_t *out, char *err, size_t errlen)
{
    if (!text)
        return capa_fail(err, errlen, CAPA_EINVAL, "no counts given");
    const char *p = text;
    for (int i = 0; i < n; i++) {
        while (isspace((unsigned char) *p))
            p++;
        if (!isdigit((unsigned char) *p))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "count %d of %d in \"%s\" is not a non-negative integer", i + 1, n, text);
        errno = 0;
        char *end;
        long long v = strtoll(p, &end, 10);
        if (errno == ERANGE || v > STATS_COUNT_MAX)
            return capa_fail(err, errlen, CAPA_ERANGE, "count %d in \"%s\" is too large", i + 1, text);
        out[i] = v;
        p = end;
        while (isspace((unsigned char) *p))
            p++;
        if (i < n - 1) {
            if (*p != ',')
                return capa_fail(err, errlen, CAPA_EINVAL, "expected %d comma-separated counts in \"%s\"",
                                 n, text);
            p++;
        }
    }
    if (*p != '\0')
        return capa_fail(err, errlen, CAPA_EINVAL, "expected %d comma-separated counts in \"%s\"", n, text);
    return 0;
}
