/* Integration tests of the capa command against a real coordinator: output
 * for people and for scripts (--json parses), exit codes (0 ok, 1 usage,
 * 2 refused, 3 unreachable, 5 watched run did not pass), the token shown
 * once, PGN download, watch, and the offline SPRT calculator. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "stats_plan.h"
#include "store.h"
#include "test_http_fixture.h"
#include "token.h"

#define OUT_MAX (1 << 20)

static char s_out[OUT_MAX];
static int64_t s_run;    /* a finished SPRT run with 300 pairs */

static const char SPRT_DOC[] =
    "{\"kind\":\"sprt\",\"name\":\"cli run\",\"seed\":5,\"variant\":\"caparandom\","
    "\"game\":{\"nodes\":1000},\"a\":{},\"b\":{\"ArchbishopValueMg\":875},"
    "\"elo0\":0,\"elo1\":5,\"max_pairs\":300}";

static cJSON *s_json_of(const char *args, int want_rc)
{
    int rc = fx_capa(args, s_out, sizeof s_out);
    CHECK_MSG(rc == want_rc, "capa %.300s: exit %d, expected %d", args, rc, want_rc);
    cJSON *j = cJSON_Parse(s_out);
    CHECK_MSG(j != NULL, "capa %s: output is not JSON: %.200s", args, s_out);
    return j;
}

static void lists_and_reports_print_tables_and_parsable_json(void)
{
    CHECK_EQ_INT(fx_capa("runs", s_out, sizeof s_out), 0);
    CHECK(strncmp(s_out, "id  kind", 8) == 0);
    CHECK(strstr(s_out, "cli run") != NULL);
    cJSON *j = s_json_of("--json runs", 0);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "runs")) >= 1);
    cJSON_Delete(j);
    char args[64];
    snprintf(args, sizeof args, "show %lld", (long long) s_run);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "cli run") != NULL && strstr(s_out, "LLR") != NULL);
    snprintf(args, sizeof args, "show %lld --json", (long long) s_run);
    j = s_json_of(args, 0);
    CHECK(cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(j, "sprt")));
    cJSON_Delete(j);
    const char *lists[] = { "values --json", "workers --json", "contributors --json" };
    for (int i = 0; i < 3; i++)
        cJSON_Delete(s_json_of(lists[i], 0));
    CHECK_EQ_INT(fx_capa("contributors", s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "alice") != NULL && strstr(s_out, "CPU hours") != NULL);
    CHECK_EQ_INT(fx_capa("workers", s_out, sizeof s_out), 0);
    /* no values run yet: an answer, not an error */
    CHECK_EQ_INT(fx_capa("values", s_out, sizeof s_out), 0);
    CHECK_MSG(strstr(s_out, "no values runs yet") != NULL, "%.300s", s_out);
}

static void submit_and_stop_need_the_admin_token_and_say_so_in_the_exit_code(void)
{
    char file[512], args[1024];
    snprintf(file, sizeof file, "%s/tests/http_cli_run.json", CAPA_BINARY_DIR);
    FILE *f = fopen(file, "w");
    CHECK(f != NULL);
    fputs(SPRT_DOC, f);
    fclose(f);
    snprintf(args, sizeof args, "submit '%s'", file);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 2);
    snprintf(args, sizeof args, "--token %s submit '%s'", g_fx.alice, file);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 2);
    snprintf(args, sizeof args, "--token %s submit '%s'", g_fx.admin, file);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    long long id = atoll(s_out);
    CHECK(id > 0);
    snprintf(args, sizeof args, "--token=%s stop %lld", g_fx.admin, id);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "stopped") != NULL);
    snprintf(args, sizeof args, "--token=%s stop %lld", g_fx.admin, (long long) s_run);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 2);   /* finished: 409 */
    snprintf(args, sizeof args, "--token %s --json submit '%s'", g_fx.admin, file);
    cJSON *j = s_json_of(args, 0);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(j, "id")));
    cJSON_Delete(j);
    /* A document the coordinator refuses: exit 2. */
    f = fopen(file, "w");
    fputs("{\"kind\":\"sprt\",\"name\":\"bad\",\"max_pairs\":-3}", f);
    fclose(f);
    snprintf(args, sizeof args, "--token %s submit '%s'", g_fx.admin, file);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 2);
}

