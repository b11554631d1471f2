/* match.c - a match between two UCI engines, decided by the GSPRT. */
#include "match.h"

#include <inttypes.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "board.h"
#include "crc.h"
#include "game.h"
#include "match_state.h"
#include "notation.h"
#include "pgn.h"
#include "rules.h"
#include "uciproc.h"

typedef struct {
    const match_config_t *cfg;
    match_result_t *res;
    pthread_mutex_t mu;
    int64_t next_pair;
    bool stop;
} shared_t;

/* What an engine's moves cost, summed over a pair's games. */
typedef struct {
    int64_t moves, ms, depth_sum, depth_moves;
} move_cost_t;

typedef struct {
    shared_t *sh;
    uciproc_t *proc[2];
    move_cost_t cost[2];  /* per engine, for the pair being played */
    board_t board;
    game_record_t rec;
    char moves[GAME_MAX_PLIES * UCI_MOVE_MAX + 16];
} worker_t;

void match_config_default(match_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->variant = VARIANT_CAPARANDOM;
    cfg->seed = 1;
    cfg->tc_base_ms = 10000;
    cfg->tc_inc_ms = 100;
    cfg->move_timeout_ms = 60000;
    cfg->uci_timeout_ms = 10000;
    cfg->concurrency = 1;
    cfg->max_moves = 400;
    stats_sprt_params_default(&cfg->sprt_params);
    cfg->out = stdout;
    cfg->report_every = 10;
}

static void s_fail(shared_t *sh, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_fail(shared_t *sh, const char *fmt, ...)
{
    pthread_mutex_lock(&sh->mu);
    if (!sh->res->error[0]) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(sh->res->error, sizeof sh->res->error, fmt, ap);
        va_end(ap);
    }
    sh->stop = true;
    pthread_mutex_unlock(&sh->mu);
}

/* Starts engine i of the config and sets it up: variant, options. */
static uciproc_t *s_start_engine(const match_config_t *cfg, int i, char *err, size_t errlen)
{
    const match_engine_t *e = &cfg->engine[i];
    uciproc_t *p = uciproc_start(e->path, cfg->uci_timeout_ms, err, errlen);
    if (!p)
        return NULL;
    const char *var = variant_name(cfg->variant);
    char why[256];
    if (!uciproc_has_variant(p, var)) {
        snprintf(err, errlen, "engine %s does not offer UCI_Variant %s", e->path, var);
        goto fail;
    }
    for (int k = 0; k < e->noptions; k++) {
        if (uciproc_check_option(p, e->opt_name[k], e->opt_value[k], why, sizeof why) < 0) {
            snprintf(err, errlen, "engine %s: %s", e->path, why);
            goto fail;
        }
    }
    uciproc_send(p, "setoption name UCI_Variant value %s", var);
    if (cfg->variant == VARIANT_CAPARANDOM)
        uciproc_send(p, "setoption name UCI_Chess960 value true");
    for (int k = 0; k < e->noptions; k++)
        uciproc_send(p, "setoption name %s value %s", e->opt_name[k], e->opt_value[k]);
    int r = uciproc_sync(p, cfg->uci_timeout_ms);
    if (r != 1) {
        snprintf(err, errlen, "engine %s %s after its options were set", e->path,
                 r == 0 ? "did not answer isready" : "exited");
        goto fail;
    }
    return p;
fail:
    uciproc_kill(&p);
    return NULL;
}

/* Makes engine i ready for a new game, restarting it if it died. 0 or -1 (fatal). */
static int s_new_game(worker_t *w, int i)
{
    const match_config_t *cfg = w->sh->cfg;
    char err[512];
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!w->proc[i]) {
            w->proc[i] = s_start_engine(cfg, i, err, sizeof err);
            if (!w->proc[i]) {
                s_fail(w->sh, "cannot restart %s: %s", cfg->engine[i].name, err);
                return -1;
            }
        }
        if (uciproc_send(w->proc[i], "ucinewgame") == 0 &&
            uciproc_sync(w->proc[i], cfg->uci_timeout_ms) == 1)
            return 0;
        uciproc_kill(&w->proc[i]);
    }
    s_fail(w->sh, "%s does not get ready for a new game (isready unanswered twice)",
           cfg->engine[i].name);
    return -1;
}

