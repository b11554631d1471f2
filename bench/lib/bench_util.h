/* bench_util.h - what several benchmarks share: a monotonic clock, a
 * private PostgreSQL cluster through scripts/pgtmp.sh, a free loopback port,
 * the path of a program of the build. */
#ifndef CAPA_BENCH_UTIL_H
#define CAPA_BENCH_UTIL_H

#include <stddef.h>

/* Seconds on the monotonic clock. */
double bench_now(void);

/* CPU seconds this process has used (all its threads). */
double bench_cpu_seconds(void);

/* Runs `scripts/pgtmp.sh CMD DIR` (start, stop, ...); its first output line
 * (start: the conninfo) into out when out is not NULL. 0, or -1 on failure. */
int bench_pg_cluster(const char *cmd, const char *dir, char *out, size_t len);

/* A TCP port on 127.0.0.1 that was free a moment ago, or -1. */
int bench_free_port(void);

/* The path of a program in the build folder above this benchmark's own
 * (bench/X -> NAME beside bench/) into out; 0, or -1 when it does not fit. */
int bench_build_program(const char *name, char *out, size_t len);

#endif
