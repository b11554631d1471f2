/* config.h - one table-driven config loader for every capalab program.
 *
 * A program describes its settings once, as a table of config_item_t over its
 * own struct, and calls config_load. Sources, later ones winning:
 *   1. the table's defaults
 *   2. a JSON file: --config FILE, or CAPA_CONFIG=FILE (an object key -> value)
 *   3. the environment: CAPA_<KEY> in upper case (key "heartbeat_ms" ->
 *      CAPA_HEARTBEAT_MS)
 *   4. flags: --key value, --key=value, --flag / --no-flag for booleans
 *      (dashes and underscores in keys are the same: --heartbeat-ms)
 * Wrong types, values out of bounds and unknown keys in the file or among the
 * flags are errors whose message names the key and the source. Unknown CAPA_*
 * variables are ignored (other tools use that prefix too).
 *
 *   typedef struct { char coordinator[256]; int port; bool curve; char token[128]; } my_cfg_t;
 *   static const config_item_t ITEMS[] = {
 *       CONFIG_STRING(my_cfg_t, coordinator, "tcp://127.0.0.1:5555", "coordinator endpoint"),
 *       CONFIG_INT(my_cfg_t, port, "8080", 1, 65535, "HTTP port"),
 *       CONFIG_BOOL(my_cfg_t, curve, "false", "encrypt with CURVE"),
 *       CONFIG_SECRET(my_cfg_t, token, "", "contributor token"),
 *       { 0 } };
 *   static const config_spec_t SPEC = { "capa-worker", "[options]", ITEMS };
 *   my_cfg_t cfg; bool help; char err[256];
 *   if (config_load(&SPEC, &cfg, argc, argv, NULL, &help, err, sizeof err) < 0) die(err);
 *   if (help) return 0;
 *   config_log(&SPEC, &cfg);
 */
#ifndef CAPA_CONFIG_H
#define CAPA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef enum {
    CONFIG_T_INT,     /* int field; bounds min..max */
    CONFIG_T_INT64,   /* int64_t field; bounds min..max (exact up to 2^53) */
    CONFIG_T_DOUBLE,  /* double field; finite, bounds min..max */
    CONFIG_T_BOOL,    /* bool field: true/false, 1/0, yes/no, on/off */
    CONFIG_T_STRING,  /* char[size] field; UTF-8 without control characters */
    CONFIG_T_PATH     /* like STRING; a relative path in a config file is taken
                         relative to that file's folder */
} config_type_t;

#define CONFIG_F_SECRET 1u   /* masked by config_log */

typedef struct {
    const char *key;     /* [a-z0-9_]+; NULL ends the table */
    config_type_t type;
    const char *def;     /* default, written as a flag value would be */
    double min, max;     /* numeric bounds (inclusive) */
    size_t offset;       /* offsetof(struct, field) */
    size_t size;         /* sizeof the field (for strings: the capacity) */
    const char *help;
    unsigned flags;
} config_item_t;

#define CONFIG_FIELD_(st, f) offsetof(st, f), sizeof(((st *) 0)->f)
#define CONFIG_INT(st, f, def, lo, hi, help) { #f, CONFIG_T_INT, def, lo, hi, CONFIG_FIELD_(st, f), help, 0 }
#define CONFIG_INT64(st, f, def, lo, hi, help) { #f, CONFIG_T_INT64, def, lo, hi, CONFIG_FIELD_(st, f), help, 0 }
#define CONFIG_DOUBLE(st, f, def, lo, hi, help) { #f, CONFIG_T_DOUBLE, def, lo, hi, CONFIG_FIELD_(st, f), help, 0 }
#define CONFIG_BOOL(st, f, def, help) { #f, CONFIG_T_BOOL, def, 0, 0, CONFIG_FIELD_(st, f), help, 0 }
#define CONFIG_STRING(st, f, def, help) { #f, CONFIG_T_STRING, def, 0, 0, CONFIG_FIELD_(st, f), help, 0 }
#define CONFIG_PATH(st, f, def, help) { #f, CONFIG_T_PATH, def, 0, 0, CONFIG_FIELD_(st, f), help, 0 }
#define CONFIG_SECRET(st, f, def, help) { #f, CONFIG_T_STRING, def, 0, 0, CONFIG_FIELD_(st, f), help, CONFIG_F_SECRET }

typedef struct {
    const char *program;          /* for --help, e.g. "capa-worker" */
    const char *usage;            /* after the program name in --help, e.g. "[options]" */
    const config_item_t *items;   /* ends with { 0 } */
} config_spec_t;

/* Fills cfg from all four sources. argv[0] is the program and is skipped.
 * Flags end at "--" or at the first argument that does not start with "--";
 * *first_arg gets that argument's index (argc if none). With first_arg NULL
 * any such argument is an error. With --help the table is printed to stdout,
 * *help is set and nothing else is checked. Returns 0 or a negative capa_err_t
 * (CAPA_EINVAL, CAPA_ERANGE, CAPA_EIO) with err naming key and source. */
int config_load(const config_spec_t *spec, void *cfg, int argc, char **argv, int *first_arg,
                bool *help, char *err, size_t errlen);

/* The single steps, for programs and tests that need them. */
int config_defaults(const config_spec_t *spec, void *cfg, char *err, size_t errlen);
int config_load_file(const config_spec_t *spec, void *cfg, const char *path, char *err,
                     size_t errlen);
int config_load_env(const config_spec_t *spec, void *cfg, char *err, size_t errlen);
/* Sets one key from text; `source` names it in messages ("flag --port"). */
int config_set(const config_spec_t *spec, void *cfg, const char *key, const char *value,
               const char *source, char *err, size_t errlen);

/* Writes the value of item as text (secrets as given; config_log masks). */
void config_format(const config_item_t *item, const void *cfg, char *buf, size_t cap);
/* Prints "usage" and one line per key (type, default, bounds, help) to out. */
void config_help(const config_spec_t *spec, FILE *out);
/* Logs the effective config at LOG_INFO, one line per key, secrets as "****". */
void config_log(const config_spec_t *spec, const void *cfg);

#endif