/* Parses "info ... depth D ... score cp X | score mate N ..." into *depth
 * and *score; each is left alone when the line does not give it. */
static void s_parse_info(const char *line, int *depth, int *score)
{
    uciproc_info_t info;
    if (!uciproc_parse_info(line, &info))
        return;
    if (info.depth)
        *depth = info.depth;
    if (info.kind == UCIPROC_SCORE_CP)
        *score = info.value;
    else if (info.kind == UCIPROC_SCORE_MATE)
        *score = info.value > 0 ? MATCH_MATE_SCORE - info.value : -MATCH_MATE_SCORE - info.value;
}

bool match_depth_counts(int depth, int score)
{
    if (depth <= 0)
        return false;
    /* mate in up to 1,000 moves either way */
    return score == MATCH_NO_SCORE ||
           (score > -MATCH_MATE_SCORE + 1000 && score < MATCH_MATE_SCORE - 1000);
}

typedef enum { MOVE_OK, MOVE_CRASH, MOVE_HANG, MOVE_TIME, MOVE_ILLEGAL } move_outcome_t;

/* Asks engine p for a move; fills *m, *score, *depth (0 if none came),
 * *spent_ms. */
static move_outcome_t s_get_move(worker_t *w, uciproc_t *p, const char *start_fen,
                                 const int64_t clock[2], int64_t deadline_ms, move_t *m,
                                 int *score, int *depth, int64_t *spent_ms,
                                 char mv[UCI_MOVE_MAX])
{
    const match_config_t *cfg = w->sh->cfg;
    int rc = cfg->variant == VARIANT_CAPARANDOM
                 ? uciproc_send(p, "position fen %s%s%s", start_fen, w->moves[0] ? " moves" : "",
                                w->moves)
                 : uciproc_send(p, "position startpos%s%s", w->moves[0] ? " moves" : "",
                                w->moves);
    if (rc == 0) {
        if (cfg->nodes)
            rc = uciproc_send(p, "go nodes %" PRIu64, cfg->nodes);
        else
            rc = uciproc_send(p, "go wtime %" PRId64 " btime %" PRId64 " winc %" PRId64
                              " binc %" PRId64, clock[WHITE], clock[BLACK], cfg->tc_inc_ms,
                              cfg->tc_inc_ms);
    }
    int64_t t0 = uciproc_now_ms();
    if (rc < 0)
        return MOVE_CRASH;
    char line[8192];
    *score = MATCH_NO_SCORE;
    *depth = 0;
    for (;;) {
        int64_t left = t0 + deadline_ms - uciproc_now_ms();
        int r = uciproc_readline(p, line, sizeof line, left > 0 ? left : 0);
        *spent_ms = uciproc_now_ms() - t0;
        if (r < 0)
            return MOVE_CRASH;
        if (r == 0)
            return cfg->nodes ? MOVE_HANG : MOVE_TIME;
        if (strncmp(line, "info ", 5) == 0) {
            s_parse_info(line, depth, score);
        } else if (strncmp(line, "bestmove", 8) == 0) {
            mv[0] = 0;
            sscanf(line, "bestmove %7s", mv);  /* UCI_MOVE_MAX - 1 characters */
            if (move_from_uci(&w->board, mv, m) < 0)
                return MOVE_ILLEGAL;
            return MOVE_OK;
        }
    }
}

static void s_count_failure(match_result_t *res, int engine, move_outcome_t o)
{
    switch (o) {
    case MOVE_CRASH: res->crashes[engine]++; break;
    case MOVE_HANG: res->hangs[engine]++; break;
    case MOVE_TIME: res->time_losses[engine]++; break;
    case MOVE_ILLEGAL: res->illegal[engine]++; break;
    default: break;
    }
}

