/* admin.h - administration straight on the database: contributors and runs.
 * `capa-coordinator contributor ...` / `run ...` call these, and so will the
 * HTTP API. Each returns 0 or a negative capa_err_t with err filled.
 */
#ifndef CAPA_COORD_ADMIN_H
#define CAPA_COORD_ADMIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "coord.h"
#include "store.h"

/* Adds a contributor with a new token, written into token_out (at least
 * TOKEN_TEXT_MAX bytes): shown once, the database keeps only its hash.
 * CAPA_EDUP if the name exists. id_out may be NULL. */
int admin_contributor_add(store_t *store, const char *name, bool is_admin, char *token_out,
                          size_t cap, int64_t *id_out, char *err, size_t errlen);
/* Revokes by name; CAPA_ENOTFOUND if none. Workers of the contributor are
 * refused at their next message. */
int admin_contributor_revoke(store_t *store, const char *name, char *err, size_t errlen);
/* Looks a contributor up by name (fills *out). */
int admin_contributor_find(store_t *store, const char *name, store_contributor_t *out,
                           char *err, size_t errlen);

/* Validates a run document (rundoc + the engine's parameter table + the
 * start positions it asks for; for a values study, its plan: a design that
 * determines nothing is refused), draws a seed if it has none, stores its
 * canonical JSON as a pending run. The coordinator picks it up within its
 * refresh period. submitted_by 0 = nobody. With warnings non-NULL,
 * *warnings gets a new JSON array the caller owns (cJSON_Delete): one
 * sentence per combination of pieces a values study cannot separate (the
 * same sentences its report shows, since they follow from the document). */
int admin_run_submit(store_t *store, const char *json, size_t len, int64_t submitted_by,
                     int64_t *id_out, cJSON **warnings, char *err, size_t errlen);
/* The same for any document: a values document with "ladder" or "iterate"
 * becomes a study series (series.h) whose first run is stored now; then
 * *series_out (may be NULL) gets the series id (else 0) and *id_out the id
 * of its first run. */
int admin_submit(store_t *store, const char *json, size_t len, int64_t submitted_by,
                 int64_t *id_out, int64_t *series_out, cJSON **warnings, char *err, size_t errlen);
/* Stops a pending or running run (its leases are cancelled). */
int admin_run_stop(store_t *store, int64_t id, char *err, size_t errlen);
/* Puts a stopped run back to running: it plays on to its planned pairs (a
 * values run) or its bounds (an sprt run). Any other status is CAPA_ESTATE. */
int admin_run_resume(store_t *store, int64_t id, char *err, size_t errlen);

/* The subcommands: argv = {"contributor", "add", NAME, ...} etc. Prints
 * results to stdout, errors to stderr; returns the process exit status. */
int admin_main(const coord_config_t *cfg, int argc, char **argv);

#endif
