/* stats_counts.h - the result counts of a match and their consistency checks.
 *
 * Games come in pairs (one start position, colours swapped). A pair scores
 * 0, 1/4, 1/2, 3/4 or 1 for the side under test: penta[0..4] count those
 * pairs (LL; LD/DL; WL/LW/DD; WD/DW; WW). wins/draws/losses count single
 * games from the side under test's view. A report may carry either kind or
 * both; when both are present they must agree (stats_counts_check).
 */
#ifndef CAPA_STATS_COUNTS_H
#define CAPA_STATS_COUNTS_H

#include <stddef.h>
#include <stdint.h>

/* Counts above this are refused (they stay exact in a double). */
#define STATS_COUNT_MAX ((int64_t) 1 << 50)

typedef struct {
    int64_t penta[5];
    int64_t wins, draws, losses;
} stats_counts_t;

/* Pairs counted in penta[] (0 if none). */
int64_t stats_counts_pairs(const stats_counts_t *c);

/* Games counted in wins + draws + losses (0 if none). */
int64_t stats_counts_games(const stats_counts_t *c);

/* Checks ranges (no negative count, none above STATS_COUNT_MAX) and, when
 * both kinds are present, that they describe the same games:
 *   W + D + L = 2 x pairs,
 *   W - L = -2 n0 - n1 + n3 + 2 n4,
 *   n1 + n3 <= D <= n1 + n3 + 2 n2 (D - n1 - n3 is then even by itself)
 * (a 1/2 pair is WL, LW or DD; 1/4 and 3/4 pairs hold exactly one draw).
 * Returns 0, or CAPA_ERANGE / CAPA_EINVAL with a sentence in err. All-zero
 * counts are valid (an empty match). */
int stats_counts_check(const stats_counts_t *c, char *err, size_t errlen);

/* Adds one pair from the two games' scores in half points (0 loss, 1 draw,
 * 2 win, side under test's view): updates penta and W/D/L. Returns
 * CAPA_EINVAL if a score is not 0, 1 or 2. */
int stats_counts_add_pair(stats_counts_t *c, int game1, int game2);

/* Parses n comma-separated non-negative integers ("10,20,30,20,10") into
 * out. Returns 0 or CAPA_EINVAL with a message naming the problem. */
int stats_counts_parse(const char *text, int n, int64_t *out, char *err, size_t errlen);

#endif
