/* game.c - playing one game (or a pair) between two parameter sets. */
#include "game.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "movegen.h"
#include "timeman.h"

static const char *const TERM_NAMES[TERM_NB] = {
    "none", "checkmate", "stalemate", "fifty_move", "threefold", "fivefold",
    "insufficient_material", "adjudication_resign", "adjudication_draw", "move_cap",
    "illegal_move", "time_forfeit",
};

const char *game_termination_name(game_termination_t t)
{
    return (unsigned) t < TERM_NB ? TERM_NAMES[t] : "none";
}

int game_termination_from_name(const char *name, game_termination_t *out)
{
    for (int i = 0; name && i < TERM_NB; i++) {
        if (strcmp(name, TERM_NAMES[i]) == 0) {
            *out = (game_termination_t) i;
            return CAPA_OK;
        }
    }
    return CAPA_EINVAL;
}

void game_config_default(game_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->variant = VARIANT_CAPABLANCA;
    cfg->nodes = 10000;
    cfg->tc_scale = 1.0;
    cfg->hash_mb = 16;
    cfg->resign_score = 1000;
    cfg->resign_moves = 4;
    cfg->draw_score = 10;
    cfg->draw_moves = 8;
    cfg->draw_move_number = 40;
    cfg->max_moves = 400;
    cfg->record_stats = true;
}

struct game_workspace_s {
    search_t *engine[COLOR_NB];
    size_t hash_mb;
    board_t board;
};

game_workspace_t *game_workspace_new(size_t hash_mb)
{
    game_workspace_t *ws = calloc(1, sizeof *ws);
    if (!ws)
        return NULL;
    ws->hash_mb = hash_mb;
    for (int c = 0; c < COLOR_NB; c++) {
        ws->engine[c] = search_new(hash_mb);
        if (!ws->engine[c]) {
            game_workspace_destroy(&ws);
            return NULL;
        }
    }
    return ws;
}

void game_workspace_destroy(game_workspace_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    for (int c = 0; c < COLOR_NB; c++)
        search_destroy(&(*self_p)->engine[c]);
    free(*self_p);
    *self_p = NULL;
}

static game_termination_t s_term_of_reason(result_reason_t r)
{
    switch (r) {
    case REASON_CHECKMATE: return TERM_CHECKMATE;
    case REASON_STALEMATE: return TERM_STALEMATE;
    case REASON_FIFTY_MOVE: return TERM_FIFTY_MOVE;
    case REASON_THREEFOLD: return TERM_THREEFOLD;
    case REASON_FIVEFOLD: return TERM_FIVEFOLD;
    case REASON_INSUFFICIENT_MATERIAL: return TERM_INSUFFICIENT_MATERIAL;
    default: return TERM_NONE;
    }
}

static game_result_t s_win_for(color_t c)
{
    return c == WHITE ? RESULT_WHITE_WINS : RESULT_BLACK_WINS;
}

/* Only a bare king cannot win on time (a simplification of the FIDE rule). */
static bool s_can_mate(const board_t *b, color_t c)
{
    return bb_popcount(board_color_bb(b, c)) > 1;
}

static int s_check_config(const game_config_t *cfg, char *err, size_t errlen)
{
    if ((unsigned) cfg->variant >= VARIANT_NB)
        return capa_fail(err, errlen, CAPA_EINVAL, "game: unknown variant %d", (int) cfg->variant);
    if (cfg->nodes == 0 && cfg->depth <= 0 && cfg->tc_base_ms <= 0)
        return capa_fail(err, errlen, CAPA_EINVAL,
                         "game: no limit per move (set nodes, depth or a time control)");
    if (cfg->tc_base_ms > 0 && !(cfg->tc_scale > 0))
        return capa_fail(err, errlen, CAPA_EINVAL, "game: time-control scale must be positive");
    if (cfg->max_moves < 0 || cfg->max_moves > GAME_MAX_PLIES / 2)
        return capa_fail(err, errlen, CAPA_EINVAL, "game: move cap must be 0..%d",
                         GAME_MAX_PLIES / 2);
    if (cfg->depth < 0 || cfg->depth > SEARCH_MAX_DEPTH)
        return capa_fail(err, errlen, CAPA_EINVAL, "game: depth must be 0..%d", SEARCH_MAX_DEPTH);
    return CAPA_OK;
}

