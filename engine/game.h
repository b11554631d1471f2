/* game.h - one whole game between two parameter sets, in the library.
 *
 * game_play searches every move with a capalab engine per side (no
 * subprocess), applies every rule of rules.h (mate, stalemate, fifty-move
 * and threefold claimed automatically, fivefold, insufficient material),
 * adjudication, a move cap and, in time-control mode, a chess clock; it
 * returns the whole record. Thread-safe and re-entrant: call it from as
 * many threads as you like, each with its own record (and workspace).
 *
 * Limits: by default a fixed node count per move (the same game on every
 * machine); with nodes = 0 and tc_base_ms > 0 a clock of base + increment
 * per side, both multiplied by tc_scale (a worker's speed factor).
 */
#ifndef CAPA_ENGINE_GAME_H
#define CAPA_ENGINE_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "board.h"
#include "params.h"
#include "rules.h"
#include "search.h"

/* The longest game a record holds; the move cap never exceeds half of it. */
#define GAME_MAX_PLIES 1600

typedef enum {
    TERM_NONE = 0,
    TERM_CHECKMATE,
    TERM_STALEMATE,
    TERM_FIFTY_MOVE,
    TERM_THREEFOLD,
    TERM_FIVEFOLD,
    TERM_INSUFFICIENT_MATERIAL,
    TERM_ADJUDICATION_RESIGN,
    TERM_ADJUDICATION_DRAW,
    TERM_MOVE_CAP,
    TERM_ILLEGAL_MOVE,       /* an engine produced no legal move: it loses (never expected) */
    TERM_TIME_FORFEIT,
    TERM_NB
} game_termination_t;

/* A stable identifier: "checkmate", "stalemate", "fifty_move", "threefold",
 * "fivefold", "insufficient_material", "adjudication_resign",
 * "adjudication_draw", "move_cap", "illegal_move", "time_forfeit" ("none"). */
const char *game_termination_name(game_termination_t t);
/* Parses such an identifier; 0 or CAPA_EINVAL. */
int game_termination_from_name(const char *name, game_termination_t *out);

typedef struct {
    variant_t variant;
    bool chess960;            /* castling written king-takes-rook (caparandom implies it) */
    char start_fen[FEN_MAX];  /* "" = the variant's start position */
    uint64_t nodes;           /* per move; 0 = use depth or the clock */
    int depth;                /* per move; 0 = none */
    int64_t tc_base_ms;       /* clock mode when nodes == 0 and depth == 0 */
    int64_t tc_inc_ms;
    double tc_scale;          /* multiplies base and increment (1.0) */
    size_t hash_mb;           /* per engine */
    /* Resign: the loser's score <= -resign_score and the winner's >=
     * resign_score for resign_moves consecutive moves each (0 = off). */
    int resign_score, resign_moves;
    /* Draw: both |score| <= draw_score for draw_moves consecutive moves each,
     * from full move draw_move_number on (0 = off). */
    int draw_score, draw_moves, draw_move_number;
    int max_moves;            /* full moves, then a draw by move cap; <= GAME_MAX_PLIES/2 */
    bool record_stats;        /* keep per-move score/depth/nodes/time */
} game_config_t;

typedef struct {
    move_t move;
    int16_t score;    /* centipawns or mate score, mover's view */
    uint8_t depth;
    uint8_t pad_;
    uint32_t nodes;
    int32_t time_ms;
} game_move_t;

typedef struct {
    variant_t variant;
    bool chess960;
    char start_fen[FEN_MAX];
    char final_fen[FEN_MAX];
    game_result_t result;
    game_termination_t termination;
    int plies;
    uint64_t nodes[COLOR_NB];         /* searched by each side */
    int64_t time_ms[COLOR_NB];        /* thinking time of each side */
    game_move_t moves[GAME_MAX_PLIES];
} game_record_t;

/* Defaults: capablanca start, 10,000 nodes per move, 16 MB hash, resign
 * at 1000 cp for 4 moves, draw within 10 cp for 8 moves from move 40, cap
 * 400 moves, stats on. */
void game_config_default(game_config_t *cfg);

/* Reusable per-thread engines: two searchers and a board. */
typedef struct game_workspace_s game_workspace_t;
game_workspace_t *game_workspace_new(size_t hash_mb);
void game_workspace_destroy(game_workspace_t **self_p);

/* Plays one game; ws may be NULL (then one is made and freed inside).
 * 0, or CAPA_EINVAL (bad FEN or config; message in err) / CAPA_ENOMEM. */
int game_play_ws(game_workspace_t *ws, const game_config_t *cfg, const params_t *white,
                 const params_t *black, game_record_t *out, char *err, size_t errlen);
int game_play(const game_config_t *cfg, const params_t *white, const params_t *black,
              game_record_t *out);

/* Half points (0, 1 or 2) colour c scored in rec. */
int game_half_points(const game_record_t *rec, color_t c);
/* Plays a pair from one start: game 0 with A as white, game 1 with B as
 * white. *quarters is B's pair score in quarter points: 0..4 (0, 1/4, ..., 1). */
int game_play_pair(game_workspace_t *ws, const game_config_t *cfg, const params_t *a,
                   const params_t *b, game_record_t out[2], int *quarters, char *err,
                   size_t errlen);
/* B's pair score in quarter points from two records (B white in game 1). */
int game_pair_quarters(const game_record_t *game0, const game_record_t *game1);

#endif
