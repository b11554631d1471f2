/* rundoc.c - parse, validate and print run documents (rundoc.h). */
#include "rundoc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "protocol_json.h"
#include "rundoc_int.h"

#define PARAM_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_."
#define BOOK_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/-"
#define HEX_CHARS "0123456789abcdef"
#define PIECE_LETTERS "QRBNACP"

static const char *const s_source_names[] = { "crc", "variant-start", "book" };
static const char *const s_model_names[] = { "normalized", "logistic" };

const char *rundoc_source_name(rundoc_source_t s)
{
    return (unsigned) s < 3 ? s_source_names[s] : NULL;
}

const char *rundoc_model_name(rundoc_model_t m)
{
    return (unsigned) m < 2 ? s_model_names[m] : NULL;
}

void rundoc_destroy(rundoc_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    rundoc_t *d = *self_p;
    proto_params_free(&d->a);
    proto_params_free(&d->b);
    proto_params_free(&d->params);
    proto_params_free(&d->params_side);
    proto_params_free(&d->params_other);
    proto_params_free(&d->set_a);
    proto_params_free(&d->set_b);
    free(d->imbalances);
    free(d->spsa);
    free(d);
    *self_p = NULL;
}

int64_t rundoc_total_pairs(const rundoc_t *doc)
{
    switch (doc->kind) {
    case PROTO_KIND_SPRT: return doc->max_pairs;
    case PROTO_KIND_SPSA: return doc->iterations;
    case PROTO_KIND_VALUES: {
        int64_t sum = 0;
        for (size_t i = 0; i < doc->imbalance_count; i++)
            sum += doc->imbalances[i].pairs;
        return sum;
    }
    }
    return 0;
}

/* A string field that must be one of names. */
static int s_choice(const cJSON *obj, const char *where, const char *key, bool required,
                    const char *const *names, size_t n, int *out, char *err, size_t errlen)
{
    char buf[32] = "", path[96];
    pjson_path(path, sizeof path, where, key);
    int rc = pjson_string(obj, where, key, required, 1, buf, sizeof buf, NULL, err, errlen);
    if (rc == CAPA_ERANGE)
        rc = capa_fail(err, errlen, CAPA_EINVAL, "%s: unknown value", path);
    if (rc || !*buf)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (strcmp(buf, names[i]) == 0) {
            *out = (int) i;
            return 0;
        }
    char list[160] = "";
    for (size_t i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    return capa_fail(err, errlen, CAPA_EINVAL, "%s: \"%s\" is not one of %s", path, buf, list);
}

static int s_check_params(const proto_params_t *p, const char *where, rundoc_check_param_fn cb,
                          void *ctx, char *err, size_t errlen)
{
    for (size_t i = 0; cb && i < p->count; i++) {
        char why[256] = "rejected";
        int rc = cb(p->items[i].name, p->items[i].value, why, sizeof why, ctx);
        if (rc)
            return capa_fail(err, errlen, rc < 0 ? rc : CAPA_EINVAL, "%s.%s: %s", where,
                             p->items[i].name, why);
    }
    return 0;
}

static int s_params(const cJSON *root, const char *key, bool required, proto_params_t *out,
                    rundoc_check_param_fn cb, void *ctx, char *err, size_t errlen)
{
    int rc;
    const cJSON *obj = pjson_object(root, "", key, required, &rc, err, errlen);
    TRY(rc);
    if (!obj)
        return 0;
    TRY(proto_params_from_json(obj, key, out, err, errlen));
    return s_check_params(out, key, cb, ctx, err, errlen);
}

static int s_positions(const cJSON *root, rundoc_t *d, char *err, size_t errlen)
{
    rundoc_positions_t *p = &d->positions;
    bool crc_ok = strcmp(d->variant, "caparandom") == 0;
    p->source = crc_ok ? RUNDOC_POS_CRC : RUNDOC_POS_VARIANT_START;
    int rc;
    const cJSON *obj = pjson_object(root, "", "positions", false, &rc, err, errlen);
    TRY(rc);
    if (obj) {
        static const char *const keys[] = { "source", "random_plies", "file", "sha256", NULL };
        TRY(pjson_only_keys(obj, "positions", keys, err, errlen));
        int s = 0;
        TRY(s_choice(obj, "positions", "source", true, s_source_names, 3, &s, err, errlen));
        p->source = (rundoc_source_t) s;
    }
    p->random_plies = p->source == RUNDOC_POS_VARIANT_START ? 8 : 0;
    if (!obj)
        return 0;
    TRY(pjson_int32(obj, "positions", "random_plies", false, 0, 40, &p->random_plies, err, errlen));
    if (p->source == RUNDOC_POS_CRC && !crc_ok)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "positions.source: crc needs variant caparandom, not %s", d->variant);
    bool book = p->source == RUNDOC_POS_BOOK;
    TRY(pjson_string(obj, "positions", "file", book, 1, p->file, sizeof p->file, BOOK_CHARS, err, errlen));
    TRY(pjson_string(obj, "positions", "sha256", book, 64, p->sha256, sizeof p->sha256, HEX_CHARS, err, errlen));
    if (!book && (*p->file || *p->sha256))
        return capa_fail(err, errlen, CAPA_EINVAL, "positions: file and sha256 belong to source book");
    if (book && strlen(p->sha256) != 64)
        return capa_fail(err, errlen, CAPA_EINVAL, "positions.sha256: expected 64 hex digits");
    if (book && (p->file[0] == '/' || strstr(p->file, "..")))
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "positions.file: must be a path inside the book folder (no leading / or ..)");
    return 0;
}

