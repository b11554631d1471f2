/* Unit tests for run documents (common/rundoc.h). */
#include <glob.h>

#include "check.h"
#include "err.h"
#include "params.h"
#include "rundoc.h"

static rundoc_t *s_parse_ok(const char *text)
{
    rundoc_t *d = NULL;
    char err[512];
    int rc = rundoc_parse(text, strlen(text), NULL, NULL, &d, err, sizeof err);
    CHECK_MSG(rc == 0, "parse failed: %s", err);
    return d;
}

/* Canonical JSON parses to a document whose canonical JSON is the same. */
static void s_check_canonical_fixed_point(const rundoc_t *d)
{
    char *a = rundoc_to_json(d, false);
    CHECK(a != NULL);
    rundoc_t *again = s_parse_ok(a);
    char *b = rundoc_to_json(again, false);
    CHECK_MSG(strcmp(a, b) == 0, "canonical changed:\n%s\n%s", a, b);
    char *pretty = rundoc_to_json(d, true);
    rundoc_t *third = s_parse_ok(pretty);
    char *c = rundoc_to_json(third, false);
    CHECK_EQ_STR(c, a);
    free(a);
    free(b);
    free(c);
    free(pretty);
    rundoc_destroy(&again);
    rundoc_destroy(&third);
}

static void every_example_run_document_parses(void)
{
    glob_t g;
    CHECK_EQ_INT(glob(CAPA_SOURCE_DIR "/configs/run-*.json", 0, NULL, &g), 0);
    CHECK(g.gl_pathc >= 3);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        rundoc_t *d = NULL;
        char err[512];
        /* checked against the engine's table: every name exists and every
         * start, min and max lies within its bounds */
        int rc = rundoc_load_file(g.gl_pathv[i], params_check_cb, NULL, &d, err, sizeof err);
        CHECK_MSG(rc == 0, "%s", err);
        s_check_canonical_fixed_point(d);
        rundoc_destroy(&d);
        CHECK(d == NULL);
    }
    globfree(&g);
}

static void every_fuzz_seed_parses(void)
{
    glob_t g;
    CHECK_EQ_INT(glob(CAPA_SOURCE_DIR "/fuzz/corpus/rundoc/*.json", 0, NULL, &g), 0);
    CHECK(g.gl_pathc >= 5);
    for (size_t i = 0; i < g.gl_pathc; i++) {
        rundoc_t *d = NULL;
        char err[512];
        CHECK_MSG(rundoc_load_file(g.gl_pathv[i], NULL, NULL, &d, err, sizeof err) == 0, "%s", err);
        s_check_canonical_fixed_point(d);
        rundoc_destroy(&d);
    }
    globfree(&g);
}

