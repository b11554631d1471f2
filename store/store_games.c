/* store_games.c - the stored games one by one (see store_games.h). */
#include "store_games.h"

#include <stdio.h>
#include <stdlib.h>

#include "err.h"
#include "store_int.h"

int store_games_each(store_t *store, int64_t run_id, size_t page_pairs, store_game_fn fn,
                     void *ctx, size_t *games_out, size_t *pairs_out)
{
    size_t games = 0, pairs = 0;
    if (games_out)
        *games_out = 0;
    if (pairs_out)
        *pairs_out = 0;
    char run[32], after_run[32], after_pair[32], limit[32];
    store_i64(run, run_id);
    if (run_id > 0) {
        store_run_t r = { 0 };
        int rc = store_run_get(store, run_id, &r);
        store_run_clear(&r);
        if (rc < 0)
            return rc;
    }
    store_i64(limit, page_pairs ? (int64_t) page_pairs : 500);
    int64_t last_run = -1, last_pair = -1;
    for (;;) {
        const char *params[] = { run, store_i64(after_run, last_run),
                                 store_i64(after_pair, last_pair), limit };
        PGresult *res = NULL;
        int rc = store_exec(store, "games with their moves",
                            "SELECT p.run_id, p.pair_no, coalesce(r.doc->>'variant', 'caparandom'),"
                            " p.fen, coalesce(p.fen2, p.fen), p.result1, p.result2,"
                            " p.moves1, p.moves2"
                            " FROM pairs p JOIN runs r ON r.id = p.run_id"
                            " WHERE NOT p.excluded"
                            " AND ($1::bigint = 0 OR p.run_id = $1::bigint)"
                            " AND (p.run_id, p.pair_no) > ($2::bigint, $3::bigint)"
                            " ORDER BY p.run_id, p.pair_no LIMIT $4::bigint",
                            4, params, &res);
        if (rc < 0)
            return rc;
        int rows = PQntuples(res);
        for (int i = 0; i < rows; i++) {
            pairs++;
            for (int g = 0; g < 2; g++) {
                if (PQgetisnull(res, i, 7 + g))
                    continue;
                store_game_t game = {
                    .run_id = store_get_i64(res, i, 0),
                    .pair_no = store_get_i64(res, i, 1),
                    .game = g,
                    .variant = PQgetvalue(res, i, 2),
                    .fen = PQgetvalue(res, i, 3 + g),
                    .result = store_get_int(res, i, 5 + g),
                    .moves = PQgetvalue(res, i, 7 + g),
                };
                games++;
                int stop = fn(&game, ctx);
                if (stop) {
                    PQclear(res);
                    if (games_out)
                        *games_out = games;
                    if (pairs_out)
                        *pairs_out = pairs;
                    return stop;
                }
            }
        }
        if (rows > 0) {
            last_run = store_get_i64(res, rows - 1, 0);
            last_pair = store_get_i64(res, rows - 1, 1);
        }
        PQclear(res);
        if (rows == 0 || (size_t) rows < (size_t) atoll(limit))
            break;
    }
    if (games_out)
        *games_out = games;
    if (pairs_out)
        *pairs_out = pairs;
    return CAPA_OK;
}