static void workers_of_a_run_show_each_workers_results_and_the_outlier(void)
{
    /* Stopped before its pairs arrive, so the coordinator's own outlier test
     * (active runs only, refresh 200 ms) leaves it alone. */
    int64_t run = fx_submit(SPRT_DOC);
    CHECK(run > 0);
    char args[96];
    snprintf(args, sizeof args, "/api/runs/%lld/stop", (long long) run);
    http_res_t r;
    CHECK(fx_http("POST", args, g_fx.admin, NULL, &r) == 0 && r.status == 200);
    fx_res_free(&r);
    usleep(1000 * 1000);
    static const int64_t honest1[5] = { 7, 22, 61, 25, 5 }, honest2[5] = { 4, 21, 49, 19, 7 },
                         odd[5] = { 0, 3, 12, 21, 24 };
    int64_t next = fx_fill_penta(run, 0, "cw-honest1", honest1);
    CHECK(next > 0 && (next = fx_fill_penta(run, next, "cw-honest2", honest2)) > 0);
    CHECK(fx_fill_penta(run, next, "cw-odd", odd) > 0);
    snprintf(args, sizeof args, "workers %lld", (long long) run);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "chi-squared") != NULL);
    const char *rows[] = { "cw-honest1  alice", "cw-honest2  alice", "cw-odd      alice" };
    const char *at[3];
    for (int i = 0; i < 3; i++) {
        at[i] = strstr(s_out, rows[i]);
        CHECK_MSG(at[i] != NULL, "no \"%s\" in:\n%.800s", rows[i], s_out);
    }
    CHECK(at[0] < at[1] && at[1] < at[2]);   /* most pairs first */
    /* The odd worker's line has its counts, its p-value and the mark. */
    const char *eol = strchr(at[2], '\n');
    const char *cells[] = { "0,3,12,21,24", "69/48/3", "77.5%", "67.1", "9.1e-14", "OUTLIER" };
    for (int i = 0; i < 6; i++) {
        const char *c = strstr(at[2], cells[i]);
        CHECK_MSG(c && c < eol, "no %s in: %.*s", cells[i], (int) (eol - at[2]), at[2]);
    }
    eol = strchr(at[0], '\n');
    const char *mark = strstr(at[0], "OUTLIER");
    CHECK(!mark || mark > eol);
    snprintf(args, sizeof args, "workers %lld --json", (long long) run);
    cJSON *j = s_json_of(args, 0);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(j, "workers");
    CHECK_EQ_INT(cJSON_GetArraySize(list), 3);
    const cJSON *w = cJSON_GetArrayItem(list, 2);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(w, "id")->valuestring, "cw-odd");
    CHECK_EQ_INT(cJSON_GetObjectItemCaseSensitive(w, "pairs")->valuedouble, 60);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(w, "outlier")));
    cJSON_Delete(j);
    CHECK_EQ_INT(fx_capa("workers 999999", s_out, sizeof s_out), 2);
    CHECK_EQ_INT(fx_capa("workers abc", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("workers 1 2", s_out, sizeof s_out), 1);
}

