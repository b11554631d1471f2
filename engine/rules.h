/* rules.h - how a game ends: mate, stalemate and the draw rules. */
#ifndef CAPA_ENGINE_RULES_H
#define CAPA_ENGINE_RULES_H

#include "board.h"

typedef enum {
    RESULT_ONGOING = 0,
    RESULT_WHITE_WINS,
    RESULT_BLACK_WINS,
    RESULT_DRAW
} game_result_t;

typedef enum {
    REASON_NONE = 0,
    REASON_CHECKMATE,
    REASON_STALEMATE,
    REASON_FIFTY_MOVE,             /* 100 plies without capture or pawn move (a claim) */
    REASON_THREEFOLD,              /* third occurrence of the position (a claim) */
    REASON_FIVEFOLD,               /* fifth occurrence (automatic) */
    REASON_INSUFFICIENT_MATERIAL
} result_reason_t;

/* The state of the game in b. Checkmate takes precedence over everything
 * (a mate on the 100th ply is a mate); then stalemate, fivefold,
 * insufficient material, the fifty-move rule and threefold repetition. The
 * claimable draws (fifty-move, threefold) are reported as draws: a game
 * runner that wants to play on may ignore them. reason may be NULL. */
game_result_t rules_result(const board_t *b, result_reason_t *reason);
/* K v K, K+B v K, K+N v K, K+B v K+B with bishops on squares of one colour
 * (any number of such bishops). K+A v K and K+C v K are not draws. */
bool rules_insufficient_material(const board_t *b);
/* "checkmate", "stalemate", "fifty-move rule", ... ; never NULL. */
const char *rules_reason_name(result_reason_t r);
/* "1-0", "0-1", "1/2-1/2" or "*". */
const char *rules_result_string(game_result_t r);

#endif