static int s_game(const cJSON *root, rundoc_t *d, char *err, size_t errlen)
{
    proto_game_t *g = &d->game;
    /* Values runs resign later (RUNDOC_VALUES_RESIGN_CP): resign adjudication
     * judges by the engine's own piece table, which is what the study measures. */
    *g = (proto_game_t){ .nodes = 10000,
                         .resign_cp = d->kind == PROTO_KIND_VALUES ? RUNDOC_VALUES_RESIGN_CP : 700,
                         .resign_moves = 4, .draw_cp = 10,
                         .draw_moves = 8, .draw_min_ply = 80, .max_plies = 500,
                         .hash_mb = PROTO_HASH_MB_DEFAULT };
    snprintf(g->variant, sizeof g->variant, "%s", d->variant);
    g->chess960 = d->chess960;
    int rc;
    const cJSON *obj = pjson_object(root, "", "game", false, &rc, err, errlen);
    TRY(rc);
    if (!obj)
        return 0;
    static const char *const keys[] = { "nodes", "tc_base_ms", "tc_inc_ms", "resign_cp",
                                        "resign_moves", "draw_cp", "draw_moves", "draw_min_ply",
                                        "max_plies", "hash_mb", NULL };
    TRY(pjson_only_keys(obj, "game", keys, err, errlen));
    /* The same reader and limits as a TASK's game (common/protocol.h). */
    return proto_game_read(obj, "game", false, g, err, errlen);
}

static int s_sprt(const cJSON *root, rundoc_t *d, rundoc_check_param_fn cb, void *ctx, char *err,
                  size_t errlen)
{
    TRY(s_params(root, "a", false, &d->a, cb, ctx, err, errlen));
    TRY(s_params(root, "b", true, &d->b, cb, ctx, err, errlen));
    d->elo0 = 0;
    d->elo1 = 5;
    d->alpha = d->beta = 0.05;
    d->max_pairs = 20000;
    TRY(pjson_double(root, "", "elo0", false, -1000, 1000, &d->elo0, err, errlen));
    TRY(pjson_double(root, "", "elo1", false, -1000, 1000, &d->elo1, err, errlen));
    if (!(d->elo1 > d->elo0))
        return capa_fail(err, errlen, CAPA_EINVAL, "elo1: must be greater than elo0 (%g)", d->elo0);
    TRY(pjson_double(root, "", "alpha", false, 1e-6, 0.5, &d->alpha, err, errlen));
    TRY(pjson_double(root, "", "beta", false, 1e-6, 0.5, &d->beta, err, errlen));
    int m = RUNDOC_ELO_NORMALIZED;
    TRY(s_choice(root, "", "model", false, s_model_names, 2, &m, err, errlen));
    d->model = (rundoc_model_t) m;
    return pjson_int(root, "", "max_pairs", false, 1, RUNDOC_PAIRS_MAX, &d->max_pairs, err, errlen);
}

