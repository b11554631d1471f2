/* test_worker_config.c - capa-worker's config table, state folder and id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "err.h"
#include "worker.h"
#include "worker_internal.h"

static char s_dir[256];

static void s_fresh_dir(void)
{
    snprintf(s_dir, sizeof s_dir, "/tmp/capa-wcfg-test-%d-XXXXXX", (int) getpid());
    CHECK(mkdtemp(s_dir) != NULL);
}

static void s_rm_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
    CHECK(system(cmd) == 0);
}

static void s_clear_env(void)
{
    const char *vars[] = { "CAPA_COORDINATOR", "CAPA_TOKEN", "CAPA_CONCURRENCY", "CAPA_CONFIG",
                           "CAPA_HEARTBEAT_MS", "CAPA_LOG_LEVEL", NULL };
    for (int i = 0; vars[i]; i++)
        unsetenv(vars[i]);
}

static void the_defaults_match_the_protocol(void)
{
    s_clear_env();
    worker_config_t cfg;
    bool help = false;
    char err[256];
    char *argv[] = { "capa-worker", NULL };
    CHECK_EQ_INT(worker_config_load(&cfg, 1, argv, &help, err, sizeof err), 0);
    CHECK(!help);
    CHECK_EQ_STR(cfg.coordinator, "tcp://127.0.0.1:5555");
    CHECK_EQ_INT(cfg.concurrency, 0);
    CHECK_EQ_INT(cfg.heartbeat_ms, 2500);
    CHECK_EQ_INT(cfg.liveness, 4);
    CHECK_EQ_INT(cfg.backoff_first_ms, 1000);
    CHECK_EQ_INT(cfg.backoff_max_ms, 32000);
    CHECK_EQ_INT(cfg.hash_mb, 16);
    CHECK_EQ_STR(cfg.token, "");
    CHECK_EQ_STR(cfg.http_base, "");
}

static void flags_beat_the_environment_which_beats_the_file(void)
{
    s_clear_env();
    s_fresh_dir();
    char path[300];
    snprintf(path, sizeof path, "%s/worker.json", s_dir);
    FILE *f = fopen(path, "w");
    fputs("{\"coordinator\": \"tcp://file:1\", \"concurrency\": 3, \"heartbeat_ms\": 1000,"
          " \"token\": \"capa_from_file\"}",
          f);
    fclose(f);
    setenv("CAPA_COORDINATOR", "tcp://env:2", 1);
    setenv("CAPA_TOKEN", "capa_from_env", 1);
    worker_config_t cfg;
    bool help = false;
    char err[256];
    char *argv[] = { "capa-worker", "--config", path, "--concurrency=5", NULL };
    CHECK_EQ_INT(worker_config_load(&cfg, 4, argv, &help, err, sizeof err), 0);
    CHECK_EQ_STR(cfg.coordinator, "tcp://env:2");
    CHECK_EQ_STR(cfg.token, "capa_from_env");
    CHECK_EQ_INT(cfg.concurrency, 5);
    CHECK_EQ_INT(cfg.heartbeat_ms, 1000);
    s_clear_env();
    s_rm_dir();
}

static void bad_values_are_errors_naming_the_key(void)
{
    s_clear_env();
    worker_config_t cfg;
    bool help = false;
    char err[256];
    char *a1[] = { "capa-worker", "--log-level", "loud", NULL };
    CHECK(worker_config_load(&cfg, 3, a1, &help, err, sizeof err) < 0);
    CHECK(strstr(err, "log_level") != NULL);
    char *a2[] = { "capa-worker", "--heartbeat-ms", "5", NULL };
    CHECK(worker_config_load(&cfg, 3, a2, &help, err, sizeof err) < 0);
    CHECK(strstr(err, "heartbeat") != NULL);
    char *a3[] = { "capa-worker", "--backoff-first-ms", "5000", "--backoff-max-ms", "1000", NULL };
    CHECK(worker_config_load(&cfg, 5, a3, &help, err, sizeof err) < 0);
    CHECK(strstr(err, "backoff_max_ms") != NULL);
    char *a4[] = { "capa-worker", "--no-such-key", "1", NULL };
    CHECK(worker_config_load(&cfg, 3, a4, &help, err, sizeof err) < 0);
    char *a5[] = { "capa-worker", "--concurrency", "-1", NULL };
    CHECK(worker_config_load(&cfg, 3, a5, &help, err, sizeof err) < 0);
}

static void the_worker_id_is_created_once_and_kept(void)
{
    s_fresh_dir();
    char id1[64], id2[64], err[256];
    CHECK_EQ_INT(worker_id_load(s_dir, id1, sizeof id1, err, sizeof err), 0);
    CHECK_EQ_INT(strlen(id1), 36);
    CHECK(id1[8] == '-' && id1[13] == '-' && id1[14] == '4' && id1[18] == '-' && id1[23] == '-');
    CHECK_EQ_INT(worker_id_load(s_dir, id2, sizeof id2, err, sizeof err), 0);
    CHECK_EQ_STR(id1, id2);
    /* another folder, another id */
    char other[300];
    snprintf(other, sizeof other, "%s/other", s_dir);
    mkdir(other, 0700);
    CHECK_EQ_INT(worker_id_load(other, id2, sizeof id2, err, sizeof err), 0);
    CHECK(strcmp(id1, id2) != 0);
    /* a hand-edited id must still be a protocol id */
    char path[400];
    snprintf(path, sizeof path, "%s/worker-id", other);
    FILE *f = fopen(path, "w");
    fputs("my worker!\n", f);
    fclose(f);
    CHECK(worker_id_load(other, id2, sizeof id2, err, sizeof err) < 0);
    CHECK(strstr(err, "not a worker id") != NULL);
    f = fopen(path, "w");
    fputs("  rack-7.node:3  \n", f);
    fclose(f);
    CHECK_EQ_INT(worker_id_load(other, id2, sizeof id2, err, sizeof err), 0);
    CHECK_EQ_STR(id2, "rack-7.node:3");
    s_rm_dir();
}

