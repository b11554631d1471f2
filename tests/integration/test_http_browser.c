/* The report pages in a real browser: headless Chromium (Debian package
 * "chromium") loads the run list, a finished piece-value study, an SPRT run,
 * the workers, contributors and values pages; the DOM it built must hold the
 * charts (svg with their paths, bounds and intervals) and the user-given
 * names as text, never as markup. Screenshots of the study's page (desktop
 * and phone widths) are saved in <build>/tests/ for people to look at.
 * Exit 77 (skipped) when no Chromium is installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "test_http_fixture.h"

static const char *s_chromium;
static int64_t s_values, s_sprt;
static char *s_dom;

static const char VALUES_DOC[] =
    "{\"kind\":\"values\",\"name\":\"Archbishop <i>vs</i> Chancellor\",\"seed\":11,"
    "\"variant\":\"caparandom\",\"game\":{\"nodes\":1000},\"pairs_per_imbalance\":250,"
    "\"imbalances\":["
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

static const char SPRT_DOC[] =
    "{\"kind\":\"sprt\",\"name\":\"A 875 vs 800\",\"seed\":9,\"variant\":\"caparandom\","
    "\"game\":{\"nodes\":1000},\"a\":{},\"b\":{\"ArchbishopValueMg\":875},"
    "\"elo0\":0,\"elo1\":5,\"max_pairs\":4000}";

/* Runs chromium with args on url; its stdout (the DOM for --dump-dom) in a
 * heap string, or NULL. */
static char *s_chrome(const char *args, const char *path)
{
    char profile[600], cmd[2400];
    snprintf(profile, sizeof profile, "%s/tests/http_pages_profile_%d", CAPA_BINARY_DIR,
             (int) getpid());
    snprintf(cmd, sizeof cmd,
             "timeout 120 '%s' --headless --no-sandbox --disable-gpu --hide-scrollbars "
             "--no-first-run --user-data-dir='%s' %s '%s%s' 2>/dev/null",
             s_chromium, profile, args, g_fx.base, path);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 22, n = 0;
    char *buf = malloc(cap);
    if (buf) {
        n = fread(buf, 1, cap - 1, p);
        buf[n] = 0;
    }
    int st = pclose(p);
    if (st != 0)
        fprintf(stderr, "  chromium exited with %d\n", st);
    return buf;
}

static size_t s_count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *q = hay; (q = strstr(q, needle)); q += strlen(needle))
        n++;
    return n;
}

static void s_load(const char *path)
{
    free(s_dom);
    s_dom = s_chrome("--dump-dom", path);
    CHECK_MSG(s_dom && strstr(s_dom, "</html>"), "no DOM for %s", path);
}

static void the_run_list_renders_with_escaped_names(void)
{
    s_load("/");
    CHECK(strstr(s_dom, "Archbishop &lt;i&gt;vs&lt;/i&gt; Chancellor") != NULL);
    CHECK(strstr(s_dom, "<i>vs</i>") == NULL);
    CHECK(s_count(s_dom, "class=\"bar\"") >= 2);
}

static void a_finished_study_shows_values_with_intervals_and_their_convergence(void)
{
    char path[64];
    snprintf(path, sizeof path, "/runs/%lld", (long long) s_values);
    s_load(path);
    CHECK(s_count(s_dom, "<svg") >= 2);
    CHECK_EQ_INT(s_count(s_dom, "class=\"estimate\""), 5);   /* N R A C, and P = 1 */
    CHECK(s_count(s_dom, "class=\"interval\"") >= 4);
    CHECK(s_count(s_dom, "class=\"series\"") >= 4);          /* one path per piece */
    CHECK(s_count(s_dom, "class=\"band\"") >= 4);
    CHECK(strstr(s_dom, "Archbishop") != NULL && strstr(s_dom, "knight odds") != NULL);
    /* contrasts lead, before the values chart */
    const char *contrasts = strstr(s_dom, "Contrasts"), *values = strstr(s_dom, "Values in pawns");
    CHECK(contrasts != NULL && values != NULL && contrasts < values);
    CHECK(strstr(s_dom, "http-equiv=\"refresh\"") == NULL);   /* finished: no reload */
    char png[600], args[800];
    snprintf(png, sizeof png, "%s/tests/http_values_page.png", CAPA_BINARY_DIR);
    unlink(png);
    snprintf(args, sizeof args, "--window-size=1000,1500 --screenshot='%s'", png);
    free(s_chrome(args, path));
    struct stat sb;
    CHECK_MSG(stat(png, &sb) == 0 && sb.st_size > 20000, "no screenshot at %s", png);
    snprintf(png, sizeof png, "%s/tests/http_values_page_phone.png", CAPA_BINARY_DIR);
    unlink(png);
    snprintf(args, sizeof args, "--window-size=390,1600 --screenshot='%s'", png);
    free(s_chrome(args, path));
    CHECK_MSG(stat(png, &sb) == 0 && sb.st_size > 10000, "no screenshot at %s", png);
}

