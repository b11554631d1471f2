/* crc.h - Capablanca Random Chess start arrays (Scharnagl's rules).
 *
 * An array is 10 upper-case letters for rank 1 from a to j, e.g.
 * "RNBQCKABNR". Valid arrays: one K, Q, A, C, two R, B, N; the king between
 * the rooks; the bishops on squares of opposite colours; the queen and the
 * archbishop on opposite colours; every rank-2 pawn protected by a rank-1
 * piece. Valid arrays are numbered 0..crc_count()-1 in the lexicographic
 * order of their strings (letters compared as ASCII), a numbering that never
 * changes. The table is built on first use (thread-safe).
 */
#ifndef CAPA_ENGINE_CRC_H
#define CAPA_ENGINE_CRC_H

#include <stddef.h>
#include <stdint.h>

#define CRC_ARRAY_LEN 11  /* 10 letters + NUL */

/* The number of valid arrays. */
int crc_count(void);
/* Writes array number n into out. 0, or CAPA_ERANGE if n is out of range. */
int crc_array_from_number(int n, char out[CRC_ARRAY_LEN]);
/* The number of a valid array, or CAPA_EINVAL (with the failing rule in err). */
int crc_number_of(const char *array, char *err, size_t errlen);
/* 0 if the array is valid, else CAPA_EINVAL and a message naming the first
 * rule it breaks. */
int crc_validate(const char *array, char *err, size_t errlen);
/* A uniformly drawn array number for a 64-bit seed (splitmix64; the same on
 * every machine). CAPA_ENOMEM only if the table could not be allocated. */
int crc_from_seed(uint64_t seed);
/* The caparandom start FEN of array n (castling rights as file letters).
 * 0, CAPA_ERANGE (bad n) or CAPA_EFULL (buffer too small; 128 suffices). */
int crc_start_fen(int n, char *buf, size_t len);
/* The start FEN of array n with pieces removed for a material-imbalance
 * study. white / black (either may be NULL or "") list piece letters in any
 * case, e.g. "A" and "C"; each letter removes one piece of that type from
 * that side's back rank, the one nearest the a-file unless the letter is
 * followed by '@' and a file ("R@j", "P@f"); "P" removes a pawn (the a-pawn
 * unless a file is given). The king cannot be removed. Castling rights of a
 * removed rook are dropped. 0, or CAPA_EINVAL / CAPA_ERANGE / CAPA_EFULL with
 * a message. */
int crc_fen_with_removed(int n, const char *white, const char *black, char *buf, size_t len,
                         char *err, size_t errlen);

/* The deterministic generator behind crc_from_seed (also for callers that
 * need reproducible randomness): advances *state, returns the next value. */
uint64_t crc_splitmix64(uint64_t *state);

#endif