/* Checks the piece letters of one imbalance side against the variant's army. */
static int s_pieces(const cJSON *obj, const char *where, const char *key, char *out,
                    const char *variant, char *err, size_t errlen)
{
    char path[96];
    pjson_path(path, sizeof path, where, key);
    int rc = pjson_string(obj, where, key, true, 0, out, RUNDOC_PIECES_MAX, NULL, err, errlen);
    if (rc == CAPA_ERANGE)
        return capa_fail(err, errlen, CAPA_ERANGE, "%s: more than %d pieces", path,
                         RUNDOC_PIECES_MAX - 1);
    TRY(rc);
    bool janus = strcmp(variant, "janus") == 0;
    /* The army of one side, by PIECE_LETTERS: Q R B N A C P. */
    const int army[7] = { 1, 2, 2, 2, janus ? 2 : 1, janus ? 0 : 1, 10 };
    int count[7] = { 0 };
    for (const char *p = out; *p; p++) {
        unsigned char c = (unsigned char) *p;
        const char *at = strchr(PIECE_LETTERS, c);
        if (c == 'K')
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: the king cannot be removed", path);
        if (!at || !c) {
            if (c >= 0x20 && c < 0x7f)
                return capa_fail(err, errlen, CAPA_EINVAL,
                                 "%s: unknown piece letter '%c' (use Q R B N A C P)", path, c);
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "%s: unknown piece letter (byte 0x%02x; use Q R B N A C P)", path, c);
        }
        int i = (int) (at - PIECE_LETTERS);
        if (++count[i] > army[i])
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: more %c than a %s army has (%d)", path,
                             c, variant, army[i]);
    }
    return 0;
}

/* *out = base with every parameter of over set on top (replaced or added). */
static int s_merge(const proto_params_t *base, const proto_params_t *over, const char *where,
                   proto_params_t *out, char *err, size_t errlen)
{
    size_t cap = base->count + over->count;
    out->count = 0;
    out->items = cap ? calloc(cap, sizeof *out->items) : NULL;
    if (cap && !out->items)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    if (base->count)
        memcpy(out->items, base->items, base->count * sizeof *out->items);
    out->count = base->count;
    for (size_t i = 0; i < over->count; i++) {
        size_t j = 0;
        while (j < out->count && strcmp(out->items[j].name, over->items[i].name) != 0)
            j++;
        out->items[j] = over->items[i];
        if (j == out->count)
            out->count++;
    }
    if (out->count > PROTO_PARAMS_MAX)
        return capa_fail(err, errlen, CAPA_ERANGE, "%s: params and %s together name more than "
                         "%d parameters", where, where, PROTO_PARAMS_MAX);
    return 0;
}

static int s_values(const cJSON *root, rundoc_t *d, rundoc_check_param_fn cb, void *ctx,
                    char *err, size_t errlen)
{
    TRY(s_params(root, "params", false, &d->params, cb, ctx, err, errlen));
    /* Per side, each on top of params: B, the side under test, and A. */
    TRY(s_params(root, "params_side", false, &d->params_side, cb, ctx, err, errlen));
    TRY(s_params(root, "params_other", false, &d->params_other, cb, ctx, err, errlen));
    TRY(s_merge(&d->params, &d->params_side, "params_side", &d->set_b, err, errlen));
    TRY(s_merge(&d->params, &d->params_other, "params_other", &d->set_a, err, errlen));
    d->pairs_per_imbalance = 1000;
    TRY(pjson_int(root, "", "pairs_per_imbalance", false, 1, RUNDOC_PAIRS_MAX,
                  &d->pairs_per_imbalance, err, errlen));
    int rc;
    const cJSON *arr = pjson_array(root, "", "imbalances", true, RUNDOC_IMBALANCES_MAX, &rc, err, errlen);
    TRY(rc);
    size_t n = (size_t) cJSON_GetArraySize(arr);
    if (n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "imbalances: must not be empty");
    d->imbalances = calloc(n, sizeof *d->imbalances);
    if (!d->imbalances)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    static const char *const keys[] = { "name", "side", "other", "pairs", NULL };
    for (const cJSON *c = arr->child; c; c = c->next) {
        rundoc_imbalance_t *im = &d->imbalances[d->imbalance_count];
        char w[32];
        snprintf(w, sizeof w, "imbalances[%zu]", d->imbalance_count);
        if (!cJSON_IsObject(c))
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: expected an object", w);
        TRY(pjson_only_keys(c, w, keys, err, errlen));
        TRY(pjson_string(c, w, "name", true, 1, im->name, sizeof im->name, NULL, err, errlen));
        TRY(s_pieces(c, w, "side", im->side, d->variant, err, errlen));
        TRY(s_pieces(c, w, "other", im->other, d->variant, err, errlen));
        if (!*im->side && !*im->other)
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: side and other are both empty", w);
        for (const char *p = im->side; *p; p++)
            if (strchr(im->other, *p))
                return capa_fail(err, errlen, CAPA_EINVAL,
                                 "%s: '%c' is in both side and other (they would cancel)", w, *p);
        im->pairs = d->pairs_per_imbalance;
        TRY(pjson_int(c, w, "pairs", false, 1, RUNDOC_PAIRS_MAX, &im->pairs, err, errlen));
        for (size_t k = 0; k < d->imbalance_count; k++)
            if (strcmp(d->imbalances[k].name, im->name) == 0)
                return capa_fail(err, errlen, CAPA_EINVAL, "%s.name: \"%s\" is used twice", w,
                                 im->name);
        d->imbalance_count++;
    }
    if (rundoc_total_pairs(d) > RUNDOC_PAIRS_MAX)
        return capa_fail(err, errlen, CAPA_ERANGE, "imbalances: more than %lld pairs in all",
                         (long long) RUNDOC_PAIRS_MAX);
    return 0;
}

