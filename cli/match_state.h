/* match_state.h - what a match has counted, kept in a small text file so
 * that a later run can go on from it (capa match --state FILE).
 *
 * A sequential test may be stopped and resumed, as fishtest resumes its
 * tests: the pairs are independent draws from the same start arrays' law
 * whatever the seed, so a run with a new seed that starts from the counts
 * of the earlier runs continues one SPRT. What the file keeps: the two
 * engines' names, the variant, the limit (nodes or clock), the SPRT (or
 * none), every seed played so far, and the counts (pairs, W/D/L,
 * pentanomial) from the second engine's view. The file is rewritten whole
 * (a temporary file renamed over it) after every status line and at the
 * end, so it always holds complete pairs.
 *
 * Format, one "key values" line each, in this order:
 *   capa-match-state 1
 *   engines BASELINE TEST
 *   variant caparandom
 *   limit nodes 20000            (or: limit tc 10000 100, in ms)
 *   sprt normalized 0 10 0.05 0.05   (or: sprt none)
 *   seeds 134 135
 *   counts PAIRS W D L P0 P1 P2 P3 P4
 */
#ifndef CAPA_CLI_MATCH_STATE_H
#define CAPA_CLI_MATCH_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "match.h"

#define MATCH_STATE_MAX_SEEDS 256

typedef struct match_state_s {
    char engine[2][64];
    variant_t variant;
    uint64_t nodes;                /* 0: a clock */
    int64_t tc_base_ms, tc_inc_ms;
    bool sprt;
    stats_sprt_params_t sprt_params;
    int nseeds;
    uint64_t seeds[MATCH_STATE_MAX_SEEDS];
    int64_t pairs;
    stats_counts_t counts;
} match_state_t;

/* The state of a new run of cfg: its conditions, its seed, no pairs. 0, or
 * -1 with a sentence in err when an engine's name cannot be written as the
 * one word a state file keeps (a blank or control character, or empty). */
int match_state_from_config(match_state_t *st, const match_config_t *cfg, char *err,
                            size_t errlen);

/* Reads path into st. 1 when it was read, 0 when there is no such file,
 * -1 with a sentence in err when it cannot be read or is not a consistent
 * state (a malformed line, counts that do not add up). */
int match_state_read(const char *path, match_state_t *st, char *err, size_t errlen);

/* Writes st to path whole (a temporary file in the same folder, then
 * renamed over path). 0, or -1 with a sentence in err. */
int match_state_write(const char *path, const match_state_t *st, char *err, size_t errlen);

/* Whether a run of cfg may go on from st: the same engines' names, variant,
 * limit and SPRT, a seed not played before, and an SPRT not already
 * decided. 0, or -1 with a sentence in err saying what differs. */
int match_state_check(const match_state_t *st, const match_config_t *cfg, char *err,
                      size_t errlen);

#endif
