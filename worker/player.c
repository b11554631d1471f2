/* player.c - a TASK's game played with the engine library, as a protocol result. */
#include "player.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "board.h"
#include "err.h"
#include "game.h"
#include "notation.h"
#include "pgn.h"

struct player_s {
    game_workspace_t *ws;
    size_t hash_mb;          /* the size ws was made with */
    board_t *board;          /* for writing the moves out (~110 KB: heap) */
    game_record_t *rec;
};

player_t *player_new(size_t hash_mb)
{
    player_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->ws = game_workspace_new(hash_mb);
    p->hash_mb = hash_mb;
    p->board = malloc(sizeof *p->board);
    p->rec = malloc(sizeof *p->rec);
    if (!p->ws || !p->board || !p->rec)
        player_destroy(&p);
    return p;
}

void player_destroy(player_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    player_t *p = *self_p;
    game_workspace_destroy(&p->ws);
    free(p->board);
    free(p->rec);
    free(p);
    *self_p = NULL;
}

int player_params(const proto_params_t *set, params_t *out, char *err, size_t errlen)
{
    params_t p;
    params_default(&p);
    for (size_t i = 0; i < set->count; i++) {
        int rc = params_set(&p, set->items[i].name, set->items[i].value, err, errlen);
        if (rc < 0)
            return rc;
    }
    *out = p;
    return 0;
}

int player_end_of(int termination, proto_end_t *out)
{
    switch ((game_termination_t) termination) {
    case TERM_CHECKMATE: *out = PROTO_END_CHECKMATE; return 0;
    case TERM_STALEMATE: *out = PROTO_END_STALEMATE; return 0;
    case TERM_FIFTY_MOVE: *out = PROTO_END_FIFTY_MOVES; return 0;
    case TERM_THREEFOLD:
    case TERM_FIVEFOLD: *out = PROTO_END_REPETITION; return 0;
    case TERM_INSUFFICIENT_MATERIAL: *out = PROTO_END_INSUFFICIENT; return 0;
    case TERM_ADJUDICATION_RESIGN: *out = PROTO_END_ADJ_RESIGN; return 0;
    case TERM_ADJUDICATION_DRAW: *out = PROTO_END_ADJ_DRAW; return 0;
    case TERM_MOVE_CAP: *out = PROTO_END_MOVE_CAP; return 0;
    case TERM_ILLEGAL_MOVE: *out = PROTO_END_ILLEGAL_MOVE; return 0;
    case TERM_TIME_FORFEIT: *out = PROTO_END_TIME_FORFEIT; return 0;
    default: return CAPA_EINVAL;
    }
}

/* The engine's game settings for a TASK. */
static int s_config(const proto_task_t *task, game_config_t *cfg, char *err, size_t errlen)
{
    game_config_default(cfg);
    variant_t v;
    if (variant_from_name(task->game.variant, &v) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "unknown variant \"%s\"", task->game.variant);
    cfg->variant = v;
    cfg->chess960 = task->game.chess960;
    cfg->nodes = (uint64_t) task->game.nodes;
    cfg->tc_base_ms = task->game.tc_base_ms;
    cfg->tc_inc_ms = task->game.tc_inc_ms;
    cfg->tc_scale = 1.0;  /* the coordinator scaled the clock for this worker (reference_nps) */
    if (cfg->nodes == 0 && cfg->tc_base_ms <= 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "neither nodes nor a time control");
    cfg->resign_score = task->game.resign_cp;
    cfg->resign_moves = task->game.resign_cp > 0 ? task->game.resign_moves : 0;
    cfg->draw_score = task->game.draw_cp;
    cfg->draw_moves = task->game.draw_moves;
    cfg->draw_move_number = task->game.draw_min_ply / 2 + 1;
    int cap = GAME_MAX_PLIES / 2;
    if (task->game.max_plies > 0 && (task->game.max_plies + 1) / 2 < cap)
        cap = (task->game.max_plies + 1) / 2;
    cfg->max_moves = cap;
    cfg->record_stats = false;
    return 0;
}

int player_check_task(const proto_task_t *task, char *err, size_t errlen)
{
    game_config_t cfg;
    int rc = s_config(task, &cfg, err, errlen);
    if (rc < 0)
        return rc;
    board_t *b = malloc(sizeof *b);
    if (!b)
        return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
    char why[200];
    for (size_t i = 0; rc == 0 && i < task->pair_count; i++) {
        const proto_pair_t *pp = &task->pairs[i];
        if (board_set_fen(b, pp->fen, cfg.variant, why, sizeof why) < 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "pair %lld: fen: %s", (long long) pp->pair,
                           why);
        else if (pp->fen2[0] && board_set_fen(b, pp->fen2, cfg.variant, why, sizeof why) < 0)
            rc = capa_fail(err, errlen, CAPA_EINVAL, "pair %lld: fen2: %s",
                           (long long) pp->pair, why);
    }
    free(b);
    return rc;
}

