/* movepick.c - staged move ordering. */
#include "movepick.h"

#include "see.h"

enum {
    STAGE_TT,
    STAGE_GEN_NOISY,
    STAGE_NOISY,
    STAGE_KILLER_1,
    STAGE_KILLER_2,
    STAGE_COUNTER,
    STAGE_GEN_QUIET,
    STAGE_QUIET,
    STAGE_BAD_NOISY,
    STAGE_DONE
};

/* What a quiet move's order score gains by taking a piece of kind t out
 * of an attack by a lesser enemy man, or loses by putting it into one. */
static const int ESCAPE_BONUS[PIECE_TYPE_NB] = { 0, 0, 8000, 8000, 12000, 16000, 16000, 16000, 0 };

/* Every square a man of colour c and kind t attacks. */
static bitboard_t s_attacked_by(const board_t *b, color_t c, piece_type_t t)
{
    bitboard_t occ = board_occupied(b), att = 0;
    for (bitboard_t x = board_pieces(b, c, t); x;)
        att |= attacks_piece(t, c, bb_pop_lsb(&x), occ);
    return att;
}

/* For each piece kind of the side to move, the squares where a lesser
 * enemy man attacks it: pawns attack minor pieces; pawns and minor pieces
 * rooks; pawns, minor pieces and rooks the compound pieces and the queen. */
static void s_threats(const board_t *b, bitboard_t threat[PIECE_TYPE_NB])
{
    color_t them = (color_t) !board_side(b);
    bitboard_t by_pawn = s_attacked_by(b, them, PAWN);
    bitboard_t by_minor = by_pawn | s_attacked_by(b, them, KNIGHT) | s_attacked_by(b, them, BISHOP);
    bitboard_t by_rook = by_minor | s_attacked_by(b, them, ROOK);
    threat[NO_PIECE_TYPE] = threat[PAWN] = threat[KING] = 0;
    threat[KNIGHT] = threat[BISHOP] = by_pawn;
    threat[ROOK] = by_minor;
    threat[ARCHBISHOP] = threat[CHANCELLOR] = threat[QUEEN] = by_rook;
}

void movepick_init(movepick_t *mp, const board_t *b, move_t tt_move, const move_t *killers,
                   const history_table_t *history, const cont_entry_t *cont, bool qsearch)
{
    mp->board = b;
    mp->history = history;
    mp->cont = cont;
    mp->qsearch = qsearch && !board_in_check(b);
    mp->killer[0] = killers ? killers[0] : MOVE_NONE;
    mp->killer[1] = killers ? killers[1] : MOVE_NONE;
    mp->counter = MOVE_NONE;
    mp->tt_move = MOVE_NONE;
    if (tt_move != MOVE_NONE && movegen_is_legal(b, tt_move)) {
        bool noisy = move_is_capture(b, tt_move) || move_is_promotion(tt_move);
        if (!mp->qsearch || noisy)
            mp->tt_move = tt_move;
    }
    mp->stage = STAGE_TT;
    mp->idx = 0;
    mp->bad_count = 0;
    mp->noisy.count = 0;
    mp->quiet.count = 0;
}

/* Moves the best-scored move of [idx, count) to idx and returns it. */
static move_t s_pick_best(move_list_t *list, int *scores, int idx)
{
    int best = idx;
    for (int i = idx + 1; i < list->count; i++)
        if (scores[i] > scores[best])
            best = i;
    move_t m = list->moves[best];
    int sc = scores[best];
    list->moves[best] = list->moves[idx];
    scores[best] = scores[idx];
    list->moves[idx] = m;
    scores[idx] = sc;
    return m;
}

static bool s_is_quiet_legal(const movepick_t *mp, move_t m)
{
    if (m == MOVE_NONE || m == mp->tt_move)
        return false;
    if (!movegen_is_legal(mp->board, m))
        return false;
    return !move_is_capture(mp->board, m) && !move_is_promotion(m);
}

void movepick_set_counter(movepick_t *mp, move_t counter)
{
    if (!mp->qsearch)
        mp->counter = counter;
}

void movepick_skip_quiets(movepick_t *mp)
{
    if (mp->stage >= STAGE_KILLER_1 && mp->stage <= STAGE_QUIET) {
        mp->stage = STAGE_BAD_NOISY;
        mp->idx = 0;
    }
}

bool movepick_losing(const movepick_t *mp)
{
    return mp->stage == STAGE_BAD_NOISY;
}

