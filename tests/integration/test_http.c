/* Integration tests of the coordinator's HTTP API: every endpoint, auth,
 * run submission and stop, reports, PGN upload and download, hostile
 * requests, /health without a database and closed reads. A real
 * capa-coordinator on loopback (test_http_fixture.h); in-process servers
 * (http_start) for the configurations the shared one does not have. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <libpq-fe.h>

#include "admin.h"
#include "check.h"
#include "client.h"
#include "err.h"
#include "http.h"
#include "store.h"
#include "test_http_fixture.h"
#include "upload.h"

static const char SPRT_DOC[] =
    "{\"kind\":\"sprt\",\"name\":\"A 875\",\"seed\":7,\"variant\":\"caparandom\","
    "\"game\":{\"nodes\":1000},\"a\":{},\"b\":{\"ArchbishopValueMg\":875},"
    "\"elo0\":0,\"elo1\":5,\"max_pairs\":5000}";

static const char VALUES_DOC[] =
    "{\"kind\":\"values\",\"name\":\"study <b>&amp;\",\"seed\":3,\"variant\":\"caparandom\","
    "\"game\":{\"nodes\":1000},\"pairs_per_imbalance\":100,\"imbalances\":["
    "{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\"},"
    "{\"name\":\"A vs R\",\"side\":\"A\",\"other\":\"R\"},"
    "{\"name\":\"C vs R\",\"side\":\"C\",\"other\":\"R\"},"
    "{\"name\":\"R vs N\",\"side\":\"R\",\"other\":\"N\"},"
    "{\"name\":\"knight odds\",\"side\":\"\",\"other\":\"N\"},"
    "{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\"}]}";

static const char *const IMB[] = { "A vs C", "A vs R", "C vs R", "R vs N", "knight odds",
                                   "pawn odds" };
static const char *const SIDE[] = { "A", "A", "C", "R", "", "" };
static const char *const OTHER[] = { "C", "R", "R", "N", "N", "P" };

static int64_t s_sprt_run, s_values_run;

static void s_expect(const char *method, const char *path, const char *token, const char *body,
                     long status, const char *code)
{
    http_res_t r;
    CHECK_MSG(fx_http(method, path, token, body, &r) == 0, "%s %s: no answer", method, path);
    CHECK_MSG(r.status == status, "%s %s: %ld, expected %ld (%s)", method, path, r.status, status,
              r.body ? r.body : "");
    if (code)
        CHECK_MSG(strcmp(fx_code(&r), code) == 0, "%s %s: code \"%s\", expected \"%s\"", method,
                  path, fx_code(&r), code);
    if (status >= 400)
        CHECK_MSG(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(r.json, "error")),
                  "%s %s: error body without \"error\": %s", method, path, r.body);
    fx_res_free(&r);
}

static void every_read_endpoint_answers(void)
{
    char path[128];
    struct { const char *path; const char *type; } reads[] = {
        { "/health", "json" },  { "/metrics", "capa_up 1" }, { "/api/runs", "json" },
        { "/api/values", "json" }, { "/api/workers", "json" }, { "/api/contributors", "json" },
        { "/api/status", "json" }, { "/", "<!DOCTYPE html>" }, { "/workers", "<!DOCTYPE html>" },
        { "/contributors", "<!DOCTYPE html>" }, { "/values", "<!DOCTYPE html>" },
    };
    for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++) {
        http_res_t r;
        CHECK(fx_http("GET", reads[i].path, NULL, NULL, &r) == 0);
        CHECK_MSG(r.status == 200, "GET %s: %ld %s", reads[i].path, r.status, r.body);
        if (strcmp(reads[i].type, "json") == 0)
            CHECK_MSG(cJSON_IsObject(r.json), "GET %s: not a JSON object", reads[i].path);
        else
            CHECK_MSG(strstr(r.body, reads[i].type) != NULL, "GET %s: no \"%s\"", reads[i].path,
                      reads[i].type);
        fx_res_free(&r);
    }
    const char *per_run[] = { "/api/runs/%lld", "/api/runs/%lld/report", "/runs/%lld" };
    for (size_t i = 0; i < 3; i++) {
        snprintf(path, sizeof path, per_run[i], (long long) s_values_run);
        s_expect("GET", path, NULL, NULL, 200, NULL);
    }
    /* The contributor list never shows token hashes; the metrics are well formed. */
    http_res_t r;
    CHECK(fx_http("GET", "/api/contributors", NULL, NULL, &r) == 0);
    CHECK(strstr(r.body, "hash") == NULL && strstr(r.body, "token") == NULL);
    CHECK(strstr(r.body, "\"alice\"") != NULL);
    CHECK(strstr(r.body, "\"recent_days\":7") != NULL || strstr(r.body, "\"recent_days\": 7") != NULL);
    CHECK(strstr(r.body, "\"share_recent\"") != NULL && strstr(r.body, "\"active_workers\"") != NULL &&
          strstr(r.body, "\"last_seen_ms\"") != NULL && strstr(r.body, "\"cpu_hours_recent\"") != NULL);
    fx_res_free(&r);
    CHECK(fx_http("GET", "/contributors", NULL, NULL, &r) == 0);
    CHECK(strstr(r.body, "last 7 days") != NULL && strstr(r.body, "<th>last seen (UTC)</th>") != NULL);
    CHECK(strstr(r.body, "alice") != NULL);
    fx_res_free(&r);
    CHECK(fx_http("GET", "/metrics", NULL, NULL, &r) == 0);
    CHECK(strstr(r.body, "# TYPE capa_pairs_per_second gauge") != NULL);
    CHECK(strstr(r.body, "capa_runs{status=\"finished\"}") != NULL);
    CHECK(strstr(r.body, "capa_db_latency_seconds ") != NULL);
    CHECK(strstr(r.body, "capa_queue_pairs ") != NULL);
    CHECK(strstr(r.body, "capa_workers_live ") != NULL);
    fx_res_free(&r);
    /* The coordinator's loop publishes what only its memory knows once a
     * second: open sessions, leased and queued pairs. */
    bool live = false;
    for (int i = 0; i < 40 && !live; i++) {
        CHECK(fx_http("GET", "/metrics", NULL, NULL, &r) == 0);
        live = strstr(r.body, "capa_workers_connected 0") != NULL &&
               strstr(r.body, "capa_pairs_queued ") != NULL;
        fx_res_free(&r);
        if (!live)
            usleep(100 * 1000);
    }
    CHECK(live);
}