static int s_spsa(const cJSON *root, rundoc_t *d, rundoc_check_param_fn cb, void *ctx, char *err,
                  size_t errlen)
{
    int rc;
    const cJSON *obj = pjson_object(root, "", "params", true, &rc, err, errlen);
    TRY(rc);
    size_t n = (size_t) cJSON_GetArraySize(obj);
    if (n == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "params: name at least one parameter to tune");
    if (n > RUNDOC_SPSA_MAX)
        return capa_fail(err, errlen, CAPA_ERANGE, "params: more than %d parameters", RUNDOC_SPSA_MAX);
    d->spsa = calloc(n, sizeof *d->spsa);
    if (!d->spsa)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    static const char *const keys[] = { "start", "min", "max", "c_end", "r_end", NULL };
    for (const cJSON *c = obj->child; c; c = c->next) {
        rundoc_spsa_param_t *p = &d->spsa[d->spsa_count];
        char w[PROTO_NAME_MAX + 16];
        char shown[PROTO_NAME_MAX];
        snprintf(shown, sizeof shown, "%s", c->string);
        for (char *q = shown; *q; q++)
            if ((unsigned char) *q < 0x20 || (unsigned char) *q >= 0x7f)
                *q = '?';
        snprintf(w, sizeof w, "params.%s", shown);
        TRY(pjson_check_text(c->string, w, 1, PROTO_NAME_MAX, PARAM_CHARS, err, errlen));
        if (!cJSON_IsObject(c))
            return capa_fail(err, errlen, CAPA_EINVAL,
                             "%s: expected {\"start\", \"min\", \"max\", \"c_end\", \"r_end\"}", w);
        TRY(pjson_only_keys(c, w, keys, err, errlen));
        memcpy(p->name, c->string, strlen(c->string) + 1);
        TRY(pjson_double(c, w, "start", true, -1e9, 1e9, &p->start, err, errlen));
        TRY(pjson_double(c, w, "min", true, -1e9, 1e9, &p->min, err, errlen));
        TRY(pjson_double(c, w, "max", true, -1e9, 1e9, &p->max, err, errlen));
        TRY(pjson_double(c, w, "c_end", true, 0, 1e9, &p->c_end, err, errlen));
        TRY(pjson_double(c, w, "r_end", true, 0, 10, &p->r_end, err, errlen));
        if (!(p->min < p->max))
            return capa_fail(err, errlen, CAPA_EINVAL, "%s: min must be below max", w);
        if (p->start < p->min || p->start > p->max)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s.start: %g is outside min..max (%g..%g)",
                             w, p->start, p->min, p->max);
        if (p->c_end <= 0 || p->r_end <= 0)
            return capa_fail(err, errlen, CAPA_ERANGE, "%s: c_end and r_end must be > 0", w);
        double vals[3] = { p->start, p->min, p->max };
        static const char *const what[3] = { "start", "min", "max" };
        for (int k = 0; cb && k < 3; k++) {
            char why[256] = "rejected";
            int r = cb(p->name, vals[k], why, sizeof why, ctx);
            if (r)
                return capa_fail(err, errlen, r < 0 ? r : CAPA_EINVAL, "%s.%s: %s", w, what[k], why);
        }
        d->spsa_count++;
    }
    bool has_iter = cJSON_GetObjectItemCaseSensitive(root, "iterations") != NULL;
    bool has_pairs = cJSON_GetObjectItemCaseSensitive(root, "pairs") != NULL;
    if (has_iter == has_pairs)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "iterations: give either iterations or pairs (one pair per iteration)");
    TRY(pjson_int(root, "", has_iter ? "iterations" : "pairs", true, 1, RUNDOC_PAIRS_MAX,
                  &d->iterations, err, errlen));
    d->spsa_a = (double) d->iterations / 10;
    d->spsa_alpha = 0.602;
    d->spsa_gamma = 0.101;
    TRY(pjson_double(root, "", "A", false, 0, 1e9, &d->spsa_a, err, errlen));
    TRY(pjson_double(root, "", "alpha", false, 1e-6, 2, &d->spsa_alpha, err, errlen));
    TRY(pjson_double(root, "", "gamma", false, 1e-6, 1, &d->spsa_gamma, err, errlen));
    return 0;
}

