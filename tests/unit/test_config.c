/* Unit tests for the table-driven config loader (common/config.h). */
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include "check.h"
#include "config.h"
#include "err.h"
#include "log.h"

typedef struct {
    char coordinator[64];
    int heartbeat_ms;
    int64_t nodes;
    double scale;
    bool curve;
    char token[64];
    char spool[128];
} sample_t;

static const config_item_t ITEMS[] = {
    CONFIG_STRING(sample_t, coordinator, "tcp://127.0.0.1:5555", "coordinator endpoint"),
    CONFIG_INT(sample_t, heartbeat_ms, "2500", 100, 600000, "heartbeat interval"),
    CONFIG_INT64(sample_t, nodes, "10000", 1, 1e12, "nodes per move"),
    CONFIG_DOUBLE(sample_t, scale, "1.5", 0.01, 100, "time scale"),
    CONFIG_BOOL(sample_t, curve, "false", "encrypt with CURVE"),
    CONFIG_SECRET(sample_t, token, "", "contributor token"),
    CONFIG_PATH(sample_t, spool, "spool", "spool folder"),
    { 0 },
};
static const config_spec_t SPEC = { "capa-sample", "[options]", ITEMS };

static void s_clear_env(void)
{
    const char *names[] = { "CAPA_CONFIG", "CAPA_COORDINATOR", "CAPA_HEARTBEAT_MS", "CAPA_NODES",
                            "CAPA_SCALE", "CAPA_CURVE", "CAPA_TOKEN", "CAPA_SPOOL" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unsetenv(names[i]);
}

static char s_dir[256];

/* Writes text to a file in a private temporary folder and returns its path. */
static const char *s_file(const char *name, const char *text)
{
    if (!*s_dir) {
        snprintf(s_dir, sizeof s_dir, "/tmp/capa-test-config-XXXXXX");
        CHECK(mkdtemp(s_dir) != NULL);
    }
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", s_dir, name);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs(text, f);
    fclose(f);
    return path;
}

/* Runs config_load on a NULL-terminated argument list. */
static int s_load(sample_t *cfg, char *err, size_t errlen, const char **args)
{
    char *argv[32] = { (char *) "capa-sample" };
    int argc = 1;
    while (args && args[argc - 1])
        argv[argc] = (char *) args[argc - 1], argc++;
    bool help = false;
    memset(cfg, 0x55, sizeof *cfg);
    int rc = config_load(&SPEC, cfg, argc, argv, NULL, &help, err, errlen);
    CHECK(!help);
    return rc;
}

static void defaults_fill_every_field(void)
{
    s_clear_env();
    sample_t c;
    char err[256];
    CHECK_EQ_INT(s_load(&c, err, sizeof err, NULL), 0);
    CHECK_EQ_STR(c.coordinator, "tcp://127.0.0.1:5555");
    CHECK_EQ_INT(c.heartbeat_ms, 2500);
    CHECK_EQ_INT(c.nodes, 10000);
    CHECK(c.scale == 1.5);
    CHECK(!c.curve);
    CHECK_EQ_STR(c.token, "");
    CHECK_EQ_STR(c.spool, "spool");
}

static void file_then_environment_then_flags_win_in_order(void)
{
    s_clear_env();
    const char *path = s_file("prec.json",
        "{\"coordinator\":\"tcp://file:1\",\"heartbeat_ms\":1000,\"nodes\":5000,\"curve\":true,\"scale\":2}");
    sample_t c;
    char err[256];
    const char *only_file[] = { "--config", path, NULL };
    CHECK_MSG(s_load(&c, err, sizeof err, only_file) == 0, "%s", err);
    CHECK_EQ_STR(c.coordinator, "tcp://file:1");
    CHECK_EQ_INT(c.heartbeat_ms, 1000);
    CHECK(c.curve);
    CHECK(c.scale == 2);

    setenv("CAPA_HEARTBEAT_MS", "1500", 1);
    setenv("CAPA_COORDINATOR", "tcp://env:2", 1);
    CHECK_MSG(s_load(&c, err, sizeof err, only_file) == 0, "%s", err);
    CHECK_EQ_STR(c.coordinator, "tcp://env:2");
    CHECK_EQ_INT(c.heartbeat_ms, 1500);
    CHECK_EQ_INT(c.nodes, 5000);           /* from the file, untouched by env */

    const char *all[] = { "--config", path, "--heartbeat-ms", "1700", "--no-curve", "--nodes=42", NULL };
    CHECK_MSG(s_load(&c, err, sizeof err, all) == 0, "%s", err);
    CHECK_EQ_INT(c.heartbeat_ms, 1700);
    CHECK(!c.curve);
    CHECK_EQ_INT(c.nodes, 42);
    CHECK_EQ_STR(c.coordinator, "tcp://env:2");
    s_clear_env();
}

static void the_config_file_can_come_from_the_environment(void)
{
    s_clear_env();
    setenv("CAPA_CONFIG", s_file("env.json", "{\"nodes\": 777}"), 1);
    sample_t c;
    char err[256];
    CHECK_MSG(s_load(&c, err, sizeof err, NULL) == 0, "%s", err);
    CHECK_EQ_INT(c.nodes, 777);
    s_clear_env();
}

static void boolean_flags_take_no_value_unless_given_with_equals(void)
{
    s_clear_env();
    sample_t c;
    char err[256];
    const char *a[] = { "--curve", NULL };
    CHECK_EQ_INT(s_load(&c, err, sizeof err, a), 0);
    CHECK(c.curve);
    const char *b[] = { "--curve=off", NULL };
    CHECK_EQ_INT(s_load(&c, err, sizeof err, b), 0);
    CHECK(!c.curve);
    const char *bad[] = { "--curve=maybe", NULL };
    CHECK_EQ_INT(s_load(&c, err, sizeof err, bad), CAPA_EINVAL);
    CHECK(strstr(err, "flag --curve") != NULL);
}

typedef struct {
    const char *what;
    const char *file;        /* JSON text, or NULL */
    const char *env_name, *env_value;
    const char *flag1, *flag2;
    int rc;
    const char *mention;
} bad_t;

static const bad_t s_bad[] = {
    { "int out of bounds in a flag", NULL, NULL, NULL, "--heartbeat-ms", "50", CAPA_ERANGE, "flag --heartbeat-ms: 50 is outside 100..600000" },
    { "int with garbage in a flag", NULL, NULL, NULL, "--heartbeat-ms=12x", NULL, CAPA_EINVAL, "not an integer" },
    { "huge int in a flag", NULL, NULL, NULL, "--nodes", "99999999999999999999999", CAPA_ERANGE, "flag --nodes" },
    { "double NaN in a flag", NULL, NULL, NULL, "--scale=nan", NULL, CAPA_EINVAL, "not a finite number" },
    { "double out of bounds in the environment", NULL, "CAPA_SCALE", "1000", NULL, NULL, CAPA_ERANGE, "environment CAPA_SCALE" },
    { "bool garbage in the environment", NULL, "CAPA_CURVE", "sometimes", NULL, NULL, CAPA_EINVAL, "environment CAPA_CURVE" },
    { "string too long in a flag", NULL, NULL, NULL, "--coordinator", "tcp://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:1", CAPA_ERANGE, "flag --coordinator: longer than 63" },
    { "control character in a flag", NULL, NULL, NULL, "--coordinator", "a\tb", CAPA_EINVAL, "control" },
    { "unknown flag", NULL, NULL, NULL, "--cordinator", "x", CAPA_EINVAL, "flag --cordinator: unknown" },
    { "flag without its value", NULL, NULL, NULL, "--nodes", NULL, CAPA_EINVAL, "flag --nodes: needs a value" },
    { "positional argument", NULL, NULL, NULL, "extra", NULL, CAPA_EINVAL, "unexpected argument \"extra\"" },
    { "unknown key in the file", "{\"nodse\": 1}", NULL, NULL, NULL, NULL, CAPA_EINVAL, "nodse: unknown key" },
    { "wrong type in the file", "{\"nodes\": \"10\"}", NULL, NULL, NULL, NULL, CAPA_EINVAL, "nodes: expected an integer" },
    { "fraction for an int in the file", "{\"heartbeat_ms\": 1.5}", NULL, NULL, NULL, NULL, CAPA_EINVAL, "heartbeat_ms" },
    { "out of bounds in the file", "{\"heartbeat_ms\": 5}", NULL, NULL, NULL, NULL, CAPA_ERANGE, "heartbeat_ms: 5 is outside" },
    { "bool as a string in the file", "{\"curve\": \"yes\"}", NULL, NULL, NULL, NULL, CAPA_EINVAL, "curve: expected true or false" },
    { "bad JSON file", "{\"nodes\": 1,", NULL, NULL, NULL, NULL, CAPA_EINVAL, "invalid JSON" },
    { "file holding an array", "[1]", NULL, NULL, NULL, NULL, CAPA_EINVAL, "expected a JSON object" },
    { "key twice in the file", "{\"nodes\": 1, \"nodes\": 2}", NULL, NULL, NULL, NULL, CAPA_EINVAL, "appears twice" },
};

static void bad_values_name_the_key_and_the_source(void)
{
    for (size_t i = 0; i < sizeof s_bad / sizeof s_bad[0]; i++) {
        const bad_t *b = &s_bad[i];
        s_clear_env();
        const char *args[6] = { 0 };
        int n = 0;
        char path[512] = "";
        if (b->file) {
            snprintf(path, sizeof path, "%s", s_file("bad.json", b->file));
            args[n++] = "--config";
            args[n++] = path;
        }
        if (b->env_name)
            setenv(b->env_name, b->env_value, 1);
        if (b->flag1)
            args[n++] = b->flag1;
        if (b->flag2)
            args[n++] = b->flag2;
        sample_t c;
        char err[256] = "";
        int rc = s_load(&c, err, sizeof err, args);
        CHECK_MSG(rc == b->rc, "%s: rc %d (%s), wanted %d", b->what, rc, err, b->rc);
        CHECK_MSG(strstr(err, b->mention) != NULL, "%s: \"%s\" lacks \"%s\"", b->what, err, b->mention);
        if (b->file)
            CHECK_MSG(strstr(err, "config file") != NULL, "%s: \"%s\" names no file", b->what, err);
    }
    s_clear_env();
}

static void a_missing_config_file_is_an_io_error(void)
{
    s_clear_env();
    sample_t c;
    char err[256];
    const char *a[] = { "--config", "/nonexistent/capa.json", NULL };
    CHECK_EQ_INT(s_load(&c, err, sizeof err, a), CAPA_EIO);
    CHECK(strstr(err, "/nonexistent/capa.json") != NULL);
}

static void relative_paths_in_a_file_are_relative_to_the_file(void)
{
    s_clear_env();
    const char *path = s_file("paths.json", "{\"spool\": \"data/spool\"}");
    sample_t c;
    char err[256], want[600];
    const char *a[] = { "--config", path, NULL };
    CHECK_MSG(s_load(&c, err, sizeof err, a) == 0, "%s", err);
    snprintf(want, sizeof want, "%s/data/spool", s_dir);
    CHECK_EQ_STR(c.spool, want);
    const char *b[] = { "--config", path, "--spool", "rel/x", NULL };
    CHECK_EQ_INT(s_load(&c, err, sizeof err, b), 0);
    CHECK_EQ_STR(c.spool, "rel/x");   /* flags stay relative to the working folder */
}

static void positional_arguments_start_after_the_flags(void)
{
    s_clear_env();
    char *argv[] = { "capa", "--nodes", "5", "submit", "--not-a-flag", NULL };
    sample_t c;
    bool help;
    int first = -1;
    char err[256];
    CHECK_EQ_INT(config_load(&SPEC, &c, 5, argv, &first, &help, err, sizeof err), 0);
    CHECK_EQ_INT(first, 3);
    CHECK_EQ_INT(c.nodes, 5);
    char *argv2[] = { "capa", "--", "--nodes", NULL };
    CHECK_EQ_INT(config_load(&SPEC, &c, 3, argv2, &first, &help, err, sizeof err), 0);
    CHECK_EQ_INT(first, 2);
}

static void help_prints_every_key_and_stops(void)
{
    s_clear_env();
    char *argv[] = { "capa-sample", "--help", "--nodes=-5", NULL };
    sample_t c;
    bool help = false;
    char err[256];
    fflush(stdout);
    int saved = dup(1);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 1);
    int rc = config_load(&SPEC, &c, 3, argv, NULL, &help, err, sizeof err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    CHECK_EQ_INT(rc, 0);
    CHECK(help);
    char text[8192];
    rewind(tmp);
    size_t n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    for (const config_item_t *it = ITEMS; it->key; it++)
        CHECK_MSG(strstr(text, it->key) != NULL, "help lacks %s", it->key);
    CHECK(strstr(text, "CAPA_HEARTBEAT_MS") != NULL);
    CHECK(strstr(text, "100..600000") != NULL);
}

static void the_logged_config_masks_secrets(void)
{
    s_clear_env();
    sample_t c;
    char err[256];
    const char *a[] = { "--token", "capa_SuperSecret123", NULL };
    CHECK_EQ_INT(s_load(&c, err, sizeof err, a), 0);
    CHECK_EQ_STR(c.token, "capa_SuperSecret123");
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    dup2(fileno(tmp), 2);
    capa_log_set_level(LOG_INFO);
    config_log(&SPEC, &c);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[8192];
    rewind(tmp);
    size_t n = fread(text, 1, sizeof text - 1, tmp);
    text[n] = '\0';
    fclose(tmp);
    CHECK(strstr(text, "SuperSecret") == NULL);
    CHECK(strstr(text, "config token = ****") != NULL);
    CHECK(strstr(text, "config heartbeat_ms = 2500") != NULL);
    CHECK(strstr(text, "config scale = 1.5") != NULL);
    CHECK(strstr(text, "config curve = false") != NULL);
}

static void config_set_changes_one_key(void)
{
    sample_t c;
    char err[256];
    CHECK_EQ_INT(config_defaults(&SPEC, &c, err, sizeof err), 0);
    CHECK_EQ_INT(config_set(&SPEC, &c, "scale", "0.25", "test", err, sizeof err), 0);
    CHECK(c.scale == 0.25);
    CHECK_EQ_INT(config_set(&SPEC, &c, "nope", "1", "test", err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "unknown key \"nope\"") != NULL);
    char buf[64];
    config_format(&ITEMS[3], &c, buf, sizeof buf);
    CHECK_EQ_STR(buf, "0.25");
}

static const check_case_t CASES[] = {
    CASE(defaults_fill_every_field),
    CASE(file_then_environment_then_flags_win_in_order),
    CASE(the_config_file_can_come_from_the_environment),
    CASE(boolean_flags_take_no_value_unless_given_with_equals),
    CASE(bad_values_name_the_key_and_the_source),
    CASE(a_missing_config_file_is_an_io_error),
    CASE(relative_paths_in_a_file_are_relative_to_the_file),
    CASE(positional_arguments_start_after_the_flags),
    CASE(help_prints_every_key_and_stops),
    CASE(the_logged_config_masks_secrets),
    CASE(config_set_changes_one_key),
    { 0 },
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, CASES);
    if (*s_dir) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", s_dir);
    }
    return rc;
}