static void writing_needs_an_admin_token(void)
{
    s_expect("POST", "/api/runs", NULL, SPRT_DOC, 401, "unauthorized");
    s_expect("POST", "/api/runs", "capa_wrongwrongwrongwrongwrongwrongwrongwrongwro", SPRT_DOC,
             401, "unauthorized");
    s_expect("POST", "/api/runs", "not a token at all", SPRT_DOC, 401, "unauthorized");
    s_expect("POST", "/api/runs", g_fx.alice, SPRT_DOC, 403, "forbidden");
    s_expect("POST", "/api/contributors", g_fx.alice, "{\"name\":\"eve\"}", 403, "forbidden");
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) s_sprt_run);
    s_expect("POST", path, g_fx.mallory, NULL, 403, "forbidden");
    /* The configured admin token and an admin contributor's token both write. */
    http_res_t r;
    CHECK(fx_http("POST", "/api/contributors", g_fx.cfg_admin, "{\"name\":\"carol\"}", &r) == 0);
    CHECK_MSG(r.status == 201, "%ld %s", r.status, r.body);
    const cJSON *tok = cJSON_GetObjectItemCaseSensitive(r.json, "token");
    CHECK(cJSON_IsString(tok) && token_check_format(tok->valuestring, NULL, 0) == 0);
    char carol[TOKEN_TEXT_MAX];
    snprintf(carol, sizeof carol, "%s", tok->valuestring);
    fx_res_free(&r);
    s_expect("POST", "/api/contributors", g_fx.admin, "{\"name\":\"carol\"}", 409, "conflict");
    s_expect("POST", "/api/contributors", g_fx.admin, "{\"name\":\"x\",\"admin\":\"yes\"}", 400,
             "invalid");
    s_expect("POST", "/api/contributors", g_fx.admin, "{\"name\":\"x\",\"extra\":1}", 400,
             "invalid");
    /* The new token works at once for reads that need one (PGN upload to an
     * unknown task: authenticated, then 404). */
    s_expect("POST", "/api/tasks/999999/pgn", carol, "[Event \"x\"]\n\n1. a3 *\n", 404,
             "not_found");
    /* A revoked token is refused. */
    char err[256];
    CHECK(admin_contributor_revoke(g_fx.st, "carol", err, sizeof err) == 0);
    s_expect("POST", "/api/tasks/999999/pgn", carol, "x", 401, "unauthorized");
}

static void a_submitted_run_is_picked_up_and_can_be_stopped(void)
{
    int64_t id = fx_submit(SPRT_DOC);
    CHECK(id > 0);
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld", (long long) id);
    http_res_t r;
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    const char *status = cJSON_GetObjectItemCaseSensitive(r.json, "status")->valuestring;
    CHECK_MSG(strcmp(status, "pending") == 0 || strcmp(status, "running") == 0, "%s", status);
    CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(r.json, "doc")));
    fx_res_free(&r);
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) id);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);   /* stopping twice is harmless */
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) s_values_run);
    s_expect("POST", path, g_fx.admin, NULL, 409, "conflict");   /* it has finished */
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) id);
    s_expect("GET", path, g_fx.admin, NULL, 405, "method_not_allowed");
    s_expect("POST", "/api/runs/999999/stop", g_fx.admin, NULL, 404, "not_found");
    /* A stopped run can be resumed, once; a finished one cannot. */
    snprintf(path, sizeof path, "/api/runs/%lld/resume", (long long) id);
    s_expect("POST", path, NULL, NULL, 401, "unauthorized");
    s_expect("GET", path, g_fx.admin, NULL, 405, "method_not_allowed");
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);
    s_expect("POST", path, g_fx.admin, NULL, 409, "conflict");   /* it runs already */
    snprintf(path, sizeof path, "/api/runs/%lld", (long long) id);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_MSG(strcmp(cJSON_GetObjectItemCaseSensitive(r.json, "status")->valuestring, "running") == 0,
              "%s", cJSON_GetObjectItemCaseSensitive(r.json, "status")->valuestring);
    fx_res_free(&r);
    snprintf(path, sizeof path, "/api/runs/%lld/resume", (long long) s_values_run);
    s_expect("POST", path, g_fx.admin, NULL, 409, "conflict");
    s_expect("POST", "/api/runs/999999/resume", g_fx.admin, NULL, 404, "not_found");
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) id);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);
    CHECK(fx_http("GET", "/api/runs?status=stopped&kind=sprt", NULL, NULL, &r) == 0);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(r.json, "runs");
    CHECK_EQ_INT(cJSON_GetArraySize(runs), 1);
    CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(runs, 0), "id")->valuedouble,
                 id);
    fx_res_free(&r);
    s_expect("GET", "/api/runs?status=bogus", NULL, NULL, 400, "bad_request");
    s_expect("GET", "/api/runs?limit=0", NULL, NULL, 400, "bad_request");
    /* A document the validator refuses says why. */
    CHECK(fx_http("POST", "/api/runs", g_fx.admin,
                  "{\"kind\":\"sprt\",\"name\":\"x\",\"b\":{\"NoSuchParam\":1}}", &r) == 0);
    CHECK_EQ_INT(r.status, 400);
    CHECK_EQ_STR(fx_code(&r), "invalid_run");
    CHECK(strstr(r.body, "NoSuchParam") != NULL);
    fx_res_free(&r);
    /* A values run's per-side sets are checked against the engine's table like params. */
    const char *sides[][2] = {
        { "\"params_side\":{\"NoSuchParam\":1}", "params_side.NoSuchParam: " },
        { "\"params_other\":{\"ArchbishopValueMg\":99999}", "params_other.ArchbishopValueMg: " },
    };
    for (size_t i = 0; i < 2; i++) {
        char doc[512];
        snprintf(doc, sizeof doc, "{\"kind\":\"values\",\"name\":\"sides\",%s,\"imbalances\":"
                 "[{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\"}]}", sides[i][0]);
        CHECK(fx_http("POST", "/api/runs", g_fx.admin, doc, &r) == 0);
        CHECK_EQ_INT(r.status, 400);
        CHECK_EQ_STR(fx_code(&r), "invalid_run");
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(r.json, "error");
        CHECK_MSG(cJSON_IsString(e) && strncmp(e->valuestring, sides[i][1], strlen(sides[i][1])) == 0,
                  "%s", r.body);
        fx_res_free(&r);
    }
}

static void reports_carry_the_statistics_of_their_kind(void)
{
    http_res_t r;
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/report", (long long) s_sprt_run);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(r.json, "sprt");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s, "llr")));
    CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(s, "pairs")->valuedouble, 600);
    const cJSON *elo = cJSON_GetObjectItemCaseSensitive(s, "elo");
    CHECK(cJSON_GetObjectItemCaseSensitive(elo, "value")->valuedouble > 0);
    fx_res_free(&r);

}

/* The estimate of /api/values for variant and engine bench, or NULL. */
static const cJSON *s_best_of(const cJSON *values, const char *variant, double bench)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(values, "estimates")) {
        const cJSON *eng = cJSON_GetObjectItemCaseSensitive(e, "engine");
        if (strcmp(cJSON_GetObjectItemCaseSensitive(e, "variant")->valuestring, variant) == 0 &&
            cJSON_GetObjectItemCaseSensitive(eng, "bench")->valuedouble == bench)
            return e;
    }
    return NULL;
}

