/* rundoc.h - run documents: what a user submits (DESIGN.md "Runs").
 *
 * A run document is one JSON object. Common fields, then the fields of its
 * kind (unknown fields are errors, so typos do not pass silently):
 *
 *   kind         "sprt", "values" or "spsa" (required)
 *   name         1..63 bytes of text (required)
 *   description  optional text, up to 255 bytes
 *   seed         0..2^53-1; absent = the coordinator draws one before storing
 *   priority     -100..100, default 0 (higher first)
 *   variant      capablanca, caparandom (default), gothic, embassy, janus
 *   chess960     derived: true exactly for caparandom (may be given if it agrees)
 *   positions    {"source": "crc"}                    CRC arrays by number, from seed and
 *                                                     pair number (needs caparandom)
 *                {"source": "variant-start"}           the variant's start array
 *                {"source": "book", "file": "books/x.epd", "sha256": "<64 hex>"}
 *                each with optional "random_plies" 0..40 (default 0 for crc and book,
 *                8 for variant-start); default {"source": "crc"} for caparandom,
 *                variant-start otherwise
 *   game         {"nodes": 10000} or {"tc_base_ms": 10000, "tc_inc_ms": 100}, plus
 *                resign_cp 700 (values runs: 1000), resign_moves 4, draw_cp 10, draw_moves 8,
 *                draw_min_ply 80, max_plies 500 (the defaults; 0 turns a rule off)
 *
 *   sprt:   a, b (parameter sets name -> number; B is tested against A),
 *           elo0 (default 0), elo1 (default 5), alpha, beta (default 0.05),
 *           model "normalized" (default) or "logistic", max_pairs (default 20000)
 *   values: params (the parameter set both sides use, default {}), params_side
 *           (set on top of params for the side under test, B: the side that
 *           holds the imbalance's `side` pieces; default {}), params_other (on
 *           top of params for the other side, A; default {}); each checked
 *           like params,
 *           imbalances: [{"name": "A vs C", "side": "A", "other": "C", "pairs": 2000}],
 *           pairs_per_imbalance (default 1000, for entries without "pairs"),
 *           and at most one of (a study series, rundoc_series.c, docs/api.md):
 *           ladder: {"nodes": [20000, 80000, 320000]}  2..8 rungs, strictly increasing,
 *                   each 1..PROTO_NODES_MAX; the rungs set the nodes per move, so
 *                   game.nodes, game.tc_base_ms and game.tc_inc_ms must be absent
 *           iterate: {"pieces": ["A", "C"], "max_rounds": 4}  1..6 distinct pieces of
 *                   N B R A C Q, each valued in pawns by the design; max_rounds 2..10
 *   spsa:   params: {"ArchbishopValueMg": {"start": 825, "min": 600, "max": 1100,
 *           "c_end": 20, "r_end": 0.002}, ...}, iterations (or "pairs": the same,
 *           one game pair per iteration), A (default iterations/10), alpha
 *           (default 0.602), gamma (default 0.101)
 *
 * Imbalances. "side" lists the pieces the side under test (B) has and the
 * other side lacks; "other" the pieces the other side (A) has and B lacks;
 * letters Q R B N A C P, upper case, repeated for two of a kind ("RR"). Each
 * game starts from the full array of the variant with `other` removed from
 * B's army and `side` removed from A's army; every pair plays both colours.
 * So {"side":"A","other":"C"}: B has an archbishop where A has a chancellor;
 * {"side":"","other":"P"}: pawn odds, B a pawn down (calibration). Which of
 * two rooks or which pawn goes is the position builder's choice (from seed
 * and pair number), not part of the document.
 *
 * Parameter names and values are checked by the caller's callback (the
 * coordinator passes the engine's table), called once per (name, value):
 * for spsa with start, min and max.
 */
#ifndef CAPA_RUNDOC_H
#define CAPA_RUNDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol.h"
#include "stats_plan.h"

#define RUNDOC_TEXT_MAX 64        /* name: at most 63 bytes */
#define RUNDOC_DESC_MAX 256
#define RUNDOC_PATH_MAX 256
#define RUNDOC_PIECES_MAX 16      /* piece letters per imbalance side, at most 15 */
#define RUNDOC_IMBALANCES_MAX 64
#define RUNDOC_SPSA_MAX 64        /* tuned parameters */
#define RUNDOC_DOC_MAX (1u << 20) /* bytes of a document */
#define RUNDOC_PAIRS_MAX INT64_C(100000000)
/* Values runs' default resign threshold: a game is given up only when the
 * engine sees 10 pawns against it for resign_moves moves in a row, so that
 * the engine's own piece table decides fewer games (at 700 cp, 73-83% of
 * values games ended by resignation: issue 14). */
#define RUNDOC_VALUES_RESIGN_CP 1000

#define RUNDOC_LADDER_MAX 8        /* rungs of a node ladder */
#define RUNDOC_ROUNDS_MAX 10       /* runs of an iteration */
#define RUNDOC_ITERATE_MAX 6       /* iterated pieces: N B R A C Q */

/* A values document that is a study series: several ordinary values runs
 * made from it one after another (coordinator/series.c). */
typedef enum { RUNDOC_SERIES_NONE = 0, RUNDOC_SERIES_LADDER, RUNDOC_SERIES_ITERATE } rundoc_series_t;

typedef enum { RUNDOC_POS_CRC = 0, RUNDOC_POS_VARIANT_START, RUNDOC_POS_BOOK } rundoc_source_t;
typedef enum { RUNDOC_ELO_NORMALIZED = 0, RUNDOC_ELO_LOGISTIC } rundoc_model_t;

