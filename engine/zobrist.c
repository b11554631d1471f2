/* zobrist.c - fills the constant zobrist keys from a fixed splitmix64 stream. */
#include "zobrist.h"

#include <pthread.h>

#include "crc.h"

zobrist_keys_t zobrist_keys;

static pthread_once_t s_once = PTHREAD_ONCE_INIT;

static void s_init(void)
{
    uint64_t state = 0x43415041424c414bULL;  /* "CAPABLAK" */
    for (int p = 0; p < PIECE_NB; p++)
        for (int s = 0; s < SQ_NB; s++)
            zobrist_keys.piece[p][s] = crc_splitmix64(&state);
    uint64_t rights[4];
    for (int i = 0; i < 4; i++)
        rights[i] = crc_splitmix64(&state);
    for (int c = 0; c < 16; c++) {
        zobrist_keys.castling[c] = 0;
        for (int i = 0; i < 4; i++)
            if (c & (1 << i))
                zobrist_keys.castling[c] ^= rights[i];
    }
    for (int f = 0; f < FILE_NB; f++)
        zobrist_keys.ep[f] = crc_splitmix64(&state);
    zobrist_keys.side = crc_splitmix64(&state);
}

void zobrist_init(void)
{
    pthread_once(&s_once, s_init);
}
