/* uci.c - the UCI protocol loop, with the search on its own thread. */
#include "uci.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "board.h"
#include "err.h"
#include "eval.h"
#include "movegen.h"
#include "notation.h"
#include "params.h"
#include "perft.h"
#include "search.h"
#include "timeman.h"

#define UCI_DEFAULT_HASH 16
#define UCI_MAX_HASH 65536

typedef struct {
    FILE *out;
    pthread_mutex_t out_lock;
    search_t *search;
    board_t *board;        /* the position set by "position" */
    board_t *scratch;      /* the search thread's board for writing PVs */
    variant_t variant;
    bool chess960;
    size_t hash_mb;
    params_t params;

    pthread_t thread;
    bool running;          /* a search thread exists (joined by s_wait) */
    bool infinite;
    atomic_bool stop_requested;
    search_limits_t limits;

    /* The latency the GUI charges beyond this engine's own measurement
     * (pipes, and waiting for a CPU on a loaded machine), learnt from the
     * clocks: after a move that took spent ms here, the next clock of that
     * side should be clock - spent + inc; what it is below that is lag. Per
     * side, since one engine may be asked to play both. */
    int64_t lag_clock[COLOR_NB];  /* the side's clock at its last go; -1: none */
    int64_t lag_inc[COLOR_NB];
    int64_t lag_spent[COLOR_NB];  /* go read to bestmove written, ms */
    int64_t lag_ms;               /* a decaying maximum of the lags seen */
    int64_t go_ms;                /* when the running go was read */
    color_t go_side;
} uci_t;

