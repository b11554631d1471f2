/* test_uci_match.c - drives capa-engine over pipes exactly as cutechess-cli
 * does (uci, setoption UCI_Variant, ucinewgame, isready, position fen ...
 * moves ..., go wtime/btime/winc/binc, bestmove, real clocks) through the
 * process driver of capa match (cli/uciproc.h) and referees every game with
 * capalab's own rules core. Fails on an illegal move, a
 * crash, a protocol timeout or a time loss of a capalab engine.
 *
 *   test_uci_match --engine PATH [--opponent PATH] [--variant V] [--games N]
 *                  [--tc BASE+INC] [--max-moves N] [--timemargin MS]
 *
 * --timemargin is cutechess-cli's option of that name: how many ms a move
 * may overrun the clock before it counts as a time loss (default 0).
 *
 * Without --opponent the engine plays itself (two processes). With an
 * opponent that does not exist, the test is skipped (exit code 77).
 */
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "board.h"
#include "crc.h"
#include "movegen.h"
#include "notation.h"
#include "rules.h"
#include "uciproc.h"

#define SKIP 77

typedef struct {
    const char *path;
    const char *name;
    bool ours;
    uciproc_t *u;
} proc_t;

static int64_t s_now_ms(void)
{
    return uciproc_now_ms();
}

#define s_sendf(p, ...) uciproc_send((p)->u, __VA_ARGS__)

/* Waits for a line starting with prefix; copies it into out. 1, 0 on
 * timeout, -1 when the engine exited. */
static int s_expect(proc_t *p, const char *prefix, char *out, size_t outlen, int64_t timeout_ms)
{
    int64_t deadline = s_now_ms() + timeout_ms;
    char line[65536];
    for (;;) {
        int64_t left = deadline - s_now_ms();
        int r = uciproc_readline(p->u, line, sizeof line, left > 0 ? left : 0);
        if (r <= 0)
            return r;
        if (strncmp(line, prefix, strlen(prefix)) == 0) {
            if (out && outlen) {
                size_t l = strlen(line) < outlen - 1 ? strlen(line) : outlen - 1;
                memcpy(out, line, l);
                out[l] = 0;
            }
            return 1;
        }
    }
}

/* Starts the engine (uci/uciok), checks that it offers the variant, sets it. */
static int s_start(proc_t *p, const char *variant)
{
    char err[512];
    p->u = uciproc_start(p->path, 10000, err, sizeof err);
    if (!p->u) {
        fprintf(stderr, "%s: %s\n", p->name, err);
        return -1;
    }
    if (!uciproc_has_variant(p->u, variant)) {
        fprintf(stderr, "%s: does not list UCI_Variant %s\n", p->name, variant);
        return -1;
    }
    s_sendf(p, "setoption name UCI_Variant value %s", variant);
    if (strcmp(variant, "caparandom") == 0)
        s_sendf(p, "setoption name UCI_Chess960 value true");
    if (uciproc_sync(p->u, 10000) != 1) {
        fprintf(stderr, "%s: no readyok\n", p->name);
        return -1;
    }
    return 0;
}

typedef struct {
    int games, illegal, timeouts, time_losses, crashes;
    int results[3];  /* engine 0 wins, draws, engine 1 wins */
    int plies;
} tally_t;

/* Plays one game: white = e[w]. Returns 0, or -1 on a failure of a capalab engine. */
static int s_play(proc_t *e[2], int w, variant_t v, const char *start_fen, bool startpos,
                  int64_t base, int64_t inc, int64_t margin, int max_moves, tally_t *t)
{
    board_t *b = malloc(sizeof *b);
    char err[256];
    if (board_set_fen(b, start_fen, v, err, sizeof err) < 0) {
        fprintf(stderr, "referee: bad start FEN %s: %s\n", start_fen, err);
        free(b);
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        s_sendf(e[i], "ucinewgame");
        s_sendf(e[i], "isready");
        if (s_expect(e[i], "readyok", NULL, 0, 10000) != 1) {
            fprintf(stderr, "%s: no readyok after ucinewgame\n", e[i]->name);
            t->crashes++;
            free(b);
            return -1;
        }
    }
    static char moves[65536];
    size_t mlen = 0;
    moves[0] = 0;
    int64_t clock[2] = { base, base };
    int rc = 0;
    const char *why = "move cap";
    int outcome = 1;  /* 0: white wins, 1 draw, 2 black wins */
    for (int ply = 0;; ply++) {
        result_reason_t reason;
        game_result_t res = rules_result(b, &reason);
        if (res != RESULT_ONGOING) {
            why = rules_reason_name(reason);
            outcome = res == RESULT_WHITE_WINS ? 0 : res == RESULT_BLACK_WINS ? 2 : 1;
            break;
        }
        if (ply >= 2 * max_moves)
            break;
        int side = board_side(b);
        proc_t *p = e[side == WHITE ? w : 1 - w];
        if (startpos)
            s_sendf(p, "position startpos%s%s", mlen ? " moves" : "", moves);
        else
            s_sendf(p, "position fen %s%s%s", start_fen, mlen ? " moves" : "", moves);
        s_sendf(p, "go wtime %" PRId64 " btime %" PRId64 " winc %" PRId64 " binc %" PRId64,
                clock[WHITE], clock[BLACK], inc, inc);
        int64_t t0 = s_now_ms();
        char line[4096];
        int r = s_expect(p, "bestmove", line, sizeof line, clock[side] + 5000);
        int64_t spent = s_now_ms() - t0;
        if (r != 1) {
            fprintf(stderr, "%s: %s while thinking (ply %d)\n", p->name,
                    r == 0 ? "no bestmove" : "exited", ply);
            if (r == 0)
                t->timeouts++;
            else
                t->crashes++;
            rc = p->ours ? -1 : rc;
            why = "engine failure";
            outcome = side == WHITE ? 2 : 0;
            break;
        }
        clock[side] -= spent;
        if (clock[side] < -margin) {
            fprintf(stderr, "%s: lost on time at ply %d (%" PRId64 " ms over)\n", p->name, ply,
                    -clock[side]);
            t->time_losses++;
            rc = p->ours ? -1 : rc;
            why = "time forfeit";
            outcome = side == WHITE ? 2 : 0;
            break;
        }
        if (clock[side] < 0)
            clock[side] = 0;  /* within the margin: play on with an empty clock */
        clock[side] += inc;
        char mv[64] = "";
        sscanf(line, "bestmove %63s", mv);
        move_t m;
        if (move_from_uci(b, mv, &m) < 0) {
            char fen[FEN_MAX];
            board_get_fen(b, fen, sizeof fen);
            fprintf(stderr, "%s: illegal move '%s' in %s\n", p->name, mv, fen);
            t->illegal++;
            rc = p->ours ? -1 : rc;
            why = "illegal move";
            outcome = side == WHITE ? 2 : 0;
            break;
        }
        board_make(b, m);
        size_t l = strlen(mv);
        if (mlen + l + 2 < sizeof moves) {
            moves[mlen++] = ' ';
            memcpy(moves + mlen, mv, l + 1);
            mlen += l;
        }
        t->plies++;
    }
    /* outcome is from white's view; tally from engine 0's. */
    int e0 = w == 0 ? outcome : 2 - outcome;
    t->results[e0]++;
    t->games++;
    printf("game %d: %s (white) vs %s: %s after %d plies (%s)\n", t->games, e[w]->name,
           e[1 - w]->name, outcome == 0 ? "1-0" : outcome == 2 ? "0-1" : "1/2-1/2",
           board_game_ply(b), why);
    fflush(stdout);
    free(b);
    return rc;
}