static double s_best_run(const cJSON *e)
{
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "provenance");
    return e ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "runs"), 0)->valuedouble : -1;
}

/* A run of VALUES_DOC at another node count. */
static int64_t s_values_submit(int nodes)
{
    char doc[sizeof VALUES_DOC + 16];
    const char *at = strstr(VALUES_DOC, "\"nodes\":1000");
    CHECK(at != NULL);
    snprintf(doc, sizeof doc, "%.*s\"nodes\":%d%s", (int) (at - VALUES_DOC), VALUES_DOC, nodes,
             at + strlen("\"nodes\":1000"));
    int64_t run = fx_submit(doc);
    CHECK(run > 0);
    return run;
}

static void the_values_page_shows_the_best_estimate_per_variant_and_engine(void)
{
    http_res_t r;
    CHECK(fx_http("GET", "/api/values", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    /* the fixture's finished study; its pairs were stored without a worker */
    const cJSON *e = s_best_of(r.json, "caparandom", 0);
    CHECK(e != NULL);
    CHECK_EQ_INT(s_best_run(e), s_values_run);
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "provenance");
    CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(p, "pairs")->valuedouble, 600);
    CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(p, "games")->valuedouble, 1200);
    CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(p, "nodes")->valuedouble, 1000);
    CHECK(cJSON_GetObjectItemCaseSensitive(p, "fitted_at_ms")->valuedouble > 0);
    /* contrasts lead the estimate's figures; values follow, in pawns */
    const cJSON *after = cJSON_GetObjectItemCaseSensitive(e, "provenance")->next;
    CHECK_EQ_STR(after->string, "contrasts");
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(after, 0), "name")->valuestring,
                 "A-C");
    CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e, "unit")));
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "values"), "A");
    double av = cJSON_GetObjectItemCaseSensitive(a, "value")->valuedouble;
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(a, "ci95");
    CHECK_MSG(av > 6.5 && av < 9.5, "A = %g (model: 8)", av);
    CHECK(cJSON_GetArrayItem(ci, 0)->valuedouble < av && cJSON_GetArrayItem(ci, 1)->valuedouble > av);
    fx_res_free(&r);

    /* A deeper study with fewer pairs takes over its variant and engine; a
     * study whose pairs came from a worker of another engine is its own
     * entry; a study that determines nothing yet is listed but never the
     * best. (Values runs play CRC arrays: their variant is caparandom.) */
    int64_t deep = s_values_submit(4000);
    int64_t other = s_values_submit(4000);
    int64_t empty = s_values_submit(9000);
    CHECK(fx_fill(deep, 0, 300, IMB, SIDE, OTHER, 6, 0) == 0 && fx_finish(deep) == 0);
    CHECK(fx_fill(other, 0, 900, IMB, SIDE, OTHER, 6, 0) == 0);
    store_worker_t w;
    memset(&w, 0, sizeof w);
    snprintf(w.id, sizeof w.id, "w-bench-777");
    snprintf(w.engine_version, sizeof w.engine_version, "capalab test");
    w.contributor_id = g_fx.alice_id;
    w.cores = w.concurrency = 1;
    w.bench_signature = 777;
    CHECK(store_worker_upsert(g_fx.st, &w) == 0);
    PGconn *c = PQconnectdb(g_fx.ci);
    char sql[160];
    snprintf(sql, sizeof sql,
             "UPDATE pairs SET worker_id = 'w-bench-777', engine_bench = 777, engine_version = 'capalab test'"
             " WHERE run_id = %lld",
             (long long) other);
    PGresult *res = PQexec(c, sql);
    CHECK(PQresultStatus(res) == PGRES_COMMAND_OK);
    PQclear(res);
    PQfinish(c);
    CHECK(fx_finish(other) == 0);
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) empty);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);   /* stopped before a game */
    CHECK(fx_http("GET", "/api/values", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(s_best_run(s_best_of(r.json, "caparandom", 0)), deep);
    e = s_best_of(r.json, "caparandom", 777);
    CHECK_EQ_INT(s_best_run(e), other);
    /* an estimate says what it is adjusted for (null: nothing to adjust) */
    CHECK(cJSON_GetObjectItemCaseSensitive(e, "unprotected_pawns") != NULL);
    CHECK(cJSON_GetObjectItemCaseSensitive(e, "king_shelter") != NULL);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(e, "engine"),
                                                  "version")->valuestring, "capalab test");
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r.json, "estimates")), 2);
    fx_res_free(&r);
    /* the worker upgrades its engine: the pairs it stored keep the engine
     * they were played with (sql/007), so the estimate stays where it was */
    w.bench_signature = 888;
    snprintf(w.engine_version, sizeof w.engine_version, "capalab upgraded");
    CHECK(store_worker_upsert(g_fx.st, &w) == 0);
    CHECK(fx_http("GET", "/api/values", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(s_best_run(s_best_of(r.json, "caparandom", 777)), other);
    CHECK(s_best_of(r.json, "caparandom", 888) == NULL);
    fx_res_free(&r);
    /* the engines come with the stored estimate (counted when it was fitted),
     * so a request reads no pairs: a change behind the estimate's back shows
     * only at its next fit */
    c = PQconnectdb(g_fx.ci);
    snprintf(sql, sizeof sql, "UPDATE pairs SET engine_bench = 999 WHERE run_id = %lld", (long long) other);
    res = PQexec(c, sql);
    CHECK(PQresultStatus(res) == PGRES_COMMAND_OK);
    PQclear(res);
    PQfinish(c);
    CHECK(fx_http("GET", "/api/values", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(s_best_run(s_best_of(r.json, "caparandom", 777)), other);
    CHECK(s_best_of(r.json, "caparandom", 999) == NULL);
    fx_res_free(&r);
    /* a run that changes the engine's parameters (a sensitivity study) is
     * listed but never the best, however deep */
    char pdoc[sizeof VALUES_DOC + 64];
    const char *at = strstr(VALUES_DOC, "\"nodes\":1000");
    CHECK(at != NULL);
    snprintf(pdoc, sizeof pdoc, "%.*s\"nodes\":9500%s", (int) (at - VALUES_DOC), VALUES_DOC,
             at + strlen("\"nodes\":1000"));
    char *brace = strchr(pdoc, '{');
    CHECK(brace != NULL);
    char withp[sizeof pdoc + 64];
    snprintf(withp, sizeof withp, "{\"params_side\":{\"ArchbishopValueMg\":900},%s", brace + 1);
    int64_t sens = fx_submit(withp);
    CHECK(sens > 0);
    CHECK(fx_fill(sens, 0, 300, IMB, SIDE, OTHER, 6, 0) == 0 && fx_finish(sens) == 0);
    CHECK(fx_http("GET", "/api/values", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(s_best_run(s_best_of(r.json, "caparandom", 0)), deep);
    const cJSON *srun;
    bool seen = false;
    cJSON_ArrayForEach(srun, cJSON_GetObjectItemCaseSensitive(r.json, "runs"))
        if (cJSON_GetObjectItemCaseSensitive(srun, "run")->valuedouble == sens) {
            seen = true;
            CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(srun, "params_changed")));
            CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(srun, "best")));
            CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(srun, "determined")));
        }
    CHECK(seen);
    const cJSON *run;
    int listed = 0;
    cJSON_ArrayForEach(run, cJSON_GetObjectItemCaseSensitive(r.json, "runs")) {
        double id = cJSON_GetObjectItemCaseSensitive(run, "run")->valuedouble;
        bool best = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(run, "best"));
        if (id == empty) {
            CHECK(!best && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(run, "determined")));
            CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(run, "error")));
        }
        if (id == s_values_run)
            CHECK(!best);   /* shallower than deep */
        listed += id == empty || id == s_values_run || id == deep || id == other;
    }
    CHECK_EQ_INT(listed, 4);
    fx_res_free(&r);
    /* one variant; a variant without runs is an answer, not an error */
    CHECK(fx_http("GET", "/api/values?variant=caparandom", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r.json, "estimates")), 2);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(r.json, "variant")->valuestring, "caparandom");
    fx_res_free(&r);
    CHECK(fx_http("GET", "/api/values?variant=gothic", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r.json, "estimates")), 0);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(r.json, "message")->valuestring,
                 "no values runs yet");
    fx_res_free(&r);
    s_expect("GET", "/api/values?variant=chess", NULL, NULL, 400, "bad_request");
    /* the page: each best estimate with its run, contrasts before values */
    CHECK(fx_http("GET", "/values", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    snprintf(path, sizeof path, "From <a href=\"/runs/%lld\">", (long long) deep);
    const char *from = strstr(r.body, path);
    CHECK_MSG(from != NULL, "no estimate from run %lld on the page", (long long) deep);
    const char *ac = from ? strstr(from, ">A-C<") : NULL, *unit = ac ? strstr(ac, "<b>Unit:</b>") : NULL;
    CHECK(ac != NULL && unit != NULL && strstr(unit, "pawns [95%, Fieller]") != NULL);
    CHECK(strstr(r.body, "engine bench 777 (capalab test)") != NULL);
    CHECK(strstr(r.body, "4000 nodes per move") != NULL);
    fx_res_free(&r);
    CHECK(fx_http("GET", "/values?variant=gothic", NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    CHECK(strstr(r.body, "no values runs yet") != NULL);
    fx_res_free(&r);
}

static void a_values_study_hears_at_submit_what_it_cannot_separate_and_its_report_leads_with_contrasts(void)
{
    /* the old configs/run-values.json: R always against N + B, no piece
     * against pawns; accepted, with the sentences its report will show */
    static const char DOC[] =
        "{\"kind\":\"values\",\"name\":\"partial\",\"game\":{\"nodes\":1000},\"params\":{},"
        "\"pairs_per_imbalance\":10,\"imbalances\":["
        "{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\"},{\"name\":\"A vs Q\",\"side\":\"A\",\"other\":\"Q\"},"
        "{\"name\":\"C vs Q\",\"side\":\"C\",\"other\":\"Q\"},{\"name\":\"A vs R+N\",\"side\":\"A\",\"other\":\"RN\"},"
        "{\"name\":\"C vs R+B\",\"side\":\"C\",\"other\":\"RB\"},{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\"}]}";
    http_res_t r;
    CHECK(fx_http("POST", "/api/runs", g_fx.admin, DOC, &r) == 0);
    CHECK_EQ_INT(r.status, 201);
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(r.json, "warnings");
    CHECK_EQ_INT(cJSON_GetArraySize(w), 2);
    CHECK_MSG(strstr(cJSON_GetArrayItem(w, 0)->valuestring, "R = N + B") != NULL, "%s", r.body);
    int64_t id = (int64_t) cJSON_GetObjectItemCaseSensitive(r.json, "id")->valuedouble;
    fx_res_free(&r);
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) id);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);
    /* a study that separates everything has nothing to warn about */
    CHECK(fx_http("POST", "/api/runs", g_fx.admin,
                  "{\"kind\":\"values\",\"name\":\"whole\",\"game\":{\"nodes\":1000},\"params\":{},"
                  "\"pairs_per_imbalance\":10,\"imbalances\":[{\"name\":\"N vs 3P\",\"side\":\"N\","
                  "\"other\":\"PPP\"},{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\"}]}",
                  &r) == 0);
    CHECK_EQ_INT(r.status, 201);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r.json, "warnings")), 0);
    snprintf(path, sizeof path, "/api/runs/%lld/stop",
             (long long) cJSON_GetObjectItemCaseSensitive(r.json, "id")->valuedouble);
    fx_res_free(&r);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);
    /* the report of the filled values run: contrasts first, Fieller, lack of fit */
    snprintf(path, sizeof path, "/api/runs/%lld/report", (long long) s_values_run);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    const cJSON *vals = cJSON_GetObjectItemCaseSensitive(r.json, "values");
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(vals, "interval")->valuestring, "fieller");
    CHECK_EQ_STR(vals->child->string, "games");
    const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(vals, "contrasts"), 0);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(c0, "name")->valuestring, "A-C");
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c0, "estimable")));
    CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(c0, "pawns")));
    CHECK(cJSON_GetObjectItemCaseSensitive(vals, "lack_of_fit") != NULL);
    CHECK(strstr(cJSON_GetObjectItemCaseSensitive(vals, "unit")->valuestring, "one start pawn") != NULL);
    /* the 600 pairs were dealt in 100 rounds of six: the rounds are the clusters,
     * the pair-clustered figures stay beside */
    const cJSON *cl = cJSON_GetObjectItemCaseSensitive(vals, "clusters");
    CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cl, "by")), "round");
    CHECK_EQ_INT(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(cl, "count")), 100);
    const cJSON *pc = cJSON_GetObjectItemCaseSensitive(vals, "pair_clustered");
    const cJSON *pc0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(pc, "contrasts"), 0);
    CHECK_EQ_STR(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(pc0, "name")), "A-C");
    CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(pc0, "pawns")));
    /* full arrays: no pawn starts unprotected, nothing to adjust for */
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(vals, "unprotected_pawns")));
    /* every game's ending, with its share */
    const cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r.json, "endings"), 0);
    CHECK(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(e0, "end")));
    CHECK(cJSON_GetObjectItemCaseSensitive(e0, "share")->valuedouble > 0.0);
    fx_res_free(&r);
}