static void usage_errors_and_an_unreachable_coordinator_have_their_own_codes(void)
{
    CHECK_EQ_INT(fx_capa("", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("frobnicate", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("show abc", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("show", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("runs --bogus 1", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("submit /nonexistent/run.json", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("--server http://127.0.0.1:1 runs", s_out, sizeof s_out), 3);
    CHECK_EQ_INT(fx_capa("--server ftp://x runs", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("show 999999", s_out, sizeof s_out), 2);
    CHECK_EQ_INT(fx_capa("--help", s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "Exit codes") != NULL);
}

static void contributor_add_prints_a_working_token_once(void)
{
    char args[256];
    snprintf(args, sizeof args, "--token %s contributor add dave", g_fx.admin);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    s_out[strcspn(s_out, "\n")] = 0;
    CHECK_MSG(token_check_format(s_out, NULL, 0) == 0, "not a token: %.200s", s_out);
    char hash[TOKEN_HASH_MAX];
    CHECK(token_hash(s_out, hash, sizeof hash) == 0);
    store_contributor_t c;
    CHECK(store_contributor_by_token(g_fx.st, hash, &c) == 0);
    CHECK_EQ_STR(c.name, "dave");
    CHECK(!c.is_admin);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 2);   /* the name exists */
    snprintf(args, sizeof args, "--token %s contributor add", g_fx.admin);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 1);
}

static void pgn_writes_the_uploaded_games_to_stdout(void)
{
    store_worker_t w;
    memset(&w, 0, sizeof w);
    snprintf(w.id, sizeof w.id, "alice-cli");
    w.contributor_id = g_fx.alice_id;
    w.cores = w.concurrency = 1;
    CHECK(store_worker_upsert(g_fx.st, &w) == 0);
    int64_t run = fx_submit(SPRT_DOC), task = 0;
    CHECK(run > 0);
    for (int i = 0; i < 50 && store_task_create(g_fx.st, run, "alice-cli", 0, 1, 60000, &task) < 0;
         i++)
        usleep(100 * 1000);
    CHECK(task > 0);
    char path[64];
    snprintf(path, sizeof path, "/api/tasks/%lld/pgn", (long long) task);
    http_res_t r;
    CHECK(fx_http("POST", path, g_fx.alice, "[Event \"cli\"]\n\n1. Nc3 Nc6 *\n", &r) == 0);
    CHECK_EQ_INT(r.status, 200);
    fx_res_free(&r);
    char args[64];
    snprintf(args, sizeof args, "pgn %lld", (long long) run);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "[Event \"cli\"]") != NULL && strstr(s_out, "1. Nc3 Nc6 *") != NULL);
    snprintf(args, sizeof args, "pgn %lld", (long long) s_run);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 2);   /* no PGN uploaded */
}

static void watch_follows_a_run_to_its_end(void)
{
    char args[128];
    snprintf(args, sizeof args, "watch %lld --interval 0.1", (long long) s_run);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    char want[64];
    snprintf(want, sizeof want, "run %lld finished", (long long) s_run);
    CHECK_MSG(strstr(s_out, want) != NULL, "watch printed: %.400s", s_out);
    CHECK(strstr(s_out, "300/300 pairs") != NULL && strstr(s_out, "LLR") != NULL);
    snprintf(args, sizeof args, "--json watch %lld", (long long) s_run);
    cJSON *j = s_json_of(args, 0);
    cJSON_Delete(j);
    /* A stopped run ends the watch with 5. */
    int64_t id = fx_submit(SPRT_DOC);
    char path[64];
    snprintf(path, sizeof path, "/api/runs/%lld/stop", (long long) id);
    http_res_t r;
    CHECK(fx_http("POST", path, g_fx.admin, NULL, &r) == 0 && r.status == 200);
    fx_res_free(&r);
    snprintf(args, sizeof args, "watch %lld --interval 0.1", (long long) id);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 5);
    CHECK_EQ_INT(fx_capa("watch 1 --interval 0", s_out, sizeof s_out), 1);
}

static void the_sprt_calculator_works_offline(void)
{
    cJSON *j = s_json_of("--server http://127.0.0.1:1 --json sprt --elo0 0 --elo1 5 "
                         "--penta 10,20,30,20,10", 0);
    const cJSON *rep = cJSON_GetObjectItemCaseSensitive(j, "report");
    CHECK(cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(rep, "llr")));
    CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(rep, "upper_bound")->valuedouble, log(19.0), 1e-9);
    cJSON_Delete(j);
    j = s_json_of("--json sprt --elo0 0 --elo1 5 --elo 5", 0);
    const cJSON *x = cJSON_GetObjectItemCaseSensitive(j, "expect");
    double pass = cJSON_GetObjectItemCaseSensitive(x, "pass_probability")->valuedouble;
    CHECK_MSG(pass > 0.9 && pass < 1.0, "pass %g", pass);
    CHECK(cJSON_GetObjectItemCaseSensitive(x, "expected_n")->valuedouble > 1000);
    cJSON_Delete(j);
    CHECK_EQ_INT(fx_capa("sprt --elo0 0 --elo1 5 --wdl 30,40,20", s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "LLR") != NULL);
    CHECK_EQ_INT(fx_capa("sprt --elo0 5 --elo1 0 --penta 1,1,1,1,1", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("sprt --elo0 0 --elo1 5 --penta 1,2,3", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("sprt --elo0 0 --elo1 5", s_out, sizeof s_out), 1);
}

static void the_study_planner_works_offline(void)
{
    /* the example study determines every value; the old design would not */
    CHECK_EQ_INT(fx_capa("--server http://127.0.0.1:1 plan " CAPA_SOURCE_DIR "/configs/run-values.json "
                         "--target 0.35", s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "  A-C  +-") && strstr(s_out, "pairs for +-0.350") && strstr(s_out, "CPU time") &&
          !strstr(s_out, "Not separated"));
    const char *path = CAPA_BINARY_DIR "/tests/plan_partial.json";
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("{\"kind\":\"values\",\"name\":\"ac\",\"game\":{\"nodes\":20000},\"imbalances\":["
          "{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\",\"pairs\":1500},"
          "{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\",\"pairs\":1500}]}",
          f);
    fclose(f);
    char args[512];
    snprintf(args, sizeof args, "--json plan %s --target 0.35 --logit-per-pawn 0.25", path);
    cJSON *j = s_json_of(args, 0);
    const cJSON *c0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "contrasts"), 0);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(c0, "name")->valuestring, "A-C");
    CHECK(cJSON_GetObjectItemCaseSensitive(c0, "half_width_pawns")->valuedouble > 0.2);
    CHECK(cJSON_GetObjectItemCaseSensitive(c0, "pairs_for_target")->valuedouble > 1000);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "not_separated")), 1);
    CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "assumed"),
                                                "logit_per_pawn")->valuedouble, 0.25, 1e-12);
    cJSON_Delete(j);
    /* without --logit-per-pawn, the pawn this engine showed at 20,000 nodes */
    snprintf(args, sizeof args, "--json plan %s", path);
    j = s_json_of(args, 0);
    CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "assumed"),
                                                "logit_per_pawn")->valuedouble,
               stats_plan_logit_per_pawn_at(20000), 1e-12);
    cJSON_Delete(j);
    /* a node ladder is planned rung by rung, each with its own pawn */
    const char *lpath = CAPA_BINARY_DIR "/tests/plan_ladder.json";
    f = fopen(lpath, "w");
    CHECK(f != NULL);
    fputs("{\"kind\":\"values\",\"name\":\"ac\",\"ladder\":{\"nodes\":[5000,20000]},\"imbalances\":["
          "{\"name\":\"A vs C\",\"side\":\"A\",\"other\":\"C\",\"pairs\":500},"
          "{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\",\"pairs\":500}]}",
          f);
    fclose(f);
    snprintf(args, sizeof args, "plan %s", lpath);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    CHECK_MSG(strstr(s_out, "rung 1 of 2") && strstr(s_out, "5000 nodes per move") &&
              strstr(s_out, "rung 2 of 2") && strstr(s_out, "20000 nodes per move") &&
              strstr(s_out, "whole ladder"), "%.600s", s_out);
    snprintf(args, sizeof args, "--json plan %s", lpath);
    j = s_json_of(args, 0);
    const cJSON *rungs = cJSON_GetObjectItemCaseSensitive(j, "rungs");
    CHECK_EQ_INT(cJSON_GetArraySize(rungs), 2);
    double hw[2], cpu = 0.0;
    for (int i = 0; i < 2; i++) {
        const cJSON *r = cJSON_GetArrayItem(rungs, i);
        CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(r, "nodes")->valuedouble, i ? 20000 : 5000, 0.5);
        hw[i] = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(r, "contrasts"), 0),
                                                 "half_width_pawns")->valuedouble;
        cpu += cJSON_GetObjectItemCaseSensitive(r, "cpu_hours")->valuedouble;
    }
    CHECK(hw[0] > 0.0 && hw[1] > 0.0);
    CHECK_NEAR(cJSON_GetObjectItemCaseSensitive(j, "cpu_hours")->valuedouble, cpu, 1e-9);
    cJSON_Delete(j);
    remove(lpath);
    /* bad input: no file, another kind, a bad option */
    CHECK_EQ_INT(fx_capa("plan /nonexistent.json", s_out, sizeof s_out), 1);
    CHECK_EQ_INT(fx_capa("plan " CAPA_SOURCE_DIR "/configs/run-sprt.json", s_out, sizeof s_out), 1);
    snprintf(args, sizeof args, "plan %s --values A=x", path);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 1);
    snprintf(args, sizeof args, "plan %s --draw-ratio 2", path);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 1);
    remove(path);
}