/* Plays one game, engine white_idx white. Half points of engine 1 in *half1;
 * a sentence on how it ended in why. 0, or -1 when an engine cannot be
 * (re)started (the game does not count). */
static int s_play_game(worker_t *w, int white_idx, const char *start_fen, int *half1,
                       move_outcome_t *failure, char *why, size_t whylen)
{
    const match_config_t *cfg = w->sh->cfg;
    shared_t *sh = w->sh;
    for (int i = 0; i < 2; i++)
        if (s_new_game(w, i) < 0)
            return -1;
    char err[256];
    if (board_set_fen(&w->board, start_fen, cfg->variant, err, sizeof err) < 0) {
        s_fail(sh, "bad start position %s: %s", start_fen, err);
        return -1;
    }
    game_record_t *rec = &w->rec;
    memset(rec, 0, offsetof(game_record_t, moves));
    rec->variant = cfg->variant;
    rec->chess960 = cfg->variant == VARIANT_CAPARANDOM;
    snprintf(rec->start_fen, sizeof rec->start_fen, "%s", start_fen);
    w->moves[0] = 0;
    size_t mlen = 0;
    int64_t clock[2] = { cfg->tc_base_ms, cfg->tc_base_ms };
    int lose_streak[2] = { 0, 0 }, win_streak[2] = { 0, 0 }, draw_streak[2] = { 0, 0 };
    game_result_t result = RESULT_DRAW;
    game_termination_t term = TERM_MOVE_CAP;
    const char *detail = NULL;
    char detail_buf[160];
    *failure = MOVE_OK;
    for (;;) {
        result_reason_t reason;
        game_result_t r = rules_result(&w->board, &reason);
        if (r != RESULT_ONGOING) {
            static const game_termination_t MAP[] = {
                [REASON_CHECKMATE] = TERM_CHECKMATE, [REASON_STALEMATE] = TERM_STALEMATE,
                [REASON_FIFTY_MOVE] = TERM_FIFTY_MOVE, [REASON_THREEFOLD] = TERM_THREEFOLD,
                [REASON_FIVEFOLD] = TERM_FIVEFOLD,
                [REASON_INSUFFICIENT_MATERIAL] = TERM_INSUFFICIENT_MATERIAL };
            result = r;
            term = MAP[reason];
            break;
        }
        if (rec->plies >= 2 * cfg->max_moves || rec->plies >= GAME_MAX_PLIES) {
            result = RESULT_DRAW;
            term = TERM_MOVE_CAP;
            break;
        }
        color_t side = board_side(&w->board);
        int eng = side == WHITE ? white_idx : 1 - white_idx;
        int64_t deadline = cfg->nodes ? cfg->move_timeout_ms : clock[side] + cfg->timemargin_ms + 1;
        move_t m = MOVE_NONE;
        int score, depth;
        int64_t spent;
        char mv[UCI_MOVE_MAX] = "";
        move_outcome_t o = s_get_move(w, w->proc[eng], start_fen, clock, deadline, &m, &score,
                                      &depth, &spent, mv);
        if (o == MOVE_OK && !cfg->nodes) {
            clock[side] -= spent;
            if (clock[side] < -cfg->timemargin_ms)
                o = MOVE_TIME;
            else if (clock[side] < 0)
                clock[side] = 0;
            clock[side] += cfg->tc_inc_ms;
        }
        if (o != MOVE_OK) {
            *failure = o;
            pthread_mutex_lock(&sh->mu);
            s_count_failure(sh->res, eng, o);
            pthread_mutex_unlock(&sh->mu);
            /* An engine that failed is not trusted with the next game as it is. */
            uciproc_kill(&w->proc[eng]);
            result = side == WHITE ? RESULT_BLACK_WINS : RESULT_WHITE_WINS;
            term = o == MOVE_TIME ? TERM_TIME_FORFEIT : TERM_ILLEGAL_MOVE;
            const char *who = cfg->engine[eng].name;
            switch (o) {
            case MOVE_CRASH:
                snprintf(detail_buf, sizeof detail_buf, "%s crashed or exited", who);
                break;
            case MOVE_HANG:
                snprintf(detail_buf, sizeof detail_buf, "%s hung (no bestmove in %.1f s)", who,
                         (double) cfg->move_timeout_ms / 1000.0);
                break;
            case MOVE_TIME:
                snprintf(detail_buf, sizeof detail_buf, "%s lost on time", who);
                break;
            default:
                snprintf(detail_buf, sizeof detail_buf, "%s played an illegal move \"%s\"", who,
                         mv);
                break;
            }
            detail = detail_buf;
            break;
        }
        char text[UCI_MOVE_MAX];
        move_to_uci(&w->board, m, rec->chess960, text);
        size_t l = strlen(text);
        w->moves[mlen++] = ' ';
        memcpy(w->moves + mlen, text, l + 1);
        mlen += l;
        game_move_t *gm = &rec->moves[rec->plies++];
        gm->move = m;
        gm->score = (int16_t) (score == MATCH_NO_SCORE ? 0 : score > 32000 ? 32000
                                                   : score < -32000 ? -32000 : score);
        gm->time_ms = (int32_t) spent;
        board_make(&w->board, m);
        w->cost[eng].moves++;
        w->cost[eng].ms += spent;
        if (match_depth_counts(depth, score)) {
            w->cost[eng].depth_sum += depth;
            w->cost[eng].depth_moves++;
        }

        /* Adjudication from the engines' own scores (mover's view). */
        if (score == MATCH_NO_SCORE) {
            lose_streak[side] = win_streak[side] = draw_streak[side] = 0;
            continue;
        }
        if (cfg->resign_moves > 0) {
            lose_streak[side] = score <= -cfg->resign_score ? lose_streak[side] + 1 : 0;
            win_streak[side] = score >= cfg->resign_score ? win_streak[side] + 1 : 0;
            for (int c = 0; c < 2; c++) {
                if (lose_streak[c] >= cfg->resign_moves && win_streak[!c] >= cfg->resign_moves) {
                    result = c == WHITE ? RESULT_BLACK_WINS : RESULT_WHITE_WINS;
                    term = TERM_ADJUDICATION_RESIGN;
                    goto over;
                }
            }
        }
        if (cfg->draw_moves > 0) {
            bool small = score <= cfg->draw_score && score >= -cfg->draw_score;
            draw_streak[side] = small ? draw_streak[side] + 1 : 0;
            if (board_fullmove(&w->board) >= cfg->draw_move_number &&
                draw_streak[WHITE] >= cfg->draw_moves && draw_streak[BLACK] >= cfg->draw_moves) {
                result = RESULT_DRAW;
                term = TERM_ADJUDICATION_DRAW;
                break;
            }
        }
    }
over:
    rec->result = result;
    rec->termination = term;
    board_get_fen(&w->board, rec->final_fen, sizeof rec->final_fen);
    int white_half = result == RESULT_WHITE_WINS ? 2 : result == RESULT_DRAW ? 1 : 0;
    *half1 = white_idx == 1 ? white_half : 2 - white_half;
    if (detail) {
        snprintf(why, whylen, "%s", detail);
    } else {
        static const char *const NAMES[TERM_NB] = {
            [TERM_CHECKMATE] = "checkmate", [TERM_STALEMATE] = "stalemate",
            [TERM_FIFTY_MOVE] = "fifty-move rule", [TERM_THREEFOLD] = "threefold repetition",
            [TERM_FIVEFOLD] = "fivefold repetition",
            [TERM_INSUFFICIENT_MATERIAL] = "insufficient material",
            [TERM_ADJUDICATION_RESIGN] = "resign adjudication",
            [TERM_ADJUDICATION_DRAW] = "draw adjudication", [TERM_MOVE_CAP] = "move cap" };
        snprintf(why, whylen, "%s", NAMES[term] ? NAMES[term] : game_termination_name(term));
    }
    return 0;
}

