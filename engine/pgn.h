/* pgn.h - game records as PGN.
 *
 * Tags: the seven tag roster (Event, Site, Date, Round, White, Black,
 * Result), then Variant (lower-case UCI_Variant names, "capablanca",
 * "caparandom", ..., as cutechess-cli writes them and Fairy-Stockfish /
 * pychess-variants read them), SetUp "1" and FEN when the game did not
 * start from the variant's standard position (always for caparandom),
 * PlyCount and Termination ("normal", "adjudication", "time forfeit",
 * "rules infraction"). Moves in SAN (notation.h), optional comments
 * {score/depth} per move (score in pawns from the mover's view, "+M5" for
 * mates), a closing comment with the reason, lines of at most 80 columns.
 */
#ifndef CAPA_ENGINE_PGN_H
#define CAPA_ENGINE_PGN_H

#include <stdbool.h>
#include <stdio.h>

#include "game.h"

typedef struct {
    const char *event;   /* NULL -> "?" */
    const char *site;
    const char *date;    /* "YYYY.MM.DD"; NULL -> "????.??.??" */
    const char *round;
    const char *white;   /* parameter-set labels */
    const char *black;
    bool comments;       /* per-move score/depth comments */
} pgn_tags_t;

/* The PGN text of rec (ending with a blank line). Caller frees; NULL on
 * allocation failure or a corrupt record (a move that is not legal). */
char *pgn_format(const game_record_t *rec, const pgn_tags_t *tags);
/* pgn_format with the Termination tag and the closing comment given, for a
 * game that ended outside the rules (an engine that crashed or hung in a
 * match: "abandoned"). NULL takes them from the record's termination. */
char *pgn_format_ended(const game_record_t *rec, const pgn_tags_t *tags, const char *termination,
                       const char *reason);
/* The standard Termination tag value of a termination. */
const char *pgn_termination_tag(game_termination_t t);
/* Appends the PGN of rec to f. 0, CAPA_EIO or CAPA_ENOMEM. */
int pgn_write(FILE *f, const game_record_t *rec, const pgn_tags_t *tags);

#endif
