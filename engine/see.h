/* see.h - static exchange evaluation: the material outcome of the capture
 * sequence on one square, both sides always recapturing with their least
 * valuable attacker (x-rays through moved sliders included; pins ignored). */
#ifndef CAPA_ENGINE_SEE_H
#define CAPA_ENGINE_SEE_H

#include <stdbool.h>

#include "board.h"

/* Fixed exchange values in centipawns (P 100 ... Q 950, K large), indexed by piece type. */
extern const int SEE_VALUE[PIECE_TYPE_NB];

/* Whether the exchange started by the legal move m gains at least threshold. */
bool see_ge(const board_t *b, move_t m, int threshold);

#endif
