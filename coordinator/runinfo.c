/* runinfo.c - a run's shape from its document (see runinfo.h). */
#include "runinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "params.h"
#include "rundoc.h"
#include "types.h"

int runinfo_from_doc(const char *doc_json, const char *book_dir, unsigned flags, runinfo_t **out,
                     char *err, size_t errlen)
{
    *out = NULL;
    rundoc_t *doc = NULL;
    int rc = rundoc_parse(doc_json, strlen(doc_json),
                          (flags & RUNINFO_READ_ONLY) ? NULL : params_check_cb, NULL, &doc, err,
                          errlen);
    if (rc < 0)
        return rc;
    return runinfo_from_rundoc(&doc, book_dir, flags, out, err, errlen);
}

int runinfo_from_rundoc(rundoc_t **doc_p, const char *book_dir, unsigned flags, runinfo_t **out,
                        char *err, size_t errlen)
{
    *out = NULL;
    rundoc_t *doc = *doc_p;
    *doc_p = NULL;
    runinfo_t *ri = calloc(1, sizeof *ri);
    if (!ri) {
        rundoc_destroy(&doc);
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    }
    ri->doc = doc;
    ri->pairs_planned = rundoc_total_pairs(doc);
    ri->a = ri->b = &doc->params;
    int rc = 0;
    switch (doc->kind) {
    case PROTO_KIND_SPRT:
        ri->a = &doc->a;
        ri->b = &doc->b;
        stats_sprt_params_default(&ri->sprt);
        ri->sprt.elo0 = doc->elo0;
        ri->sprt.elo1 = doc->elo1;
        ri->sprt.alpha = doc->alpha;
        ri->sprt.beta = doc->beta;
        ri->sprt.model = doc->model == RUNDOC_ELO_LOGISTIC ? STATS_MODEL_LOGISTIC
                                                           : STATS_MODEL_NORMALIZED;
        rc = stats_sprt_params_check(&ri->sprt, err, errlen);
        break;
    case PROTO_KIND_VALUES:
        ri->a = &doc->set_a;
        ri->b = &doc->set_b;
        if (doc->imbalance_count > STARTPOS_IMB_MAX)
            rc = capa_fail(err, errlen, CAPA_ERANGE, "imbalances: at most %d", STARTPOS_IMB_MAX);
        for (size_t i = 0; rc == 0 && i < doc->imbalance_count; i++) {
            startpos_imbalance_t *im = &ri->imbalances[i];
            snprintf(im->label, sizeof im->label, "%s", doc->imbalances[i].name);
            snprintf(im->side, sizeof im->side, "%s", doc->imbalances[i].side);
            snprintf(im->other, sizeof im->other, "%s", doc->imbalances[i].other);
            im->pairs = doc->imbalances[i].pairs > 0 ? doc->imbalances[i].pairs
                                                     : doc->pairs_per_imbalance;
        }
        ri->imbalance_count = doc->imbalance_count;
        break;
    case PROTO_KIND_SPSA:
        /* The fixed rest of the parameters is the engine default; the tuned
         * ones are set per task (A = minus, B = plus). */
        if (doc->spsa_count > STATS_SPSA_MAX_PARAMS)
            rc = capa_fail(err, errlen, CAPA_ERANGE, "params: at most %d", STATS_SPSA_MAX_PARAMS);
        for (size_t i = 0; rc == 0 && i < doc->spsa_count; i++) {
            stats_spsa_param_t *p = &ri->spsa_params[i];
            snprintf(p->name, sizeof p->name, "%s", doc->spsa[i].name);
            p->start = doc->spsa[i].start;
            p->min = doc->spsa[i].min;
            p->max = doc->spsa[i].max;
            p->c_end = doc->spsa[i].c_end;
            p->r_end = doc->spsa[i].r_end;
        }
        ri->spsa.n_params = (int) doc->spsa_count;
        ri->spsa.params = ri->spsa_params;
        ri->spsa.iterations = doc->iterations;
        ri->spsa.A_ratio = doc->iterations > 0 ? doc->spsa_a / (double) doc->iterations : -1;
        ri->spsa.alpha = doc->spsa_alpha;
        ri->spsa.gamma = doc->spsa_gamma;
        break;
    }
    /* Start positions. */
    variant_t v = VARIANT_CAPARANDOM;
    if (rc == 0 && variant_from_name(doc->variant, &v) < 0)
        rc = capa_fail(err, errlen, CAPA_EINVAL, "variant: unknown \"%s\"", doc->variant);
    startpos_spec_t *sp = &ri->spec;
    sp->variant = (int) v;
    sp->random_plies = doc->positions.random_plies;
    sp->seed = (uint64_t) doc->seed;
    if (rc == 0) {
        switch (doc->positions.source) {
        case RUNDOC_POS_CRC:
            sp->source = STARTPOS_CRC;
            break;
        case RUNDOC_POS_VARIANT_START:
            sp->source = STARTPOS_VARIANT;
            break;
        case RUNDOC_POS_BOOK: {
            sp->source = STARTPOS_BOOK;
            if (flags & RUNINFO_READ_ONLY)
                break;
            char path[2 * RUNDOC_PATH_MAX + 8];
            snprintf(path, sizeof path, "%s%s%s", book_dir ? book_dir : "", book_dir ? "/" : "",
                     doc->positions.file);
            rc = startpos_book_load(path, doc->positions.sha256, &ri->book, &ri->book_count, err,
                                    errlen);
            sp->book = (const char *const *) ri->book;
            sp->book_count = ri->book_count;
            break;
        }
        }
    }
    if (rc == 0 && ri->imbalance_count) {
        sp->imbalances = ri->imbalances;
        sp->imbalance_count = ri->imbalance_count;
        if (sp->source != STARTPOS_CRC)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "values runs need positions.source \"crc\"");
        sp->random_plies = 0;
    }
    /* Every imbalance must be playable from an array (e.g. "RRR" is not). */
    for (size_t i = 0; rc == 0 && i < ri->imbalance_count; i++) {
        startpos_t probe;
        size_t which;
        int64_t round;
        for (int64_t k = 0; k < (int64_t) (4 * ri->imbalance_count) && rc == 0; k++)
            if (startpos_imbalance_of(sp, k, &which, &round) == 0 && which == i)
                rc = startpos_for_pair(sp, k, &probe, err, errlen);
    }
    if (rc == 0 && ri->pairs_planned < 1)
        rc = capa_fail(err, errlen, CAPA_ERANGE, "the run plans no pairs");
    if (rc < 0) {
        runinfo_destroy(&ri);
        return rc;
    }
    *out = ri;
    return 0;
}

void runinfo_destroy(runinfo_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    runinfo_t *ri = *self_p;
    rundoc_destroy(&ri->doc);
    startpos_book_free(&ri->book, ri->book_count);
    free(ri);
    *self_p = NULL;
}

int runinfo_start(const runinfo_t *self, int64_t k, startpos_t *out, char *err, size_t errlen)
{
    return startpos_for_pair(&self->spec, k, out, err, errlen);
}