static int s_parse(const cJSON *root, rundoc_t *d, rundoc_check_param_fn cb, void *ctx,
                   char *err, size_t errlen)
{
    if (!cJSON_IsObject(root))
        return capa_fail(err, errlen, CAPA_EINVAL, "a run document is a JSON object");
    TRY(pjson_no_duplicates(root, "", err, errlen));
    int kind = 0;
    const char *const kinds[] = { proto_kind_name(PROTO_KIND_SPRT),
                                  proto_kind_name(PROTO_KIND_VALUES),
                                  proto_kind_name(PROTO_KIND_SPSA) };
    TRY(s_choice(root, "", "kind", true, kinds, 3, &kind, err, errlen));
    d->kind = (proto_kind_t) kind;
#define COMMON "kind", "name", "description", "seed", "priority", "variant", "chess960", \
               "positions", "game"
    static const char *const sprt_keys[] = { COMMON, "a", "b", "elo0", "elo1", "alpha", "beta",
                                             "model", "max_pairs", NULL };
    static const char *const values_keys[] = { COMMON, "params", "params_side", "params_other",
                                               "imbalances", "pairs_per_imbalance", "ladder",
                                               "iterate", NULL };
    static const char *const spsa_keys[] = { COMMON, "params", "iterations", "pairs", "A",
                                             "alpha", "gamma", NULL };
#undef COMMON
    const char *const *keys = d->kind == PROTO_KIND_SPRT ? sprt_keys
                              : d->kind == PROTO_KIND_VALUES ? values_keys : spsa_keys;
    TRY(pjson_only_keys(root, "", keys, err, errlen));
    TRY(pjson_string(root, "", "name", true, 1, d->name, sizeof d->name, NULL, err, errlen));
    TRY(pjson_string(root, "", "description", false, 0, d->description, sizeof d->description,
                     NULL, err, errlen));
    d->has_seed = cJSON_GetObjectItemCaseSensitive(root, "seed") != NULL;
    TRY(pjson_int(root, "", "seed", false, 0, PJSON_INT_MAX, &d->seed, err, errlen));
    TRY(pjson_int32(root, "", "priority", false, -100, 100, &d->priority, err, errlen));
    snprintf(d->variant, sizeof d->variant, "caparandom");
    TRY(pjson_string(root, "", "variant", false, 1, d->variant, sizeof d->variant, NULL, err, errlen));
    if (!proto_variant_known(d->variant))
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "variant: \"%s\" is not one of capablanca, caparandom, gothic, embassy, janus",
                         d->variant);
    d->chess960 = strcmp(d->variant, "caparandom") == 0;
    bool given = d->chess960;
    TRY(pjson_bool(root, "", "chess960", false, &given, err, errlen));
    if (given != d->chess960)
        return capa_fail(err, errlen, CAPA_EINVAL, "chess960: is %s for variant %s",
                         d->chess960 ? "true" : "false", d->variant);
    TRY(s_positions(root, d, err, errlen));
    TRY(s_game(root, d, err, errlen));
    switch (d->kind) {
    case PROTO_KIND_SPRT: return s_sprt(root, d, cb, ctx, err, errlen);
    case PROTO_KIND_VALUES:
        TRY(s_values(root, d, cb, ctx, err, errlen));
        return rundoc_series_read(root, d, err, errlen);
    case PROTO_KIND_SPSA: return s_spsa(root, d, cb, ctx, err, errlen);
    }
    return capa_fail(err, errlen, CAPA_EINVAL, "kind: unknown");
}