/* The pairs a values report's fit used ("estimate".pairs_used) and its games. */
static void s_estimate_of(int64_t run, int64_t *pairs_used, int64_t *games, int64_t *pairs)
{
    http_res_t r;
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld", (long long) run);
    *pairs_used = *games = *pairs = -1;
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(r.json, "estimate");
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(r.json, "values");
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(r.json, "totals");
    if (cJSON_IsObject(e))
        *pairs_used = (int64_t) cJSON_GetObjectItemCaseSensitive(e, "pairs_used")->valuedouble;
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(v, "games")))
        *games = (int64_t) cJSON_GetObjectItemCaseSensitive(v, "games")->valuedouble;
    *pairs = (int64_t) cJSON_GetObjectItemCaseSensitive(t, "pairs")->valuedouble;
    fx_res_free(&r);
}

/* Reports and pages read the fit the coordinator stored for the run's data
 * (no fit of their own): new pairs change the totals at once and the fit
 * only at the next estimate; the chart draws the stored fits. */
static void a_values_report_reads_the_stored_fit_and_the_page_its_history(void)
{
    /* VALUES_DOC with 500 pairs per imbalance: enough for every piece's value. */
    char doc[sizeof VALUES_DOC];
    const char *at = strstr(VALUES_DOC, "\"pairs_per_imbalance\":100");
    CHECK(at != NULL);
    if (!at)
        return;
    /* the same length: the digits are overwritten in place */
    memcpy(doc, VALUES_DOC, sizeof doc);
    memcpy(doc + (at - VALUES_DOC) + strlen("\"pairs_per_imbalance\":"), "500", 3);
    int64_t run = fx_submit(doc);
    CHECK(run > 0);
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) run);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);   /* the coordinator leaves it be */
    int64_t used, games, pairs;
    s_estimate_of(run, &used, &games, &pairs);
    CHECK_EQ_INT(used, -1);                                 /* no estimate yet */
    CHECK(fx_fill(run, 0, 1500, IMB, SIDE, OTHER, 6, 0) == 0);
    CHECK(fx_estimate(run) == 0);
    s_estimate_of(run, &used, &games, &pairs);
    CHECK_EQ_INT(used, 1500);
    CHECK_EQ_INT(games, 3000);
    CHECK(fx_fill(run, 1500, 1500, IMB, SIDE, OTHER, 6, 0) == 0);
    s_estimate_of(run, &used, &games, &pairs);
    CHECK_EQ_INT(pairs, 3000);                              /* the totals are live */
    CHECK_EQ_INT(used, 1500);                               /* the fit is the stored one */
    CHECK_EQ_INT(games, 3000);
    CHECK(fx_estimate(run) == 0);
    s_estimate_of(run, &used, &games, &pairs);
    CHECK_EQ_INT(used, 3000);
    CHECK_EQ_INT(games, 6000);
    store_fit_t *fits = NULL;
    size_t n = 0;
    CHECK(store_estimate_history(g_fx.st, run, 100, &fits, &n) == 0);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(fits[0].pairs_used, 1500);
    CHECK_EQ_INT(fits[1].pairs_used, 3000);
    store_estimate_history_free(&fits, n);
    /* The page's convergence chart: one line per estimated piece through the two fits. */
    http_res_t r;
    snprintf(path, sizeof path, "/runs/%lld", (long long) run);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    CHECK_MSG(r.body && strstr(r.body, "class=\"series\"") != NULL, "no convergence lines");
    /* The page leads with what the study determines well, as the API and
     * capa show do: contrasts and the unit, then values, lack of fit, endings. */
    const char *order[] = { "<h2>Contrasts</h2>", ">A-C<", "<b>Unit:</b>",
                            "<h2>Piece values</h2>", "Lack of fit",
                            "<h2>Games ended by</h2>", ">adjudication<", "<h2>Imbalances</h2>" };
    const char *pos = r.body ? r.body : "";
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        const char *next = strstr(pos, order[i]);
        CHECK_MSG(next != NULL, "the run page lacks \"%s\" after the one before", order[i]);
        pos = next ? next : pos;
    }
    fx_res_free(&r);
}

