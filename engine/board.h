/* board.h - a Capablanca-family position: pieces, side to move, castling
 * rights, en passant, counters, zobrist key and the history of the game.
 *
 * board_t is owned by the caller and holds no pointers: copy it with `=` or
 * board_copy (which copies only the used part of the history) so that each
 * search thread keeps its own. It is large (about 110 KB, mostly history);
 * prefer static or heap storage to deep recursion with boards on the stack.
 *
 * Every move played with board_make is recorded, so board_unmake restores the
 * previous position exactly, and repetition detection sees the whole game
 * since the FEN was set (up to MAX_GAME_PLY + MAX_PLY plies).
 */
#ifndef CAPA_ENGINE_BOARD_H
#define CAPA_ENGINE_BOARD_H

#include "attacks.h"
#include "types.h"

/* Castling rights: one bit per (colour, side). "King side" is toward the
 * j-file, "queen side" toward the a-file, whatever the variant. */
enum {
    CASTLE_WHITE_KING = 1,
    CASTLE_WHITE_QUEEN = 2,
    CASTLE_BLACK_KING = 4,
    CASTLE_BLACK_QUEEN = 8,
    CASTLE_ALL = 15
};
/* Index of a castling right: colour * 2 + (0 king side, 1 queen side). */
enum { CASTLE_SIDE_KING = 0, CASTLE_SIDE_QUEEN = 1 };

#define BOARD_HISTORY_MAX (MAX_GAME_PLY + MAX_PLY)
/* Longest FEN board_get_fen writes, with its NUL. */
#define FEN_MAX 128

/* What board_make saves to undo a move (private to board.c and movegen.c). */
typedef struct {
    bitboard_t checkers;   /* pieces giving check to the side to move */
    uint64_t key;          /* zobrist key of the position */
    uint64_t pawn_key;     /* zobrist key of the pawns of both colours alone */
    uint64_t nonpawn_key[COLOR_NB]; /* zobrist key of one colour's other men (king too) */
    move_t move;           /* the move that led here (MOVE_NONE at the start) */
    uint16_t halfmove;     /* plies since the last capture or pawn move */
    uint16_t since_null;   /* plies since the start or the last null move */
    uint8_t castling;      /* CASTLE_* bits */
    uint8_t ep;            /* en passant target square or SQ_NONE */
    uint8_t captured;      /* piece_t captured by `move` */
    uint8_t pad_;
} board_state_t;

typedef struct {
    bitboard_t by_type[PIECE_TYPE_NB];  /* [NO_PIECE_TYPE] = every occupied square */
    bitboard_t by_color[COLOR_NB];
    uint8_t squares[SQ_NB];             /* piece_t on each square */
    uint8_t piece_count[PIECE_NB];
    uint8_t king_sq[COLOR_NB];
    uint8_t side;                       /* color_t to move */
    uint8_t variant;                    /* variant_t */
    /* Castling geometry, fixed when the FEN is set: index colour*2+side. */
    uint8_t castle_rook_from[4];        /* SQ_NONE without a right */
    uint8_t castle_king_to[4];
    uint8_t castle_rook_to[4];
    uint8_t castle_lost[SQ_NB];         /* rights lost when a piece leaves/enters a square */
    bitboard_t castle_empty[4];         /* must be empty (king and rook excluded) */
    bitboard_t castle_safe[4];          /* king path: must not be attacked */
    int fullmove_base;                  /* fullmove number when the FEN was set */
    int ply;                            /* index of the current state in history */
    int dropped;                        /* oldest plies dropped when history filled up */
    board_state_t history[BOARD_HISTORY_MAX];
} board_t;

/* ---- setting up and writing out ---- */

/* Sets the position from a FEN (see reference/variants.md: KQkq, Shredder and
 * X-FEN castling fields; "10" for an empty rank; the halfmove and fullmove
 * counters may be left out). Checks that the position is possible (one king
 * each, no pawn on the first or last rank, the side not to move not in check,
 * castling rights with their king and rook on the back rank, a sane en
 * passant square) and returns CAPA_EINVAL with a message otherwise; *b is
 * then unchanged. Clears the history. */
int board_set_fen(board_t *b, const char *fen, variant_t v, char *err, size_t errlen);
/* board_set_fen with relaxed checks: BOARD_FEN_ALLOW_CAPTURE_KING accepts a
 * position whose side not to move is in check (some published perft
 * positions are such; Fairy-Stockfish accepts them). As in Fairy-Stockfish the
 * exposed king may then be captured, after which the side without a king has
 * no moves. Not for games: board_validate rejects such positions. */
enum { BOARD_FEN_STRICT = 0, BOARD_FEN_ALLOW_CAPTURE_KING = 1 };
int board_set_fen_flags(board_t *b, const char *fen, variant_t v, int flags, char *err,
                        size_t errlen);
/* The variant's start position. Returns 0. */
int board_set_startpos(board_t *b, variant_t v);
/* Writes the FEN as Fairy-Stockfish does (file-letter castling rights in
 * caparandom, KQkq otherwise with a file letter for an inner rook). Returns
 * 0, or CAPA_ERANGE if len is too small (FEN_MAX always suffices). */
int board_get_fen(const board_t *b, char *buf, size_t len);
/* Copies src into dst, history included (faster than `*dst = *src`). */
void board_copy(board_t *dst, const board_t *src);

/* ---- playing moves ---- */

/* Plays a legal move (from movegen or notation); an illegal move corrupts
 * the board, check with movegen_is_legal first when in doubt. */
