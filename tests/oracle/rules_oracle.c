/* rules_oracle - differential test of the rules core against Fairy-Stockfish.
 *
 *   rules_oracle [FAIRY_STOCKFISH_PATH] [GAMES_PER_VARIANT]
 *
 * Plays seeded random games in every variant (and from random CRC arrays),
 * and at sampled positions compares our perft divide (depth 2, sometimes 3)
 * with Fairy-Stockfish's `go perft` output move by move. Its move strings
 * are read with move_from_uci, which accepts both castling conventions.
 * Exit 0 when everything agrees, 1 on a mismatch, 77 (skip) without the
 * binary.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "board.h"
#include "crc.h"
#include "movegen.h"
#include "notation.h"
#include "perft.h"

static FILE *s_to, *s_from;
static pid_t s_pid;
static board_t s_board;

static int s_start(const char *path)
{
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return -1;
    s_pid = fork();
    if (s_pid < 0)
        return -1;
    if (s_pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(path, path, (char *) NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    s_to = fdopen(in[1], "w");
    s_from = fdopen(out[0], "r");
    return s_to && s_from ? 0 : -1;
}

static void s_send(const char *fmt, const char *arg)
{
    fprintf(s_to, fmt, arg);
    fflush(s_to);
}

/* Reads lines until one starts with prefix; returns 0 or -1 at EOF. */
static int s_wait(const char *prefix)
{
    char line[4096];
    while (fgets(line, sizeof line, s_from))
        if (strncmp(line, prefix, strlen(prefix)) == 0)
            return 0;
    return -1;
}

/* Compares one position at one depth; prints the differences. 0 if equal. */
static int s_compare(variant_t v, int depth)
{
    char fen[FEN_MAX];
    board_get_fen(&s_board, fen, sizeof fen);
    move_list_t list;
    movegen_legal(&s_board, &list);
    uint64_t ours[MAX_MOVES];
    int seen[MAX_MOVES] = { 0 };
    for (int i = 0; i < list.count; i++) {
        board_make(&s_board, list.moves[i]);
        ours[i] = perft(&s_board, depth - 1);
        board_unmake(&s_board);
    }
    s_send("position fen %s\n", fen);
    fprintf(s_to, "go perft %d\n", depth);
    fflush(s_to);
    char line[4096];
    int bad = 0, theirs = 0;
    while (fgets(line, sizeof line, s_from)) {
        if (strncmp(line, "Nodes searched", 14) == 0)
            break;
        char mv[32];
        uint64_t n;
        if (sscanf(line, "%31[a-z0-9]: %" SCNu64, mv, &n) != 2)
            continue;
        theirs++;
        move_t m;
        if (move_from_uci(&s_board, mv, &m) != 0) {
            printf("MISMATCH %s [%s] depth %d: Fairy-Stockfish move %s is not legal for us\n",
                   variant_name(v), fen, depth, mv);
            bad = 1;
            continue;
        }
        /* Fairy-Stockfish writes a castling whose king steps one file the same
         * way as the king step (e.g. h1i1 twice): the second one is the castling. */
        for (int i = 0; i < list.count; i++) {
            if (list.moves[i] == m && seen[i]) {
                for (int k = 0; k < list.count; k++) {
                    move_t c = list.moves[k];
                    int side = board_side(&s_board) * 2 + (move_to(c) > move_from(c) ? 0 : 1);
                    if (move_is_castle(c) && move_from(c) == move_from(m) &&
                        board_castle_king_to(&s_board, side) == move_to(m))
                        m = c;
                }
            }
        }
        for (int i = 0; i < list.count; i++) {
            if (list.moves[i] != m)
                continue;
            seen[i] = 1;
            if (ours[i] != n) {
                printf("MISMATCH %s [%s] depth %d: %s gives %" PRIu64 " here, %" PRIu64 " there\n",
                       variant_name(v), fen, depth, mv, ours[i], n);
                bad = 1;
            }
        }
    }
    for (int i = 0; i < list.count; i++) {
        if (!seen[i]) {
            char uci[UCI_MOVE_MAX];
            move_to_uci(&s_board, list.moves[i], v == VARIANT_CAPARANDOM, uci);
            printf("MISMATCH %s [%s] depth %d: our move %s is missing there\n", variant_name(v), fen,
                   depth, uci);
            bad = 1;
        }
    }
    (void) theirs;
    return bad;
}