static double s_thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

/* The record's moves as space-separated UCI text (malloc), NULL on failure. */
static char *s_uci_moves(player_t *p, const game_record_t *rec)
{
    if (rec->plies == 0)
        return NULL;
    if (board_set_fen(p->board, rec->start_fen, rec->variant, NULL, 0) < 0)
        return NULL;
    size_t cap = (size_t) rec->plies * 7 + 1, len = 0;
    char *text = malloc(cap);
    if (!text)
        return NULL;
    for (int i = 0; i < rec->plies; i++) {
        char buf[UCI_MOVE_MAX];
        move_to_uci(p->board, rec->moves[i].move, rec->chess960, buf);
        size_t n = strlen(buf);
        if (len + n + 2 > cap) {
            free(text);
            return NULL;
        }
        if (len)
            text[len++] = ' ';
        memcpy(text + len, buf, n);
        len += n;
        board_make(p->board, rec->moves[i].move);
    }
    text[len] = '\0';
    return text;
}

int player_play(player_t *p, const proto_task_t *task, const params_t *a, const params_t *b,
                size_t pair_index, int g, bool want_pgn, player_game_t *out, char *err,
                size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (pair_index >= task->pair_count || g < 0 || g > 1)
        return capa_fail(err, errlen, CAPA_ERANGE, "no game %d of pair index %zu", g, pair_index);
    game_config_t cfg;
    int rc = s_config(task, &cfg, err, errlen);
    if (rc < 0)
        return rc;
    const proto_pair_t *pp = &task->pairs[pair_index];
    const char *fen = (g == 1 && pp->fen2[0]) ? pp->fen2 : pp->fen;
    snprintf(cfg.start_fen, sizeof cfg.start_fen, "%s", fen);
    bool b_white = task->kind == PROTO_KIND_VALUES ? g == 0 : g == 1;
    /* The TASK names the hash size (games replay identically only with the
     * same one): a thread's workspace is remade when a task wants another. */
    size_t want_mb = task->game.hash_mb > 0 ? (size_t) task->game.hash_mb : PROTO_HASH_MB_DEFAULT;
    if (want_mb != p->hash_mb) {
        game_workspace_t *ws = game_workspace_new(want_mb);
        if (!ws)
            return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory for a %zu MB hash", want_mb);
        game_workspace_destroy(&p->ws);
        p->ws = ws;
        p->hash_mb = want_mb;
    }
    double t0 = s_thread_cpu();
    rc = game_play_ws(p->ws, &cfg, b_white ? b : a, b_white ? a : b, p->rec, err, errlen);
    out->cpu_seconds = s_thread_cpu() - t0;
    if (rc < 0)
        return rc;
    const game_record_t *rec = p->rec;
    proto_game_result_t *r = &out->result;
    switch (rec->result) {
    case RESULT_WHITE_WINS: r->result = PROTO_RES_WHITE; break;
    case RESULT_BLACK_WINS: r->result = PROTO_RES_BLACK; break;
    case RESULT_DRAW: r->result = PROTO_RES_DRAW; break;
    default:
        return capa_fail(err, errlen, CAPA_EINVAL, "pair %lld game %d ended without a result",
                         (long long) pp->pair, g);
    }
    if (player_end_of(rec->termination, &r->end) < 0)
        return capa_fail(err, errlen, CAPA_EINVAL, "pair %lld game %d: termination %s",
                         (long long) pp->pair, g, game_termination_name(rec->termination));
    r->white = b_white ? PROTO_SIDE_B : PROTO_SIDE_A;
    r->plies = rec->plies;
    r->moves = s_uci_moves(p, rec);
    out->nodes = rec->nodes[0] + rec->nodes[1];
    if (want_pgn) {
        char event[64], round[64];
        snprintf(event, sizeof event, "capalab run %lld task %lld", (long long) task->run_id,
                 (long long) task->task_id);
        snprintf(round, sizeof round, "%lld.%d", (long long) pp->pair, g + 1);
        char date[16];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(date, sizeof date, "%Y.%m.%d", &tm);
        pgn_tags_t tags = { .event = event, .site = "capa-worker", .date = date, .round = round,
                            .white = b_white ? "B" : "A", .black = b_white ? "A" : "B" };
        out->pgn = pgn_format(rec, &tags);
    }
    return 0;
}

void player_game_free(player_game_t *g)
{
    free(g->result.moves);
    free(g->pgn);
    g->result.moves = NULL;
    g->pgn = NULL;
}
