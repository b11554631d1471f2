/* timefmt.h - dates for people: a Unix time in milliseconds as
 * "2026-11-30 23:05" (UTC), or "-" for none (0 or less). The admin
 * subcommands' and the capa CLI's tables use it. */
#ifndef CAPA_TIMEFMT_H
#define CAPA_TIMEFMT_H

#include <stddef.h>
#include <stdint.h>

void timefmt_utc_minutes(int64_t ms, char *buf, size_t cap);

#endif
