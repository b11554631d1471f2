/* report.h - a run's report as JSON (what `capa-coordinator run show`, the
 * HTTP API and the estimates table show), and a text rendering of it.
 *
 *   cJSON *rep = NULL;
 *   if (report_build(store, run_id, 0, &rep, err, sizeof err) == 0) {
 *       char *text = report_format(rep);    caller frees
 *       ...; free(text); cJSON_Delete(rep);  caller owns rep
 *   }
 *
 * Fields: id, name, kind, status, priority, seed, pairs_planned, created_at_ms,
 * started_at_ms, finished_at_ms, result (the stored verdict or null),
 * totals {pairs, penta[5], wins, draws, losses, cpu_ms}, and by kind:
 *   sprt:   "sprt": the stats_sprt_to_json report (W/D/L, pentanomial, Elo
 *           and nElo with 95% intervals, LOS, LLR with bounds, verdict)
 *   values: "imbalances": per imbalance {name, side, other, games, wins,
 *           draws, losses, score} (raw, B's view), and "values": the
 *           stats_values_to_json fit (piece values with 95% intervals), or
 *           "values_error" when the games cannot be fitted yet. Both come
 *           from the run's stored estimate, with "estimate": {pairs_used,
 *           computed_at_ms} (the coordinator fits once per change of the
 *           run's data, REPORT_FIT); before the first, the raw scores now
 *           and "values_error": "no estimate yet".
 *   spsa:   "spsa": {iteration, iterations, theta {name: value},
 *           history [{iteration, theta}] (at most the last 200 steps)}
 */
#ifndef CAPA_COORD_REPORT_H
#define CAPA_COORD_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "rundoc.h"
#include "stats_values.h"
#include "store.h"

/* Fit a values run's games now (the coordinator, when the run's data
 * changed) instead of reading its stored estimate. */
#define REPORT_FIT 1u

/* 0 and *out (caller deletes), CAPA_ENOTFOUND (no such run), CAPA_EDB, or
 * another negative capa_err_t, each with err filled. */
int report_build(store_t *store, int64_t run_id, unsigned flags, cJSON **out, char *err,
                 size_t errlen);

/* The games of a values run for stats_values_fit, read as pair kinds with
 * counts (store_pair_types: one record per kind of pair and game, count =
 * how many pairs): two records per kind, the kind's index as pair id. With
 * bucket_p, each record's slice of the pair numbers (buckets > 1) too. The
 * caller frees *games_p and *bucket_p. 0, CAPA_EDB or CAPA_ENOMEM. */
int report_values_games(store_t *store, int64_t run_id, const rundoc_t *doc, int buckets,
                        stats_game_t **games_p, int **bucket_p, size_t *n_out, char *err,
                        size_t errlen);

/* A multi-line text rendering of a report from report_build; malloc'ed
 * (caller frees); NULL on ENOMEM. */
char *report_format(const cJSON *report);

#endif