static void an_sprt_run_shows_its_llr_between_the_bounds_and_its_elo(void)
{
    char path[64];
    snprintf(path, sizeof path, "/runs/%lld", (long long) s_sprt);
    s_load(path);
    CHECK_EQ_INT(s_count(s_dom, "<svg"), 2);
    CHECK_EQ_INT(s_count(s_dom, "class=\"bound\""), 4);   /* LLR bounds, elo0/elo1 */
    CHECK_EQ_INT(s_count(s_dom, "class=\"series\""), 2);
    CHECK_EQ_INT(s_count(s_dom, "class=\"band\""), 1);
    CHECK(strstr(s_dom, "accept H1") != NULL);
    CHECK(strstr(s_dom, "http-equiv=\"refresh\"") != NULL);   /* a live run reloads itself */
    char png[600], args[800];
    snprintf(png, sizeof png, "%s/tests/http_sprt_page.png", CAPA_BINARY_DIR);
    snprintf(args, sizeof args, "--window-size=1000,1300 --screenshot='%s'", png);
    free(s_chrome(args, path));
}

static void an_spsa_run_shows_one_path_per_parameter(void)
{
    int64_t run = fx_submit(
        "{\"kind\":\"spsa\",\"name\":\"tune A/C\",\"variant\":\"caparandom\","
        "\"game\":{\"nodes\":1000},\"iterations\":400,\"params\":{"
        "\"ArchbishopValueMg\":{\"start\":825,\"min\":600,\"max\":1100,\"c_end\":20,\"r_end\":0.002},"
        "\"ChancellorValueMg\":{\"start\":875,\"min\":600,\"max\":1100,\"c_end\":20,\"r_end\":0.002}}}");
    CHECK(run > 0);
    for (int i = 1; i <= 40; i++) {
        char theta[160];
        snprintf(theta, sizeof theta, "{\"ArchbishopValueMg\":%.1f,\"ChancellorValueMg\":%.1f}",
                 825 + 2.0 * i, 875 - 1.0 * i);
        CHECK(store_spsa_append(g_fx.st, run, i * 10, theta, NULL) == 0);
    }
    char path[64];
    snprintf(path, sizeof path, "/runs/%lld", (long long) run);
    s_load(path);
    CHECK_EQ_INT(s_count(s_dom, "<svg"), 2);
    CHECK_EQ_INT(s_count(s_dom, "class=\"series\""), 2);
    CHECK(strstr(s_dom, "ArchbishopValueMg") != NULL);
}

static void the_other_pages_render(void)
{
    s_load("/values");
    CHECK(s_count(s_dom, "class=\"estimate\"") >= 5);
    s_load("/workers");
    CHECK(strstr(s_dom, "<table") != NULL);
    s_load("/contributors");
    CHECK(strstr(s_dom, "alice") != NULL && strstr(s_dom, "mallory") != NULL);
}

static const check_case_t CASES[] = {
    CASE(the_run_list_renders_with_escaped_names),
    CASE(a_finished_study_shows_values_with_intervals_and_their_convergence),
    CASE(an_sprt_run_shows_its_llr_between_the_bounds_and_its_elo),
    CASE(an_spsa_run_shows_one_path_per_parameter),
    CASE(the_other_pages_render),
    { 0 },
};

int main(int argc, char **argv)
{
    const char *cands[] = { "/usr/bin/chromium", "/usr/bin/chromium-browser",
                            "/usr/bin/google-chrome", NULL };
    for (int i = 0; cands[i]; i++)
        if (access(cands[i], X_OK) == 0) {
            s_chromium = cands[i];
            break;
        }
    if (!s_chromium) {
        printf("skipped: no chromium (apt-get install chromium)\n");
        return 77;
    }
    if (fx_up("pages") < 0)
        return 1;
    s_values = fx_submit(VALUES_DOC);
    s_sprt = fx_submit(SPRT_DOC);
    if (s_values < 0 || s_sprt < 0 ||
        /* Three estimates as the games arrive: the convergence chart's points. */
        fx_fill(s_values, 0, 1000, IMB, SIDE, OTHER, 6, 0) < 0 || fx_estimate(s_values) < 0 ||
        fx_fill(s_values, 1000, 250, IMB, SIDE, OTHER, 6, 0) < 0 || fx_estimate(s_values) < 0 ||
        fx_fill(s_values, 1250, 250, IMB, SIDE, OTHER, 6, 0) < 0 || fx_finish(s_values) < 0 ||
        fx_fill(s_sprt, 0, 1500, NULL, NULL, NULL, 0, 12) < 0) {
        fprintf(stderr, "fixture runs failed\n");
        return 1;
    }
    int rc = check_main(argc, argv, CASES);
    free(s_dom);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s/tests/http_pages_profile_%d'", CAPA_BINARY_DIR,
             (int) getpid());
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove the browser profile\n");
    return rc;
}
