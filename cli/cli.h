/* cli.h - what the capa command's files share: the options every command
 * takes, the exit codes scripts rely on, and the commands themselves.
 *
 * Exit codes (docs/api.md "capa"):
 *   0 ok; 1 usage (bad arguments, unreadable input file); 2 refused by the
 *   coordinator (a 4xx answer: bad document, no or wrong token, unknown run);
 *   3 coordinator unreachable (connection refused, DNS, timeout); 4 server
 *   error (a 5xx answer, e.g. its database is down, or an answer that is not
 *   what the API promises); 5 a watched run ended without passing (SPRT H0,
 *   stopped or failed) - only `capa watch`.
 */
#ifndef CAPA_CLI_H
#define CAPA_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "table.h"

enum {
    CLI_OK = 0,
    CLI_USAGE = 1,
    CLI_REFUSED = 2,
    CLI_UNREACHABLE = 3,
    CLI_SERVER = 4,
    CLI_RUN_FAILED = 5
};

#define CLI_DEFAULT_SERVER "http://127.0.0.1:8080"

typedef struct {
    char server[512];       /* base URL without a trailing slash */
    char token[256];        /* "" = none */
    bool json;              /* machine-readable output */
    int interval_ms;        /* capa watch refresh */
    int timeout_s;          /* per request */
} cli_opts_t;

/* Positional arguments after the command name, plus the command's own
 * --name value options (collected by main, looked up with cli_opt). */
#define CLI_MAX_OPTS 64
typedef struct {
    int argc;
    char **argv;
    const char *keys[CLI_MAX_OPTS];   /* in command-line order; a key may repeat */
    const char *vals[CLI_MAX_OPTS];
    int nopts;
} cli_args_t;

const char *cli_opt(const cli_args_t *a, const char *key);
/* CLI_OK if every option is in allowed (NULL-terminated) and there are
 * npos positional arguments (-1 = any), else a message and CLI_USAGE. */
int cli_check_args(const cli_args_t *a, const char *const *allowed, int npos, const char *usage);
/* The number given as --key (def when absent) into *out; CLI_OK, or -1
 * after a message when it is not a finite number. */
int cli_double(const cli_args_t *a, const char *key, double def, double *out);
/* Parses a positive run id; prints a message and returns -1 if it is not one. */
int64_t cli_parse_id(const char *s);
/* The arguments of a command on one run (capa show ID, stop ID, ...):
 * cli_check_args with one positional argument, which must be a run id;
 * then the run's API path plus suffix ("" or "/stop") goes to path. CLI_OK
 * with *id set, or CLI_USAGE after a message. */
int cli_run_args(const cli_args_t *a, const char *const *allowed, const char *usage,
                 const char *suffix, int64_t *id, char *path, size_t cap);

/* Prints "capa: ..." to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* One request; CLI_OK with *out filled (a 2xx answer; caller frees it with
 * client_response_free) or the exit code after printing why. */
#include "client.h"
int cli_fetch(const cli_opts_t *o, const char *method, const char *path, const char *body,
              size_t len, client_response_t *out);

/* GET/POST path (e.g. "/api/runs"); on success (a 2xx answer) *out gets the
 * parsed JSON (caller deletes) and CLI_OK is returned. Otherwise the reason
 * is printed and the exit code returned (CLI_REFUSED, CLI_UNREACHABLE,
 * CLI_SERVER). */
int cli_get_json(const cli_opts_t *o, const char *path, cJSON **out);
int cli_post_json(const cli_opts_t *o, const char *path, const char *body, size_t len,
                  cJSON **out);
/* cli_get_json, and with --json the answer printed: then *out is NULL
 * (nothing left to do) on CLI_OK. */
int cli_get_or_print(const cli_opts_t *o, const char *path, cJSON **out);
/* Prints j pretty to stdout. */
void cli_print_json(const cJSON *j);

/* A member of a JSON object in an answer: NAN, or "" (the string is o's),
 * when it is absent or of another type. */
double cli_num(const cJSON *o, const char *key);
const char *cli_str(const cJSON *o, const char *key);
/* Milliseconds since the epoch as "YYYY-MM-DD HH:MM" (UTC); "-" unless > 0. */
void cli_time_utc(double ms, char *buf, size_t cap);
/* Prints t to stdout and destroys it (takes ownership; NULL = memory ran
 * out). CLI_OK, or CLI_SERVER after a message when memory ran out. */
int cli_print_table(table_t *t);

/* "+0.25 [-0.10, +0.61]" of an interval object {"value", "ci95"} into a
 * table cell with fmt for each number; "-" for null (cmd_runs.c). */
void cli_cell(table_t *t, const cJSON *o, const char *fmt);
/* Prints a piece-value fit (a report's "values", or an estimate of
 * /api/values): contrasts first, then the values in pawns and Elo, what
 * the design cannot separate, the lack of fit, the scale and the unit
 * (cmd_values.c). */
void cli_print_fit(const cJSON *vals);

/* Commands: each returns the process exit code. */
int cmd_submit(const cli_opts_t *o, const cli_args_t *a);
int cmd_runs(const cli_opts_t *o, const cli_args_t *a);
int cmd_show(const cli_opts_t *o, const cli_args_t *a);
int cmd_watch(const cli_opts_t *o, const cli_args_t *a);
int cmd_stop(const cli_opts_t *o, const cli_args_t *a);
int cmd_resume(const cli_opts_t *o, const cli_args_t *a);
int cmd_pgn(const cli_opts_t *o, const cli_args_t *a);
int cmd_values(const cli_opts_t *o, const cli_args_t *a);
int cmd_workers(const cli_opts_t *o, const cli_args_t *a);
int cmd_contributors(const cli_opts_t *o, const cli_args_t *a);
int cmd_contributor(const cli_opts_t *o, const cli_args_t *a);
int cmd_sprt(const cli_opts_t *o, const cli_args_t *a);
int cmd_match(const cli_opts_t *o, const cli_args_t *a);
/* The long usage text of capa match. */
const char *cmd_match_usage(void);
int cmd_plan(const cli_opts_t *o, const cli_args_t *a);
int cmd_compare(const cli_opts_t *o, const cli_args_t *a);
/* capa tune: offline, reads a database (--db) or a file; cmd_tune_usage is its --help. */
int cmd_tune(const cli_opts_t *o, const cli_args_t *a);
const char *cmd_tune_usage(void);
int cmd_series(const cli_opts_t *o, const cli_args_t *a);

#endif
