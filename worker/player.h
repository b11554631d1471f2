/* player.h - one game thread's engines: plays a game of a TASK with the
 * engine library (engine/game.h) and turns the record into the protocol's
 * game result (and optionally PGN).
 *
 * Which game is which (docs/protocol.md, "Sides"):
 *   game 0 starts from pair.fen; game 1 from pair.fen2 (or pair.fen).
 *   values runs: B has White in game 0, A in game 1;
 *   sprt/spsa:   A has White in game 0, B in game 1.
 *
 *   player_t *p = player_new(16);          per thread; ~ 2 engines + boards
 *   player_game_t g;
 *   player_play(p, &task, &a, &b, pair_index, 0, true, &g, err, sizeof err);
 *   ... g.result (owns g.result.moves), g.pgn (owned, may be NULL) ...
 *   player_game_free(&g);
 *   player_destroy(&p);
 */
#ifndef CAPA_WORKER_PLAYER_H
#define CAPA_WORKER_PLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "protocol.h"

typedef struct player_s player_t;

typedef struct {
    proto_game_result_t result;  /* result.moves owned (UCI moves, may be NULL) */
    char *pgn;                   /* owned PGN text, NULL unless asked for */
    double cpu_seconds;          /* this thread's CPU time for the game */
    uint64_t nodes;              /* both sides */
} player_game_t;

/* NULL on allocation failure. hash_mb per engine (two engines). */
player_t *player_new(size_t hash_mb);
void player_destroy(player_t **self_p);

/* Engine parameters: the defaults with a TASK's set applied on top.
 * CAPA_ENOTFOUND / CAPA_ERANGE with a message for a name or value the
 * engine does not know (a bad TASK: the worker refuses it). */
int player_params(const proto_params_t *set, params_t *out, char *err, size_t errlen);

/* Checks what a TASK asks of the engine (variant, FENs, limits) without
 * playing; 0 or CAPA_EINVAL with a message. */
int player_check_task(const proto_task_t *task, char *err, size_t errlen);

/* Plays game g (0 or 1) of task->pairs[pair_index]. 0, or a negative
 * capa_err_t with a message (bad FEN, out of memory). */
int player_play(player_t *p, const proto_task_t *task, const params_t *a, const params_t *b,
                size_t pair_index, int g, bool want_pgn, player_game_t *out, char *err,
                size_t errlen);

void player_game_free(player_game_t *g);

/* Mapping used by player_play, exposed for tests: the protocol termination
 * of an engine termination (CAPA_EINVAL for TERM_NONE). */
int player_end_of(int termination, proto_end_t *out);

#endif