/* The entry of worker id in a /api/runs/{id}/workers answer, or NULL. */
static const cJSON *s_run_worker(const cJSON *j, const char *id)
{
    const cJSON *w;
    cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(j, "workers")) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(w, "id");
        if (cJSON_IsString(v) && strcmp(v->valuestring, id) == 0)
            return w;
    }
    return NULL;
}

static double s_field(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    CHECK_MSG(cJSON_IsNumber(v), "\"%s\" is not a number", key);
    return v->valuedouble;
}

static void run_workers_break_a_run_down_and_single_out_the_odd_worker(void)
{
    /* Stopped before any pair is stored, and a wait of several of the
     * coordinator's refresh periods (200 ms), so that its own outlier test,
     * which covers active runs, leaves this one alone. */
    int64_t run = fx_submit(SPRT_DOC);
    CHECK(run > 0);
    char path[96];
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) run);
    s_expect("POST", path, g_fx.admin, NULL, 200, NULL);
    usleep(1000 * 1000);
    /* Two honest workers, one whose B wins far too often, one with too few
     * pairs to be tested. The expected figures were worked out apart from
     * this code from the 2 x 5 tables (worker, the others) x score. */
    static const struct { const char *id; int64_t penta[5]; } W[] = {
        { "rw-h1", { 7, 22, 61, 25, 5 } },    { "rw-h2", { 4, 21, 49, 19, 7 } },
        { "rw-odd", { 0, 3, 12, 21, 24 } },   { "rw-small", { 1, 2, 4, 2, 1 } },
    };
    int64_t next = 0;
    for (int i = 0; i < 4; i++)
        CHECK((next = fx_fill_penta(run, next, W[i].id, W[i].penta)) > 0);
    snprintf(path, sizeof path, "/api/runs/%lld/workers", (long long) run);
    http_res_t r;
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_MSG(r.status == 200, "%ld %s", r.status, r.body);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(r.json, "test")->valuestring, "pooled");
    CHECK_EQ_INT(s_field(r.json, "min_pairs"), 30);
    CHECK_NEAR(s_field(r.json, "outlier_p"), 1e-6, 1e-18);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(r.json, "workers");
    CHECK_EQ_INT(cJSON_GetArraySize(list), 4);
    /* Most pairs first. */
    static const char *const order[] = { "rw-h1", "rw-h2", "rw-odd", "rw-small" };
    for (int i = 0; i < 4; i++)
        CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, i), "id")
                         ->valuestring, order[i]);
    for (int i = 0; i < 4; i++) {
        const cJSON *w = s_run_worker(r.json, W[i].id);
        CHECK(w != NULL);
        const int64_t *p = W[i].penta;
        int64_t pairs = p[0] + p[1] + p[2] + p[3] + p[4];
        CHECK_EQ_INT(s_field(w, "pairs"), pairs);
        CHECK_EQ_INT(s_field(w, "excluded"), 0);
        const cJSON *pe = cJSON_GetObjectItemCaseSensitive(w, "penta");
        for (int b = 0; b < 5; b++)
            CHECK_EQ_INT(cJSON_GetArrayItem(pe, b)->valuedouble, p[b]);
        CHECK_EQ_INT(s_field(w, "wins"), p[3] + 2 * p[4]);
        CHECK_EQ_INT(s_field(w, "draws"), p[1] + 2 * p[2] + p[3]);
        CHECK_EQ_INT(s_field(w, "losses"), 2 * p[0] + p[1]);
        double quarters = p[1] + 2.0 * p[2] + 3.0 * p[3] + 4.0 * p[4];
        CHECK_NEAR(s_field(w, "score"), quarters / (4.0 * pairs), 1e-12);
        CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(w, "contributor")->valuestring, "alice");
        CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(w, "flagged")));
    }
    const cJSON *odd = s_run_worker(r.json, "rw-odd");
    /* Against rw-h1 + rw-h2 only: rw-small (10 pairs) is no yardstick. */
    CHECK_NEAR(s_field(odd, "chi2"), 67.1356576898986, 1e-6);
    CHECK_EQ_INT(s_field(odd, "df"), 4);
    CHECK_MSG(s_field(odd, "p") < 1e-12, "odd worker p %g", s_field(odd, "p"));
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(odd, "outlier")));
    /* The honest ones are tested without the odd one (with it among "the
     * others", rw-h1 would get p = 0.0022). */
    CHECK_NEAR(s_field(s_run_worker(r.json, "rw-h1"), "p"), 0.8273095270527168, 1e-9);
    CHECK_NEAR(s_field(s_run_worker(r.json, "rw-h2"), "p"), 0.8273095270527168, 1e-9);
    for (int i = 0; i < 2; i++)
        CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(s_run_worker(r.json, W[i].id),
                                                             "outlier")));
    const cJSON *small = s_run_worker(r.json, "rw-small");
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(small, "chi2")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(small, "df")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(small, "p")));
    fx_res_free(&r);

    /* The run page has the table, the odd row marked. */
    snprintf(path, sizeof path, "/runs/%lld", (long long) run);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    CHECK(strstr(r.body, "<h2 id=\"workers\">Workers</h2>") != NULL);
    const char *row = strstr(r.body, "<tr class=\"bad\"><td>rw-odd</td>");
    CHECK(row != NULL);
    const char *end = strstr(row, "</tr>");
    CHECK(end != NULL);
    const char *p_tag = strstr(row, "<span class=\"tag failed\">9.1e-14</span>");
    const char *o_tag = strstr(row, "<span class=\"tag stopped\">outlier</span>");
    CHECK(p_tag && p_tag < end && o_tag && o_tag < end);
    CHECK(strstr(r.body, "<tr><td>rw-h1</td><td>alice</td><td class=\"n\">120</td>") != NULL);
    fx_res_free(&r);

    /* Flagged (as the coordinator does): its pairs are excluded, it has
     * nothing left to test, the others' figures stay. */
    size_t excluded = 0;
    CHECK(store_worker_flag(g_fx.st, "rw-odd", "test", &excluded) == 0);
    CHECK_EQ_INT(excluded, 60);
    snprintf(path, sizeof path, "/api/runs/%lld/workers", (long long) run);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    odd = s_run_worker(r.json, "rw-odd");
    CHECK(odd != NULL);
    CHECK_EQ_INT(s_field(odd, "pairs"), 0);
    CHECK_EQ_INT(s_field(odd, "excluded"), 60);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(odd, "flagged")));
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(odd, "outlier")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(odd, "score")));
    CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(odd, "p")));
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(
                     cJSON_GetObjectItemCaseSensitive(r.json, "workers"), 3), "id")->valuestring,
                 "rw-odd");
    CHECK_NEAR(s_field(s_run_worker(r.json, "rw-h1"), "p"), 0.8273095270527168, 1e-9);
    fx_res_free(&r);

    /* Runs without worker pairs, unknown runs, other methods. */
    snprintf(path, sizeof path, "/api/runs/%lld/workers", (long long) s_values_run);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(r.json, "test")->valuestring, "by_imbalance");
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r.json, "workers")), 0);
    fx_res_free(&r);
    s_expect("GET", "/api/runs/999999/workers", NULL, NULL, 404, "not_found");
    s_expect("POST", path, g_fx.admin, NULL, 405, "method_not_allowed");
}

