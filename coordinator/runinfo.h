/* runinfo.h - a run's shape: the parsed run document (common/rundoc.h)
 * plus what follows from it (the start-position spec, the SPRT or SPSA
 * setup, the planned number of pairs). The loop, the report and the pages
 * read a run through it; submit validates a document by building one.
 */
#ifndef CAPA_COORD_RUNINFO_H
#define CAPA_COORD_RUNINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"
#include "rundoc.h"
#include "startpos.h"
#include "stats_spsa.h"
#include "stats_sprt.h"
#include "store.h"

typedef struct {
    rundoc_t *doc;                       /* owned: the parsed document (kind, name, seed,
                                            game, priority, ...: read them there) */
    int64_t pairs_planned;               /* rundoc_total_pairs(doc) */
    const proto_params_t *a, *b;         /* in doc: sprt a and b; values set_a and set_b
                                            (params with the per-side sets on top); spsa
                                            params (it sets the tuned ones per task) */
    startpos_imbalance_t imbalances[STARTPOS_IMB_MAX];   /* doc's, as startpos wants them */
    size_t imbalance_count;
    char **book;                         /* owned book lines (RUNINFO_READ_ONLY: none) */
    size_t book_count;
    startpos_spec_t spec;                /* points into this struct */
    stats_sprt_params_t sprt;            /* sprt runs */
    stats_spsa_param_t spsa_params[STATS_SPSA_MAX_PARAMS];
    stats_spsa_config_t spsa;            /* spsa runs; .params points into this struct */
} runinfo_t;

/* Reading a stored run for its report or page: the book file is left
 * unread and parameter names are not checked against this engine's table
 * (they were at submit; a later engine may have renamed one). */
#define RUNINFO_READ_ONLY 1u

/* Parses a run document (JSON text) with the engine's parameter table
 * (unless RUNINFO_READ_ONLY): the one place a stored document becomes the run's shape. book_dir
 * resolves a relative book file name (NULL = the current folder). Caller
 * owns *out (runinfo_destroy). 0 or CAPA_EINVAL / CAPA_ERANGE / CAPA_EIO
 * with a message naming the field. */
int runinfo_from_doc(const char *doc_json, const char *book_dir, unsigned flags, runinfo_t **out,
                     char *err, size_t errlen);
/* As runinfo_from_doc from a parsed document, which it takes over (*doc_p
 * is NULL afterwards, also on failure). */
int runinfo_from_rundoc(rundoc_t **doc_p, const char *book_dir, unsigned flags, runinfo_t **out,
                        char *err, size_t errlen);
void runinfo_destroy(runinfo_t **self_p);

/* The start of pair k of this run. */
int runinfo_start(const runinfo_t *self, int64_t k, startpos_t *out, char *err, size_t errlen);

#endif
