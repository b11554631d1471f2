/* label.h - labels for capa tune from a UCI engine's search instead of game
 * results.
 *
 * A game's result says little about one position in it: a position 60 plies
 * before the end of a drawn game may be lost for one side. A stronger
 * engine's search score is a far less noisy label ("distillation"), and the
 * evaluation can be fitted to it with the same Texel machinery. For each
 * position the engine is reset (ucinewgame, so that the label does not
 * depend on the order of the positions), given the position and searched to
 * a node count; its last score, turned to White's view, becomes the label
 * sigmoid(cp / 400) with sigmoid(x) = 1 / (1 + 10^-x) (a mate: 1 or 0).
 * With weight w < 1 the label is w x that + (1 - w) x the game result.
 *
 * The engine must offer UCI_Variant for the positions' variants; a
 * caparandom position is sent with UCI_Chess960 on. An engine that cannot
 * be started, does not offer the variant, exits or hangs ends the labelling
 * with a message; the set is then left as it was.
 */
#ifndef CAPA_CLI_LABEL_H
#define CAPA_CLI_LABEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "texel.h"

typedef struct {
    const char *engine;    /* the UCI engine's path */
    uint64_t nodes;        /* nodes per position (go nodes N) */
    double weight;         /* share of the engine's label in [0, 1] (1) */
    int threads;           /* engine processes, each on a share of the positions (1) */
    int64_t timeout_ms;    /* longest wait for one position's search (60 s) */
    bool progress;         /* a line on stderr every 1,000 positions */
} label_opts_t;

void label_opts_default(label_opts_t *o);
/* Replaces every label of set (see above). 0, or CAPA_EINVAL / CAPA_EIO /
 * CAPA_ENOMEM with a message (the set is unchanged). */
int label_set(texel_set_t *set, const label_opts_t *o, char *err, size_t errlen);
/* The label for a side-to-move score: cp, or mate in n when mate != 0. */
double label_from_score(int cp, int mate, bool white_to_move);

#endif
