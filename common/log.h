/* log.h - one logging macro with levels; every line carries the program name.
 *
 *   capa_log_init("capa-coordinator");      once, from main
 *   LOG(LOG_INFO, "worker %s joined", id);
 *
 * Lines go to stderr as "2026-11-29T20:00:00.123Z capa-coordinator INFO msg".
 * The level threshold comes from capa_log_set_level or CAPA_LOG_LEVEL
 * (error, warn, info, debug). Thread-safe: each line is one write.
 */
#ifndef CAPA_LOG_H
#define CAPA_LOG_H

typedef enum { LOG_ERROR = 0, LOG_WARN = 1, LOG_INFO = 2, LOG_DEBUG = 3 } capa_log_level_t;

void capa_log_init(const char *program);
void capa_log_set_level(capa_log_level_t level);
capa_log_level_t capa_log_level(void);
/* Parses "error", "warn", "info" or "debug"; returns -1 for anything else. */
int capa_log_level_parse(const char *name);
/* While on, each line starts by erasing the terminal line ("\r\033[K"), so
 * that a live status line (capa-worker on a terminal) is overwritten. */
void capa_log_set_status_line(int on);
void capa_log_write(capa_log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define LOG(level, ...)                                                         \
    do {                                                                        \
        if ((level) <= capa_log_level())                                        \
            capa_log_write((level), __VA_ARGS__);                               \
    } while (0)

#endif
