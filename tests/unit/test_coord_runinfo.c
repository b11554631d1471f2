/* Unit tests for the coordinator's view of run documents (runinfo.h) and
 * for the report text (report.h). */
#include <stdio.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "err.h"
#include "report.h"
#include "runinfo.h"

static char *s_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

static void the_example_runs_give_what_the_coordinator_needs(void)
{
    char err[512];
    runinfo_t *ri = NULL;
    const char *doc = s_read(CAPA_SOURCE_DIR "/configs/run-sprt.json");
    CHECK(doc != NULL);
    CHECK_MSG(runinfo_from_doc(doc, NULL, 0, &ri, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(ri->doc->kind, PROTO_KIND_SPRT);
    CHECK_EQ_INT(ri->pairs_planned, 20000);
    CHECK_EQ_INT(ri->b->count, 1);
    CHECK_EQ_INT(ri->spec.source, STARTPOS_CRC);
    CHECK_NEAR(ri->sprt.elo1, 5, 1e-12);
    startpos_t sp;
    CHECK(runinfo_start(ri, 123, &sp, err, sizeof err) == 0);
    CHECK(sp.crc_number >= 0);
    runinfo_destroy(&ri);
    CHECK(ri == NULL);

    doc = s_read(CAPA_SOURCE_DIR "/configs/run-values.json");
    CHECK(doc != NULL);
    CHECK_MSG(runinfo_from_doc(doc, NULL, 0, &ri, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(ri->doc->kind, PROTO_KIND_VALUES);
    CHECK_EQ_INT(ri->imbalance_count, 10);
    CHECK_EQ_INT(ri->pairs_planned, 8 * 1000 + 2 * 2000);
    CHECK_EQ_INT(ri->imbalances[8].pairs, 2000);
    CHECK_EQ_STR(ri->imbalances[3].other, "RN");
    /* Every planned pair has a start; the one after the last has none. */
    CHECK(runinfo_start(ri, ri->pairs_planned - 1, &sp, err, sizeof err) == 0);
    CHECK_EQ_STR(sp.imbalance, "pawn odds");
    CHECK_EQ_INT(runinfo_start(ri, ri->pairs_planned, &sp, err, sizeof err), CAPA_ERANGE);
    runinfo_destroy(&ri);

    doc = s_read(CAPA_SOURCE_DIR "/configs/run-spsa.json");
    CHECK(doc != NULL);
    CHECK_MSG(runinfo_from_doc(doc, NULL, 0, &ri, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(ri->doc->kind, PROTO_KIND_SPSA);
    CHECK_EQ_INT(ri->spsa.n_params, 4);
    CHECK_EQ_INT(ri->spsa.iterations, 20000);
    CHECK_NEAR(ri->spsa.A_ratio, 0.1, 1e-12);
    runinfo_destroy(&ri);
}

static void documents_the_engine_or_the_arrays_cannot_play_are_refused(void)
{
    char err[512] = "";
    runinfo_t *ri = NULL;
    /* A parameter the engine does not have. */
    const char *bad_param = "{\"kind\":\"sprt\",\"name\":\"x\",\"a\":{},\"b\":{\"NoSuchValue\":1}}";
    CHECK(runinfo_from_doc(bad_param, NULL, 0, &ri, err, sizeof err) < 0);
    CHECK(strstr(err, "NoSuchValue") != NULL);
    CHECK(ri == NULL);
    /* Three rooks cannot be removed from an array that has two. */
    const char *rrr = "{\"kind\":\"values\",\"name\":\"x\",\"imbalances\":[{\"name\":\"Q vs RRR\","
                      "\"side\":\"Q\",\"other\":\"RRR\"}]}";
    CHECK(runinfo_from_doc(rrr, NULL, 0, &ri, err, sizeof err) < 0);
    CHECK(ri == NULL);
    /* A book that is not there. */
    const char *book = "{\"kind\":\"sprt\",\"name\":\"x\",\"a\":{},\"b\":{},\"positions\":"
                       "{\"source\":\"book\",\"file\":\"no/such/book.epd\",\"sha256\":"
                       "\"0000000000000000000000000000000000000000000000000000000000000000\"}}";
    CHECK_EQ_INT(runinfo_from_doc(book, NULL, 0, &ri, err, sizeof err), CAPA_EIO);
    CHECK(ri == NULL);
    CHECK(runinfo_from_doc("not json", NULL, 0, &ri, err, sizeof err) < 0);
}

static void the_report_text_shows_the_sprt_figures(void)
{
    const char *json =
        "{\"id\":7,\"name\":\"t\",\"kind\":\"sprt\",\"status\":\"finished\",\"priority\":0,"
        "\"pairs_planned\":100,\"totals\":{\"pairs\":40,\"cpu_ms\":3600000},"
        "\"sprt\":{\"model\":\"normalized\",\"elo0\":0,\"elo1\":5,\"alpha\":0.05,\"beta\":0.05,"
        "\"wins\":30,\"draws\":20,\"losses\":30,\"penta\":[1,2,3,4,5],"
        "\"elo\":{\"value\":12.5,\"ci95\":[1.5,23.5]},\"nelo\":{\"value\":20,\"ci95\":[2,38]},"
        "\"los\":0.99,\"llr\":2.95,\"lower_bound\":-2.94,\"upper_bound\":2.94,\"verdict\":\"H1\"},"
        "\"result\":{\"verdict\":\"H1\"}}";
    cJSON *rep = cJSON_Parse(json);
    CHECK(rep != NULL);
    char *text = report_format(rep);
    CHECK(text != NULL);
    CHECK(strstr(text, "run 7") != NULL);
    CHECK(strstr(text, "W 30  D 20  L 30") != NULL);
    CHECK(strstr(text, "1 2 3 4 5") != NULL);
    CHECK(strstr(text, "12.5 [1.5, 23.5]") != NULL);
    CHECK(strstr(text, "LOS        99.0%") != NULL);
    CHECK(strstr(text, "2.950  [-2.940, 2.940]") != NULL);
    CHECK(strstr(text, "verdict    H1") != NULL);
    CHECK(strstr(text, "CPU 1.0 h") != NULL);
    free(text);
    cJSON_Delete(rep);
}

static const check_case_t CASES[] = {
    CASE(the_example_runs_give_what_the_coordinator_needs),
    CASE(documents_the_engine_or_the_arrays_cannot_play_are_refused),
    CASE(the_report_text_shows_the_sprt_figures),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
