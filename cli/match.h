/* match.h - a match between two UCI engines, decided by the GSPRT.
 *
 * Pairs of games from one start position with colours swapped (game 1:
 * the first engine plays white), start positions drawn from the seed
 * (caparandom: a uniformly drawn array per pair; other variants: the
 * standard start). Each of `concurrency` threads keeps its own two engine
 * processes and plays whole pairs. Games are refereed by the rules core
 * (engine/rules.h: mate, stalemate, fifty moves, threefold, insufficient
 * material), a move cap, optional score adjudication and, at a time
 * control, the clock. An engine that crashes, hangs past its deadline or
 * plays an illegal move loses that game; it is restarted for the next one
 * and the match goes on, as in cutechess-cli. An engine that cannot be
 * (re)started stops the match with an error.
 *
 * Results are counted from the second engine's view (the first is the
 * baseline): pentanomial pair counts and W/D/L, and, with an SPRT, the
 * match stops when the LLR crosses a bound. A match may go on from the
 * counts of earlier runs (cfg.state): the counts, the estimates and the
 * SPRT then take in those pairs; games, plies, failures, move costs and
 * times are this run's.
 */
#ifndef CAPA_CLI_MATCH_H
#define CAPA_CLI_MATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats_counts.h"
#include "stats_sprt.h"
#include "types.h"

#define MATCH_MAX_OPTIONS 32

struct match_state_s;

typedef struct {
    const char *path;
    char name[64];                 /* label in output and PGN */
    int noptions;
    const char *opt_name[MATCH_MAX_OPTIONS];
    const char *opt_value[MATCH_MAX_OPTIONS];
} match_engine_t;

typedef struct {
    match_engine_t engine[2];      /* [0] baseline, [1] under test */
    variant_t variant;
    uint64_t seed;
    int64_t tc_base_ms, tc_inc_ms; /* clock mode when nodes == 0 */
    int64_t timemargin_ms;         /* overrun allowed before a time loss */
    uint64_t nodes;                /* per move; 0 = clock */
    int64_t move_timeout_ms;       /* fixed-node mode: a move taking longer is a hang */
    int64_t uci_timeout_ms;        /* start-up handshake and isready */
    int concurrency;
    int64_t max_pairs;             /* 0 = until the SPRT stops (requires sprt) */
    int max_moves;                 /* full moves, then a draw */
    int resign_moves, resign_score;            /* 0 = off */
    int draw_move_number, draw_moves, draw_score; /* draw_moves 0 = off */
    bool sprt;
    stats_sprt_params_t sprt_params;
    FILE *pgn;                     /* NULL = none */
    FILE *out;                     /* progress lines */
    int report_every;              /* pairs between status lines (>= 1) */
    /* NULL, or the counts of earlier runs to go on from, with every seed
     * played including this run's (cli/match_state.h); the match starts
     * from its counts and writes it, updated, to state_path after every
     * status line and at the end */
    struct match_state_s *state;
    const char *state_path;
    volatile int *interrupted;     /* set by a signal handler: stop after the running games */
} match_config_t;

typedef struct {
    stats_counts_t counts;         /* second engine's view, earlier runs' pairs included */
    int64_t pairs, games;          /* pairs: with earlier runs'; games: this run's */
    int64_t crashes[2], hangs[2], time_losses[2], illegal[2];  /* per engine */
    int64_t plies;
    /* per engine over the counted games: moves made, the time they took
     * (as the match measured it), and the depth of the last "info depth"
     * before each bestmove, over the moves that match_depth_counts takes */
    int64_t moves[2], move_ms[2], depth_sum[2], depth_moves[2];
    double cpu_s;                  /* engines' CPU time (children, reaped ones) */
    double wall_s;
    bool sprt_stopped;
    stats_sprt_report_t report;    /* valid when cfg.sprt */
    char error[512];               /* why the match stopped early, "" if it did not */
} match_result_t;

/* Fills the defaults: caparandom, seed 1, 10+0.1, margin 0, move timeout
 * 60 s, handshake 10 s, concurrency 1, 400 moves, no adjudication, no SPRT,
 * output to stdout, status every 10 pairs. */
void match_config_default(match_config_t *cfg);

/* Starts both engines once to check them (executable, UCI, the variant,
 * each option), then plays. 0 when the match ran (stopped by the SPRT,
 * the pair limit or an interrupt); -1 with a message in res->error when an
 * engine is unusable (at the check or on a restart). */
int match_run(const match_config_t *cfg, match_result_t *res);

/* Whether a move's reported depth enters the depth average: it reported
 * one, and its last score was not a mate. A search that has found a mate
 * runs on to its greatest depth in a few nodes (Fairy-Stockfish reports
 * depth 245 and more), so those moves would make a deep average of a few
 * mating moves. score: centipawns, MATCH_MATE_SCORE - n for a mate in n,
 * MATCH_NO_SCORE when none came. */
#define MATCH_MATE_SCORE 30000      /* a reported mate in n: +-(MATCH_MATE_SCORE - n) */
#define MATCH_NO_SCORE INT32_MIN
bool match_depth_counts(int depth, int score);

/* The report of the counts so far in one line (pairs, W/D/L, penta, Elo,
 * nElo, LLR). */
void match_status_line(const match_config_t *cfg, const match_result_t *res, char *buf,
                       size_t len);

#endif
