/* attacks.h - bitboard helpers and attack sets for every piece on the 10x8 board.
 *
 * attacks_init() fills the constant tables once (pthread_once; safe to call
 * any number of times from any thread). board_set_fen/board_set_startpos call
 * it themselves, so code that only uses a board need not; code that calls the
 * attack functions before building any board must call it first.
 *
 * The representation (128-bit sets, line lookups) is private to attacks.c
 * and board.c; other modules use only the functions and helpers below.
 */
#ifndef CAPA_ENGINE_ATTACKS_H
#define CAPA_ENGINE_ATTACKS_H

#include "types.h"

void attacks_init(void);

/* ---- bitboard helpers ---- */

#define BB_EMPTY ((bitboard_t) 0)

/* bb_square's table: the set of square s alone, for s up to SQ_NONE (a
 * table lookup is cheaper than a 128-bit variable shift). */
extern const bitboard_t attacks_square_bb[SQ_NB + 1];
static inline bitboard_t bb_square(square_t s) { return attacks_square_bb[s]; }
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

typedef struct {
    bitboard_t knight[SQ_NB];
    bitboard_t king[SQ_NB];
    bitboard_t pawn[COLOR_NB][SQ_NB];   /* squares a pawn of that colour attacks */
    bitboard_t between[SQ_NB][SQ_NB];   /* squares strictly between two aligned squares */
    bitboard_t line[SQ_NB][SQ_NB];      /* the whole line through two aligned squares */
    /* Slider lookups (see attacks_rook). diagonal[s] and anti_diagonal[s]:
     * the squares of the two diagonals through s, s left out. */
    bitboard_t diagonal[SQ_NB];
    bitboard_t anti_diagonal[SQ_NB];
    /* on_file_a[m]: the squares of file a on the ranks in the 8-bit set m. */
    bitboard_t on_file_a[1 << RANK_NB];
    /* line_attacks[i][o]: the places a slider on place i of a 10-place
     * line reaches when places 1..8 hold the blockers o (bit k-1 for place
     * k); the end places never block anything beyond them. */
    uint16_t line_attacks[FILE_NB][1 << (FILE_NB - 2)];
    /* file_attacks[r][o]: the ranks a slider on rank r of a file reaches
     * when ranks 1..6 hold the blockers o. */
    uint8_t file_attacks[RANK_NB][1 << (RANK_NB - 2)];
} attacks_tables_t;

extern attacks_tables_t attacks_tables;

/* ---- attack sets ---- */

static inline bitboard_t attacks_knight(square_t s) { return attacks_tables.knight[s]; }
static inline bitboard_t attacks_king(square_t s) { return attacks_tables.king[s]; }
static inline bitboard_t attacks_pawn(color_t c, square_t s) { return attacks_tables.pawn[c][s]; }

/* Rook attacks by table lookup, without branches. Along the rank, the
 * blockers on files b..i are shifted down to an 8-bit index. Along the
 * file, the blockers on ranks 2..7 of the file, shifted to file a, sit on
 * bits 10, 20, .., 60 of the low word; one multiplication gathers them on
 * bits 58..63 (bit 10k lands on 57 + k; the products of any other pair of
 * bits land above bit 63 or sum to less than 2^57, so nothing carries in). */
#define ATTACKS_FILE_INNER_ ((uint64_t) 0x1004010040100400ULL)
#define ATTACKS_FILE_MAGIC_ ((uint64_t) 0x0001008040201008ULL)
/* bits 0, 10, .., 70: the first square of each rank */
#define ATTACKS_RANK_REPEAT_ (((bitboard_t) 0x40 << 64) | 0x1004010040100401ULL)
static inline bitboard_t attacks_rook(square_t s, bitboard_t occ)
{
    int f = square_file(s), r = square_rank(s);
    unsigned rank_occ = (unsigned) (occ >> (r * FILE_NB + 1)) & 0xFF;
    bitboard_t a = (bitboard_t) attacks_tables.line_attacks[f][rank_occ] << (r * FILE_NB);
    uint64_t file_occ = (uint64_t) (occ >> f) & ATTACKS_FILE_INNER_;
    unsigned idx = (unsigned) ((file_occ * ATTACKS_FILE_MAGIC_) >> 58);
    return a | attacks_tables.on_file_a[attacks_tables.file_attacks[r][idx]] << f;
}

/* The squares a slider on file `file` reaches along one diagonal, whose
 * squares (the slider's left out) are `diagonal`. Every square of a
 * diagonal is on its own file, so folding the eight ranks of the blockers
 * onto one gives them by file; the line table gives the files reached, and
 * a multiplication copies that set of files onto every rank. */
static inline bitboard_t attacks_diagonal_(int file, bitboard_t occ, bitboard_t diagonal)
{
    bitboard_t x = occ & diagonal;
    uint64_t y = ((uint64_t) x | (uint64_t) (x >> 40)) & 0xFFFFFFFFFFULL; /* ranks 0-3 | 4-7 */
    y |= y >> 20;
    y |= y >> 10;
    unsigned files = attacks_tables.line_attacks[file][(y >> 1) & 0xFF];
    return ((bitboard_t) files * ATTACKS_RANK_REPEAT_) & diagonal;
}
static inline bitboard_t attacks_bishop(square_t s, bitboard_t occ)
{
    int f = square_file(s);
    return attacks_diagonal_(f, occ, attacks_tables.diagonal[s]) |
           attacks_diagonal_(f, occ, attacks_tables.anti_diagonal[s]);
}
/* Squares strictly between a and b if they share a rank, file or diagonal, else empty. */
static inline bitboard_t attacks_between(square_t a, square_t b) { return attacks_tables.between[a][b]; }
/* The full rank, file or diagonal through a and b (both included), else empty. */
static inline bitboard_t attacks_line(square_t a, square_t b) { return attacks_tables.line[a][b]; }

/* Attacks of any piece type (pawns: captures only) from s with occupancy
 * occ. Inline, so that a caller whose t is known has no switch left. */
static inline bitboard_t attacks_piece(piece_type_t t, color_t c, square_t s, bitboard_t occ)
{
    switch (t) {
    case PAWN: return attacks_pawn(c, s);
    case KNIGHT: return attacks_knight(s);
    case BISHOP: return attacks_bishop(s, occ);
    case ROOK: return attacks_rook(s, occ);
    case ARCHBISHOP: return attacks_bishop(s, occ) | attacks_knight(s);
    case CHANCELLOR: return attacks_rook(s, occ) | attacks_knight(s);
    case QUEEN: return attacks_bishop(s, occ) | attacks_rook(s, occ);
    case KING: return attacks_king(s);
    default: return 0;
    }
}

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
