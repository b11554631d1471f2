/* types.h - the engine's basic types: squares, colours, pieces, moves, variants.
 *
 * The board is 10 files (a-j) by 8 ranks. A square is rank * 10 + file:
 * a1 = 0, j1 = 9, a2 = 10, ..., j8 = 79; SQ_NONE (80) is "no square".
 *
 * A move is a uint32_t:
 *   bits  0-6   from square
 *   bits  7-13  to square (for castling: the square of the castling ROOK,
 *               i.e. "king takes own rook"; board_castle_king_to() etc. give
 *               the landing squares)
 *   bits 14-15  kind: MOVE_NORMAL, MOVE_PROMOTION, MOVE_EN_PASSANT, MOVE_CASTLE
 *   bits 16-19  promotion piece type (NO_PIECE_TYPE unless MOVE_PROMOTION)
 * MOVE_NONE (0) and MOVE_NULL are never generated as moves.
 */
#ifndef CAPA_ENGINE_TYPES_H
#define CAPA_ENGINE_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An 80-square set: bit s is square s; bits 80-127 are always zero. */
typedef unsigned __int128 bitboard_t;

typedef int square_t;

enum {
    FILE_NB = 10,
    RANK_NB = 8,
    SQ_NB = 80,
    SQ_NONE = 80
};

/* Enough for any legal 10x8 position (the largest known counts are far below). */
#define MAX_MOVES 512
/* Deepest search line (plies from the root) the board's history reserves room for. */
#define MAX_PLY 256
/* Longest game (plies from the position set by FEN) the board can hold, plus MAX_PLY. */
#define MAX_GAME_PLY 2048

typedef enum { WHITE = 0, BLACK = 1, COLOR_NB = 2 } color_t;

typedef enum {
    NO_PIECE_TYPE = 0,
    PAWN = 1,
    KNIGHT = 2,
    BISHOP = 3,
    ROOK = 4,
    ARCHBISHOP = 5,  /* bishop + knight; written A (J in janus) */
    CHANCELLOR = 6,  /* rook + knight; written C */
    QUEEN = 7,
    KING = 8,
    PIECE_TYPE_NB = 9
} piece_type_t;

/* A piece is (colour << 4) | type; NO_PIECE is 0. Arrays indexed by piece
 * use PIECE_NB entries. */
typedef enum {
    NO_PIECE = 0,
    W_PAWN = 1, W_KNIGHT, W_BISHOP, W_ROOK, W_ARCHBISHOP, W_CHANCELLOR, W_QUEEN, W_KING,
    B_PAWN = 17, B_KNIGHT, B_BISHOP, B_ROOK, B_ARCHBISHOP, B_CHANCELLOR, B_QUEEN, B_KING,
    PIECE_NB = 25
} piece_t;

static inline piece_t piece_make(color_t c, piece_type_t t) { return (piece_t) ((c << 4) | t); }
static inline color_t piece_color(piece_t p) { return (color_t) (p >> 4); }
static inline piece_type_t piece_type(piece_t p) { return (piece_type_t) (p & 15); }

typedef uint32_t move_t;

enum {
    MOVE_NORMAL = 0,
    MOVE_PROMOTION = 1,
    MOVE_EN_PASSANT = 2,
    MOVE_CASTLE = 3
};

#define MOVE_NONE ((move_t) 0)
/* The null move: b1b1, which no piece can play. */
#define MOVE_NULL ((move_t) (1u | (1u << 7)))

static inline move_t move_make(square_t from, square_t to, int kind, piece_type_t promo)
{
    return (move_t) from | ((move_t) to << 7) | ((move_t) kind << 14) | ((move_t) promo << 16);
}
static inline square_t move_from(move_t m) { return (square_t) (m & 127); }
static inline square_t move_to(move_t m) { return (square_t) ((m >> 7) & 127); }
static inline int move_kind(move_t m) { return (int) ((m >> 14) & 3); }
static inline piece_type_t move_promo(move_t m) { return (piece_type_t) ((m >> 16) & 15); }
static inline bool move_is_castle(move_t m) { return move_kind(m) == MOVE_CASTLE; }
static inline bool move_is_ep(move_t m) { return move_kind(m) == MOVE_EN_PASSANT; }
static inline bool move_is_promotion(move_t m) { return move_kind(m) == MOVE_PROMOTION; }

typedef enum {
    VARIANT_CAPABLANCA = 0,
    VARIANT_CAPARANDOM = 1,
    VARIANT_GOTHIC = 2,
    VARIANT_EMBASSY = 3,
    VARIANT_JANUS = 4,
    VARIANT_NB = 5
} variant_t;

/* The UCI_Variant name ("capablanca", ...); "?" for an out-of-range value. */
const char *variant_name(variant_t v);
/* Parses a variant name (case-insensitive); 0 or CAPA_EINVAL. */
int variant_from_name(const char *name, variant_t *out);
/* The start FEN of the variant (caparandom: the capablanca array with
 * file-letter castling rights, "JAja"). Static storage, never NULL. */
const char *variant_start_fen(variant_t v);

/* Square helpers. The file and rank come from tables rather than a
 * division by 10 (SQ_NONE's entries are those of the division). */
#define SQUARE_FILES_ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9
#define SQUARE_RANK_(r) r, r, r, r, r, r, r, r, r, r
static const uint8_t SQUARE_FILE_[SQ_NB + 1] = {
    SQUARE_FILES_, SQUARE_FILES_, SQUARE_FILES_, SQUARE_FILES_,
    SQUARE_FILES_, SQUARE_FILES_, SQUARE_FILES_, SQUARE_FILES_, 0 };
static const uint8_t SQUARE_RANK_[SQ_NB + 1] = {
    SQUARE_RANK_(0), SQUARE_RANK_(1), SQUARE_RANK_(2), SQUARE_RANK_(3),
    SQUARE_RANK_(4), SQUARE_RANK_(5), SQUARE_RANK_(6), SQUARE_RANK_(7), 8 };
#undef SQUARE_FILES_
#undef SQUARE_RANK_
_Static_assert(FILE_NB == 10 && RANK_NB == 8 && SQ_NONE == SQ_NB, "square tables are for 10x8");
static inline int square_file(square_t s) { return SQUARE_FILE_[s]; }
static inline int square_rank(square_t s) { return SQUARE_RANK_[s]; }
static inline square_t square_make(int file, int rank) { return rank * FILE_NB + file; }
/* Rank as seen from colour c (0 = its own back rank). */
static inline int square_relative_rank(color_t c, square_t s)
{
    return c == WHITE ? square_rank(s) : RANK_NB - 1 - square_rank(s);
}

#endif