static void s_send(uci_t *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_send(uci_t *u, const char *fmt, ...)
{
    pthread_mutex_lock(&u->out_lock);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(u->out, fmt, ap);
    va_end(ap);
    fputc('\n', u->out);
    fflush(u->out);
    pthread_mutex_unlock(&u->out_lock);
}

static bool s_960(const uci_t *u)
{
    return u->chess960 || u->variant == VARIANT_CAPARANDOM;
}

static void s_info(const search_info_t *info, const board_t *root, void *ctx)
{
    uci_t *u = ctx;
    char line[8192];
    size_t n = 0;
    int mate = search_mate_in(info->score);
    int64_t ms = info->time_ms > 0 ? info->time_ms : 0;
    uint64_t nps = ms > 0 ? info->nodes * 1000 / (uint64_t) ms : info->nodes;
    n += (size_t) snprintf(line + n, sizeof line - n, "info depth %d seldepth %d multipv 1 score ",
                           info->depth, info->seldepth);
    if (mate)
        n += (size_t) snprintf(line + n, sizeof line - n, "mate %d", mate);
    else
        n += (size_t) snprintf(line + n, sizeof line - n, "cp %d", info->score);
    n += (size_t) snprintf(line + n, sizeof line - n,
                           " nodes %" PRIu64 " nps %" PRIu64 " hashfull %d time %" PRId64 " pv",
                           info->nodes, nps, info->hashfull, ms);
    board_copy(u->scratch, root);
    for (int i = 0; i < info->pv_len && n + 16 < sizeof line; i++) {
        if (!movegen_is_legal(u->scratch, info->pv[i]))
            break;
        char mv[UCI_MOVE_MAX];
        move_to_uci(u->scratch, info->pv[i], s_960(u), mv);
        n += (size_t) snprintf(line + n, sizeof line - n, " %s", mv);
        board_make(u->scratch, info->pv[i]);
    }
    s_send(u, "%s", line);
}

/* The bestmove line (ponder may be NULL), and the time it ends for the lag
 * estimate. */
static void s_send_bestmove(uci_t *u, const char *best, const char *ponder)
{
    u->lag_spent[u->go_side] = timeman_now_ms() - u->go_ms;
    if (ponder)
        s_send(u, "bestmove %s ponder %s", best, ponder);
    else
        s_send(u, "bestmove %s", best);
}

/* Forgets the latency learnt (a new game). */
static void s_lag_reset(uci_t *u)
{
    for (int c = 0; c < COLOR_NB; c++)
        u->lag_clock[c] = -1;
    u->lag_ms = 0;
}

/* Learns from the clock of a go with a clock for the side to move, and
 * sets the search's overhead: the default plus the lag expected. */
#define UCI_LAG_MAX 1000
static void s_lag_update(uci_t *u, search_limits_t *l)
{
    color_t c = board_side(u->board);
    u->go_side = c;
    u->go_ms = timeman_now_ms();
    if (l->time_ms[c] < 0 || l->movetime_ms > 0 || l->infinite)
        return;
    if (u->lag_clock[c] >= 0) {
        int64_t lag = u->lag_clock[c] - u->lag_spent[c] + u->lag_inc[c] - l->time_ms[c];
        if (lag > UCI_LAG_MAX)
            lag = UCI_LAG_MAX;
        /* below 0: more time than expected (a new game without ucinewgame) */
        int64_t decayed = u->lag_ms - u->lag_ms / 8;
        u->lag_ms = lag > decayed ? lag : decayed;
    }
    u->lag_clock[c] = l->time_ms[c];
    u->lag_inc[c] = l->inc_ms[c] > 0 ? l->inc_ms[c] : 0;
    l->overhead_ms = TIMEMAN_OVERHEAD_MS + u->lag_ms;
    if (u->lag_ms > 0)
        s_send(u, "info string latency %" PRId64 " ms (learnt from the clocks) kept back",
               u->lag_ms);
}

static void *s_search_thread(void *arg)
{
    uci_t *u = arg;
    search_result_t r;
    search_go(u->search, u->board, &u->limits, &r);
    /* "go infinite": bestmove only after stop (or quit). */
    while (u->infinite && !atomic_load(&u->stop_requested)) {
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    char best[UCI_MOVE_MAX], ponder[UCI_MOVE_MAX];
    move_to_uci(u->board, r.best, s_960(u), best);
    if (r.best != MOVE_NONE && r.ponder != MOVE_NONE) {
        board_copy(u->scratch, u->board);
        board_make(u->scratch, r.best);
        if (movegen_is_legal(u->scratch, r.ponder)) {
            move_to_uci(u->scratch, r.ponder, s_960(u), ponder);
            s_send_bestmove(u, best, ponder);
            return NULL;
        }
    }
    s_send_bestmove(u, best, NULL);
    return NULL;
}

/* Stops a running search and waits for its bestmove. */
static void s_stop(uci_t *u)
{
    if (!u->running)
        return;
    atomic_store(&u->stop_requested, true);
    search_stop(u->search);
    pthread_join(u->thread, NULL);
    u->running = false;
}

/* Waits for a bounded search to finish by itself (an infinite one is
 * stopped), so that its bestmove is out. */
static void s_wait(uci_t *u)
{
    if (!u->running)
        return;
    if (u->infinite) {
        s_stop(u);
        return;
    }
    pthread_join(u->thread, NULL);
    u->running = false;
}

static char *s_next(char **save)
{
    return strtok_r(NULL, " \t\r\n", save);
}

static void s_cmd_uci(uci_t *u)
{
    s_send(u, "id name capalab " CAPA_VERSION);
    s_send(u, "id author the capalab authors");
    s_send(u, "option name Hash type spin default %d min 1 max %d", UCI_DEFAULT_HASH, UCI_MAX_HASH);
    s_send(u, "option name Threads type spin default 1 min 1 max 1");
    s_send(u, "option name Clear Hash type button");
    s_send(u, "option name UCI_Chess960 type check default false");
    s_send(u, "option name UCI_Variant type combo default capablanca var capablanca var caparandom "
              "var gothic var embassy var janus");
    for (int i = 0; i < params_count(); i++) {
        const param_info_t *p = params_info(i);
        s_send(u, "option name %s type spin default %d min %d max %d", p->name, (int) p->def,
               (int) p->min, (int) p->max);
    }
    s_send(u, "uciok");
}

static void s_set_startpos(uci_t *u)
{
    board_set_startpos(u->board, u->variant);
}

static void s_cmd_setoption(uci_t *u, char *rest)
{
    /* setoption name <name with spaces> [value <value with spaces>] */
    char *name = strstr(rest, "name ");
    if (!name) {
        s_send(u, "info string setoption without a name");
        return;
    }
    name += 5;
    char *value = strstr(name, " value ");
    if (value) {
        *value = 0;
        value += 7;
    }
    while (*name == ' ')
        name++;
    size_t nl = strlen(name);
    while (nl && (name[nl - 1] == ' ' || name[nl - 1] == '\n' || name[nl - 1] == '\r'))
        name[--nl] = 0;
    if (value) {
        while (*value == ' ')
            value++;
        size_t vl = strlen(value);
        while (vl && (value[vl - 1] == ' ' || value[vl - 1] == '\n' || value[vl - 1] == '\r'))
            value[--vl] = 0;
    }
    s_stop(u);
    if (strcasecmp(name, "Hash") == 0 && value) {
        char *end;
        long mb = strtol(value, &end, 10);
        if (*end || mb < 1 || mb > UCI_MAX_HASH) {
            s_send(u, "info string Hash must be 1..%d", UCI_MAX_HASH);
            return;
        }
        if (search_set_hash(u->search, (size_t) mb) < 0) {
            s_send(u, "info string not enough memory for %ld MB of hash", mb);
            return;
        }
        u->hash_mb = (size_t) mb;
    } else if (strcasecmp(name, "Clear Hash") == 0) {
        search_new_game(u->search);
    } else if (strcasecmp(name, "Threads") == 0) {
        if (!value || strcmp(value, "1") != 0)
            s_send(u, "info string Threads is fixed to 1");
    } else if (strcasecmp(name, "UCI_Chess960") == 0 && value) {
        u->chess960 = strcasecmp(value, "true") == 0;
    } else if (strcasecmp(name, "UCI_Variant") == 0 && value) {
        variant_t v;
        if (variant_from_name(value, &v) < 0) {
            s_send(u, "info string unknown variant %s", value);
            return;
        }
        u->variant = v;
        s_set_startpos(u);
    } else {
        for (int i = 0; i < params_count(); i++) {
            const param_info_t *p = params_info(i);
            if (strcasecmp(name, p->name) != 0)
                continue;
            char err[200];
            char *end;
            double v = value ? strtod(value, &end) : 0;
            if (!value || end == value || *end) {
                s_send(u, "info string %s needs a numeric value", p->name);
                return;
            }
            if (params_set(&u->params, p->name, v, err, sizeof err) < 0) {
                s_send(u, "info string %s", err);
                return;
            }
            search_set_params(u->search, &u->params);
            return;
        }
        s_send(u, "info string unknown option %s", name);
    }
}

static void s_cmd_position(uci_t *u, char *save)
{
    s_stop(u);
    char *tok = s_next(&save);
    char err[256] = "";
    if (!tok) {
        s_send(u, "info string position needs startpos or fen");
        return;
    }
    if (strcmp(tok, "startpos") == 0) {
        s_set_startpos(u);
        tok = s_next(&save);
    } else if (strcmp(tok, "fen") == 0) {
        char fen[512] = "";
        size_t n = 0;
        while ((tok = s_next(&save)) && strcmp(tok, "moves") != 0) {
            size_t l = strlen(tok);
            if (n + l + 2 >= sizeof fen)
                break;
            if (n)
                fen[n++] = ' ';
            memcpy(fen + n, tok, l + 1);
            n += l;
        }
        if (board_set_fen(u->board, fen, u->variant, err, sizeof err) < 0) {
            s_send(u, "info string bad FEN (%s): %s", err, fen);
            s_set_startpos(u);
            return;
        }
    } else {
        s_send(u, "info string position needs startpos or fen");
        return;
    }
    if (tok && strcmp(tok, "moves") == 0) {
        while ((tok = s_next(&save))) {
            move_t m;
            if (!board_has_room(u->board) || board_game_ply(u->board) >= MAX_GAME_PLY) {
                s_send(u, "info string too many moves");
                return;
            }
            if (move_from_uci(u->board, tok, &m) < 0) {
                s_send(u, "info string illegal move %s", tok);
                return;
            }
            board_make(u->board, m);
        }
    }
}

/* `eval`: the static evaluation of the current position by group of
 * terms (eval_terms), as info strings: each group's share from White's
 * view, then the score from the side to move's and from White's view. */
static void s_cmd_eval(uci_t *u)
{
    int terms[EVAL_TERM_NB];
    int white = eval_terms(u->board, &u->params, terms);
    for (int t = 0; t < EVAL_TERM_NB; t++)
        s_send(u, "info string term %s %d", eval_term_name((eval_term_t) t), terms[t]);
    s_send(u, "info string eval %d white %d phase %d",
           board_side(u->board) == WHITE ? white : -white, white, eval_phase(u->board));
}

static void s_cmd_perft(uci_t *u, int depth)
{
    if (depth < 1 || depth > 20) {
        s_send(u, "info string perft depth must be 1..20");
        return;
    }
    move_list_t list;
    movegen_legal(u->board, &list);
    uint64_t total = 0;
    board_copy(u->scratch, u->board);
    for (int i = 0; i < list.count; i++) {
        char mv[UCI_MOVE_MAX];
        move_to_uci(u->scratch, list.moves[i], s_960(u), mv);
        board_make(u->scratch, list.moves[i]);
        uint64_t n = perft(u->scratch, depth - 1);
        board_unmake(u->scratch);
        total += n;
        s_send(u, "%s: %" PRIu64, mv, n);
    }
    s_send(u, "\nNodes searched: %" PRIu64 "\n", total);
}

static bool s_num(char **save, long long *out)
{
    char *tok = s_next(save);
    if (!tok)
        return false;
    char *end;
    long long v = strtoll(tok, &end, 10);
    if (*end)
        return false;
    *out = v;
    return true;
}

static void s_cmd_go(uci_t *u, char *save)
{
    s_stop(u);
    search_limits_t *l = &u->limits;
    search_limits_init(l);
    u->infinite = false;
    char *tok;
    long long v;
    while ((tok = s_next(&save))) {
        if (strcmp(tok, "infinite") == 0 || strcmp(tok, "ponder") == 0) {
            l->infinite = true;
            u->infinite = true;
        } else if (strcmp(tok, "perft") == 0) {
            if (!s_num(&save, &v)) {
                s_send(u, "info string perft needs a depth");
                return;
            }
            s_cmd_perft(u, (int) v);
            return;
        } else if (strcmp(tok, "searchmoves") == 0) {
            while (s_next(&save))
                ;
            s_send(u, "info string searchmoves is not supported; searching all moves");
        } else {
            if (!s_num(&save, &v)) {
                s_send(u, "info string go: %s needs a number", tok);
                continue;
            }
            if (v < 0)
                v = 0;
            if (strcmp(tok, "wtime") == 0)
                l->time_ms[WHITE] = v;
            else if (strcmp(tok, "btime") == 0)
                l->time_ms[BLACK] = v;
            else if (strcmp(tok, "winc") == 0)
                l->inc_ms[WHITE] = v;
            else if (strcmp(tok, "binc") == 0)
                l->inc_ms[BLACK] = v;
            else if (strcmp(tok, "movestogo") == 0)
                l->movestogo = (int) v;
            else if (strcmp(tok, "depth") == 0)
                l->depth = v > SEARCH_MAX_DEPTH ? SEARCH_MAX_DEPTH : v < 1 ? 1 : (int) v;
            else if (strcmp(tok, "nodes") == 0)
                l->nodes = v > 0 ? (uint64_t) v : 1;
            else if (strcmp(tok, "movetime") == 0)
                l->movetime_ms = v > 0 ? v : 1;
            else if (strcmp(tok, "mate") == 0)
                l->depth = v > 0 && v < SEARCH_MAX_DEPTH / 2 ? (int) v * 2 : l->depth;
            else
                s_send(u, "info string go: unknown limit %s", tok);
        }
    }
    /* Nothing bounds this search (a bare "go", or only the opponent's
     * clock): it runs like "go infinite", until stop. */
    if (!l->depth && !l->nodes && !l->movetime_ms && l->time_ms[board_side(u->board)] < 0) {
        l->infinite = true;
        u->infinite = true;
    }
    s_lag_update(u, l);
    atomic_store(&u->stop_requested, false);
    search_clear_stop(u->search);
    if (pthread_create(&u->thread, NULL, s_search_thread, u) != 0) {
        s_send(u, "info string cannot start the search thread");
        return;
    }
    u->running = true;
}

int uci_loop(FILE *in, FILE *out)
{
    uci_t *u = calloc(1, sizeof *u);
    if (!u)
        return CAPA_ENOMEM;
    u->out = out;
    pthread_mutex_init(&u->out_lock, NULL);
    u->hash_mb = UCI_DEFAULT_HASH;
    s_lag_reset(u);
    u->variant = VARIANT_CAPABLANCA;
    params_default(&u->params);
    u->search = search_new(u->hash_mb);
    u->board = malloc(sizeof *u->board);
    u->scratch = malloc(sizeof *u->scratch);
    if (!u->search || !u->board || !u->scratch) {
        fprintf(out, "info string out of memory\n");
        search_destroy(&u->search);
        free(u->board);
        free(u->scratch);
        free(u);
        return CAPA_ENOMEM;
    }
    atomic_init(&u->stop_requested, false);
    search_set_info(u->search, s_info, u);
    s_set_startpos(u);

    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, in) >= 0) {
        char *save = NULL;
        char *copy = strdup(line);
        if (!copy)
            break;
        char *cmd = strtok_r(line, " \t\r\n", &save);
        if (!cmd) {
            free(copy);
            continue;
        }
        if (strcmp(cmd, "quit") == 0) {
            free(copy);
            break;
        } else if (strcmp(cmd, "uci") == 0) {
            s_cmd_uci(u);
        } else if (strcmp(cmd, "isready") == 0) {
            s_send(u, "readyok");
        } else if (strcmp(cmd, "ucinewgame") == 0) {
            s_stop(u);
            search_new_game(u->search);
            s_set_startpos(u);
            s_lag_reset(u);
        } else if (strcmp(cmd, "setoption") == 0) {
            s_cmd_setoption(u, copy + (cmd - line) + strlen(cmd));
        } else if (strcmp(cmd, "position") == 0) {
            s_cmd_position(u, save);
        } else if (strcmp(cmd, "go") == 0) {
            s_cmd_go(u, save);
        } else if (strcmp(cmd, "stop") == 0) {
            s_stop(u);
        } else if (strcmp(cmd, "ponderhit") == 0) {
            s_stop(u);
        } else if (strcmp(cmd, "eval") == 0) {
            s_wait(u);
            s_cmd_eval(u);
        } else if (strcmp(cmd, "d") == 0) {
            char fen[FEN_MAX];
            s_wait(u);
            board_get_fen(u->board, fen, sizeof fen);
            s_send(u, "Fen: %s", fen);
        } else if (strcmp(cmd, "debug") == 0 || strcmp(cmd, "register") == 0) {
            /* accepted and ignored */
        } else {
            s_send(u, "info string unknown command: %.100s", cmd);
        }
        free(copy);
    }
    bool quit = !feof(in);
    free(line);
    /* "quit" stops a search; the end of the input lets a bounded one finish. */
    if (quit)
        s_stop(u);
    else
        s_wait(u);
    search_destroy(&u->search);
    free(u->board);
    free(u->scratch);
    pthread_mutex_destroy(&u->out_lock);
    free(u);
    return 0;
}

int uci_main(int argc, char **argv)
{
    (void) argc;
    (void) argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    return uci_loop(stdin, stdout) < 0 ? 1 : 0;
}
