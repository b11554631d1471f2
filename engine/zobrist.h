/* zobrist.h - the hashing keys of positions (private to the rules core).
 *
 * Keys come from a fixed splitmix64 stream, so a position has the same key on
 * every machine and in every build. zobrist_init() fills the table once
 * (pthread_once); board_set_fen calls it.
 */
#ifndef CAPA_ENGINE_ZOBRIST_H
#define CAPA_ENGINE_ZOBRIST_H

#include "types.h"

typedef struct {
    uint64_t piece[PIECE_NB][SQ_NB];
    uint64_t castling[16];   /* one key per combination of CASTLE_* bits */
    uint64_t ep[FILE_NB];
    uint64_t side;           /* black to move */
} zobrist_keys_t;

extern zobrist_keys_t zobrist_keys;

void zobrist_init(void);

#endif