move_t movepick_next(movepick_t *mp)
{
    const board_t *b = mp->board;
    for (;;) {
        switch (mp->stage) {
        case STAGE_TT:
            mp->stage = STAGE_GEN_NOISY;
            if (mp->tt_move != MOVE_NONE)
                return mp->tt_move;
            break;
        case STAGE_GEN_NOISY:
            movegen_noisy(b, &mp->noisy);
            for (int i = 0; i < mp->noisy.count; i++) {
                move_t m = mp->noisy.moves[i];
                int victim = SEE_VALUE[move_captured_type(b, m)];
                int attacker = piece_type(board_piece_on(b, move_from(m)));
                int promo = move_is_promotion(m) ? SEE_VALUE[move_promo(m)] : 0;
                mp->noisy_score[i] = (victim + promo) * 16 - attacker;
            }
            mp->idx = 0;
            mp->stage = STAGE_NOISY;
            break;
        case STAGE_NOISY:
            while (mp->idx < mp->noisy.count) {
                move_t m = s_pick_best(&mp->noisy, mp->noisy_score, mp->idx);
                mp->idx++;
                if (m == mp->tt_move)
                    continue;
                /* Under-promotions that capture nothing go last. */
                bool minor_promo = move_is_promotion(m) && move_promo(m) != QUEEN &&
                                   !move_is_capture(b, m);
                if (minor_promo || !see_ge(b, m, 0)) {
                    mp->noisy.moves[mp->bad_count++] = m;
                    continue;
                }
                return m;
            }
            if (mp->qsearch) {
                mp->stage = STAGE_DONE;
                break;
            }
            mp->stage = STAGE_KILLER_1;
            break;
        case STAGE_KILLER_1:
            mp->stage = STAGE_KILLER_2;
            if (s_is_quiet_legal(mp, mp->killer[0]))
                return mp->killer[0];
            break;
        case STAGE_KILLER_2:
            mp->stage = STAGE_COUNTER;
            if (mp->killer[1] != mp->killer[0] && s_is_quiet_legal(mp, mp->killer[1]))
                return mp->killer[1];
            break;
        case STAGE_COUNTER:
            mp->stage = STAGE_GEN_QUIET;
            if (mp->counter != mp->killer[0] && mp->counter != mp->killer[1] &&
                s_is_quiet_legal(mp, mp->counter))
                return mp->counter;
            mp->counter = MOVE_NONE;
            break;
        case STAGE_GEN_QUIET: {
            movegen_quiet(b, &mp->quiet);
            bitboard_t threat[PIECE_TYPE_NB];
            s_threats(b, threat);
            color_t side = board_side(b);
            for (int i = 0; i < mp->quiet.count; i++) {
                move_t m = mp->quiet.moves[i];
                piece_type_t t = piece_type(board_piece_on(b, move_from(m)));
                int sc = mp->history ? (*mp->history)[side][move_from(m)][move_to(m)] : 0;
                if (mp->cont)
                    sc += (*mp->cont)[t][move_to(m)];
                bool from_att = bb_test(threat[t], move_from(m));
                bool to_att = bb_test(threat[t], move_to(m));
                if (from_att != to_att)
                    sc += from_att ? ESCAPE_BONUS[t] : -ESCAPE_BONUS[t];
                mp->quiet_score[i] = sc;
            }
            mp->idx = 0;
            mp->stage = STAGE_QUIET;
            break;
        }
        case STAGE_QUIET:
            while (mp->idx < mp->quiet.count) {
                move_t m = s_pick_best(&mp->quiet, mp->quiet_score, mp->idx);
                mp->idx++;
                if (m == mp->tt_move || m == mp->killer[0] || m == mp->killer[1] ||
                    m == mp->counter)
                    continue;
                return m;
            }
            mp->idx = 0;
            mp->stage = STAGE_BAD_NOISY;
            break;
        case STAGE_BAD_NOISY:
            if (mp->idx < mp->bad_count)
                return mp->noisy.moves[mp->idx++];
            mp->stage = STAGE_DONE;
            break;
        default:
            return MOVE_NONE;
        }
    }
}

static void s_gravity(int16_t *e, int bonus)
{
    int v = *e;
    if (bonus > MOVEPICK_HISTORY_MAX)
        bonus = MOVEPICK_HISTORY_MAX;
    if (bonus < -MOVEPICK_HISTORY_MAX)
        bonus = -MOVEPICK_HISTORY_MAX;
    v += bonus - v * (bonus < 0 ? -bonus : bonus) / MOVEPICK_HISTORY_MAX;
    *e = (int16_t) v;
}

void movepick_history_update(history_table_t *h, color_t side, move_t m, int bonus)
{
    s_gravity(&(*h)[side][move_from(m)][move_to(m)], bonus);
}

void movepick_cont_update(cont_entry_t *c, piece_type_t t, square_t to, int bonus)
{
    s_gravity(&(*c)[t][to], bonus);
}