typedef struct {
    rundoc_source_t source;
    int random_plies;
    char file[RUNDOC_PATH_MAX];   /* book: relative path, [A-Za-z0-9._/-], no ".." */
    char sha256[65];              /* book: lower-case hex */
} rundoc_positions_t;

typedef struct {
    char name[PROTO_NAME_MAX];
    char side[RUNDOC_PIECES_MAX];   /* pieces only B has, e.g. "A" */
    char other[RUNDOC_PIECES_MAX];  /* pieces only A has, e.g. "RN" */
    int64_t pairs;
} rundoc_imbalance_t;

typedef struct {
    char name[PROTO_NAME_MAX];
    double start, min, max;         /* min < max, min <= start <= max */
    double c_end, r_end;            /* final perturbation size and learning rate, > 0 */
} rundoc_spsa_param_t;

typedef struct {
    proto_kind_t kind;
    char name[RUNDOC_TEXT_MAX];
    char description[RUNDOC_DESC_MAX];
    bool has_seed;
    int64_t seed;
    int priority;
    char variant[PROTO_VARIANT_MAX];
    bool chess960;
    rundoc_positions_t positions;
    proto_game_t game;              /* variant and chess960 copied in */

    /* sprt */
    proto_params_t a, b;
    double elo0, elo1, alpha, beta;
    rundoc_model_t model;
    int64_t max_pairs;

    /* values (params) and spsa (the fixed rest, unused: empty) */
    proto_params_t params;
    /* values: the per-side sets as given, and what each side plays with
     * (derived: params with params_side, resp. params_other, on top) */
    proto_params_t params_side, params_other;
    proto_params_t set_b, set_a;
    rundoc_imbalance_t *imbalances;
    size_t imbalance_count;
    int64_t pairs_per_imbalance;
    rundoc_series_t series;         /* a study series, or none */
    int64_t ladder[RUNDOC_LADDER_MAX];   /* ladder: nodes per move of each rung */
    size_t ladder_count;
    char iterate[RUNDOC_ITERATE_MAX + 1]; /* iterate: the pieces fed back, e.g. "AC" */
    int max_rounds;                 /* iterate: runs at most */

    /* spsa */
    rundoc_spsa_param_t *spsa;
    size_t spsa_count;
    int64_t iterations;
    double spsa_a, spsa_alpha, spsa_gamma;
} rundoc_t;

/* Checks one parameter; returns 0 or a negative capa_err_t with err filled
 * (the parser prefixes the field's path). */
typedef int (*rundoc_check_param_fn)(const char *name, double value, char *err, size_t errlen,
                                     void *ctx);

/* Parses and validates a document of len bytes and applies the defaults.
 * check_param may be NULL (names are then only checked for their
 * characters). On success *out is a new rundoc_t the caller destroys. */
int rundoc_parse(const char *text, size_t len, rundoc_check_param_fn check_param, void *ctx,
                 rundoc_t **out, char *err, size_t errlen);
int rundoc_load_file(const char *path, rundoc_check_param_fn check_param, void *ctx,
                     rundoc_t **out, char *err, size_t errlen);
void rundoc_destroy(rundoc_t **self_p);

/* The canonical JSON of a parsed document: every field explicit, defaults
 * applied, a fixed key order; parsing it gives the same document. Returns a
 * malloc'ed string the caller frees, or NULL on ENOMEM. */
char *rundoc_to_json(const rundoc_t *doc, bool pretty);

/* Pairs the run plays at most: sprt max_pairs, values the sum over the
 * imbalances, spsa the iterations. */
int64_t rundoc_total_pairs(const rundoc_t *doc);

/* The plan of a values document (stats_plan.h): its imbalances with their
 * pairs, under the assumptions a (NULL: stats_plan_assume_default). Errors
 * as stats_plan_make's, CAPA_EINVAL also for a document of another kind. */
int rundoc_values_plan(const rundoc_t *doc, const stats_plan_assume_t *a, double target, stats_plan_t *out,
                       char *err, size_t errlen);

/* ---- study series (rundoc_series.c) ---------------------------------------- */

/* "ladder", "iterate" (NULL for none) and back (-1 when unknown). */
const char *rundoc_series_name(rundoc_series_t series);
int rundoc_series_parse(const char *name);
/* The steps a series plays at most: rungs, or max_rounds (0 for none). */
int rundoc_series_steps(const rundoc_t *doc);
/* The engine parameter that holds piece letter's value (N B R A C Q P) in
 * the middle game (eg 0) or end game (eg 1), e.g. "ArchbishopValueMg";
 * NULL for another letter. */
const char *rundoc_piece_param(char piece, int eg);
/* The canonical JSON (rundoc_to_json) of step `step` of a series document:
 * an ordinary values run without ladder or iterate, the same seed, named
 * "<name> [rung k: N nodes]" or "<name> [round k]" (the name shortened to
 * fit), with nodes = ladder[step] for a ladder and with params set on top
 * of the document's (may be NULL) for an iteration; checked by rundoc_parse
 * with check_param. malloc'ed (caller frees) or NULL with err filled. */
char *rundoc_series_step_json(const rundoc_t *series, int step, const proto_params_t *params,
                              rundoc_check_param_fn check_param, void *ctx, char *err,
                              size_t errlen);

const char *rundoc_source_name(rundoc_source_t source);
const char *rundoc_model_name(rundoc_model_t model);

#endif
