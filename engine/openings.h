/* openings.h - start positions of game pairs, rebuilt by any worker from
 * (source, run seed, pair number) alone.
 *
 * Sources: a variant's start position; a CRC array (a fixed number, or one
 * drawn from the seed and pair number with crc_from_seed); line k of a
 * FEN/EPD file. Any of them may be followed by N random legal plies (drawn
 * with splitmix64 from the seed and pair number: the same on every machine)
 * and may have a material imbalance: "X vs Y" means the side to play white
 * in game 0 of the pair keeps X where black keeps Y, i.e. white loses the
 * pieces listed in Y and black those in X ("A vs C", "A vs R+N", "C vs Q",
 * "- vs P" = pawn odds for white). Letters P N B R A C Q, joined by '+'.
 * Both colour assignments are played because a pair swaps colours.
 */
#ifndef CAPA_ENGINE_OPENINGS_H
#define CAPA_ENGINE_OPENINGS_H

#include <stdint.h>

#include "board.h"

typedef enum {
    OPENING_VARIANT_START = 0,  /* variant's start position */
    OPENING_CRC,                /* caparandom array: crc_number, or drawn when crc_number < 0 */
    OPENING_BOOK                /* line (pair_number mod lines) of a loaded FEN/EPD file */
} opening_kind_t;

typedef struct opening_book_s opening_book_t;

typedef struct {
    opening_kind_t kind;
    variant_t variant;            /* VARIANT_START and BOOK; CRC is always caparandom */
    int crc_number;               /* CRC: fixed array number, or -1 to draw per pair */
    int random_plies;             /* random legal plies played after the start */
    char imbalance[48];           /* "" or "X vs Y" */
    const opening_book_t *book;   /* BOOK: not owned */
} opening_source_t;

/* Variant start, no random plies, no imbalance. */
void opening_source_default(opening_source_t *src);

/* Parses "X vs Y" into the letters white and black lose (buffers of 16):
 * "A vs R+N" gives white_loses "RN", black_loses "A". 0 or CAPA_EINVAL. */
int opening_parse_imbalance(const char *text, char white_loses[16], char black_loses[16],
                            char *err, size_t errlen);

/* The start FEN (and its variant) of pair pair_number of a run with seed.
 * 0 or a negative capa_err_t with a message. */
int opening_for_pair(const opening_source_t *src, uint64_t seed, uint64_t pair_number,
                     char fen[FEN_MAX], variant_t *variant, char *err, size_t errlen);

/* Loads a FEN/EPD file (one position per line; '#' comments and blank lines
 * skipped; EPD operations after the four fields ignored), every line checked
 * as a position of variant v. NULL with a message on error. Caller owns it. */
opening_book_t *opening_book_load(const char *path, variant_t v, char *err, size_t errlen);
void opening_book_destroy(opening_book_t **self_p);
int opening_book_count(const opening_book_t *book);
/* Line i (0-based) as a full FEN; static storage of the book, NULL if out of range. */
const char *opening_book_fen(const opening_book_t *book, int i);

#endif
