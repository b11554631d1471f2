/* selfplay.h - matches of game pairs between two parameter sets on threads,
 * and the `capa-engine selfplay` command. */
#ifndef CAPA_ENGINE_SELFPLAY_H
#define CAPA_ENGINE_SELFPLAY_H

#include <stdint.h>
#include <stdio.h>

#include "game.h"
#include "params.h"
#include "startpos.h"

typedef struct {
    game_config_t game;        /* limits, hash, adjudication, cap (start_fen/variant set per pair) */
    /* Where pair k starts: startpos_for_pair(&starts, k), the same module and
     * conventions as a run (the seed is starts.seed; books and imbalances
     * are borrowed). With an imbalance, B holds its pieces in both games
     * (B white in game 1 from `fen`, black in game 2 from `fen2`); without
     * one, both games start from `fen`, A white in game 1. */
    startpos_spec_t starts;
    int pairs;
    int threads;
    params_t a, b;             /* B is the side under test */
    const char *name_a, *name_b;
    FILE *pgn;                 /* NULL = no PGN; games written in pair order */
    bool pgn_comments;
    bool progress;             /* a line on stderr every few pairs */
} selfplay_config_t;

typedef struct {
    int pairs;
    int wins, draws, losses;          /* of B */
    int penta[5];                     /* pairs by B's quarter points 0..4 */
    int terminations[TERM_NB];
    int white_wins, black_wins;
    int illegal;                      /* games ended by TERM_ILLEGAL_MOVE */
    uint64_t plies, nodes;
    double seconds;                   /* wall time */
} selfplay_stats_t;

void selfplay_config_default(selfplay_config_t *cfg);
/* Plays cfg->pairs pairs (pair k from startpos_for_pair(&cfg->starts, k)). 0 or a
 * negative capa_err_t with a message (the stats then cover the pairs done). */
int selfplay_run(const selfplay_config_t *cfg, selfplay_stats_t *out, char *err, size_t errlen);
/* B's score (0..1) and the Elo difference it implies. */
double selfplay_score(const selfplay_stats_t *s);
double selfplay_elo(const selfplay_stats_t *s);
/* Prints the W/D/L, pentanomial and termination summary. */
void selfplay_print(FILE *f, const selfplay_stats_t *s);

/* capa-engine selfplay [options]; --help lists them. */
int selfplay_main(int argc, char **argv);

#endif
