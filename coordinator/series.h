/* series.h - study series: an ordered list of ordinary values runs made
 * from one document (docs/api.md "Study series", docs/methods.md).
 *
 *   ladder   {"ladder": {"nodes": [20000, 80000, 320000]}}: one run per rung,
 *            the same seed (the same start arrays pair by pair), nodes per
 *            move = the rung; played one after another, cheapest first.
 *   iterate  {"iterate": {"pieces": ["A", "C"], "max_rounds": 4}}: round 1
 *            plays the document's params; each next round plays the engine
 *            with the iterated pieces' values set to the values the
 *            previous round measured, in the engine's centipawns (Mg =
 *            measured pawns x the PawnValueMg the round played; Eg keeps
 *            the piece's Eg / Mg ratio of that round), until every iterated
 *            piece moved by less than its interval's half-width or
 *            max_rounds.
 *
 * A series' runs are made one at a time: step 0 at submit, step k + 1 when
 * step k's run has finished (series_advance_due, from the coordinator's
 * refresh). Each step is created once: its run and its link go in together
 * and the link's key is (series, step), so a coordinator killed around a
 * run's end makes the next run when it is back, and never a second one.
 */
#ifndef CAPA_COORD_SERIES_H
#define CAPA_COORD_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "rundoc.h"
#include "store.h"

/* Stores a checked series document (doc->series set, seed drawn; canon its
 * canonical JSON) as a running series with its first run. *run_id and
 * *series_id (each may be NULL) get the new ids. 0 or a negative
 * capa_err_t with err filled. */
int series_submit(store_t *store, const rundoc_t *doc, const char *canon, int64_t submitted_by,
                  int64_t *run_id, int64_t *series_id, char *err, size_t errlen);

/* Moves one series on if its last run has ended: makes the next step's run,
 * or ends the series (every rung played, converged, max_rounds, or failed
 * with the reason). Returns 1 when a run was made, 0 when nothing was to do
 * or the series ended, negative on a store failure (tried again later).
 * Never fails on what the series holds: a bad document ends it as failed. */
int series_advance(store_t *store, int64_t series_id);
/* series_advance for every series whose last run has ended; the number of
 * runs made, or negative when the store cannot be read. */
int series_advance_due(store_t *store);

/* The series report (docs/api.md "GET /api/series/ID"): every step with
 * its run, nodes or params, and its fit's contrasts and values with 95%
 * intervals, from the runs' stored estimates (no refit); "convergence" for
 * the last two steps with a fit; "result" why it ended. 0 and *out (caller
 * deletes), CAPA_ENOTFOUND, or another negative capa_err_t with err. */
int series_report_build(store_t *store, int64_t series_id, cJSON **out, char *err,
                        size_t errlen);
/* The series list: {"series": [{id, name, kind, status, steps_planned,
 * created_at_ms, finished_at_ms}]}, newest first. */
int series_list_build(store_t *store, cJSON **out, char *err, size_t errlen);

#endif