static void the_example_values_study_has_the_ten_imbalances(void)
{
    rundoc_t *d = NULL;
    char err[512];
    CHECK_MSG(rundoc_load_file(CAPA_SOURCE_DIR "/configs/run-values.json", NULL, NULL, &d, err,
                               sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(d->kind, PROTO_KIND_VALUES);
    CHECK_EQ_INT(d->imbalance_count, 10);
    CHECK_EQ_STR(d->imbalances[0].side, "A");
    CHECK_EQ_STR(d->imbalances[0].other, "C");
    CHECK_EQ_STR(d->imbalances[3].other, "RN");
    CHECK_EQ_STR(d->imbalances[8].side, "");
    CHECK_EQ_INT(d->imbalances[8].pairs, 2000);
    CHECK_EQ_INT(d->imbalances[1].pairs, 1000);
    CHECK_EQ_INT(rundoc_total_pairs(d), 12000);
    CHECK(d->chess960);
    CHECK_EQ_INT(d->positions.source, RUNDOC_POS_CRC);
    rundoc_destroy(&d);
}

static void a_minimal_sprt_gets_every_default(void)
{
    rundoc_t *d = s_parse_ok("{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{\"Tempo\":20}}");
    CHECK_EQ_STR(d->variant, "caparandom");
    CHECK(d->chess960);
    CHECK(d->game.chess960);
    CHECK_EQ_STR(d->game.variant, "caparandom");
    CHECK(!d->has_seed);
    CHECK_EQ_INT(d->priority, 0);
    CHECK_EQ_INT(d->positions.source, RUNDOC_POS_CRC);
    CHECK_EQ_INT(d->positions.random_plies, 0);
    CHECK_EQ_INT(d->game.nodes, 10000);
    CHECK_EQ_INT(d->game.tc_base_ms, 0);
    CHECK_EQ_INT(d->game.resign_cp, 700);
    CHECK_EQ_INT(d->game.max_plies, 500);
    CHECK(d->elo0 == 0 && d->elo1 == 5 && d->alpha == 0.05 && d->beta == 0.05);
    CHECK_EQ_INT(d->model, RUNDOC_ELO_NORMALIZED);
    CHECK_EQ_INT(d->max_pairs, 20000);
    CHECK_EQ_INT(d->a.count, 0);
    CHECK_EQ_INT(d->b.count, 1);
    CHECK_EQ_STR(d->b.items[0].name, "Tempo");
    CHECK(d->b.items[0].value == 20);
    CHECK_EQ_INT(rundoc_total_pairs(d), 20000);
    s_check_canonical_fixed_point(d);
    char *json = rundoc_to_json(d, false);
    CHECK(strstr(json, "\"seed\"") == NULL);   /* the coordinator draws one */
    CHECK(strstr(json, "\"nodes\":10000") != NULL);
    free(json);
    rundoc_destroy(&d);
}

static void other_variants_start_from_their_array_with_random_plies(void)
{
    rundoc_t *d = s_parse_ok("{\"kind\":\"sprt\",\"name\":\"g\",\"variant\":\"gothic\",\"b\":{},"
                             "\"seed\":9007199254740991,\"game\":{\"tc_base_ms\":10000,\"tc_inc_ms\":100}}");
    CHECK(!d->chess960);
    CHECK_EQ_INT(d->positions.source, RUNDOC_POS_VARIANT_START);
    CHECK_EQ_INT(d->positions.random_plies, 8);
    CHECK_EQ_INT(d->game.nodes, 0);
    CHECK_EQ_INT(d->game.tc_base_ms, 10000);
    CHECK(d->has_seed);
    CHECK_EQ_U64(d->seed, 9007199254740991ULL);
    s_check_canonical_fixed_point(d);
    rundoc_destroy(&d);
}

static void a_book_names_its_file_and_checksum(void)
{
    rundoc_t *d = s_parse_ok(
        "{\"kind\":\"sprt\",\"name\":\"b\",\"b\":{},\"variant\":\"capablanca\",\"positions\":{\"source\":\"book\","
        "\"file\":\"books/capa-8ply.epd\",\"sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}");
    CHECK_EQ_INT(d->positions.source, RUNDOC_POS_BOOK);
    CHECK_EQ_STR(d->positions.file, "books/capa-8ply.epd");
    s_check_canonical_fixed_point(d);
    rundoc_destroy(&d);
}

static void spsa_defaults_follow_the_iterations(void)
{
    rundoc_t *d = s_parse_ok("{\"kind\":\"spsa\",\"name\":\"s\",\"pairs\":5000,\"params\":{\"QueenValueMg\":"
                             "{\"start\":950,\"min\":800,\"max\":1100,\"c_end\":15,\"r_end\":0.002}}}");
    CHECK_EQ_INT(d->iterations, 5000);
    CHECK(d->spsa_a == 500);
    CHECK(d->spsa_alpha == 0.602);
    CHECK(d->spsa_gamma == 0.101);
    CHECK_EQ_INT(d->spsa_count, 1);
    CHECK(d->spsa[0].r_end == 0.002);
    s_check_canonical_fixed_point(d);
    rundoc_destroy(&d);
}

/* A sample parameter table standing in for the engine's. */
static int s_check(const char *name, double value, char *err, size_t errlen, void *ctx)
{
    int *calls = ctx;
    (*calls)++;
    if (strcmp(name, "ArchbishopValueMg") != 0 && strcmp(name, "Tempo") != 0)
        return capa_fail(err, errlen, CAPA_ENOTFOUND, "no such parameter");
    if (value < 0 || value > 4000)
        return capa_fail(err, errlen, CAPA_ERANGE, "%g is outside 0..4000", value);
    return 0;
}

static void the_parameter_callback_checks_names_and_values(void)
{
    int calls = 0;
    rundoc_t *d = NULL;
    char err[512];
    const char *ok = "{\"kind\":\"sprt\",\"name\":\"t\",\"a\":{\"Tempo\":1},\"b\":{\"ArchbishopValueMg\":875}}";
    CHECK_EQ_INT(rundoc_parse(ok, strlen(ok), s_check, &calls, &d, err, sizeof err), 0);
    CHECK_EQ_INT(calls, 2);
    rundoc_destroy(&d);
    const char *bad = "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{\"ArchbishopValueMg\":875,\"Queen\":1}}";
    CHECK_EQ_INT(rundoc_parse(bad, strlen(bad), s_check, &calls, &d, err, sizeof err), CAPA_ENOTFOUND);
    CHECK_EQ_STR(err, "b.Queen: no such parameter");
    CHECK(d == NULL);
    const char *range = "{\"kind\":\"spsa\",\"name\":\"s\",\"iterations\":10,\"params\":{\"Tempo\":"
                        "{\"start\":10,\"min\":-10,\"max\":100,\"c_end\":1,\"r_end\":0.002}}}";
    CHECK_EQ_INT(rundoc_parse(range, strlen(range), s_check, &calls, &d, err, sizeof err), CAPA_ERANGE);
    CHECK_EQ_STR(err, "params.Tempo.min: -10 is outside 0..4000");
    const char *values = "{\"kind\":\"values\",\"name\":\"v\",\"params\":{\"Nope\":1},"
                         "\"imbalances\":[{\"name\":\"x\",\"side\":\"A\",\"other\":\"C\"}]}";
    CHECK(rundoc_parse(values, strlen(values), s_check, &calls, &d, err, sizeof err) < 0);
    CHECK_EQ_STR(err, "params.Nope: no such parameter");
}

/* The value of name in set, or -1 when the set does not name it. */
static double s_param(const proto_params_t *set, const char *name)
{
    for (size_t i = 0; i < set->count; i++)
        if (strcmp(set->items[i].name, name) == 0)
            return set->items[i].value;
    return -1;
}

static void per_side_params_go_on_top_of_params_for_their_side(void)
{
    int calls = 0;
    rundoc_t *d = NULL;
    char err[512];
    const char *doc = "{\"kind\":\"values\",\"name\":\"v\",\"params\":{\"Tempo\":20,"
                      "\"ArchbishopValueMg\":825},\"params_side\":{\"ArchbishopValueMg\":900},"
                      "\"params_other\":{\"Tempo\":5},"
                      "\"imbalances\":[{\"name\":\"x\",\"side\":\"A\",\"other\":\"C\"}]}";
    CHECK_EQ_INT(rundoc_parse(doc, strlen(doc), s_check, &calls, &d, err, sizeof err), 0);
    CHECK_EQ_INT(calls, 4);   /* each set checked like params */
    /* B, the side under test: its own A value; A: its own Tempo */
    CHECK_EQ_INT(d->set_b.count, 2);
    CHECK(s_param(&d->set_b, "ArchbishopValueMg") == 900 && s_param(&d->set_b, "Tempo") == 20);
    CHECK_EQ_INT(d->set_a.count, 2);
    CHECK(s_param(&d->set_a, "ArchbishopValueMg") == 825 && s_param(&d->set_a, "Tempo") == 5);
    s_check_canonical_fixed_point(d);
    char *json = rundoc_to_json(d, false);
    CHECK(strstr(json, "\"params_side\":{\"ArchbishopValueMg\":900}") != NULL);
    CHECK(strstr(json, "\"params_other\":{\"Tempo\":5}") != NULL);
    free(json);
    rundoc_destroy(&d);
    /* without per-side sets both sides play params */
    const char *both = "{\"kind\":\"values\",\"name\":\"v\",\"params\":{\"Tempo\":20},"
                       "\"imbalances\":[{\"name\":\"x\",\"side\":\"A\",\"other\":\"C\"}]}";
    CHECK_EQ_INT(rundoc_parse(both, strlen(both), s_check, &calls, &d, err, sizeof err), 0);
    CHECK(s_param(&d->set_a, "Tempo") == 20 && s_param(&d->set_b, "Tempo") == 20);
    CHECK_EQ_INT(d->set_a.count, 1);
    CHECK_EQ_INT(d->set_b.count, 1);
    rundoc_destroy(&d);
    /* refused like params, the set and the parameter named */
    const char *unknown = "{\"kind\":\"values\",\"name\":\"v\",\"params_side\":{\"Nope\":1},"
                          "\"imbalances\":[{\"name\":\"x\",\"side\":\"A\",\"other\":\"C\"}]}";
    CHECK_EQ_INT(rundoc_parse(unknown, strlen(unknown), s_check, &calls, &d, err, sizeof err),
                 CAPA_ENOTFOUND);
    CHECK_EQ_STR(err, "params_side.Nope: no such parameter");
    CHECK(d == NULL);
    const char *range = "{\"kind\":\"values\",\"name\":\"v\",\"params_other\":"
                        "{\"ArchbishopValueMg\":5000},"
                        "\"imbalances\":[{\"name\":\"x\",\"side\":\"A\",\"other\":\"C\"}]}";
    CHECK_EQ_INT(rundoc_parse(range, strlen(range), s_check, &calls, &d, err, sizeof err),
                 CAPA_ERANGE);
    CHECK_EQ_STR(err, "params_other.ArchbishopValueMg: 5000 is outside 0..4000");
    CHECK(d == NULL);
}

typedef struct {
    const char *doc;
    const char *error;   /* the whole message, or its start when ending in '*' */
} bad_doc_t;

#define V "{\"kind\":\"values\",\"name\":\"v\",\"imbalances\":["
#define S "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{}"
#define P "{\"kind\":\"spsa\",\"name\":\"s\",\"iterations\":10,\"params\":{\"Tempo\":"

static const bad_doc_t s_bad[] = {
    { "", "empty run document" },
    { "[]", "a run document is a JSON object" },
    { "{\"kind\":\"sprt\",", "invalid JSON*" },
    { "{\"name\":\"x\"}", "kind: missing" },
    { "{\"kind\":\"gauntlet\",\"name\":\"x\"}", "kind: \"gauntlet\" is not one of sprt, values, spsa" },
    { "{\"kind\":7}", "kind: expected a string, got a number" },
    { S ",\"nmae\":\"x\"}", "nmae: unknown field" },
    { "{\"kind\":\"sprt\",\"b\":{}}", "name: missing" },
    { "{\"kind\":\"sprt\",\"name\":\"\",\"b\":{}}", "name: must not be empty" },
    { "{\"kind\":\"sprt\",\"name\":\"a\\nb\",\"b\":{}}", "name: contains a control character" },
    { "{\"kind\":\"sprt\",\"name\":\"t\"}", "b: missing" },
    { S ",\"name\":\"u\"}", "name: appears twice" },
    { S ",\"variant\":\"chess\"}", "variant: \"chess\" is not one of capablanca, caparandom, gothic, embassy, janus" },
    { S ",\"variant\":\"gothic\",\"chess960\":true}", "chess960: is false for variant gothic" },
    { S ",\"variant\":\"gothic\",\"positions\":{\"source\":\"crc\"}}", "positions.source: crc needs variant caparandom, not gothic" },
    { S ",\"positions\":{\"source\":\"shuffle\"}}", "positions.source: \"shuffle\" is not one of crc, variant-start, book" },
    { S ",\"positions\":{\"source\":\"book\",\"file\":\"../etc/passwd\",\"sha256\":\"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"}}", "positions.file: must be a path inside the book folder*" },
    { S ",\"positions\":{\"source\":\"book\",\"file\":\"b.epd\",\"sha256\":\"0123\"}}", "positions.sha256: shorter than 64 bytes" },
    { S ",\"positions\":{\"source\":\"book\",\"file\":\"b.epd\"}}", "positions.sha256: missing" },
    { S ",\"positions\":{\"source\":\"crc\",\"file\":\"b.epd\"}}", "positions: file and sha256 belong to source book" },
    { S ",\"positions\":{\"source\":\"crc\",\"random_plies\":41}}", "positions.random_plies: 41 is outside 0..40" },
    { S ",\"game\":{\"nodes\":1000,\"tc_base_ms\":5000}}", "game: give either nodes or a time control*" },
    { S ",\"game\":{\"nodes\":0}}", "game: needs nodes > 0 or tc_base_ms > 0" },
    { S ",\"game\":{\"nodes\":-5}}", "game.nodes: -5 is outside 0..1000000000000" },
    { S ",\"game\":{\"nodes\":1e300}}", "game.nodes: 1.0000000000000001e+300 is outside*" },
    { S ",\"game\":{\"nodes\":100.5}}", "game.nodes: expected an integer, got 100.5" },
    { S ",\"game\":{\"nodes\":1e999}}", "game.nodes: not a finite number" },
    { S ",\"game\":{\"resign_cp\":500,\"resign_moves\":0}}", "game.resign_moves: must be > 0 when resign_cp is set" },
    { S ",\"game\":{\"ply\":3}}", "game.ply: unknown field" },
    { S ",\"elo0\":5,\"elo1\":5}", "elo1: must be greater than elo0 (5)" },
    { S ",\"alpha\":0}", "alpha: 0 is outside 1e-06..0.5" },
    { S ",\"model\":\"bayes\"}", "model: \"bayes\" is not one of normalized, logistic" },
    { S ",\"max_pairs\":0}", "max_pairs: 0 is outside 1..100000000" },
    { "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{\"bad name\":1}}", "b.bad name: character ' ' is not allowed" },
    { "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{\"Tempo\":\"1\"}}", "b.Tempo: expected a number, got a string" },
    { "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":[]}", "b: expected an object, got an array" },
    { S ",\"imbalances\":[]}", "imbalances: unknown field" },
    { V "]}", "imbalances: must not be empty" },
    { "{\"kind\":\"values\",\"name\":\"v\"}", "imbalances: missing" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"C\"},{\"name\":\"b\",\"side\":\"A\",\"other\":\"Q\"},{\"name\":\"c\",\"side\":\"A\",\"other\":\"X\"}]}", "imbalances[2].other: unknown piece letter 'X' (use Q R B N A C P)" },
    { V "{\"name\":\"a\",\"side\":\"a\",\"other\":\"C\"}]}", "imbalances[0].side: unknown piece letter 'a' (use Q R B N A C P)" },
    { V "{\"name\":\"a\",\"side\":\"K\",\"other\":\"C\"}]}", "imbalances[0].side: the king cannot be removed" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"RRR\"}]}", "imbalances[0].other: more R than a caparandom army has (2)" },
    { V "{\"name\":\"a\",\"side\":\"\",\"other\":\"\"}]}", "imbalances[0]: side and other are both empty" },
    { V "{\"name\":\"a\",\"side\":\"RN\",\"other\":\"RB\"}]}", "imbalances[0]: 'R' is in both side and other (they would cancel)" },
    { V "{\"name\":\"a\",\"side\":\"A\"}]}", "imbalances[0].other: missing" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"C\",\"pairs\":0}]}", "imbalances[0].pairs: 0 is outside 1..100000000" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"C\",\"colour\":\"w\"}]}", "imbalances[0].colour: unknown field" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"C\"},{\"name\":\"a\",\"side\":\"C\",\"other\":\"Q\"}]}", "imbalances[1].name: \"a\" is used twice" },
    { V "\"A vs C\"]}", "imbalances[0]: expected an object" },
    { "{\"kind\":\"values\",\"name\":\"v\",\"variant\":\"janus\",\"imbalances\":[{\"name\":\"a\",\"side\":\"C\",\"other\":\"Q\"}]}", "imbalances[0].side: more C than a janus army has (0)" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"C\",\"pairs\":60000000},{\"name\":\"b\",\"side\":\"A\",\"other\":\"Q\",\"pairs\":60000000}]}", "imbalances: more than 100000000 pairs in all" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"C\"}],\"params_side\":[1]}", "params_side: expected an object, got an array" },
    { V "{\"name\":\"a\",\"side\":\"A\",\"other\":\"C\"}],\"params_other\":{\"Tempo\":\"x\"}}", "params_other.Tempo: *" },
    { "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{},\"params_side\":{}}", "params_side: unknown field" },
    { "{\"kind\":\"spsa\",\"name\":\"s\",\"iterations\":10,\"params\":{}}", "params: name at least one parameter to tune" },
    { "{\"kind\":\"spsa\",\"name\":\"s\",\"params\":{\"Tempo\":{\"start\":1,\"min\":0,\"max\":2,\"c_end\":1,\"r_end\":0.1}}}", "iterations: give either iterations or pairs (one pair per iteration)" },
    { P "{\"start\":1,\"min\":0,\"max\":2,\"c_end\":1,\"r_end\":0.1}},\"pairs\":3}", "iterations: give either iterations or pairs (one pair per iteration)" },
    { P "{\"start\":5,\"min\":0,\"max\":2,\"c_end\":1,\"r_end\":0.1}}}", "params.Tempo.start: 5 is outside min..max (0..2)" },
    { P "{\"start\":1,\"min\":2,\"max\":2,\"c_end\":1,\"r_end\":0.1}}}", "params.Tempo: min must be below max" },
    { P "{\"start\":1,\"min\":0,\"max\":2,\"c_end\":0,\"r_end\":0.1}}}", "params.Tempo: c_end and r_end must be > 0" },
    { P "{\"start\":1,\"min\":0,\"max\":2,\"r_end\":0.1}}}", "params.Tempo.c_end: missing" },
    { P "{\"start\":1,\"min\":0,\"max\":2,\"c_end\":1,\"r_end\":0.1,\"step\":1}}}", "params.Tempo.step: unknown field" },
    { P "5}}", "params.Tempo: expected {\"start\", \"min\", \"max\", \"c_end\", \"r_end\"}" },
    { P "{\"start\":1,\"min\":0,\"max\":2,\"c_end\":1,\"r_end\":0.1}},\"gamma\":2}", "gamma: 2 is outside 1e-06..1" },
    { "{\"kind\":\"sprt\",\"name\":\"\xff\",\"b\":{}}", "not valid UTF-8 text (or contains a NUL byte)" },
    { "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{},\"x\":[[[[[[[[[[1]]]]]]]]]]}", "nested deeper than 8 levels" },
};

static void bad_documents_are_refused_with_the_field_named(void)
{
    for (size_t i = 0; i < sizeof s_bad / sizeof s_bad[0]; i++) {
        const bad_doc_t *b = &s_bad[i];
        rundoc_t *d = NULL;
        char err[512] = "";
        int rc = rundoc_parse(b->doc, strlen(b->doc), NULL, NULL, &d, err, sizeof err);
        CHECK_MSG(rc < 0, "accepted: %s", b->doc);
        CHECK(d == NULL);
        size_t n = strlen(b->error);
        bool prefix = n && b->error[n - 1] == '*';
        CHECK_MSG(prefix ? strncmp(err, b->error, n - 1) == 0 : strcmp(err, b->error) == 0,
                  "%s\n    said   \"%s\"\n    wanted \"%s\"", b->doc, err, b->error);
    }
}

static void documents_over_one_mebibyte_are_refused(void)
{
    size_t n = (1u << 20) + 1;
    char *big = malloc(n);
    memset(big, ' ', n);
    memcpy(big, "{}", 2);
    rundoc_t *d = NULL;
    char err[256];
    CHECK_EQ_INT(rundoc_parse(big, n, NULL, NULL, &d, err, sizeof err), CAPA_ERANGE);
    CHECK(strstr(err, "at most") != NULL);
    free(big);
}

static void a_missing_file_is_an_io_error(void)
{
    rundoc_t *d = NULL;
    char err[256];
    CHECK_EQ_INT(rundoc_load_file("/nonexistent/run.json", NULL, NULL, &d, err, sizeof err), CAPA_EIO);
    CHECK(strstr(err, "/nonexistent/run.json") != NULL);
    rundoc_destroy(&d);
    rundoc_destroy(NULL);
}

static const check_case_t CASES[] = {
    CASE(every_example_run_document_parses),
    CASE(every_fuzz_seed_parses),
    CASE(the_example_values_study_has_the_ten_imbalances),
    CASE(a_minimal_sprt_gets_every_default),
    CASE(other_variants_start_from_their_array_with_random_plies),
    CASE(a_book_names_its_file_and_checksum),
    CASE(spsa_defaults_follow_the_iterations),
    CASE(the_parameter_callback_checks_names_and_values),
    CASE(per_side_params_go_on_top_of_params_for_their_side),
    CASE(bad_documents_are_refused_with_the_field_named),
    CASE(documents_over_one_mebibyte_are_refused),
    CASE(a_missing_file_is_an_io_error),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
