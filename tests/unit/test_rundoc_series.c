/* Unit tests for study series in run documents (common/rundoc_series.c):
 * node ladders and self-consistent iterations, their checks and the
 * documents of their steps. */
#include "check.h"
#include "err.h"
#include "rundoc.h"

/* A values study whose A, C and Q are valued in pawns (C against eight
 * pawns pins C, A vs C and Q vs A the others, pawn odds the pawn) and whose
 * R and N come only together (A vs R+N). */
#define IMB_PAWN                                                                          \
    "\"imbalances\":[{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\"},"               \
    "{\"name\":\"Q vs A\",\"side\":\"Q\",\"other\":\"A\"},"                               \
    "{\"name\":\"C vs 8P\",\"side\":\"C\",\"other\":\"PPPPPPPP\"},"                       \
    "{\"name\":\"A vs RN\",\"side\":\"A\",\"other\":\"RN\"},"                             \
    "{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\"}]"
#define DOC(extra) "{\"kind\":\"values\",\"name\":\"s\",\"seed\":7," IMB_PAWN extra "}"

static rundoc_t *s_ok(const char *text)
{
    rundoc_t *d = NULL;
    char err[512];
    int rc = rundoc_parse(text, strlen(text), NULL, NULL, &d, err, sizeof err);
    CHECK_MSG(rc == 0, "parse failed: %s\n%s", err, text);
    return d;
}

/* Refused with a message that contains want. */
static void s_refused(const char *text, const char *want)
{
    rundoc_t *d = NULL;
    char err[512] = "";
    int rc = rundoc_parse(text, strlen(text), NULL, NULL, &d, err, sizeof err);
    CHECK_MSG(rc < 0, "accepted: %s", text);
    CHECK(d == NULL);
    CHECK_MSG(strstr(err, want) != NULL, "message \"%s\" lacks \"%s\"", err, want);
}

static void a_ladder_reads_its_rungs_and_prints_them_back(void)
{
    rundoc_t *d = s_ok(DOC(",\"ladder\":{\"nodes\":[2000,8000,32000]}"));
    CHECK_EQ_INT(d->series, RUNDOC_SERIES_LADDER);
    CHECK_EQ_INT(d->ladder_count, 3);
    CHECK_EQ_INT(d->ladder[2], 32000);
    CHECK_EQ_INT(rundoc_series_steps(d), 3);
    CHECK_EQ_INT(d->game.nodes, 2000);
    char *a = rundoc_to_json(d, false);
    CHECK(strstr(a, "\"ladder\":{\"nodes\":[2000,8000,32000]}") != NULL);
    CHECK(strstr(a, "\"nodes\":2000,") == NULL);   /* no game.nodes beside the rungs */
    rundoc_t *again = s_ok(a);
    char *b = rundoc_to_json(again, false);
    CHECK_EQ_STR(b, a);
    free(a);
    free(b);
    rundoc_destroy(&again);
    rundoc_destroy(&d);
}

static void each_rung_is_an_ordinary_values_run_with_its_nodes_and_the_same_seed(void)
{
    rundoc_t *d = s_ok(DOC(",\"ladder\":{\"nodes\":[2000,8000]},\"params\":{\"Tempo\":12}"));
    char err[256];
    char *step = rundoc_series_step_json(d, 1, NULL, NULL, NULL, err, sizeof err);
    CHECK_MSG(step != NULL, "%s", err);
    rundoc_t *r = s_ok(step);
    CHECK_EQ_INT(r->series, RUNDOC_SERIES_NONE);
    CHECK_EQ_INT(r->game.nodes, 8000);
    CHECK_EQ_INT(r->seed, 7);
    CHECK_EQ_STR(r->name, "s [rung 2: 8000 nodes]");
    CHECK_EQ_INT(r->imbalance_count, 5);
    CHECK_EQ_INT(r->params.count, 1);
    CHECK(strstr(step, "ladder") == NULL);
    free(step);
    rundoc_destroy(&r);
    /* Past the last rung there is no step. */
    CHECK(rundoc_series_step_json(d, 2, NULL, NULL, NULL, err, sizeof err) == NULL);
    CHECK(rundoc_series_step_json(d, -1, NULL, NULL, NULL, err, sizeof err) == NULL);
    rundoc_destroy(&d);
}

