/* startpos.h - the start positions of a run's pairs: a pure function of the
 * run's position spec, its seed and the pair number, so that pair k of run r
 * is the same games on every machine and after every restart. The one
 * start-position module: the coordinator builds a run's TASKs with it
 * (coordinator/runinfo.h) and `capa-engine selfplay` its pairs
 * (engine/selfplay.h), with the same conventions.
 *
 * Sources:
 *   STARTPOS_CRC      a Capablanca Random Chess array drawn from (seed, k)
 *                     with crc_from_seed (or, for values runs, from
 *                     (seed, k / imbalance count), so every imbalance of a
 *                     round plays from the same array);
 *   STARTPOS_VARIANT  the variant's start position plus `random_plies`
 *                     random legal plies drawn from (seed, k);
 *   STARTPOS_BOOK     line (k + offset) mod n of a FEN list, offset drawn
 *                     from the seed (the file's SHA-256 is checked at load).
 *
 * Values runs: pairs are dealt in rounds. Round r holds one pair of every
 * imbalance that still wants more than r pairs (its `pairs`; 0 = no limit),
 * in the order of the list, so a study's imbalances progress together even
 * when their counts differ, and all pairs of a round start from the same
 * CRC array (drawn from (seed, r)). A removed pawn's file is drawn from
 * (seed, r) too. An imbalance "A vs R+N" means the side under test (B) holds an
 * archbishop where the other side holds a rook and a knight: B's colour loses
 * R and N, the other colour loses A. `fen` has B's pieces with White, `fen2`
 * with Black (docs/protocol.md "Sides"). Values runs need STARTPOS_CRC.
 *
 * Removals: which piece of a kind comes off is crc_fen_with_removed's rule
 * (engine/crc.h); a removed pawn's file is drawn here (s_pawn_files in
 * startpos.c, from (seed, round)), a different file for each pawn.
 */
#ifndef CAPA_ENGINE_STARTPOS_H
#define CAPA_ENGINE_STARTPOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STARTPOS_IMB_MAX 64      /* imbalances per values run */
#define STARTPOS_FEN_MAX 128
#define STARTPOS_LABEL_MAX 48
#define STARTPOS_PIECES_MAX 16

typedef enum { STARTPOS_CRC = 0, STARTPOS_VARIANT, STARTPOS_BOOK } startpos_source_t;

typedef struct {
    char label[STARTPOS_LABEL_MAX];      /* "A vs R+N" */
    char side[STARTPOS_PIECES_MAX];      /* pieces B holds extra: "A" */
    char other[STARTPOS_PIECES_MAX];     /* pieces the other side holds instead: "RN" */
    int64_t pairs;                       /* pairs planned for it; 0 = unlimited */
} startpos_imbalance_t;

typedef struct {
    startpos_source_t source;
    int variant;                 /* variant_t (engine/types.h) for STARTPOS_VARIANT */
    int random_plies;            /* 0..40 random plies after the start (not for values runs) */
    uint64_t seed;
    const char *const *book;     /* STARTPOS_BOOK: borrowed FEN lines */
    size_t book_count;
    const startpos_imbalance_t *imbalances;   /* values runs: borrowed; else NULL */
    size_t imbalance_count;
} startpos_spec_t;

typedef struct {
    char fen[STARTPOS_FEN_MAX];
    char fen2[STARTPOS_FEN_MAX];         /* "" = same as fen */
    char imbalance[STARTPOS_LABEL_MAX];  /* "" unless a values run */
    int crc_number;                      /* the CRC array, or -1 */
} startpos_t;

/* Parses "A vs R+N", "C vs nothing", "P vs nothing" (pieces: Q C A R B N P,
 * joined by '+', "nothing" for none; upper or lower case). The label is the
 * text as given. 0 or CAPA_EINVAL with a message. */
int startpos_imbalance_parse(const char *text, startpos_imbalance_t *out, char *err,
                             size_t errlen);

/* Which imbalance pair k plays and in which round (values runs). 0, or
 * CAPA_ERANGE when k is beyond the planned pairs of every imbalance. */
int startpos_imbalance_of(const startpos_spec_t *spec, int64_t k, size_t *imbalance,
                          int64_t *round);

/* The rounds of a values run as segments of the pair numbers, for a query
 * that must know each pair's round without the spec (the store's round
 * clustering): segment s starts at pair first_pair[s] in round
 * first_round[s] and deals width[s] pairs a round, so pair k of the last
 * segment with first_pair[s] <= k is in round
 *   first_round[s] + (k - first_pair[s]) / width[s],
 * exactly as startpos_imbalance_of says (a new segment starts where an
 * imbalance has had all its pairs). Returns the number of segments (at most
 * max, at most imbalance_count + 1), or CAPA_ERANGE (no imbalances, or
 * more segments than max). */
int startpos_round_segments(const startpos_spec_t *spec, int64_t *first_pair, int64_t *first_round,
                            int64_t *width, int max);

/* The start of pair k (k >= 0). 0, or CAPA_EINVAL / CAPA_ERANGE with a
 * message (e.g. an imbalance that removes a piece the array lacks). */
int startpos_for_pair(const startpos_spec_t *spec, int64_t k, startpos_t *out, char *err,
                      size_t errlen);

/* How many of each side's pawns in fen no piece or pawn of its own side
 * protects (attacks, with the position's occupancy): out[0] White's, out[1]
 * Black's. CRC arrays start with none; a removal can leave some (the store
 * records the difference of a values pair's start in pairs.unprotected,
 * sql/005, by a rule that tests/ compares with this function). 0 or
 * CAPA_EINVAL / CAPA_ENOMEM with a message. */
int startpos_unprotected_pawns(const char *fen, int out[2], char *err, size_t errlen);

/* The king's shelter a removal struck, per side ([0] White, [1] Black):
 * missing = how many of the files of the king and the files beside it (two
 * at the board's edge, else three: w) hold no pawn of that side; excess =
 * missing - (files with no pawn of that side) x w / 10, what it lost there
 * beyond chance: pawns come off files a..j in turn, so a removed pawn is a
 * shelter pawn with chance w / 10 and excess is 0 on average. CRC arrays
 * start with none missing; pawn odds take one from there in about three
 * arrays of ten (the store records B's excess minus A's in pairs.shelter,
 * sql/006, by a rule that tests/ compares with this function). 0 or
 * CAPA_EINVAL / CAPA_ENOMEM with a message. */
int startpos_shelter(const char *fen, int missing[2], double excess[2], char *err, size_t errlen);

/* Reads a book file: one FEN per line, '#' comments and blank lines skipped.
 * If sha256_hex is non-empty it must match the file's SHA-256 (lower-case
 * hex) or CAPA_EINVAL. *lines_p: heap array of heap strings (caller frees
 * with startpos_book_free). 0, CAPA_EIO, CAPA_EINVAL. */
int startpos_book_load(const char *path, const char *sha256_hex, char ***lines_p,
                       size_t *n_out, char *err, size_t errlen);
void startpos_book_free(char ***lines_p, size_t n);

#endif