int main(int argc, char **argv)
{
    const char *engine = NULL, *opponent = NULL, *vname = "capablanca";
    int games = 2, max_moves = 150;
    int64_t margin = 0;
    double base_s = 2, inc_s = 0.02;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--engine") == 0 && i + 1 < argc)
            engine = argv[++i];
        else if (strcmp(argv[i], "--opponent") == 0 && i + 1 < argc)
            opponent = argv[++i];
        else if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc)
            vname = argv[++i];
        else if (strcmp(argv[i], "--games") == 0 && i + 1 < argc)
            games = atoi(argv[++i]);
        else if (strcmp(argv[i], "--max-moves") == 0 && i + 1 < argc)
            max_moves = atoi(argv[++i]);
        else if (strcmp(argv[i], "--timemargin") == 0 && i + 1 < argc)
            margin = atoll(argv[++i]);
        else if (strcmp(argv[i], "--tc") == 0 && i + 1 < argc) {
            char *end;
            base_s = strtod(argv[++i], &end);
            inc_s = *end == '+' ? strtod(end + 1, NULL) : 0;
        } else {
            fprintf(stderr, "usage: %s --engine PATH [--opponent PATH] [--variant V] [--games N] "
                            "[--tc BASE+INC] [--max-moves N] [--timemargin MS]\n", argv[0]);
            return 2;
        }
    }
    if (!engine) {
        fprintf(stderr, "--engine is required\n");
        return 2;
    }
    if (opponent && access(opponent, X_OK) != 0) {
        printf("SKIP: opponent %s is not installed\n", opponent);
        return SKIP;
    }
    variant_t v;
    if (variant_from_name(vname, &v) < 0) {
        fprintf(stderr, "unknown variant %s\n", vname);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    static proc_t procs[2];
    procs[0] = (proc_t) { .path = engine, .name = "capalab", .ours = true };
    procs[1] = (proc_t) { .path = opponent ? opponent : engine,
                          .name = opponent ? "fairy-stockfish" : "capalab-2", .ours = !opponent };
    proc_t *e[2] = { &procs[0], &procs[1] };
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        if (s_start(e[i], vname) < 0) {
            fprintf(stderr, "cannot start %s\n", e[i]->path);
            rc = 1;
        }
    }
    tally_t t = { 0 };
    int64_t base = (int64_t) (base_s * 1000), inc = (int64_t) (inc_s * 1000);
    for (int g = 0; rc == 0 && g < games; g++) {
        char fen[FEN_MAX];
        bool startpos = v != VARIANT_CAPARANDOM;
        if (startpos)
            snprintf(fen, sizeof fen, "%s", variant_start_fen(v));
        else
            crc_start_fen(crc_from_seed((uint64_t) (g / 2) * 7919 + 11), fen, sizeof fen);
        if (s_play(e, g % 2, v, fen, startpos, base, inc, margin, max_moves, &t) < 0)
            rc = 1;
    }
    for (int i = 0; i < 2; i++)
        uciproc_stop(&e[i]->u);
    printf("%d games, %d plies: capalab %d wins, %d draws, %d losses; illegal %d, timeouts %d, "
           "time losses %d, crashes %d\n", t.games, t.plies, t.results[0], t.results[1],
           t.results[2], t.illegal, t.timeouts, t.time_losses, t.crashes);
    return rc;
}