static double s_seconds(struct timeval tv)
{
    return (double) tv.tv_sec + (double) tv.tv_usec / 1e6;
}

void match_status_line(const match_config_t *cfg, const match_result_t *res, char *buf,
                       size_t len)
{
    stats_estimate_t e;
    char err[128];
    if (stats_estimate(&res->counts, 0, &e, err, sizeof err) < 0) {
        snprintf(buf, len, "(no estimate: %s)", err);
        return;
    }
    const int64_t *p = res->counts.penta;
    int n = snprintf(buf, len,
                     "pairs %" PRId64 ": W %" PRId64 " D %" PRId64 " L %" PRId64
                     ", penta [%" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64 ", %" PRId64
                     "], Elo %.1f [%.1f, %.1f], nElo %.1f [%.1f, %.1f]",
                     res->pairs, res->counts.wins, res->counts.draws, res->counts.losses, p[0],
                     p[1], p[2], p[3], p[4], e.elo, e.elo_lo, e.elo_hi, e.nelo, e.nelo_lo,
                     e.nelo_hi);
    if (cfg->sprt && n > 0 && (size_t) n < len)
        snprintf(buf + n, len - (size_t) n, ", LLR %.2f [%.2f, %.2f]", res->report.llr,
                 res->report.lower, res->report.upper);
}