static void pgn_uploads_are_checked_and_served_back(void)
{
    /* A worker of alice's holding a task of the values run. */
    store_worker_t w;
    memset(&w, 0, sizeof w);
    snprintf(w.id, sizeof w.id, "alice-box");
    w.contributor_id = g_fx.alice_id;
    w.cores = w.concurrency = 1;
    CHECK(store_worker_upsert(g_fx.st, &w) == 0);
    int64_t run = fx_submit(SPRT_DOC);
    CHECK(run > 0);
    int64_t task = 0;
    for (int i = 0; i < 50; i++) {   /* until the coordinator has set it running */
        if (store_task_create(g_fx.st, run, "alice-box", 0, 3, 60000, &task) == 0)
            break;
        usleep(100 * 1000);
    }
    CHECK(task > 0);
    const char *pgn = "[Event \"capalab\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n";
    unsigned char *gz = NULL;
    size_t gzlen = 0;
    CHECK(upload_gzip(pgn, strlen(pgn), &gz, &gzlen) == 0);
    char url[256], err[256];
    long status = 0;
    snprintf(url, sizeof url, "%s/api/tasks/%lld/pgn", g_fx.base, (long long) task);
    /* Someone else's token, no token, garbage that claims to be gzip. */
    CHECK(upload_post(url, g_fx.mallory, gz, gzlen, &status, err, sizeof err) < 0);
    CHECK_EQ_INT(status, 403);
    CHECK(upload_post(url, "", gz, gzlen, &status, err, sizeof err) < 0);
    CHECK_EQ_INT(status, 401);
    unsigned char bad[64] = { 0x1f, 0x8b, 8, 0, 1, 2, 3, 4, 5, 6, 7 };
    CHECK(upload_post(url, g_fx.alice, bad, sizeof bad, &status, err, sizeof err) < 0);
    CHECK_EQ_INT(status, 400);
    /* The owner's upload is stored; a repeat replaces it. */
    CHECK_MSG(upload_post(url, g_fx.alice, gz, gzlen, &status, err, sizeof err) == 0, "%s", err);
    CHECK(upload_post(url, g_fx.alice, gz, gzlen, &status, err, sizeof err) == 0);
    free(gz);
    char file[700];
    snprintf(file, sizeof file, "%s/run-%lld/task-%lld.pgn.gz", g_fx.pgn_dir, (long long) run,
             (long long) task);
    struct stat sb;
    CHECK(stat(file, &sb) == 0 && (size_t) sb.st_size == gzlen);
    /* Download: decoded by libcurl (gzip on the wire). */
    http_res_t r;
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/pgn", (long long) run);
    CHECK(fx_http("GET", path, NULL, NULL, &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    CHECK(strstr(r.body, "[Event \"capalab\"]") != NULL && strstr(r.body, "1. e4 e5 1-0") != NULL);
    fx_res_free(&r);
    snprintf(path, sizeof path, "/api/runs/%lld/pgn", (long long) s_sprt_run);
    s_expect("GET", path, NULL, NULL, 404, "no_pgn");
    s_expect("GET", "/api/runs/999999/pgn", NULL, NULL, 404, "not_found");
    /* Plain text is accepted and stored compressed. */
    snprintf(path, sizeof path, "/api/tasks/%lld/pgn", (long long) task);
    s_expect("POST", path, g_fx.alice, "[Event \"plain\"]\n\n1. a3 *\n", 200, NULL);
}


/* Issue 16: libmicrohttpd unescapes %00 and the path or argument ends there
 * (`/api/runs/1%00/../x` was answered as `/api/runs/1`). A NUL or another
 * control byte, raw or escaped, in the path or a query argument is 400. */
static void control_bytes_in_a_path_or_argument_get_400(void)
{
    /* Sent as they are (a client library would resolve the dot segments). */
    const char *bad[] = { "/api/runs/1%00/../x", "/api/runs?kind=values%00sprt",
                          "/api/runs?kind=values%0Asprt", "/api/runs/1%7f", "/api/status%1b",
                          "/runs%00.html", "/api/runs?status=%09running",
                          "/api/runs?kind=val\x01ues" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char req[256], reply[4096];
        int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                         bad[i]);
        CHECK(fx_raw(req, (size_t) n, reply, sizeof reply) > 0);
        CHECK_MSG(strncmp(reply, "HTTP/1.1 400", 12) == 0, "GET %s: %.60s", bad[i], reply);
        CHECK_MSG(i == 7 || strstr(reply, "bad_request") != NULL, "GET %s: %.300s", bad[i], reply);
    }
    /* The same requests without them are served. */
    s_expect("GET", "/api/runs?kind=values", NULL, NULL, 200, NULL);
    s_expect("GET", "/api/status", NULL, NULL, 200, NULL);
}

static void hostile_requests_get_4xx_and_never_crash(void)
{
    /* Bodies: too large (declared and chunked), not JSON, empty. */
    size_t big = HTTP_JSON_MAX + 10;
    char *huge = malloc(big + 1);
    CHECK(huge != NULL);
    memset(huge, '{', big);
    huge[big] = 0;
    s_expect("POST", "/api/runs", g_fx.admin, huge, 413, "too_large");
    free(huge);
    char reply[4096];
    const char chunked[] = "POST /api/runs HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
                           "Content-Type: application/json\r\n\r\n";
    size_t clen = strlen(chunked);
    size_t total = clen + (HTTP_JSON_MAX / 4096 + 2) * (4096 + 8) + 8;
    char *req = malloc(total);
    CHECK(req != NULL);
    memcpy(req, chunked, clen);
    size_t o = clen;
    for (size_t i = 0; i < HTTP_JSON_MAX / 4096 + 2; i++) {
        o += (size_t) sprintf(req + o, "1000\r\n");
        memset(req + o, 'x', 4096);
        o += 4096;
        o += (size_t) sprintf(req + o, "\r\n");
    }
    o += (size_t) sprintf(req + o, "0\r\n\r\n");
    CHECK(fx_raw(req, o, reply, sizeof reply) > 0);
    free(req);
    CHECK_MSG(strncmp(reply, "HTTP/1.1 413", 12) == 0 || strncmp(reply, "HTTP/1.1 401", 12) == 0,
              "chunked: %.60s", reply);
    s_expect("POST", "/api/runs", g_fx.admin, "{not json", 400, "invalid_run");
    s_expect("POST", "/api/runs", g_fx.admin, "", 400, "bad_request");
    s_expect("POST", "/api/contributors", g_fx.admin, "[1,2", 400, "bad_json");
    /* Paths: unknown, tricks, non-numeric and huge ids. */
    const char *paths[] = { "/api/runs/0", "/api/runs/-1", "/api/runs/1e3",
                            "/api/runs/99999999999999999999", "/api/runs/999999",
                            "/api/runs/1/nothing", "/api/nothing", "/../etc/passwd",
                            "/api//runs", "/api/runs/1/../../../etc/passwd",
                            "/api/runs/%2e%2e/pgn", "/runs/abc", "/x/y/z/a/b/c/d/e" };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        http_res_t r;
        CHECK(fx_http("GET", paths[i], NULL, NULL, &r) == 0);
        CHECK_MSG(r.status == 404 || r.status == 400, "GET %s: %ld", paths[i], r.status);
        fx_res_free(&r);
    }
    s_expect("DELETE", "/api/runs", g_fx.admin, NULL, 405, "method_not_allowed");
    s_expect("PUT", "/health", NULL, NULL, 405, "method_not_allowed");
    /* Raw garbage on the socket: malformed request lines and headers. */
    const char *raw[] = {
        "GARBAGE\r\n\r\n",
        "GET /api/runs HTTP/9.9\r\n\r\n",
        "GET /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
        "POST /api/runs HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n",
        "GET /api/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \x01\x02\x03\r\n\r\n",
        "GET \x7f\x80\xff HTTP/1.1\r\nHost: x\r\n\r\n",
        "\0\0\0\0",
    };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        fx_raw(raw[i], i + 1 == sizeof raw / sizeof raw[0] ? 4 : strlen(raw[i]), reply,
               sizeof reply);
    /* A header block far beyond the connection memory limit. */
    char *hdr = malloc(200000);
    CHECK(hdr != NULL);
    int n = sprintf(hdr, "GET /api/runs HTTP/1.1\r\nHost: x\r\nX-Big: ");
    memset(hdr + n, 'a', 190000);
    memcpy(hdr + n + 190000, "\r\n\r\n", 4);
    fx_raw(hdr, (size_t) n + 190004, reply, sizeof reply);
    free(hdr);
    CHECK_MSG(strncmp(reply, "HTTP/1.1 4", 10) == 0 || reply[0] == 0, "big header: %.40s", reply);
    /* Random requests assembled from hostile pieces (fixed seed). */
    static const char *const methods[] = { "GET", "POST", "HEAD", "PUT", "OPTIONS", "G\tET", "" };
    static const char *const rpaths[] = { "/api/runs", "/api/runs/1", "/api/runs/1/stop",
                                         "/api/tasks/1/pgn", "/api/contributors", "/runs/1",
                                         "/%00", "/api/runs/%ff%fe", "*", "/api/runs?limit=-1&x",
                                         "/api/runs?status=%zz" };
    static const char *const headers[] = { "Content-Length: 5\r\n", "Content-Length: 0\r\n",
                                           "Transfer-Encoding: chunked\r\n",
                                           "Authorization: Bearer capa_x\r\n",
                                           "Authorization: Basic Zm9vOmJhcg==\r\n",
                                           "Content-Encoding: gzip\r\n", "X: \xff\xfe\r\n", "" };
    static const char *const bodies[] = { "", "{}", "{\"kind\":", "\x1f\x8b\x08\x00",
                                          "5\r\nhello\r\n0\r\n\r\n", "null" };
    unsigned seed = 12345;
    for (int i = 0; i < 300; i++) {
        char msg[1024];
        seed = seed * 1103515245u + 12345u;
        unsigned r = seed >> 8;
        int len = snprintf(msg, sizeof msg, "%s %s HTTP/1.1\r\nHost: x\r\n%s%s\r\n%s",
                           methods[r % 7], rpaths[(r / 7) % 11], headers[(r / 77) % 8],
                           headers[(r / 616) % 8], bodies[(r / 4928) % 6]);
        fx_raw(msg, (size_t) len, reply, sizeof reply);
        CHECK_MSG(reply[0] == 0 || strncmp(reply, "HTTP/1.", 7) == 0, "request %d: %.40s", i,
                  reply);
        CHECK_MSG(strncmp(reply, "HTTP/1.1 5", 10) != 0, "request %d answered %.40s:\n%.300s", i,
                  reply, msg);
    }
    /* Still serving, and the coordinator process is alive. */
    s_expect("GET", "/health", NULL, NULL, 200, NULL);
    CHECK(kill(g_fx.proc.pid, 0) == 0);
}