int game_play_ws(game_workspace_t *ws, const game_config_t *cfg, const params_t *white,
                 const params_t *black, game_record_t *out, char *err, size_t errlen)
{
    int rc = s_check_config(cfg, err, errlen);
    if (rc < 0)
        return rc;
    game_workspace_t *own = NULL;
    if (!ws || ws->hash_mb != cfg->hash_mb) {
        if (ws) {
            for (int c = 0; c < COLOR_NB; c++)
                if (search_set_hash(ws->engine[c], cfg->hash_mb) < 0)
                    return capa_fail(err, errlen, CAPA_ENOMEM, "game: out of memory for hash");
            ws->hash_mb = cfg->hash_mb;
        } else {
            ws = own = game_workspace_new(cfg->hash_mb);
            if (!ws)
                return capa_fail(err, errlen, CAPA_ENOMEM, "game: out of memory");
        }
    }
    board_t *b = &ws->board;
    const char *fen = cfg->start_fen[0] ? cfg->start_fen : variant_start_fen(cfg->variant);
    rc = board_set_fen(b, fen, cfg->variant, err, errlen);
    if (rc < 0) {
        game_workspace_destroy(&own);
        return rc;
    }
    memset(out, 0, offsetof(game_record_t, moves));
    out->variant = cfg->variant;
    out->chess960 = cfg->chess960 || cfg->variant == VARIANT_CAPARANDOM;
    board_get_fen(b, out->start_fen, sizeof out->start_fen);

    const params_t *side_params[COLOR_NB] = { white, black };
    for (int c = 0; c < COLOR_NB; c++) {
        search_set_info(ws->engine[c], NULL, NULL);
        search_clear_stop(ws->engine[c]);
        search_set_params(ws->engine[c], side_params[c]);
        search_new_game(ws->engine[c]);
    }
    bool clock = cfg->nodes == 0 && cfg->depth == 0;
    int64_t remaining[COLOR_NB], inc = 0;
    if (clock) {
        remaining[WHITE] = remaining[BLACK] = (int64_t) (cfg->tc_base_ms * cfg->tc_scale);
        inc = (int64_t) (cfg->tc_inc_ms * cfg->tc_scale);
    }
    int max_plies = 2 * (cfg->max_moves > 0 ? cfg->max_moves : GAME_MAX_PLIES / 2);
    int win_run[COLOR_NB] = { 0, 0 }, lose_run[COLOR_NB] = { 0, 0 }, draw_run[COLOR_NB] = { 0, 0 };
    game_result_t result = RESULT_ONGOING;
    game_termination_t term = TERM_NONE;

    for (;;) {
        result_reason_t reason;
        result = rules_result(b, &reason);
        if (result != RESULT_ONGOING) {
            term = s_term_of_reason(reason);
            break;
        }
        if (out->plies >= max_plies) {
            result = RESULT_DRAW;
            term = TERM_MOVE_CAP;
            break;
        }
        color_t us = board_side(b);
        search_limits_t lim;
        search_limits_init(&lim);
        lim.nodes = cfg->nodes;
        lim.depth = cfg->depth;
        if (clock) {
            lim.time_ms[us] = remaining[us];
            lim.inc_ms[us] = inc;
            lim.time_ms[!us] = remaining[!us];
            lim.inc_ms[!us] = inc;
        }
        search_result_t sr;
        int64_t t0 = clock ? timeman_now_ms() : 0;
        rc = search_go(ws->engine[us], b, &lim, &sr);
        int64_t spent = clock ? timeman_now_ms() - t0 : sr.time_ms;
        if (rc < 0) {
            game_workspace_destroy(&own);
            return capa_fail(err, errlen, rc, "game: search failed");
        }
        out->nodes[us] += sr.nodes;
        out->time_ms[us] += spent;
        if (sr.best == MOVE_NONE || !movegen_is_legal(b, sr.best)) {
            result = s_win_for((color_t) !us);
            term = TERM_ILLEGAL_MOVE;
            break;
        }
        if (clock) {
            remaining[us] -= spent;
            if (remaining[us] < 0) {
                result = s_can_mate(b, (color_t) !us) ? s_win_for((color_t) !us) : RESULT_DRAW;
                term = TERM_TIME_FORFEIT;
                break;
            }
            remaining[us] += inc;
        }
        game_move_t *gm = &out->moves[out->plies];
        memset(gm, 0, sizeof *gm);
        gm->move = sr.best;
        if (cfg->record_stats) {
            gm->score = (int16_t) sr.score;
            gm->depth = (uint8_t) (sr.depth > 255 ? 255 : sr.depth);
            gm->nodes = (uint32_t) (sr.nodes > UINT32_MAX ? UINT32_MAX : sr.nodes);
            gm->time_ms = (int32_t) spent;
        }
        out->plies++;
        board_make(b, sr.best);

        /* Adjudication on the scores the engines reported. */
        int sc = sr.score;
        win_run[us] = cfg->resign_moves > 0 && sc >= cfg->resign_score ? win_run[us] + 1 : 0;
        lose_run[us] = cfg->resign_moves > 0 && sc <= -cfg->resign_score ? lose_run[us] + 1 : 0;
        bool quiet_score = sc <= cfg->draw_score && sc >= -cfg->draw_score;
        draw_run[us] = cfg->draw_moves > 0 && quiet_score ? draw_run[us] + 1 : 0;
        if (cfg->resign_moves > 0) {
            for (int c = 0; c < COLOR_NB; c++) {
                if (win_run[c] >= cfg->resign_moves && lose_run[!c] >= cfg->resign_moves) {
                    result = s_win_for((color_t) c);
                    term = TERM_ADJUDICATION_RESIGN;
                }
            }
            if (term != TERM_NONE)
                break;
        }
        if (cfg->draw_moves > 0 && board_fullmove(b) >= cfg->draw_move_number &&
            draw_run[WHITE] >= cfg->draw_moves && draw_run[BLACK] >= cfg->draw_moves) {
            /* Never adjudicate a position that is already decided by the rules. */
            if (rules_result(b, NULL) == RESULT_ONGOING) {
                result = RESULT_DRAW;
                term = TERM_ADJUDICATION_DRAW;
                break;
            }
        }
    }
    out->result = result;
    out->termination = term;
    board_get_fen(b, out->final_fen, sizeof out->final_fen);
    game_workspace_destroy(&own);
    return CAPA_OK;
}

