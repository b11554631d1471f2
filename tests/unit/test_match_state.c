/* test_match_state.c - the file capa match --state keeps: written whole and
 * read back, refused with a clear sentence when it is not a state or does
 * not fit the match that would go on from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "match.h"
#include "match_state.h"

static char s_dir[] = "/tmp/capa_match_state_XXXXXX";
static char s_path[256];

static void s_setup(void)
{
    if (!s_path[0]) {
        CHECK(mkdtemp(s_dir) != NULL);
        snprintf(s_path, sizeof s_path, "%s/run.state", s_dir);
    }
    remove(s_path);
}

static void s_write_text(const char *text)
{
    FILE *f = fopen(s_path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
}

/* An SPRT match at 20,000 nodes between base and new, seed 7. */
static void s_config(match_config_t *cfg)
{
    match_config_default(cfg);
    snprintf(cfg->engine[0].name, sizeof cfg->engine[0].name, "base");
    snprintf(cfg->engine[1].name, sizeof cfg->engine[1].name, "new");
    cfg->nodes = 20000;
    cfg->seed = 7;
    cfg->sprt = true;
    cfg->sprt_params.elo0 = 0;
    cfg->sprt_params.elo1 = 10;
}

static void a_state_reads_back_as_written(void)
{
    s_setup();
    match_config_t cfg;
    s_config(&cfg);
    match_state_t st, back;
    char err[512] = "";
    CHECK_MSG(match_state_from_config(&st, &cfg, err, sizeof err) == 0, "%s", err);
    st.seeds[st.nseeds++] = 12345678901234ull;
    /* 10 pairs: 1 LL, 2 LD, 4 at 1/2 (one of them DD), 2 WD, 1 WW */
    int64_t penta[5] = { 1, 2, 4, 2, 1 };
    memcpy(st.counts.penta, penta, sizeof penta);
    st.counts.wins = 0 + 0 + 3 + 2 + 2;
    st.counts.losses = 2 + 2 + 3;
    st.counts.draws = 2 + 2 + 2;
    st.pairs = 10;
    st.sprt_params.alpha = 0.025;
    CHECK_MSG(match_state_write(s_path, &st, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(match_state_read(s_path, &back, err, sizeof err), 1);
    CHECK_EQ_STR(back.engine[0], "base");
    CHECK_EQ_STR(back.engine[1], "new");
    CHECK(back.variant == VARIANT_CAPARANDOM);
    CHECK(back.nodes == 20000 && back.tc_base_ms == 0 && back.tc_inc_ms == 0);
    CHECK(back.sprt && back.sprt_params.elo0 == 0 && back.sprt_params.elo1 == 10);
    CHECK(back.sprt_params.alpha == 0.025 && back.sprt_params.beta == 0.05);
    CHECK(back.sprt_params.model == cfg.sprt_params.model);
    CHECK_EQ_INT(back.nseeds, 2);
    CHECK(back.seeds[0] == 7 && back.seeds[1] == 12345678901234ull);
    CHECK(back.pairs == 10);
    CHECK(memcmp(&back.counts, &st.counts, sizeof st.counts) == 0);
    /* no temporary file is left beside it */
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s.tmp", s_path);
    CHECK(access(tmp, F_OK) != 0);
    /* a clock and no SPRT */
    cfg.nodes = 0;
    cfg.tc_base_ms = 10000;
    cfg.tc_inc_ms = 100;
    cfg.sprt = false;
    CHECK_MSG(match_state_from_config(&st, &cfg, err, sizeof err) == 0, "%s", err);
    CHECK_MSG(match_state_write(s_path, &st, err, sizeof err) == 0, "%s", err);
    CHECK_EQ_INT(match_state_read(s_path, &back, err, sizeof err), 1);
    CHECK(back.nodes == 0 && back.tc_base_ms == 10000 && back.tc_inc_ms == 100 && !back.sprt);
    CHECK(back.pairs == 0);
}

static void a_missing_file_is_a_new_match(void)
{
    s_setup();
    match_state_t st;
    char err[512] = "";
    CHECK_EQ_INT(match_state_read(s_path, &st, err, sizeof err), 0);
    /* a folder that cannot be written: a sentence, not a crash */
    match_config_t cfg;
    s_config(&cfg);
    CHECK_MSG(match_state_from_config(&st, &cfg, err, sizeof err) == 0, "%s", err);
    CHECK(match_state_write("/nonexistent-dir/x.state", &st, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "/nonexistent-dir/x.state.tmp") != NULL, "%s", err);
}

static const char *const GOOD =
    "capa-match-state 1\n"
    "engines base new\n"
    "variant caparandom\n"
    "limit nodes 20000\n"
    "sprt normalized 0 10 0.05 0.05\n"
    "seeds 7\n"
    "counts 2 2 0 2 0 0 2 0 0\n";

/* GOOD with line `line` (0-based) replaced by with. */
static void s_write_good_but(int line, const char *with)
{
    char buf[1024] = "";
    const char *p = GOOD;
    for (int i = 0; *p; i++) {
        const char *nl = strchr(p, '\n');
        size_t n = (size_t) (nl - p) + 1;
        if (i == line)
            strcat(buf, with);
        else
            strncat(buf, p, n);
        p += n;
    }
    s_write_text(buf);
}

static void malformed_or_inconsistent_files_are_refused_by_line(void)
{
    s_setup();
    match_state_t st;
    char err[512];
    s_write_text(GOOD);
    CHECK_EQ_INT(match_state_read(s_path, &st, err, sizeof err), 1);
    static const struct {
        int line;
        const char *with, *expect;
    } BAD[] = {
        { 0, "capa-match-state 2\n", "line 1: not a capa match state" },
        { 1, "engines base\n", "line 2: not a capa match state: expected \"engines BASELINE TEST\"" },
        { 2, "variant shogi\n", "line 3: not a capa match state: expected \"variant NAME\"" },
        { 3, "limit nodes -5\n", "line 4: not a capa match state: expected \"limit nodes N\"" },
        { 3, "limit tc 10000\n", "line 4" },
        { 4, "sprt normalized 0 10\n", "line 5: not a capa match state: expected \"sprt none\"" },
        { 4, "sprt normalized 10 0 0.05 0.05\n", "line 5: " },
        { 5, "seeds\n", "line 6: not a capa match state: expected \"seeds S...\"" },
        { 5, "seeds 7 x\n", "line 6" },
        { 5, "seeds -7\n", "line 6" },
        { 6, "counts 2 2 0 2\n", "line 7: not a capa match state: expected \"counts PAIRS" },
        /* forged: 3 pairs claimed, 2 in the pentanomial */
        { 6, "counts 3 2 0 2 0 0 2 0 0\n", "line 7: the counts do not add up (PAIRS is not" },
        /* W/D/L that cannot be these pairs */
        { 6, "counts 2 4 0 0 0 0 2 0 0\n", "line 7: the counts do not add up (" },
        { 6, "counts 2 2 0 2 0 0 2 0 0\nmore\n", "line 8: not a capa match state: nothing may follow" },
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        s_write_good_but(BAD[i].line, BAD[i].with);
        err[0] = 0;
        CHECK_MSG(match_state_read(s_path, &st, err, sizeof err) == -1, "case %zu read", i);
        CHECK_MSG(strstr(err, BAD[i].expect) != NULL, "case %zu: %s", i, err);
        CHECK_MSG(strstr(err, s_path) == err, "case %zu names the file: %s", i, err);
    }
    s_write_text("");
    CHECK_EQ_INT(match_state_read(s_path, &st, err, sizeof err), -1);
}

static void only_the_same_match_with_a_new_seed_may_go_on(void)
{
    match_config_t cfg;
    s_config(&cfg);
    match_state_t st;
    char err[512];
    CHECK_MSG(match_state_from_config(&st, &cfg, err, sizeof err) == 0, "%s", err);
    int64_t penta[5] = { 10, 20, 40, 20, 10 };
    memcpy(st.counts.penta, penta, sizeof penta);
    st.counts.wins = 20 + 40 + 20;
    st.counts.losses = 20 + 40 + 20;
    st.counts.draws = 20 + 20 + 40;
    st.pairs = 100;
    cfg.seed = 8;
    CHECK_MSG(match_state_check(&st, &cfg, err, sizeof err) == 0, "%s", err);
    cfg.seed = 7;
    CHECK(match_state_check(&st, &cfg, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "seed 7 was played already") != NULL, "%s", err);
    cfg.seed = 8;
    snprintf(cfg.engine[1].name, sizeof cfg.engine[1].name, "other");
    CHECK(match_state_check(&st, &cfg, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "a match of new against base; this one is other against base") != NULL,
              "%s", err);
    s_config(&cfg);
    cfg.seed = 8;
    cfg.nodes = 40000;
    CHECK(match_state_check(&st, &cfg, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "played at 20000 nodes a move; this match is at 40000 nodes") != NULL,
              "%s", err);
    cfg.nodes = 20000;
    cfg.variant = VARIANT_CAPABLANCA;
    CHECK(match_state_check(&st, &cfg, err, sizeof err) < 0);
    cfg.variant = VARIANT_CAPARANDOM;
    cfg.sprt_params.elo1 = 5;
    CHECK(match_state_check(&st, &cfg, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "SPRT") != NULL, "%s", err);
    cfg.sprt_params.elo1 = 10;
    cfg.sprt = false;
    CHECK(match_state_check(&st, &cfg, err, sizeof err) < 0);
    cfg.sprt = true;
    CHECK_MSG(match_state_check(&st, &cfg, err, sizeof err) == 0, "%s", err);
    /* an SPRT that has already stopped is not continued */
    int64_t won[5] = { 0, 0, 10, 40, 50 };
    memcpy(st.counts.penta, won, sizeof won);
    st.counts.wins = 10 + 40 + 100; /* the 1/2 pairs as WL, the 3/4 as WD */
    st.counts.draws = 40;
    st.counts.losses = 10;
    CHECK(match_state_check(&st, &cfg, err, sizeof err) < 0);
    CHECK_MSG(strstr(err, "its SPRT has already stopped (H1 accepted") != NULL, "%s", err);
}

/* A state file keeps each name as one word: a name it could not read back
 * is refused before any game, for a new file and for one gone on from. */
static void names_a_state_file_cannot_keep_are_refused(void)
{
    match_config_t cfg;
    s_config(&cfg);
    match_state_t st, good;
    char err[512] = "";
    CHECK_MSG(match_state_from_config(&good, &cfg, err, sizeof err) == 0, "%s", err);
    static const char *const bad[] = { "my engine", "tab\there", "", "bell\a" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(cfg.engine[1].name, sizeof cfg.engine[1].name, "%s", bad[i]);
        err[0] = 0;
        CHECK_MSG(match_state_from_config(&st, &cfg, err, sizeof err) < 0, "case %zu", i);
        CHECK_MSG(strstr(err, "cannot be kept in a state file") != NULL, "case %zu: %s", i, err);
        cfg.seed = 8;
        CHECK_MSG(match_state_check(&good, &cfg, err, sizeof err) < 0, "case %zu", i);
        CHECK_MSG(strstr(err, "(--name)") != NULL, "case %zu: %s", i, err);
    }
    /* the longest name a match has (63 characters) is kept, and read back */
    memset(cfg.engine[1].name, 'x', sizeof cfg.engine[1].name - 1);
    cfg.engine[1].name[sizeof cfg.engine[1].name - 1] = 0;
    CHECK_MSG(match_state_from_config(&st, &cfg, err, sizeof err) == 0, "%s", err);
    s_setup();
    CHECK_MSG(match_state_write(s_path, &st, err, sizeof err) == 0, "%s", err);
    match_state_t back;
    CHECK_EQ_INT(match_state_read(s_path, &back, err, sizeof err), 1);
    CHECK_EQ_STR(back.engine[1], cfg.engine[1].name);
}

static const check_case_t CASES[] = {
    CASE(a_state_reads_back_as_written),
    CASE(a_missing_file_is_a_new_match),
    CASE(malformed_or_inconsistent_files_are_refused_by_line),
    CASE(only_the_same_match_with_a_new_seed_may_go_on),
    CASE(names_a_state_file_cannot_keep_are_refused),
    { 0 } };

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, CASES);
    if (s_path[0]) {
        remove(s_path);
        rmdir(s_dir);
    }
    return rc;
}