static void a_long_name_is_shortened_and_keeps_its_step(void)
{
    rundoc_t *d = s_ok("{\"kind\":\"values\",\"name\":\"" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                       "\",\"seed\":1," IMB_PAWN ",\"iterate\":{\"pieces\":[\"A\"],\"max_rounds\":10}}");
    char err[256];
    char *step = rundoc_series_step_json(d, 9, NULL, NULL, NULL, err, sizeof err);
    CHECK_MSG(step != NULL, "%s", err);
    rundoc_t *r = s_ok(step);
    CHECK(strlen(r->name) <= 63);
    size_t n = strlen(r->name);
    CHECK(n > 11 && strcmp(r->name + n - 11, " [round 10]") == 0);
    free(step);
    rundoc_destroy(&r);
    rundoc_destroy(&d);
}

static void ladder_settings_out_of_range_are_refused_naming_the_field(void)
{
    static const char *const cases[][2] = {
        { DOC(",\"ladder\":{\"nodes\":[2000]}"), "ladder.nodes: name 2..8" },
        { DOC(",\"ladder\":{\"nodes\":[1,2,3,4,5,6,7,8,9]}"), "ladder.nodes: at most 8 rungs" },
        { DOC(",\"ladder\":{\"nodes\":[2000,2000]}"), "ladder.nodes[1]: 2000 is not above" },
        { DOC(",\"ladder\":{\"nodes\":[8000,2000]}"), "ladder.nodes[1]" },
        { DOC(",\"ladder\":{\"nodes\":[0,2000]}"), "ladder.nodes[0]: 0 is outside" },
        { DOC(",\"ladder\":{\"nodes\":[2000,2000000000000]}"), "ladder.nodes[1]" },
        { DOC(",\"ladder\":{\"nodes\":[2000,2500.5]}"), "ladder.nodes[1]: expected a whole" },
        { DOC(",\"ladder\":{\"nodes\":[2000,\"8000\"]}"), "ladder.nodes[1]" },
        { DOC(",\"ladder\":{\"nodes\":2000}"), "ladder.nodes" },
        { DOC(",\"ladder\":{}"), "ladder.nodes" },
        { DOC(",\"ladder\":{\"nodes\":[1,2],\"depth\":[1,2]}"), "ladder.depth" },
        { DOC(",\"ladder\":[2000,8000]"), "ladder" },
        { DOC(",\"ladder\":{\"nodes\":[2000,8000]},\"game\":{\"nodes\":5000}"), "game.nodes: a document with a ladder" },
        { DOC(",\"ladder\":{\"nodes\":[2000,8000]},\"game\":{\"tc_base_ms\":1000,\"tc_inc_ms\":10}"),
              "game.tc_base_ms: a document with a ladder" },
        { DOC(",\"ladder\":{\"nodes\":[2000,8000]},\"iterate\":{\"pieces\":[\"A\"]}"),
              "not both" },
        /* only values runs are series */
        { "{\"kind\":\"sprt\",\"name\":\"t\",\"b\":{},\"ladder\":{\"nodes\":[1,2]}}", "ladder" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        s_refused(cases[i][0], cases[i][1]);
}

static void an_iteration_reads_its_pieces_and_rounds(void)
{
    rundoc_t *d = s_ok(DOC(",\"iterate\":{\"pieces\":[\"A\",\"C\",\"Q\"]}"));
    CHECK_EQ_INT(d->series, RUNDOC_SERIES_ITERATE);
    CHECK_EQ_STR(d->iterate, "ACQ");
    CHECK_EQ_INT(d->max_rounds, 4);   /* the default */
    CHECK_EQ_INT(rundoc_series_steps(d), 4);
    char *a = rundoc_to_json(d, false);
    CHECK(strstr(a, "\"iterate\":{\"pieces\":[\"A\",\"C\",\"Q\"],\"max_rounds\":4}") != NULL);
    rundoc_t *again = s_ok(a);
    char *b = rundoc_to_json(again, false);
    CHECK_EQ_STR(b, a);
    free(a);
    free(b);
    rundoc_destroy(&again);
    rundoc_destroy(&d);
    CHECK_EQ_STR(rundoc_piece_param('A', 0), "ArchbishopValueMg");
    CHECK_EQ_STR(rundoc_piece_param('C', 1), "ChancellorValueEg");
    CHECK_EQ_STR(rundoc_piece_param('P', 0), "PawnValueMg");
    CHECK(rundoc_piece_param('K', 0) == NULL);
    CHECK(rundoc_piece_param(0, 0) == NULL);
    CHECK_EQ_STR(rundoc_series_name(RUNDOC_SERIES_LADDER), "ladder");
    CHECK_EQ_INT(rundoc_series_parse("iterate"), RUNDOC_SERIES_ITERATE);
    CHECK_EQ_INT(rundoc_series_parse("spiral"), -1);
}

static void a_round_plays_the_fed_back_values_on_top_of_the_documents_params(void)
{
    rundoc_t *d = s_ok(DOC(",\"params\":{\"ArchbishopValueMg\":800,\"Tempo\":12},"
                           "\"iterate\":{\"pieces\":[\"A\",\"C\"],\"max_rounds\":3}"));
    proto_params_t p = { 0 };
    proto_param_t items[2] = { { .value = 912 }, { .value = 930 } };
    snprintf(items[0].name, sizeof items[0].name, "ArchbishopValueMg");
    snprintf(items[1].name, sizeof items[1].name, "ChancellorValueEg");
    p.items = items;
    p.count = 2;
    char err[256];
    char *step = rundoc_series_step_json(d, 1, &p, NULL, NULL, err, sizeof err);
    CHECK_MSG(step != NULL, "%s", err);
    rundoc_t *r = s_ok(step);
    CHECK_EQ_STR(r->name, "s [round 2]");
    CHECK_EQ_INT(r->seed, 7);
    CHECK_EQ_INT(r->params.count, 3);
    int seen = 0;
    for (size_t i = 0; i < r->params.count; i++) {
        if (strcmp(r->params.items[i].name, "ArchbishopValueMg") == 0)
            seen += r->params.items[i].value == 912;
        if (strcmp(r->params.items[i].name, "ChancellorValueEg") == 0)
            seen += r->params.items[i].value == 930;
        if (strcmp(r->params.items[i].name, "Tempo") == 0)
            seen += r->params.items[i].value == 12;
    }
    CHECK_EQ_INT(seen, 3);
    free(step);
    rundoc_destroy(&r);
    rundoc_destroy(&d);
}

static int s_reject_big(const char *name, double value, char *err, size_t errlen, void *ctx)
{
    (void) ctx;
    if (value > 4000) {
        snprintf(err, errlen, "%s: %g is above 4000", name, value);
        return CAPA_ERANGE;
    }
    return 0;
}

static void a_round_whose_values_the_engine_refuses_is_not_made(void)
{
    rundoc_t *d = s_ok(DOC(",\"iterate\":{\"pieces\":[\"A\"]}"));
    proto_param_t item = { .value = 5000 };
    snprintf(item.name, sizeof item.name, "ArchbishopValueMg");
    proto_params_t p = { .items = &item, .count = 1 };
    char err[256] = "";
    CHECK(rundoc_series_step_json(d, 1, &p, s_reject_big, NULL, err, sizeof err) == NULL);
    CHECK_MSG(strstr(err, "step 2: params.ArchbishopValueMg") != NULL, "%s", err);
    rundoc_destroy(&d);
}

static void iteration_settings_the_fit_cannot_feed_back_are_refused(void)
{
    static const char *const cases[][2] = {
        { DOC(",\"iterate\":{\"pieces\":[]}"), "iterate.pieces: name at least one" },
        { DOC(",\"iterate\":{}"), "iterate.pieces" },
        { DOC(",\"iterate\":{\"pieces\":[\"P\"]}"), "iterate.pieces[0]: expected one letter" },
        { DOC(",\"iterate\":{\"pieces\":[\"K\"]}"), "iterate.pieces[0]" },
        { DOC(",\"iterate\":{\"pieces\":[\"AC\"]}"), "iterate.pieces[0]" },
        { DOC(",\"iterate\":{\"pieces\":[1]}"), "iterate.pieces[0]" },
        { DOC(",\"iterate\":{\"pieces\":[\"A\",\"A\"]}"), "iterate.pieces[1]: \"A\" is named twice" },
        { DOC(",\"iterate\":{\"pieces\":[\"N\",\"B\",\"R\",\"A\",\"C\",\"Q\",\"N\"]}"),
              "iterate.pieces: at most 6" },
        { DOC(",\"iterate\":{\"pieces\":[\"A\"],\"max_rounds\":1}"), "iterate.max_rounds" },
        { DOC(",\"iterate\":{\"pieces\":[\"A\"],\"max_rounds\":11}"), "iterate.max_rounds" },
        { DOC(",\"iterate\":{\"pieces\":[\"A\"],\"rounds\":3}"), "iterate.rounds" },
        /* R and N only as R + N against A; B in no imbalance */
        { DOC(",\"iterate\":{\"pieces\":[\"A\",\"N\"]}"),
          "iterate.pieces[1]: the imbalances do not determine N on its own (in every imbalance" },
        { DOC(",\"iterate\":{\"pieces\":[\"B\"]}"), "iterate.pieces[0]: B takes part in no imbalance" },
        /* without pawn odds nothing comes out in pawns */
        { "{\"kind\":\"values\",\"name\":\"s\",\"imbalances\":[{\"name\":\"A vs C\",\"side\":\"A\","
          "\"other\":\"C\"},{\"name\":\"Q vs A\",\"side\":\"Q\",\"other\":\"A\"}],"
          "\"iterate\":{\"pieces\":[\"A\"]}}",
          "iterate: the imbalances do not determine the pawn" },
        /* a per-side set may not name a value the iteration sets for both sides */
        { DOC(",\"params_side\":{\"ArchbishopValueMg\":900},\"iterate\":{\"pieces\":[\"A\",\"C\"]}"),
          "params_side.ArchbishopValueMg: the iteration sets A's value for both sides" },
        { DOC(",\"params_other\":{\"ChancellorValueEg\":950},\"iterate\":{\"pieces\":[\"A\",\"C\"]}"),
          "params_other.ChancellorValueEg: the iteration sets C's value" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        s_refused(cases[i][0], cases[i][1]);
    /* what the iteration does not set stays the document's to choose per side */
    rundoc_t *d = s_ok(DOC(",\"params_side\":{\"QueenValueMg\":990},\"iterate\":{\"pieces\":[\"A\",\"C\"]}"));
    rundoc_destroy(&d);
}

static const check_case_t CASES[] = {
    CASE(a_ladder_reads_its_rungs_and_prints_them_back),
    CASE(each_rung_is_an_ordinary_values_run_with_its_nodes_and_the_same_seed),
    CASE(a_long_name_is_shortened_and_keeps_its_step),
    CASE(ladder_settings_out_of_range_are_refused_naming_the_field),
    CASE(an_iteration_reads_its_pieces_and_rounds),
    CASE(a_round_plays_the_fed_back_values_on_top_of_the_documents_params),
    CASE(a_round_whose_values_the_engine_refuses_is_not_made),
    CASE(iteration_settings_the_fit_cannot_feed_back_are_refused),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
