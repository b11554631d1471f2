/* search.h - iterative deepening alpha-beta search of one engine.
 *
 * PVS with a transposition table, aspiration windows, quiescence search
 * with SEE pruning (and, at its first ply, the quiet checks of the
 * archbishop, chancellor and queen), null move, reverse futility pruning,
 * late move reductions and pruning, killers and history (the opponent's
 * last quiet move also judged by how it moved the static evaluation),
 * check extensions and mate-distance scores. The static evaluation the
 * search prunes with is corrected by a correction history: per side to
 * move and pawn structure, the last move's piece and destination, and
 * each colour's pieces other than pawns, what earlier searches found
 * beyond the evaluation (docs/strength.md, tests 44, 46 and 49); a new
 * game forgets it with the rest.
 *
 * A search_t is one engine: its own hash table, pawn table (eval.h),
 * history, parameters and board copy; no globals, so any number of engines
 * search at once on different threads. With only depth and/or node limits,
 * the same position (and game history since search_new_game), parameters
 * and hash size give the same move, score and node count on every machine
 * and run: time is read only when a time limit is set, and the table
 * starts zeroed.
 */
#ifndef CAPA_ENGINE_SEARCH_H
#define CAPA_ENGINE_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "params.h"

#define SCORE_INF 32001
#define SCORE_MATE 32000
/* Scores at or beyond +-SCORE_MATE_IN_MAX are mates (SCORE_MATE - plies). */
#define SCORE_MATE_IN_MAX (SCORE_MATE - MAX_PLY)
#define SEARCH_MAX_DEPTH (MAX_PLY - 16)

typedef struct {
    int depth;              /* plies; 0 = no limit */
    uint64_t nodes;         /* 0 = no limit */
    int64_t movetime_ms;    /* 0 = none */
    int64_t time_ms[COLOR_NB];  /* clocks; -1 = none */
    int64_t inc_ms[COLOR_NB];
    int movestogo;          /* 0 = sudden death */
    int64_t overhead_ms;    /* clock kept back for latency; 0 = TIMEMAN_OVERHEAD_MS */
    bool infinite;          /* search until search_stop (still bounded by depth/nodes if set) */
} search_limits_t;

/* What a finished iteration reports (UCI "info"). */
typedef struct {
    int depth;
    int seldepth;
    int score;              /* centipawns, or a mate score (see search_mate_in) */
    uint64_t nodes;
    int64_t time_ms;
    int hashfull;           /* permille */
    int pv_len;
    move_t pv[MAX_PLY];
} search_info_t;

/* Called after each completed iteration, on the searching thread; root is
 * the position searched (for writing the PV). */
typedef void (*search_info_fn)(const search_info_t *info, const board_t *root, void *ctx);

typedef struct {
    move_t best;            /* MOVE_NONE only when the root has no legal move */
    move_t ponder;          /* MOVE_NONE when unknown */
    int score;              /* side to move's view */
    int depth;              /* last completed iteration */
    int seldepth;
    uint64_t nodes;
    int64_t time_ms;
} search_result_t;

typedef struct search_s search_t;

/* An engine with a hash table of hash_mb megabytes and the default
 * parameters. NULL on allocation failure. Free with search_destroy. */
search_t *search_new(size_t hash_mb);
void search_destroy(search_t **self_p);
/* Replaces the hash table (cleared). 0 or CAPA_ENOMEM (the old one is kept). */
int search_set_hash(search_t *s, size_t hash_mb);
/* Sets the evaluation parameters (copied). */
void search_set_params(search_t *s, const params_t *p);
const params_t *search_params(const search_t *s);
/* Forgets everything learned (hash table, history, killers): a new game. */
void search_new_game(search_t *s);
/* Sets the per-iteration report; fn may be NULL. */
void search_set_info(search_t *s, search_info_fn fn, void *ctx);

/* Fills l with "no limit". */
void search_limits_init(search_limits_t *l);
/* Searches root (copied; not modified) within the limits. Returns 0, or
 * CAPA_ENOMEM. Does not clear a pending stop request: see search_stop. */
int search_go(search_t *s, const board_t *root, const search_limits_t *limits,
              search_result_t *out);
/* Asks a running (or the next) search to stop as soon as possible; safe
 * from any thread. The request stays until search_clear_stop. */
void search_stop(search_t *s);
void search_clear_stop(search_t *s);

/* Moves to mate (positive: we mate, negative: we are mated) for a mate
 * score, 0 otherwise. */
int search_mate_in(int score);

#endif
