/* log.c - leveled log lines to stderr, one write(2) per line. */
#include "log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char s_program[64] = "capalab";
static _Atomic int s_level = LOG_INFO;
static _Atomic int s_status_line = 0;

void capa_log_set_status_line(int on) { s_status_line = on ? 1 : 0; }

static const char *const s_names[] = { "ERROR", "WARN", "INFO", "DEBUG" };

void capa_log_init(const char *program)
{
    snprintf(s_program, sizeof s_program, "%s", program);
    const char *env = getenv("CAPA_LOG_LEVEL");
    int level = env ? capa_log_level_parse(env) : -1;
    if (level >= 0)
        s_level = level;
}

void capa_log_set_level(capa_log_level_t level) { s_level = level; }

capa_log_level_t capa_log_level(void) { return (capa_log_level_t) s_level; }

int capa_log_level_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (strcasecmp(name, s_names[i]) == 0)
            return i;
    if (strcasecmp(name, "warning") == 0)
        return LOG_WARN;
    return -1;
}

void capa_log_write(capa_log_level_t level, const char *fmt, ...)
{
    char line[2048];
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    int n = snprintf(line, sizeof line, "%s%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s %s ",
                     s_status_line ? "\r\033[K" : "", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                     tm.tm_sec, ts.tv_nsec / 1000000, s_program, s_names[level]);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t) n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t) n + (m < 0 ? 0 : (size_t) m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(STDERR_FILENO, line, len);
    (void) w;
}
