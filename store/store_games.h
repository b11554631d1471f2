/* store_games.h - the stored games one by one, with their moves: what a
 * tuner reads (capa tune). Same conventions as store.h.
 */
#ifndef CAPA_STORE_GAMES_H
#define CAPA_STORE_GAMES_H

#include <stddef.h>
#include <stdint.h>

#include "store.h"

/* One game of a counted (non-excluded) pair. The strings are the store's,
 * valid during the callback only. */
typedef struct {
    int64_t run_id, pair_no;
    int game;                /* 0 or 1: game 1 or game 2 of the pair */
    const char *variant;     /* the run document's variant */
    const char *fen;         /* the game's start FEN (fen2 for game 2 when set) */
    int result;              /* White's half points: STORE_BLACK_WINS, STORE_DRAW, STORE_WHITE_WINS */
    const char *moves;       /* the UCI moves, space-separated */
} store_game_t;

/* Returns 0 to go on; anything else stops store_games_each, which returns it. */
typedef int (*store_game_fn)(const store_game_t *game, void *ctx);

/* Calls fn for each game that was stored with its moves, of the counted
 * pairs of run run_id (0 = every run), in order of run and pair number.
 * Reads page_pairs pairs per statement (0 = 500), each page after the last
 * key read, so the database holds no cursor or transaction between pages
 * and memory stays one page whatever the table's size. *games_out (may be
 * NULL) gets how many games fn was called for; *pairs_out (may be NULL)
 * how many counted pairs were read (with or without moves). CAPA_ENOTFOUND
 * if run_id > 0 names no run. */
int store_games_each(store_t *store, int64_t run_id, size_t page_pairs, store_game_fn fn,
                     void *ctx, size_t *games_out, size_t *pairs_out);

#endif
