/* attacks.h - bitboard helpers and attack sets for every piece on the 10x8 board.
 *
 * attacks_init() fills the constant tables once (pthread_once; safe to call
 * any number of times from any thread). board_set_fen/board_set_startpos call
 * it themselves, so code that only uses a board need not; code that calls the
 * attack functions before building any board must call it first.
 *
 * The representation (128-bit sets, per-direction rays with first-blocker
 * lookup) is private to attacks.c and board.c; other modules use only the
 * functions and helpers below.
 */
#ifndef CAPA_ENGINE_ATTACKS_H
#define CAPA_ENGINE_ATTACKS_H

#include "types.h"

void attacks_init(void);

/* ---- bitboard helpers ---- */

#define BB_EMPTY ((bitboard_t) 0)

static inline bitboard_t bb_square(square_t s) { return (bitboard_t) 1 << s; }
static inline bool bb_test(bitboard_t b, square_t s) { return (b >> s) & 1; }
static inline int bb_popcount(bitboard_t b)
{
    return __builtin_popcountll((uint64_t) b) + __builtin_popcountll((uint64_t) (b >> 64));
}
/* Lowest / highest set square; b must not be empty. */
static inline square_t bb_lsb(bitboard_t b)
{
    uint64_t lo = (uint64_t) b;
    return lo ? __builtin_ctzll(lo) : 64 + __builtin_ctzll((uint64_t) (b >> 64));
}
static inline square_t bb_msb(bitboard_t b)
{
    uint64_t hi = (uint64_t) (b >> 64);
    return hi ? 127 - __builtin_clzll(hi) : 63 - __builtin_clzll((uint64_t) b);
}
/* Removes and returns the lowest set square; *b must not be empty.
 *   while (set) { square_t s = bb_pop_lsb(&set); ... } */
static inline square_t bb_pop_lsb(bitboard_t *b)
{
    square_t s = bb_lsb(*b);
    *b &= *b - 1;
    return s;
}
static inline bool bb_more_than_one(bitboard_t b) { return (b & (b - 1)) != 0; }

/* All 80 squares, one file, one rank. */
bitboard_t bb_all(void);
bitboard_t bb_file(int file);
bitboard_t bb_rank(int rank);
/* The squares of the same colour as a1 (dark squares). */
bitboard_t bb_dark_squares(void);

/* ---- constant tables (filled by attacks_init; read-only afterwards) ---- */

/* Directions: the first four run toward higher squares, the last four are
 * their opposites in the same order (d + 4). */
enum { DIR_N, DIR_E, DIR_NE, DIR_NW, DIR_S, DIR_W, DIR_SW, DIR_SE, DIR_NB };

typedef struct {
    bitboard_t knight[SQ_NB];
    bitboard_t king[SQ_NB];
    bitboard_t pawn[COLOR_NB][SQ_NB];   /* squares a pawn of that colour attacks */
    bitboard_t ray[DIR_NB][SQ_NB + 1];  /* ray from a square (exclusive); [SQ_NB] is empty */
    bitboard_t between[SQ_NB][SQ_NB];   /* squares strictly between two aligned squares */
    bitboard_t line[SQ_NB][SQ_NB];      /* the whole line through two aligned squares */
} attacks_tables_t;

extern attacks_tables_t attacks_tables;

/* ---- attack sets ---- */

static inline bitboard_t attacks_knight(square_t s) { return attacks_tables.knight[s]; }
static inline bitboard_t attacks_king(square_t s) { return attacks_tables.king[s]; }
static inline bitboard_t attacks_pawn(color_t c, square_t s) { return attacks_tables.pawn[c][s]; }

static inline bitboard_t attacks_ray_pos_(int dir, square_t s, bitboard_t occ)
{
    bitboard_t a = attacks_tables.ray[dir][s];
    bitboard_t blk = a & occ;
    if (blk)
        a ^= attacks_tables.ray[dir][bb_lsb(blk)];
    return a;
}
static inline bitboard_t attacks_ray_neg_(int dir, square_t s, bitboard_t occ)
{
    bitboard_t a = attacks_tables.ray[dir][s];
    bitboard_t blk = a & occ;
    if (blk)
        a ^= attacks_tables.ray[dir][bb_msb(blk)];
    return a;
}
static inline bitboard_t attacks_rook(square_t s, bitboard_t occ)
{
    return attacks_ray_pos_(DIR_N, s, occ) | attacks_ray_pos_(DIR_E, s, occ) |
           attacks_ray_neg_(DIR_S, s, occ) | attacks_ray_neg_(DIR_W, s, occ);
}
static inline bitboard_t attacks_bishop(square_t s, bitboard_t occ)
{
    return attacks_ray_pos_(DIR_NE, s, occ) | attacks_ray_pos_(DIR_NW, s, occ) |
           attacks_ray_neg_(DIR_SE, s, occ) | attacks_ray_neg_(DIR_SW, s, occ);
}
/* Squares strictly between a and b if they share a rank, file or diagonal, else empty. */
static inline bitboard_t attacks_between(square_t a, square_t b) { return attacks_tables.between[a][b]; }
/* The full rank, file or diagonal through a and b (both included), else empty. */
static inline bitboard_t attacks_line(square_t a, square_t b) { return attacks_tables.line[a][b]; }

/* Attacks of any piece type (pawns: captures only) from s with occupancy occ. */
bitboard_t attacks_piece(piece_type_t t, color_t c, square_t s, bitboard_t occ);

/* Whether a piece type moves like a rook / bishop / knight (in part). */
static inline bool piece_type_slides_straight(piece_type_t t)
{
    return t == ROOK || t == CHANCELLOR || t == QUEEN;
}
static inline bool piece_type_slides_diagonal(piece_type_t t)
{
    return t == BISHOP || t == ARCHBISHOP || t == QUEEN;
}
static inline bool piece_type_leaps_like_knight(piece_type_t t)
{
    return t == KNIGHT || t == ARCHBISHOP || t == CHANCELLOR;
}

#endif