static void the_state_folder_defaults_to_xdg_then_home(void)
{
    s_fresh_dir();
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *old_xdg = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
    char out[512], want[512], err[256];
    setenv("XDG_STATE_HOME", s_dir, 1);
    CHECK_EQ_INT(worker_state_dir("", out, sizeof out, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/capalab/worker", s_dir);
    CHECK(strcmp(out, want) == 0);
    struct stat st;
    CHECK(stat(want, &st) == 0 && S_ISDIR(st.st_mode));
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", s_dir, 1);
    CHECK_EQ_INT(worker_state_dir(NULL, out, sizeof out, err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/.capalab/worker", s_dir);
    CHECK(strcmp(out, want) == 0);
    snprintf(want, sizeof want, "%s/given/deeper", s_dir);
    CHECK_EQ_INT(worker_state_dir(want, out, sizeof out, err, sizeof err), 0);
    CHECK(strcmp(out, want) == 0);
    CHECK(stat(want, &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(worker_state_dir("/proc/no/such", out, sizeof out, err, sizeof err) < 0);
    if (old_home)
        setenv("HOME", old_home, 1);
    if (old_xdg)
        setenv("XDG_STATE_HOME", old_xdg, 1);
    free(old_home);
    free(old_xdg);
    s_rm_dir();
}

static void a_worker_without_a_usable_token_is_refused_before_it_starts(void)
{
    s_clear_env();
    s_fresh_dir();
    worker_config_t cfg;
    bool help = false;
    char err[256];
    char *argv[] = { "capa-worker", "--state-dir", s_dir, NULL };
    CHECK_EQ_INT(worker_config_load(&cfg, 3, argv, &help, err, sizeof err), 0);
    worker_t *w = NULL;
    CHECK(worker_new(&cfg, &w, err, sizeof err) < 0);
    CHECK(w == NULL);
    CHECK(strstr(err, "no token") != NULL);
    snprintf(cfg.token, sizeof cfg.token, "bad token with spaces");
    CHECK(worker_new(&cfg, &w, err, sizeof err) < 0);
    CHECK(strstr(err, "token") != NULL);
    /* a token file that does not exist is named */
    cfg.token[0] = '\0';
    snprintf(cfg.token_file, sizeof cfg.token_file, "%s/missing-token", s_dir);
    CHECK(worker_new(&cfg, &w, err, sizeof err) < 0);
    CHECK(strstr(err, "missing-token") != NULL);
    s_rm_dir();
}

static void host_info_is_protocol_text(void)
{
    proto_hello_t h;
    memset(&h, 0, sizeof h);
    worker_host_info(&h);
    worker_default_name(h.name, sizeof h.name);
    CHECK(h.name[0] != '\0');
    CHECK(h.host_memory_mb > 0);
    const char *fields[] = { h.name, h.host_os, h.host_cpu };
    for (int i = 0; i < 3; i++)
        for (const unsigned char *p = (const unsigned char *) fields[i]; *p; p++)
            CHECK(*p >= 0x20 && *p < 0x7f);
}

static void the_example_config_file_loads_with_the_defaults(void)
{
    s_clear_env();
    worker_config_t cfg, def;
    bool help = false;
    char err[256];
    char *a0[] = { "capa-worker", NULL };
    CHECK_EQ_INT(worker_config_load(&def, 1, a0, &help, err, sizeof err), 0);
    char *argv[] = { "capa-worker", "--config", CAPA_SOURCE_DIR "/configs/worker.json", NULL };
    int rc = worker_config_load(&cfg, 3, argv, &help, err, sizeof err);
    CHECK_MSG(rc == 0, "configs/worker.json: %s", err);
    CHECK(memcmp(&cfg, &def, sizeof cfg) == 0);
}

static const check_case_t CASES[] = {
    CASE(the_defaults_match_the_protocol),
    CASE(flags_beat_the_environment_which_beats_the_file),
    CASE(bad_values_are_errors_naming_the_key),
    CASE(the_worker_id_is_created_once_and_kept),
    CASE(the_state_folder_defaults_to_xdg_then_home),
    CASE(a_worker_without_a_usable_token_is_refused_before_it_starts),
    CASE(host_info_is_protocol_text),
    CASE(the_example_config_file_loads_with_the_defaults),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