void board_make(board_t *b, move_t m);
void board_unmake(board_t *b);
void board_make_null(board_t *b);
void board_unmake_null(board_t *b);
/* The history never overflows: when it fills up, board_make forgets the
 * oldest half (those moves can no longer be unmade; repetitions and the
 * fifty-move rule reach back at most 100 plies, far less than what is kept).
 * board_has_room() stays for callers that want to know; it is always true. */
static inline bool board_has_room(const board_t *b) { (void) b; return true; }
/* The last move played (MOVE_NONE at the start or after board_set_fen). */
static inline move_t board_last_move(const board_t *b) { return b->history[b->ply].move; }
/* The piece the last move captured (NO_PIECE for none, a null move, or at
 * the first position). */
static inline piece_t board_last_captured(const board_t *b)
{
    return (piece_t) b->history[b->ply].captured;
}
/* Plies played since the FEN was set. */
static inline int board_game_ply(const board_t *b) { return b->ply + b->dropped; }
/* How many moves board_unmake can still take back (board_game_ply unless
 * very long games made the board forget their start). */
static inline int board_undo_depth(const board_t *b) { return b->ply; }

/* ---- reading the position ---- */

static inline color_t board_side(const board_t *b) { return (color_t) b->side; }
static inline variant_t board_variant(const board_t *b) { return (variant_t) b->variant; }
static inline uint64_t board_key(const board_t *b) { return b->history[b->ply].key; }
/* The zobrist key of the pawns alone (both colours; 0 without pawns): what
 * the evaluation's pawn table is keyed by. */
static inline uint64_t board_pawn_key(const board_t *b) { return b->history[b->ply].pawn_key; }
/* The zobrist key of colour c's men other than pawns (its king included). */
static inline uint64_t board_nonpawn_key(const board_t *b, color_t c)
{
    return b->history[b->ply].nonpawn_key[c];
}
static inline piece_t board_piece_on(const board_t *b, square_t s) { return (piece_t) b->squares[s]; }
static inline bitboard_t board_occupied(const board_t *b) { return b->by_type[NO_PIECE_TYPE]; }
static inline bitboard_t board_color_bb(const board_t *b, color_t c) { return b->by_color[c]; }
static inline bitboard_t board_type_bb(const board_t *b, piece_type_t t) { return b->by_type[t]; }
static inline bitboard_t board_pieces(const board_t *b, color_t c, piece_type_t t)
{
    return b->by_color[c] & b->by_type[t];
}
static inline square_t board_king_sq(const board_t *b, color_t c) { return b->king_sq[c]; }
static inline int board_count(const board_t *b, piece_t p) { return b->piece_count[p]; }
static inline bitboard_t board_checkers(const board_t *b) { return b->history[b->ply].checkers; }
static inline bool board_in_check(const board_t *b) { return board_checkers(b) != 0; }
static inline int board_halfmove_clock(const board_t *b) { return b->history[b->ply].halfmove; }
static inline int board_castling(const board_t *b) { return b->history[b->ply].castling; }
/* En passant target square, set only when a pawn of the side to move attacks it. */
static inline square_t board_ep_square(const board_t *b) { return b->history[b->ply].ep; }
/* Fullmove number as in a FEN (starts at the FEN's value, +1 after black moves). */
int board_fullmove(const board_t *b);

/* Pieces of both colours attacking s, with occupancy occ (for SEE pass a
 * reduced occupancy). */
bitboard_t board_attackers_to(const board_t *b, square_t s, bitboard_t occ);
/* Whether colour `by` attacks square s in the current position. */
bool board_is_attacked(const board_t *b, square_t s, color_t by);
/* Pieces of either colour that are the only piece between colour c's king
 * and an enemy slider (pinned pieces and discovered-check candidates). */
bitboard_t board_blockers(const board_t *b, color_t c);
/* Whether a legal move m gives check. */
bool board_gives_check(const board_t *b, move_t m);

/* Castling geometry of right index i (colour*2 + side): the rook's start
 * square (SQ_NONE if the FEN gave no such right) and the landing squares. */
static inline square_t board_castle_rook_from(const board_t *b, int i) { return b->castle_rook_from[i]; }
static inline square_t board_castle_king_to(const board_t *b, int i) { return b->castle_king_to[i]; }
static inline square_t board_castle_rook_to(const board_t *b, int i) { return b->castle_rook_to[i]; }

/* ---- repetition ---- */

/* Whether the current position repeats an earlier one, for use inside a
 * search: true if it occurred after the search root (within ply_from_root
 * plies), or occurred at least twice before (a threefold). Scans only every
 * second key back to the last irreversible move or null move. */
bool board_is_repetition(const board_t *b, int ply_from_root);
/* How many times the current position occurred before (0 = first time);
 * stops at the last irreversible move. */
int board_repetition_count(const board_t *b);

/* ---- consistency (tests, fuzzing) ---- */

/* The zobrist key recomputed from scratch. */
uint64_t board_compute_key(const board_t *b);
/* The pawn key recomputed from scratch. */
uint64_t board_compute_pawn_key(const board_t *b);
/* Colour c's non-pawn key recomputed from scratch. */
uint64_t board_compute_nonpawn_key(const board_t *b, color_t c);
/* Checks every redundant field against the others (bitboards, mailbox,
 * counts, king squares, keys, checkers); 0 or CAPA_EINVAL with a message. */
int board_validate(const board_t *b, char *err, size_t errlen);

/* ---- letters ---- */

/* The FEN letter of a piece in a variant (janus writes the archbishop J/j). */
char piece_char(variant_t v, piece_t p);
/* Parses a FEN letter: A/a and J/j are both the archbishop in every variant.
 * Returns NO_PIECE for an unknown letter. */
piece_t piece_from_char(char c);

#endif