int rundoc_parse(const char *text, size_t len, rundoc_check_param_fn check_param, void *ctx,
                 rundoc_t **out, char *err, size_t errlen)
{
    *out = NULL;
    if (len > RUNDOC_DOC_MAX)
        return capa_fail(err, errlen, CAPA_ERANGE, "a run document is at most %u bytes, this one %zu",
                         RUNDOC_DOC_MAX, len);
    if (!text || len == 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "empty run document");
    cJSON *root = pjson_parse(text, len, 8, err, errlen);
    if (!root)
        return CAPA_EINVAL;
    rundoc_t *d = calloc(1, sizeof *d);
    int rc = d ? s_parse(root, d, check_param, ctx, err, errlen)
               : capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    cJSON_Delete(root);
    if (rc) {
        rundoc_destroy(&d);
        return rc;
    }
    *out = d;
    return 0;
}

int rundoc_load_file(const char *path, rundoc_check_param_fn check_param, void *ctx,
                     rundoc_t **out, char *err, size_t errlen)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return capa_fail(err, errlen, CAPA_EIO, "%s: %s", path, strerror(errno));
    char *buf = malloc(RUNDOC_DOC_MAX + 1);
    size_t n = buf ? fread(buf, 1, RUNDOC_DOC_MAX + 1, f) : 0;
    int bad = !buf || ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return capa_fail(err, errlen, buf ? CAPA_EIO : CAPA_ENOMEM, "%s: cannot read", path);
    }
    char why[512];
    int rc = rundoc_parse(buf, n, check_param, ctx, out, why, sizeof why);
    free(buf);
    if (rc)
        return capa_fail(err, errlen, rc, "%s: %s", path, why);
    return 0;
}

/* ---- canonical JSON ---------------------------------------------------- */

static bool s_num(cJSON *o, const char *key, double v)
{
    return pjson_add_number(o, key, v) != NULL;
}

static bool s_str(cJSON *o, const char *key, const char *v)
{
    return cJSON_AddStringToObject(o, key, v) != NULL;
}

static bool s_obj(cJSON *o, const char *key, cJSON *child)
{
    if (!child)
        return false;
    cJSON_AddItemToObject(o, key, child);
    return true;
}

static bool s_common(cJSON *j, const rundoc_t *d)
{
    if (!s_str(j, "kind", proto_kind_name(d->kind)) || !s_str(j, "name", d->name) ||
        !s_str(j, "description", d->description) || (d->has_seed && !s_num(j, "seed", (double) d->seed)) ||
        !s_num(j, "priority", d->priority) || !s_str(j, "variant", d->variant) ||
        !cJSON_AddBoolToObject(j, "chess960", d->chess960))
        return false;
    cJSON *pos = cJSON_CreateObject();
    if (!s_obj(j, "positions", pos) || !s_str(pos, "source", rundoc_source_name(d->positions.source)) ||
        !s_num(pos, "random_plies", d->positions.random_plies))
        return false;
    if (d->positions.source == RUNDOC_POS_BOOK &&
        (!s_str(pos, "file", d->positions.file) || !s_str(pos, "sha256", d->positions.sha256)))
        return false;
    const proto_game_t *g = &d->game;
    cJSON *game = cJSON_CreateObject();
    if (!s_obj(j, "game", game))
        return false;
    /* A ladder's rungs set the nodes (rundoc_series.c). */
    if (d->series != RUNDOC_SERIES_LADDER &&
        (g->nodes > 0 ? !s_num(game, "nodes", (double) g->nodes)
                      : !s_num(game, "tc_base_ms", (double) g->tc_base_ms) ||
                            !s_num(game, "tc_inc_ms", (double) g->tc_inc_ms)))
        return false;
    return s_num(game, "resign_cp", g->resign_cp) && s_num(game, "resign_moves", g->resign_moves) &&
           s_num(game, "draw_cp", g->draw_cp) && s_num(game, "draw_moves", g->draw_moves) &&
           s_num(game, "draw_min_ply", g->draw_min_ply) && s_num(game, "max_plies", g->max_plies) &&
           (g->hash_mb == PROTO_HASH_MB_DEFAULT || g->hash_mb == 0 || s_num(game, "hash_mb", g->hash_mb));
}