static void health_is_503_and_reads_fail_cleanly_without_a_database(void)
{
    http_config_t hc;
    memset(&hc, 0, sizeof hc);
    snprintf(hc.db, sizeof hc.db, "%s", g_fx.ci);
    char *dbname = strstr(hc.db, "dbname=");
    CHECK(dbname != NULL);
    snprintf(dbname, sizeof hc.db - (size_t) (dbname - hc.db), "dbname=no_such_db_%d user=postgres",
             (int) getpid());
    snprintf(hc.host, sizeof hc.host, "127.0.0.1");
    snprintf(hc.pgn_dir, sizeof hc.pgn_dir, "%s", g_fx.pgn_dir);
    hc.open_reads = true;
    http_server_t *srv = NULL;
    char err[256];
    CHECK_MSG(http_start(&hc, &srv, err, sizeof err) == 0, "%s", err);
    char base[64];
    snprintf(base, sizeof base, "http://127.0.0.1:%d", http_port(srv));
    const char *paths[] = { "/health", "/api/runs", "/api/values", "/", "/runs/1", "/metrics" };
    long want[] = { 503, 503, 503, 503, 503, 200 };
    for (size_t i = 0; i < 6; i++) {
        client_response_t r;
        CHECK(client_request(base, "", "GET", paths[i], NULL, 0, 30, &r, err, sizeof err) == 0);
        CHECK_MSG(r.status == want[i], "GET %s: %ld", paths[i], r.status);
        if (i == 5)
            CHECK(strstr(r.body, "capa_up 0") != NULL);
        client_response_free(&r);
    }
    client_response_t r;
    CHECK(client_request(base, g_fx.alice, "POST", "/api/runs", "{}", 2, 30, &r, err,
                         sizeof err) == 0);
    CHECK_EQ_INT(r.status, 503);
    client_response_free(&r);
    http_stop(&srv);
    CHECK(srv == NULL);
}

