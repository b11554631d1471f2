/* bench.h - the engine's signature: a fixed set of 10x8 positions searched
 * to a fixed depth with a fixed hash size; the total node count identifies
 * the search and evaluation exactly (workers report it in HELLO). */
#ifndef CAPA_ENGINE_BENCH_H
#define CAPA_ENGINE_BENCH_H

#include <stddef.h>
#include <stdint.h>

#define BENCH_DEFAULT_DEPTH 9
#define BENCH_DEFAULT_HASH_MB 16

/* The number of bench positions, and position i as (variant name, FEN)
 * written into the caller's buffers (fen of 128 bytes). 0 or CAPA_ERANGE. */
int bench_count(void);
int bench_position(int i, const char **variant, char *fen, size_t fenlen);

/* Searches every position to depth with a fresh hash table of hash_mb and
 * the default parameters. *nodes is the signature; *ms the wall time.
 * 0, or a negative capa_err_t with a message. */
int bench_run(int depth, size_t hash_mb, uint64_t *nodes, int64_t *ms, char *err, size_t errlen);

/* capa-engine bench [DEPTH [HASH_MB]] : prints per-position and total nodes and nps. */
int bench_main(int argc, char **argv);

#endif