char *rundoc_to_json(const rundoc_t *d, bool pretty)
{
    cJSON *j = cJSON_CreateObject();
    bool ok = j && s_common(j, d);
    if (ok && d->kind == PROTO_KIND_SPRT) {
        ok = s_obj(j, "a", proto_params_to_json(&d->a)) && s_obj(j, "b", proto_params_to_json(&d->b)) &&
             s_num(j, "elo0", d->elo0) && s_num(j, "elo1", d->elo1) && s_num(j, "alpha", d->alpha) &&
             s_num(j, "beta", d->beta) && s_str(j, "model", rundoc_model_name(d->model)) &&
             s_num(j, "max_pairs", (double) d->max_pairs);
    } else if (ok && d->kind == PROTO_KIND_VALUES) {
        cJSON *arr = cJSON_CreateArray();
        ok = s_obj(j, "params", proto_params_to_json(&d->params)) &&
             s_obj(j, "params_side", proto_params_to_json(&d->params_side)) &&
             s_obj(j, "params_other", proto_params_to_json(&d->params_other)) &&
             s_num(j, "pairs_per_imbalance", (double) d->pairs_per_imbalance) &&
             s_obj(j, "imbalances", arr);
        for (size_t i = 0; ok && i < d->imbalance_count; i++) {
            const rundoc_imbalance_t *im = &d->imbalances[i];
            cJSON *o = cJSON_CreateObject();
            ok = o != NULL;
            if (ok)
                cJSON_AddItemToArray(arr, o);
            ok = ok && s_str(o, "name", im->name) && s_str(o, "side", im->side) &&
                 s_str(o, "other", im->other) && s_num(o, "pairs", (double) im->pairs);
        }
        ok = ok && rundoc_series_to_json(j, d);
    } else if (ok && d->kind == PROTO_KIND_SPSA) {
        cJSON *params = cJSON_CreateObject();
        ok = s_obj(j, "params", params);
        for (size_t i = 0; ok && i < d->spsa_count; i++) {
            const rundoc_spsa_param_t *p = &d->spsa[i];
            cJSON *o = cJSON_CreateObject();
            ok = s_obj(params, p->name, o) && s_num(o, "start", p->start) && s_num(o, "min", p->min) &&
                 s_num(o, "max", p->max) && s_num(o, "c_end", p->c_end) && s_num(o, "r_end", p->r_end);
        }
        ok = ok && s_num(j, "iterations", (double) d->iterations) && s_num(j, "A", d->spsa_a) &&
             s_num(j, "alpha", d->spsa_alpha) && s_num(j, "gamma", d->spsa_gamma);
    }
    char *text = ok ? (pretty ? cJSON_Print(j) : cJSON_PrintUnformatted(j)) : NULL;
    cJSON_Delete(j);
    return text;
}

int rundoc_values_plan(const rundoc_t *doc, const stats_plan_assume_t *a, double target, stats_plan_t *out,
                       char *err, size_t errlen)
{
    if (doc->kind != PROTO_KIND_VALUES)
        return capa_fail(err, errlen, CAPA_EINVAL, "a plan is made for values runs only");
    stats_plan_assume_t def;
    if (!a) {
        stats_plan_assume_for_nodes(&def, doc->game.nodes);
        a = &def;
    }
    stats_plan_row_t *rows = calloc(doc->imbalance_count + 1, sizeof *rows);
    if (!rows)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    for (size_t i = 0; i < doc->imbalance_count; i++) {
        if (stats_plan_diff(doc->imbalances[i].side, doc->imbalances[i].other, rows[i].diff) < 0) {
            free(rows);
            return capa_fail(err, errlen, CAPA_EINVAL, "imbalances[%zu]: a piece letter the plan does not know",
                             i);
        }
        rows[i].pairs = doc->imbalances[i].pairs;
    }
    int rc = stats_plan_make(rows, doc->imbalance_count, a, target, out, err, errlen);
    free(rows);
    return rc;
}
