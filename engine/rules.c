/* rules.c - game end: checkmate, stalemate, repetition, fifty moves, dead material. */
#include "rules.h"

#include "movegen.h"

bool rules_insufficient_material(const board_t *b)
{
    if (board_type_bb(b, PAWN) | board_type_bb(b, ROOK) | board_type_bb(b, ARCHBISHOP) |
        board_type_bb(b, CHANCELLOR) | board_type_bb(b, QUEEN))
        return false;
    bitboard_t knights = board_type_bb(b, KNIGHT), bishops = board_type_bb(b, BISHOP);
    if (!knights && !bishops)
        return true;                          /* K v K */
    if (!bishops)
        return !bb_more_than_one(knights);    /* K+N v K */
    if (knights)
        return false;
    /* Only bishops: dead when all stand on squares of one colour. */
    bitboard_t dark = bb_dark_squares();
    return !(bishops & dark) || !(bishops & ~dark);
}

game_result_t rules_result(const board_t *b, result_reason_t *reason)
{
    result_reason_t r = REASON_NONE;
    game_result_t res = RESULT_ONGOING;
    int reps;
    if (movegen_count(b) == 0) {
        if (board_in_check(b)) {
            r = REASON_CHECKMATE;
            res = board_side(b) == WHITE ? RESULT_BLACK_WINS : RESULT_WHITE_WINS;
        } else {
            r = REASON_STALEMATE;
            res = RESULT_DRAW;
        }
    } else if ((reps = board_repetition_count(b)) >= 4) {
        r = REASON_FIVEFOLD;
        res = RESULT_DRAW;
    } else if (rules_insufficient_material(b)) {
        r = REASON_INSUFFICIENT_MATERIAL;
        res = RESULT_DRAW;
    } else if (board_halfmove_clock(b) >= 100) {
        r = REASON_FIFTY_MOVE;
        res = RESULT_DRAW;
    } else if (reps >= 2) {
        r = REASON_THREEFOLD;
        res = RESULT_DRAW;
    }
    if (reason)
        *reason = r;
    return res;
}

const char *rules_reason_name(result_reason_t r)
{
    switch (r) {
    case REASON_NONE: return "none";
    case REASON_CHECKMATE: return "checkmate";
    case REASON_STALEMATE: return "stalemate";
    case REASON_FIFTY_MOVE: return "fifty-move rule";
    case REASON_THREEFOLD: return "threefold repetition";
    case REASON_FIVEFOLD: return "fivefold repetition";
    case REASON_INSUFFICIENT_MATERIAL: return "insufficient material";
    default: return "?";
    }
}

const char *rules_result_string(game_result_t r)
{
    switch (r) {
    case RESULT_WHITE_WINS: return "1-0";
    case RESULT_BLACK_WINS: return "0-1";
    case RESULT_DRAW: return "1/2-1/2";
    default: return "*";
    }
}