static void compare_shows_how_far_each_contrast_moved(void)
{
    static const char DOC[] =
        "{\"kind\":\"values\",\"name\":\"ac\",\"game\":{\"nodes\":1000},\"params\":{},"
        "\"pairs_per_imbalance\":400,\"imbalances\":[{\"name\":\"A vs C\",\"side\":\"A\","
        "\"other\":\"C\"},{\"name\":\"pawn odds\",\"side\":\"\",\"other\":\"P\"}]}";
    static const char *const names[] = { "A vs C", "pawn odds" }, *sides[] = { "A", "" },
                      *others[] = { "C", "P" };
    int64_t r1 = fx_submit(DOC), r2 = fx_submit(DOC);
    CHECK(r1 > 0 && r2 > 0);
    CHECK(fx_fill(r1, 0, 400, names, sides, others, 2, 0) == 0);
    CHECK(fx_fill(r2, 0, 400, names, sides, others, 2, 0) == 0);
    /* Their estimates, as the coordinator stores them when the data changes. */
    CHECK(fx_estimate(r1) == 0);
    CHECK(fx_estimate(r2) == 0);
    char args[128];
    snprintf(args, sizeof args, "--json compare %lld %lld", (long long) r1, (long long) r2);
    cJSON *j = s_json_of(args, 0);
    const cJSON *sh = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "shifts"), 0);
    CHECK_EQ_STR(cJSON_GetObjectItemCaseSensitive(sh, "name")->valuestring, "A-C");
    double d = cJSON_GetObjectItemCaseSensitive(sh, "shift_elo")->valuedouble;
    CHECK_NEAR(d, cJSON_GetObjectItemCaseSensitive(sh, "elo2")->valuedouble -
                      cJSON_GetObjectItemCaseSensitive(sh, "elo1")->valuedouble, 1e-9);
    const cJSON *ci = cJSON_GetObjectItemCaseSensitive(sh, "shift_ci95");
    double lo = cJSON_GetArrayItem(ci, 0)->valuedouble, hi = cJSON_GetArrayItem(ci, 1)->valuedouble;
    CHECK(lo < d && d < hi);
    CHECK(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(sh, "within_noise")));
    CHECK_EQ_INT(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sh, "within_noise")), lo <= 0 && 0 <= hi);
    cJSON_Delete(j);
    snprintf(args, sizeof args, "compare %lld %lld", (long long) r1, (long long) r2);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "A-C") && strstr(s_out, "shift = run 2 - run 1"));
    /* an sprt run has no fit to compare; two ids are needed */
    snprintf(args, sizeof args, "compare %lld %lld", (long long) r1, (long long) s_run);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 2);
    snprintf(args, sizeof args, "compare %lld", (long long) r1);
    CHECK_EQ_INT(fx_capa(args, s_out, sizeof s_out), 1);
    /* capa values: the best of the two (same nodes and pairs: the newer fit,
     * which the coordinator may have remade for either), contrasts first,
     * with where it came from */
    CHECK_EQ_INT(fx_capa("values", s_out, sizeof s_out), 0);
    char from[2][64];
    snprintf(from[0], sizeof from[0], "from run %lld \"ac\"", (long long) r1);
    snprintf(from[1], sizeof from[1], "from run %lld \"ac\"", (long long) r2);
    const char *at = strstr(s_out, from[0]) ? strstr(s_out, from[0]) : strstr(s_out, from[1]);
    CHECK_MSG(at != NULL, "%.300s", s_out);
    const char *c = at ? strstr(at, "contrasts") : NULL, *v = c ? strstr(c, "values (pawns") : NULL;
    CHECK_MSG(c != NULL && strstr(c, "A-C") != NULL && v != NULL, "%.300s", s_out);
    CHECK(strstr(s_out, "1000 nodes per move, 400 pairs (800 games)") != NULL);
    CHECK(strstr(s_out, "unit: ") != NULL && strstr(s_out, "best") != NULL);
    cJSON *vj = s_json_of("values --variant caparandom --json", 0);
    CHECK_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(vj, "estimates")), 1);
    cJSON_Delete(vj);
    CHECK_EQ_INT(fx_capa("values --variant janus", s_out, sizeof s_out), 0);
    CHECK(strstr(s_out, "no values runs yet") != NULL);
    CHECK_EQ_INT(fx_capa("values --variant chess", s_out, sizeof s_out), 1);
}

static const check_case_t CASES[] = {
    CASE(lists_and_reports_print_tables_and_parsable_json),
    CASE(submit_and_stop_need_the_admin_token_and_say_so_in_the_exit_code),
    CASE(workers_of_a_run_show_each_workers_results_and_the_outlier),
    CASE(usage_errors_and_an_unreachable_coordinator_have_their_own_codes),
    CASE(contributor_add_prints_a_working_token_once),
    CASE(pgn_writes_the_uploaded_games_to_stdout),
    CASE(watch_follows_a_run_to_its_end),
    CASE(the_sprt_calculator_works_offline),
    CASE(the_study_planner_works_offline),
    CASE(compare_shows_how_far_each_contrast_moved),
    { 0 },
};

int main(int argc, char **argv)
{
    if (fx_up("cli") < 0)
        return 1;
    s_run = fx_submit(SPRT_DOC);
    if (s_run < 0 || fx_fill(s_run, 0, 300, NULL, NULL, NULL, 0, 0) < 0 || fx_finish(s_run) < 0) {
        fprintf(stderr, "fixture run failed\n");
        return 1;
    }
    return check_main(argc, argv, CASES);
}