static int s_play_games(variant_t v, const char *start_fen, uint64_t seed, int *positions)
{
    char err[256];
    uint64_t rng = seed;
    int bad = 0;
    s_send("setoption name UCI_Variant value %s\n", variant_name(v));
    s_send("setoption name UCI_Chess960 value %s\n", v == VARIANT_CAPARANDOM ? "true" : "false");
    s_send("%s", "isready\n");
    s_wait("readyok");
    if (start_fen ? board_set_fen(&s_board, start_fen, v, err, sizeof err)
                  : board_set_startpos(&s_board, v)) {
        printf("bad start FEN %s: %s\n", start_fen ? start_fen : variant_name(v), err);
        return 1;
    }
    for (int ply = 0; ply < 120 && !bad; ply++) {
        if (ply % 6 == 0 || board_in_check(&s_board)) {
            bad |= s_compare(v, ply % 18 == 0 ? 3 : 2);
            ++*positions;
        }
        move_list_t list;
        if (movegen_legal(&s_board, &list) == 0)
            break;
        /* Prefer castling and captures a little, to visit those more often. */
        move_t m = list.moves[crc_splitmix64(&rng) % (uint64_t) list.count];
        for (int i = 0; i < list.count; i++)
            if (move_is_castle(list.moves[i]) && crc_splitmix64(&rng) % 2 == 0)
                m = list.moves[i];
        board_make(&s_board, m);
    }
    return bad;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : "/usr/games/fairy-stockfish";
    int games = argc > 2 ? atoi(argv[2]) : 4;
    if (access(path, X_OK) != 0) {
        printf("skipped: %s not found\n", path);
        return 77;
    }
    signal(SIGPIPE, SIG_IGN);
    if (s_start(path)) {
        printf("cannot start %s\n", path);
        return 1;
    }
    s_send("%s", "uci\n");
    if (s_wait("uciok")) {
        printf("%s did not answer uci\n", path);
        return 1;
    }
    int bad = 0, positions = 0;
    for (int v = 0; v < VARIANT_NB; v++)
        for (int g = 0; g < games && !bad; g++)
            bad |= s_play_games((variant_t) v, NULL, 1000 * (uint64_t) v + (uint64_t) g, &positions);
    /* Random CRC arrays, where castling is most varied. */
    for (int g = 0; g < 4 * games && !bad; g++) {
        char fen[160];
        crc_start_fen(crc_from_seed((uint64_t) g), fen, sizeof fen);
        bad |= s_play_games(VARIANT_CAPARANDOM, fen, 77 + (uint64_t) g, &positions);
    }
    /* Castling-rich positions from the perft table's kind. */
    static const char *const CASTLING[] = {
        "1r2k3r1/pppppppppp/10/10/10/10/PPPPPPPPPP/1R2K3R1 w IBib - 0 1",
        "1rkr6/pppppppppp/10/10/10/10/PPPPPPPPPP/1RKR6 w DBdb - 0 1",
        "1r5kr1/pppppppppp/10/10/10/10/PPPPPPPPPP/1R5KR1 w IBib - 0 1",
        "r3k4r/10/10/10/10/10/10/R3K4R w JAja - 0 1",
    };
    for (size_t i = 0; i < sizeof CASTLING / sizeof CASTLING[0] && !bad; i++)
        for (int g = 0; g < games && !bad; g++)
            bad |= s_play_games(VARIANT_CAPARANDOM, CASTLING[i], 500 + i * 10 + (uint64_t) g, &positions);
    /* Castling-rich positions in the fixed-castling variants (king-to-square strings). */
    static const char *const BARE[] = {
        "r4k3r/pppppppppp/10/10/10/10/PPPPPPPPPP/R4K3R w KQkq - 0 1",
        "r3k4r/pppppppppp/10/10/10/10/PPPPPPPPPP/R3K4R w KQkq - 0 1",
        "r6k1r/pppppppppp/10/10/10/10/PPPPPPPPPP/R6K1R w KQkq - 0 1",
    };
    for (int v = 0; v < VARIANT_NB && !bad; v++)
        for (size_t i = 0; i < sizeof BARE / sizeof BARE[0] && !bad; i++)
            if (v != VARIANT_CAPARANDOM)
                bad |= s_play_games((variant_t) v, BARE[i], 900 + i * 10 + (uint64_t) v, &positions);
    s_send("%s", "quit\n");
    fclose(s_to);
    waitpid(s_pid, NULL, 0);
    printf("%d positions compared with Fairy-Stockfish: %s\n", positions, bad ? "MISMATCH" : "all agree");
    return bad ? 1 : 0;
}
