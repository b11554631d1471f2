/* runinfo.h - what the coordinator needs of a run document: the parameter
 * sets, the game settings, the start-position spec, the SPRT or SPSA setup
 * and the planned number of pairs. Built from the canonical document stored
 * in runs.doc (common/rundoc.h writes it; submit validates it there).
 */
#ifndef CAPA_COORD_RUNINFO_H
#define CAPA_COORD_RUNINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"
#include "startpos.h"
#include "stats_spsa.h"
#include "stats_sprt.h"
#include "store.h"

typedef struct {
    store_run_kind_t kind;
    char name[128];
    int priority;
    uint64_t seed;
    int64_t pairs_planned;
    proto_params_t a, b;                 /* owned */
    proto_game_t game;
    startpos_imbalance_t imbalances[STARTPOS_IMB_MAX];
    size_t imbalance_count;
    char **book;                         /* owned book lines */
    size_t book_count;
    startpos_spec_t spec;                /* points into this struct */
    stats_sprt_params_t sprt;            /* sprt runs */
    stats_spsa_param_t spsa_params[STATS_SPSA_MAX_PARAMS];
    stats_spsa_config_t spsa;            /* spsa runs; .params points into this struct */
} runinfo_t;

/* Parses a run document (JSON text). book_dir resolves a relative book file
 * name (NULL = the current folder). Caller owns *out (runinfo_destroy).
 * 0 or CAPA_EINVAL / CAPA_ERANGE / CAPA_EIO with a message naming the field. */
int runinfo_from_doc(const char *doc_json, const char *book_dir, runinfo_t **out, char *err,
                     size_t errlen);
void runinfo_destroy(runinfo_t **self_p);

/* The start of pair k of this run. */
int runinfo_start(const runinfo_t *self, int64_t k, startpos_t *out, char *err, size_t errlen);

#endif
