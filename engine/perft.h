/* perft.h - move-path enumeration counts, and the perft commands. */
#ifndef CAPA_ENGINE_PERFT_H
#define CAPA_ENGINE_PERFT_H

#include <stdint.h>

#include "board.h"

/* Leaf nodes at depth (bulk-counted at the last ply). depth 0 gives 1. */
uint64_t perft(board_t *b, int depth);

/* capa-engine perft [--variant V] [--fen FEN] [--moves m1 m2 ...] DEPTH */
int perft_main(int argc, char **argv);
/* capa-engine perft-suite FILE.tsv [--max-nodes N] [--min-nodes N] */
int perft_suite_main(int argc, char **argv);

#endif