int game_play(const game_config_t *cfg, const params_t *white, const params_t *black,
              game_record_t *out)
{
    return game_play_ws(NULL, cfg, white, black, out, NULL, 0);
}

int game_half_points(const game_record_t *rec, color_t c)
{
    if (rec->result == RESULT_DRAW)
        return 1;
    if (rec->result == RESULT_WHITE_WINS)
        return c == WHITE ? 2 : 0;
    if (rec->result == RESULT_BLACK_WINS)
        return c == BLACK ? 2 : 0;
    return 0;
}

int game_pair_quarters(const game_record_t *game0, const game_record_t *game1)
{
    /* B is black in game 0 and white in game 1: 0..4 half points = quarters of a pair. */
    return game_half_points(game0, BLACK) + game_half_points(game1, WHITE);
}

int game_play_pair(game_workspace_t *ws, const game_config_t *cfg, const params_t *a,
                   const params_t *b, game_record_t out[2], int *quarters, char *err,
                   size_t errlen)
{
    int rc = game_play_ws(ws, cfg, a, b, &out[0], err, errlen);
    if (rc < 0)
        return rc;
    rc = game_play_ws(ws, cfg, b, a, &out[1], err, errlen);
    if (rc < 0)
        return rc;
    if (quarters)
        *quarters = game_pair_quarters(&out[0], &out[1]);
    return CAPA_OK;
}