/* Writes the counts so far to the state file, if the match keeps one and
 * this run has counted a pair (so that a run that played nothing does not
 * use up its seed); a failure is reported and the match goes on (its log
 * keeps the counts). */
static void s_save_state(const match_config_t *cfg, const match_result_t *res)
{
    if (!cfg->state || !cfg->state_path || res->games == 0)
        return;
    cfg->state->counts = res->counts;
    cfg->state->pairs = res->pairs;
    char err[512];
    if (match_state_write(cfg->state_path, cfg->state, err, sizeof err) < 0)
        fprintf(stderr, "capa: the match state was not saved: %s\n", err);
}

static void *s_worker(void *arg)
{
    worker_t *w = arg;
    shared_t *sh = w->sh;
    const match_config_t *cfg = sh->cfg;
    match_result_t *res = sh->res;
    for (;;) {
        pthread_mutex_lock(&sh->mu);
        bool stop = sh->stop || (cfg->interrupted && *cfg->interrupted) ||
                    (cfg->max_pairs > 0 && sh->next_pair >= cfg->max_pairs);
        int64_t pair = sh->next_pair++;
        pthread_mutex_unlock(&sh->mu);
        if (stop)
            break;
        char fen[FEN_MAX];
        if (cfg->variant == VARIANT_CAPARANDOM) {
            int n = crc_from_seed(cfg->seed * 0x9E3779B97F4A7C15ull + (uint64_t) pair);
            if (n < 0 || crc_start_fen(n, fen, sizeof fen) < 0) {
                s_fail(sh, "cannot draw a start array");
                break;
            }
        } else {
            snprintf(fen, sizeof fen, "%s", variant_start_fen(cfg->variant));
        }
        int half[2];
        move_outcome_t failure[2];
        char why[2][200];
        game_record_t recs[2];
        memset(w->cost, 0, sizeof w->cost);
        bool ok = true;
        for (int g = 0; g < 2 && ok; g++) {
            if (g == 1 && cfg->interrupted && *cfg->interrupted) {
                ok = false;
                break;
            }
            ok = s_play_game(w, g, fen, &half[g], &failure[g], why[g], sizeof why[g]) == 0;
            if (ok)
                recs[g] = w->rec;  /* moves beyond rec.plies are not read */
        }
        if (!ok)
            break;
        pthread_mutex_lock(&sh->mu);
        if (!sh->stop) {
            stats_counts_add_pair(&res->counts, half[0], half[1]);
            res->pairs++;
            for (int i = 0; i < 2; i++) {
                res->moves[i] += w->cost[i].moves;
                res->move_ms[i] += w->cost[i].ms;
                res->depth_sum[i] += w->cost[i].depth_sum;
                res->depth_moves[i] += w->cost[i].depth_moves;
            }
            for (int g = 0; g < 2; g++) {
                res->games++;
                res->plies += recs[g].plies;
                int white = g, black = 1 - g;
                fprintf(cfg->out, "game %" PRId64 " (pair %" PRId64 "): %s vs %s: %s (%s)\n",
                        res->games, pair + 1, cfg->engine[white].name, cfg->engine[black].name,
                        rules_result_string(recs[g].result), why[g]);
                if (cfg->pgn) {
                    char round[32];
                    snprintf(round, sizeof round, "%" PRId64 ".%d", pair + 1, g + 1);
                    pgn_tags_t tags = { .event = "capa match", .site = "capalab",
                                        .round = round, .white = cfg->engine[white].name,
                                        .black = cfg->engine[black].name };
                    /* A crash or a hang is no rule's ending: "abandoned", as the PGN
                     * standard calls a game its player left. */
                    bool left = failure[g] == MOVE_CRASH || failure[g] == MOVE_HANG;
                    char *text = pgn_format_ended(&recs[g], &tags, left ? "abandoned" : NULL,
                                                  left ? why[g] : NULL);
                    if (!text || fputs(text, cfg->pgn) < 0)
                        fprintf(stderr, "capa: cannot write game %" PRId64 " to the PGN file\n",
                                res->games);
                    free(text);
                    fflush(cfg->pgn);
                }
            }
            if (cfg->sprt) {
                char err[256];
                if (stats_sprt_report(&cfg->sprt_params, &res->counts, &res->report, err,
                                      sizeof err) == 0 &&
                    res->report.verdict != STATS_SPRT_CONTINUE) {
                    res->sprt_stopped = true;
                    sh->stop = true;
                }
            }
            if (res->pairs % cfg->report_every == 0 || sh->stop) {
                char line[512];
                match_status_line(cfg, res, line, sizeof line);
                fprintf(cfg->out, "%s\n", line);
                s_save_state(cfg, res);
            }
            fflush(cfg->out);
        }
        pthread_mutex_unlock(&sh->mu);
    }
    for (int i = 0; i < 2; i++)
        uciproc_stop(&w->proc[i]);
    return NULL;
}

