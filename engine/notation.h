/* notation.h - moves as text: UCI long algebraic and SAN.
 *
 * UCI: squares a1..j8, promotion suffix q c a r b n (janus: q j r b n).
 * Castling is written king-to-square ("f1i1") in capablanca, gothic, embassy
 * and janus, unless that would read as an ordinary king move (king moving
 * one file or not at all), then king-takes-rook ("f1j1"); always
 * king-takes-rook in caparandom or when chess960 is true. Parsing accepts
 * both conventions whenever the string is unambiguous.
 *
 * SAN: "Nf3", "Rad1", "exd6", "b8=A+", "O-O", "O-O-O#" (janus: "=J").
 */
#ifndef CAPA_ENGINE_NOTATION_H
#define CAPA_ENGINE_NOTATION_H

#include "board.h"
#include "types.h"

/* Room for any UCI move string / SAN string with its NUL. */
#define UCI_MOVE_MAX 8
#define SAN_MOVE_MAX 16

/* Writes square s as "a1".."j8" (buf of 3+). */
void square_to_string(square_t s, char *buf);
/* Parses "a1".."j8"; SQ_NONE for anything else. */
square_t square_from_string(const char *str);

/* Writes m (legal in b) in UCI form into buf (UCI_MOVE_MAX bytes). MOVE_NONE
 * and MOVE_NULL are written "0000". Returns 0 (CAPA_EINVAL and "0000" for a
 * value whose squares are off the board). */
int move_to_uci(const board_t *b, move_t m, bool chess960, char *buf);
/* Parses a UCI move legal in b into *m. Returns 0, CAPA_EINVAL for text that
 * is no move, CAPA_EILLEGAL for a well-formed but illegal move. */
int move_from_uci(const board_t *b, const char *str, move_t *m);

/* Writes m (legal in b) in SAN into buf (SAN_MOVE_MAX bytes), with minimal
 * disambiguation and "+"/"#". Returns 0, or CAPA_EILLEGAL (and "--") for a
 * move that is not legal in b. */
int move_to_san(const board_t *b, move_t m, char *buf);
/* Parses SAN (also accepts "0-0", missing or extra "+"/"#", "!?" suffixes,
 * promotion with or without "="). Returns 0, CAPA_EINVAL or CAPA_EILLEGAL
 * (no legal move matches, or more than one does). */
int move_from_san(const board_t *b, const char *str, move_t *m);

#endif
