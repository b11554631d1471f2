/* pgnread.h - games read back from PGN text (what pgn.h writes, and what
 * cutechess-cli and Fairy-Stockfish's tools write for these variants).
 *
 * Tags read: Variant (UCI_Variant names; missing = capablanca, "capablanca
 * random chess"/"crc" are not accepted spellings), FEN (missing = the
 * variant's start position) and Result. Movetext: SAN moves (notation.h),
 * move numbers, comments in braces and after ';', variations in parentheses
 * (skipped), NAGs ($n), and the game termination marker (1-0, 0-1, 1/2-1/2,
 * *). Every move is replayed on a board: a game whose FEN or a move does not
 * parse, or whose move is not legal, is an error naming the game's number
 * and the line.
 */
#ifndef CAPA_ENGINE_PGNREAD_H
#define CAPA_ENGINE_PGNREAD_H

#include <stddef.h>

#include "game.h"
#include "rules.h"

/* One game as read: where it started, its moves and its result (from the
 * Result tag, else the termination marker; RESULT_ONGOING for "*"). */
typedef struct {
    variant_t variant;
    char start_fen[FEN_MAX];
    game_result_t result;
    int plies;
    move_t moves[GAME_MAX_PLIES];
} pgn_game_t;

/* A position in PGN text: the next unread byte, its line, and how many games
 * were read. Start with { text, 1, 0 }. */
typedef struct {
    const char *p;
    int line;
    int games;
} pgn_cursor_t;

/* Reads the next game at c into *g (about 6 KB: heap or static storage).
 * Returns 1 for a game, 0 at the end of the text (only whitespace and
 * comments left), or CAPA_EINVAL / CAPA_EILLEGAL with a message such as
 * "game 3 (line 41): move 12... Xz9: no such move" (the cursor then stands
 * after the bad game, so a caller may skip it and read on). */
int pgn_read_game(pgn_cursor_t *c, pgn_game_t *g, char *err, size_t errlen);

#endif