static void reads_can_be_closed_by_config(void)
{
    http_config_t hc;
    memset(&hc, 0, sizeof hc);
    snprintf(hc.db, sizeof hc.db, "%s", g_fx.ci);
    snprintf(hc.host, sizeof hc.host, "127.0.0.1");
    snprintf(hc.pgn_dir, sizeof hc.pgn_dir, "%s", g_fx.pgn_dir);
    hc.open_reads = false;
    http_server_t *srv = NULL;
    char err[256];
    CHECK_MSG(http_start(&hc, &srv, err, sizeof err) == 0, "%s", err);
    char base[64];
    snprintf(base, sizeof base, "http://127.0.0.1:%d", http_port(srv));
    client_response_t r;
    CHECK(client_request(base, "", "GET", "/api/runs", NULL, 0, 30, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.status, 401);
    client_response_free(&r);
    CHECK(client_request(base, "", "GET", "/health", NULL, 0, 30, &r, err, sizeof err) == 0);
    CHECK_EQ_INT(r.status, 200);
    client_response_free(&r);
    CHECK(client_request(base, g_fx.alice, "GET", "/api/runs", NULL, 0, 30, &r, err,
                         sizeof err) == 0);
    CHECK_EQ_INT(r.status, 200);
    client_response_free(&r);
    /* Many requests at once share the small connection pool. */
    for (int i = 0; i < 40; i++) {
        CHECK(client_request(base, g_fx.alice, "GET", "/", NULL, 0, 30, &r, err, sizeof err) == 0);
        CHECK_EQ_INT(r.status, 200);
        client_response_free(&r);
    }
    http_stop(&srv);
}

static const check_case_t CASES[] = {
    CASE(every_read_endpoint_answers),
    CASE(writing_needs_an_admin_token),
    CASE(a_submitted_run_is_picked_up_and_can_be_stopped),
    CASE(reports_carry_the_statistics_of_their_kind),
    /* after the case above: the runs it submits would join /api/values */
    CASE(a_values_study_hears_at_submit_what_it_cannot_separate_and_its_report_leads_with_contrasts),
    CASE(the_values_page_shows_the_best_estimate_per_variant_and_engine),
    CASE(a_values_report_reads_the_stored_fit_and_the_page_its_history),
    CASE(run_workers_break_a_run_down_and_single_out_the_odd_worker),
    CASE(pgn_uploads_are_checked_and_served_back),
    CASE(hostile_requests_get_4xx_and_never_crash),
    CASE(control_bytes_in_a_path_or_argument_get_400),
    CASE(health_is_503_and_reads_fail_cleanly_without_a_database),
    CASE(reads_can_be_closed_by_config),
    { 0 },
};

int main(int argc, char **argv)
{
    if (fx_up("http") < 0)
        return 1;
    /* An SPRT run with 600 pairs (B 20 Elo stronger) and a finished values
     * study with 1200 pairs. */
    s_sprt_run = fx_submit(SPRT_DOC);
    s_values_run = fx_submit(VALUES_DOC);
    if (s_sprt_run < 0 || s_values_run < 0 ||
        fx_fill(s_sprt_run, 0, 600, NULL, NULL, NULL, 0, 20) < 0 ||
        fx_fill(s_values_run, 0, 600, IMB, SIDE, OTHER, 6, 0) < 0 ||
        fx_finish(s_values_run) < 0) {
        fprintf(stderr, "fixture runs failed\n");
        return 1;
    }
    return check_main(argc, argv, CASES);
}