int match_run(const match_config_t *cfg, match_result_t *res)
{
    memset(res, 0, sizeof *res);
    if (cfg->state) {
        res->counts = cfg->state->counts;
        res->pairs = cfg->state->pairs;
    }
    struct timeval t0;
    gettimeofday(&t0, NULL);
    /* Check both engines before any game. */
    for (int i = 0; i < 2; i++) {
        char err[512];
        uciproc_t *p = s_start_engine(cfg, i, err, sizeof err);
        if (!p) {
            snprintf(res->error, sizeof res->error, "%s", err);
            return -1;
        }
        uciproc_stop(&p);
    }
    shared_t sh = { .cfg = cfg, .res = res };
    pthread_mutex_init(&sh.mu, NULL);
    int n = cfg->concurrency > 0 ? cfg->concurrency : 1;
    worker_t **ws = calloc((size_t) n, sizeof *ws);
    pthread_t *th = calloc((size_t) n, sizeof *th);
    int started = 0;
    if (ws && th) {
        for (; started < n; started++) {
            ws[started] = calloc(1, sizeof **ws);
            if (!ws[started])
                break;
            ws[started]->sh = &sh;
            if (pthread_create(&th[started], NULL, s_worker, ws[started]) != 0) {
                free(ws[started]);
                break;
            }
        }
    }
    if (started == 0)
        snprintf(res->error, sizeof res->error, "cannot start a match thread (out of memory?)");
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        free(ws[i]);
    }
    free(ws);
    free(th);
    pthread_mutex_destroy(&sh.mu);
    if (cfg->sprt) {
        char err[256];
        stats_sprt_report(&cfg->sprt_params, &res->counts, &res->report, err, sizeof err);
    }
    s_save_state(cfg, res);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    res->cpu_s = s_seconds(ru.ru_utime) + s_seconds(ru.ru_stime);
    struct timeval t1;
    gettimeofday(&t1, NULL);
    res->wall_s = s_seconds(t1) - s_seconds(t0);
    return res->error[0] ? -1 : 0;
}
