/* test_eval.c - the static evaluation. */
#include <ctype.h>
#include <stdlib.h>

#include "bench.h"
#include "board.h"
#include "check.h"
#include "crc.h"
#include "eval.h"
#include "movegen.h"
#include "params.h"

static board_t s_board;

/* The colour-flipped FEN: ranks mirrored, case swapped, side swapped. */
static void s_flip_fen(const char *fen, char *out)
{
    char placement[128], side[4], castle[32], ep[8];
    int half = 0, full = 1;
    sscanf(fen, "%127s %3s %31s %7s %d %d", placement, side, castle, ep, &half, &full);
    char *ranks[8];
    int n = 0;
    for (char *tok = strtok(placement, "/"); tok && n < 8; tok = strtok(NULL, "/"))
        ranks[n++] = tok;
    out[0] = 0;
    for (int i = n - 1; i >= 0; i--) {
        for (char *c = ranks[i]; *c; c++)
            *c = (char) (isupper((unsigned char) *c) ? tolower((unsigned char) *c)
                                                     : toupper((unsigned char) *c));
        strcat(out, ranks[i]);
        if (i)
            strcat(out, "/");
    }
    for (char *c = castle; *c; c++)
        if (*c != '-')
            *c = (char) (isupper((unsigned char) *c) ? tolower((unsigned char) *c)
                                                     : toupper((unsigned char) *c));
    if (ep[0] != '-')
        ep[1] = ep[1] == '3' ? '6' : '3';
    sprintf(out + strlen(out), " %s %s %s %d %d", side[0] == 'w' ? "b" : "w", castle, ep, half, full);
}

static int s_eval(const char *fen, variant_t v, const params_t *p)
{
    char err[256];
    int rc = board_set_fen(&s_board, fen, v, err, sizeof err);
    CHECK_MSG(rc == 0, "%s: %s", fen, err);
    return eval_evaluate(&s_board, p);
}

/* Stockfish 11's initiative weights in centipawns of an end-game pawn of
 * 100, the base lowered for the 20 pawns of 10x8 chess. */
static void s_initiative_params(params_t *p)
{
    params_default(p);
    p->value[PARAM_InitiativePassed] = 4;
    p->value[PARAM_InitiativePawn] = 5;
    p->value[PARAM_InitiativeOutflank] = 4;
    p->value[PARAM_InitiativeInfiltrate] = 6;
    p->value[PARAM_InitiativeBothFlanks] = 10;
    p->value[PARAM_InitiativeNoPieces] = 24;
    p->value[PARAM_InitiativeUnwinnable] = -20;
    p->value[PARAM_InitiativeBase] = -67;
    p->value[PARAM_InitiativeMgOffset] = 23;
}

/* Bench position i, its colour-flipped twin and its variant. */
static void s_bench_pair(int i, char fen[128], char flipped[160], variant_t *v)
{
    const char *vn;
    CHECK_EQ_INT(bench_position(i, &vn, fen, 128), 0);
    CHECK_EQ_INT(variant_from_name(vn, v), 0);
    s_flip_fen(fen, flipped);
}

static void colour_flipped_positions_evaluate_the_same(void)
{
    params_t p, q, r;
    params_default(&p);
    s_initiative_params(&q);
    params_default(&r);
    r.value[PARAM_MinorBehindPawnMg] = 11;
    r.value[PARAM_MinorBehindPawnEg] = 1;
    r.value[PARAM_BishopPawnsMg] = -2;
    r.value[PARAM_BishopPawnsEg] = -3;
    for (int i = 0; i < bench_count(); i++) {
        char fen[128], flipped[160];
        variant_t v;
        s_bench_pair(i, fen, flipped, &v);
        int a = s_eval(fen, v, &p), b = s_eval(flipped, v, &p);
        CHECK_MSG(a == b, "%s: %d vs flipped %s: %d", fen, a, flipped, b);
        a = s_eval(fen, v, &q), b = s_eval(flipped, v, &q);
        CHECK_MSG(a == b, "initiative: %s: %d vs flipped %s: %d", fen, a, flipped, b);
        a = s_eval(fen, v, &r), b = s_eval(flipped, v, &r);
        CHECK_MSG(a == b, "minor terms: %s: %d vs flipped %s: %d", fen, a, flipped, b);
    }
}

/* Pawn endings (phase 0, nothing scaled: White keeps four pawns), White
 * two pawns up: pawns on both flanks add InitiativeBothFlanks to the side
 * ahead, pawns on one flank nothing; a complexity below minus the score
 * takes it to zero and not beyond; the middle-game part only loses. */
static void the_initiative_goes_to_the_side_ahead_and_never_turns_the_score(void)
{
    const char *both = "4k5/p9/10/10/10/10/PP6PP/4K5 w - - 0 1";
    const char *one = "4k5/p9/10/10/10/10/PPPP6/4K5 w - - 0 1";
    params_t p, q;
    params_default(&p);
    int tempo = p.value[PARAM_Tempo];
    q = p;
    q.value[PARAM_InitiativeBothFlanks] = 50;
    int plain = s_eval(both, VARIANT_CAPABLANCA, &p);
    CHECK_EQ_INT(eval_phase(&s_board), 0);
    CHECK(plain - tempo > 100);
    CHECK_EQ_INT(s_eval(both, VARIANT_CAPABLANCA, &q), plain + 50);
    CHECK_EQ_INT(s_eval(one, VARIANT_CAPABLANCA, &q), s_eval(one, VARIANT_CAPABLANCA, &p));
    /* Black to move: the side ahead still gains, the score is Black's */
    const char *both_b = "4k5/p9/10/10/10/10/PP6PP/4K5 b - - 0 1";
    CHECK_EQ_INT(s_eval(both_b, VARIANT_CAPABLANCA, &q), s_eval(both_b, VARIANT_CAPABLANCA, &p) - 50);
    q = p;
    q.value[PARAM_InitiativeBase] = -500;
    CHECK_EQ_INT(s_eval(both, VARIANT_CAPABLANCA, &q), tempo);
    q.value[PARAM_InitiativeBase] = -40;
    CHECK_EQ_INT(s_eval(both, VARIANT_CAPABLANCA, &q), plain - 40);
    /* The start position: level, so nothing to take from or add to. */
    const char *start = "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
    s_initiative_params(&q);
    CHECK_EQ_INT(s_eval(start, VARIANT_CAPABLANCA, &q), tempo);
    /* A middle game a knight up: a complexity + offset below zero takes from
     * the middle-game part, which a positive one never adds to. */
    const char *knight_up = "r1abqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
    int base = s_eval(knight_up, VARIANT_CAPABLANCA, &p);
    q = p;
    q.value[PARAM_InitiativeMgOffset] = 300;
    CHECK_EQ_INT(s_eval(knight_up, VARIANT_CAPABLANCA, &q), base);
    q.value[PARAM_InitiativeMgOffset] = -60;
    CHECK(s_eval(knight_up, VARIANT_CAPABLANCA, &q) < base);
}

static void every_evaluation_weight_has_a_group_and_no_search_parameter_does(void)
{
    for (int i = 0; i < params_count(); i++) {
        const param_info_t *info = params_info(i);
        eval_term_t t = eval_term_of(i);
        if (info->search)
            CHECK_MSG(t == EVAL_TERM_NB, "%s is in group %s", info->name, eval_term_name(t));
        else
            CHECK_MSG(t < EVAL_TERM_NB, "%s has no group", info->name);
    }
    CHECK_EQ_INT(eval_term_of(PARAM_ArchbishopValueEg), EVAL_TERM_MATERIAL);
    CHECK_EQ_INT(eval_term_of(PARAM_KingCentreMg), EVAL_TERM_PLACEMENT);
    CHECK_EQ_INT(eval_term_of(PARAM_KingDangerCapMg), EVAL_TERM_KING_DANGER);
    CHECK_EQ_INT(eval_term_of(PARAM_PawnPushThreatEg), EVAL_TERM_THREATS);
    CHECK_EQ_INT(eval_term_of(PARAM_PassedUnstoppableEg), EVAL_TERM_PASSED);
    CHECK_EQ_INT(eval_term_of(PARAM_ScaleNoPawns), EVAL_TERM_ENDGAME);
}

/* Material only: the material group and the tempo are the whole score and
 * every other group is 0; under the defaults a colour-flipped position has
 * every group negated. */
static void the_terms_of_a_position_are_each_groups_share_from_whites_view(void)
{
    const char *fen = "rnb1qkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR b KQkq - 0 1";
    params_t p;
    params_default(&p);
    params_material_only(&p);
    CHECK_EQ_INT(board_set_fen(&s_board, fen, VARIANT_CAPABLANCA, NULL, 0), 0);
    int terms[EVAL_TERM_NB];
    int white = eval_terms(&s_board, &p, terms);
    CHECK_EQ_INT(white, -eval_evaluate(&s_board, &p));
    CHECK(terms[EVAL_TERM_MATERIAL] > 800);
    CHECK_EQ_INT(terms[EVAL_TERM_TEMPO], -p.value[PARAM_Tempo]);
    CHECK_EQ_INT(terms[EVAL_TERM_MATERIAL] + terms[EVAL_TERM_TEMPO], white);
    for (int t = 0; t < EVAL_TERM_NB; t++)
        if (t != EVAL_TERM_MATERIAL && t != EVAL_TERM_TEMPO)
            CHECK_MSG(terms[t] == 0, "%s: %d", eval_term_name((eval_term_t) t), terms[t]);
    params_default(&p);
    for (int i = 0; i < bench_count(); i++) {
        char a[128], flipped[160];
        variant_t v;
        s_bench_pair(i, a, flipped, &v);
        int ta[EVAL_TERM_NB], tb[EVAL_TERM_NB];
        CHECK_EQ_INT(board_set_fen(&s_board, a, v, NULL, 0), 0);
        int wa = eval_terms(&s_board, &p, ta);
        CHECK_EQ_INT(board_set_fen(&s_board, flipped, v, NULL, 0), 0);
        int wb = eval_terms(&s_board, &p, tb);
        CHECK_MSG(wa == -wb, "%s: %d vs flipped %d", a, wa, wb);
        for (int t = 0; t < EVAL_TERM_NB; t++)
            CHECK_MSG(ta[t] == -tb[t], "%s: %s %d vs flipped %d", a,
                      eval_term_name((eval_term_t) t), ta[t], tb[t]);
    }
}

static void the_start_position_is_about_level(void)
{
    params_t p;
    params_default(&p);
    int e = s_eval("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
                   VARIANT_CAPABLANCA, &p);
    CHECK_EQ_INT(e, p.value[PARAM_Tempo]);
}

static void a_piece_value_parameter_moves_the_score_by_the_phase_share(void)
{
    /* Black lacks its archbishop: phase 36 of 40, so +100 on ArchbishopValueMg
     * and +100 on ArchbishopValueEg move White's score by exactly 100. */
    const char *fen = "rnb1qkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1";
    params_t p, q;
    params_default(&p);
    q = p;
    q.value[PARAM_ArchbishopValueMg] += 100;
    int base = s_eval(fen, VARIANT_CAPABLANCA, &p);
    int mg_only = s_eval(fen, VARIANT_CAPABLANCA, &q);
    CHECK_EQ_INT(eval_phase(&s_board), 36);
    CHECK_NEAR(mg_only - base, 90, 1);
    q.value[PARAM_ArchbishopValueEg] += 100;
    CHECK_NEAR(s_eval(fen, VARIANT_CAPABLANCA, &q) - base, 100, 1);
    CHECK(base > 700);
}

static void the_score_is_from_the_side_to_move(void)
{
    params_t p;
    params_default(&p);
    int w = s_eval("rnb1qkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
                   VARIANT_CAPABLANCA, &p);
    int b = s_eval("rnb1qkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR b KQkq - 0 1",
                   VARIANT_CAPABLANCA, &p);
    CHECK_EQ_INT(w - p.value[PARAM_Tempo], -(b - p.value[PARAM_Tempo]));
}

static void a_passed_pawn_is_worth_more_the_further_it_stands(void)
{
    params_t p;
    params_default(&p);
    int r4 = s_eval("4k5/10/10/10/1P8/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA, &p);
    int r6 = s_eval("4k5/10/1P8/10/10/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA, &p);
    int r7 = s_eval("4k5/1P8/10/10/10/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA, &p);
    CHECK(r4 < r6 && r6 < r7);
    /* Blocked by an enemy pawn ahead: no passed bonus. */
    int blocked = s_eval("4k5/1p8/10/10/1P8/10/10/4K5 w - - 0 1", VARIANT_CAPABLANCA, &p);
    CHECK(blocked < r4 - 50);
}

static void material_only_parameters_score_material_alone(void)
{
    params_t p;
    params_default(&p);
    params_material_only(&p);
    /* Doubled, isolated pawns and a king far off: no positional term counts. */
    int e = s_eval("4k5/10/10/10/10/3P6/3P6/K9 w - - 0 1", VARIANT_CAPABLANCA, &p);
    CHECK_EQ_INT(e, 200);
}

static void an_archbishop_without_pawns_is_not_scaled_down_to_a_draw(void)
{
    params_t p;
    params_default(&p);
    int a = s_eval("10/10/4k5/10/10/10/10/A4K4 w - - 0 1", VARIANT_CAPABLANCA, &p);
    int n = s_eval("10/10/4k5/10/10/10/10/N4K4 w - - 0 1", VARIANT_CAPABLANCA, &p);
    CHECK(a > 700);
    CHECK(n < 150);
}

/* The defaults, and the defaults without the end-game scale. */
static void s_scale_params(params_t *p, params_t *unscaled)
{
    params_default(p);
    *unscaled = *p;
    unscaled->value[PARAM_ScaleNoPawns] = 0;
    unscaled->value[PARAM_ScalePerPawn] = 0;
    unscaled->value[PARAM_ScaleOppositeBishops] = 0;
}

static void the_end_game_part_is_scaled_down_with_few_pawns_of_the_side_ahead(void)
{
    /* Kings and pawns only (phase 0, all end game); White's pawns on the
     * sixth rank, Black keeps one pawn so no king is bare. White's share
     * kept: 64 - max(0, 28 - 7 x pawns). */
    static const char *const FENS[] = {
        "4k5/9p/P9/10/10/10/10/4K5 w - - 0 1",
        "4k5/9p/PP8/10/10/10/10/4K5 w - - 0 1",
        "4k5/9p/PPP7/10/10/10/10/4K5 w - - 0 1",
        "4k5/9p/PPPP6/10/10/10/10/4K5 w - - 0 1",
        "4k5/9p/PPPPP5/10/10/10/10/4K5 w - - 0 1",
    };
    static const int KEEP[] = { 43, 50, 57, 64, 64 };
    params_t p, unscaled;
    s_scale_params(&p, &unscaled);
    int tempo = p.value[PARAM_Tempo];
    for (int i = 0; i < 5; i++) {
        int full = s_eval(FENS[i], VARIANT_CAPABLANCA, &unscaled) - tempo;
        int kept = s_eval(FENS[i], VARIANT_CAPABLANCA, &p) - tempo;
        CHECK_EQ_INT(eval_phase(&s_board), 0);
        CHECK_MSG(full > 0, "%s: %d", FENS[i], full);
        CHECK_MSG(kept == full * KEEP[i] / 64, "%s: %d of %d, %d/64 expected", FENS[i], kept, full,
                  KEEP[i]);
    }
    /* Against a bare king nothing is scaled: the mop-up leads the win. */
    const char *bare = "4k5/10/10/10/10/10/P9/4K5 w - - 0 1";
    CHECK_EQ_INT(s_eval(bare, VARIANT_CAPABLANCA, &p), s_eval(bare, VARIANT_CAPABLANCA, &unscaled));
}

static void opposite_coloured_bishops_scale_the_end_game_down(void)
{
    /* White is three pawns up with four pawns (nothing scaled by the pawn
     * count); the bishops on c1 and e8 stand on squares of opposite colours,
     * on c1 and d8 on the same colour. */
    const char *opposite = "4bk4/9p/10/10/10/10/PPPP6/2B1K5 w - - 0 1";
    const char *same = "3b1k4/9p/10/10/10/10/PPPP6/2B1K5 w - - 0 1";
    params_t p, unscaled;
    s_scale_params(&p, &unscaled);
    int tempo = p.value[PARAM_Tempo];
    CHECK_EQ_INT(s_eval(same, VARIANT_CAPABLANCA, &p), s_eval(same, VARIANT_CAPABLANCA, &unscaled));
    int full = s_eval(opposite, VARIANT_CAPABLANCA, &unscaled) - tempo;
    int kept = s_eval(opposite, VARIANT_CAPABLANCA, &p) - tempo;
    CHECK_MSG(full > 100, "%d", full);
    /* the end-game part keeps 22/64; the middle-game part (phase 2 of 40)
     * is untouched, so the score lands a little above that share */
    CHECK_MSG(kept < full * 30 / 64 && kept > full * 18 / 64, "%d of %d", kept, full);
    /* One more piece each (knights) and the bishops are no longer alone. */
    const char *with_knights = "4bkn3/9p/10/10/10/10/PPPP6/2B1KN4 w - - 0 1";
    CHECK_EQ_INT(s_eval(with_knights, VARIANT_CAPABLANCA, &p),
                 s_eval(with_knights, VARIANT_CAPABLANCA, &unscaled));
}

/* Sets one parameter of the defaults and evaluates fen (Capablanca). */
static int s_eval_with(const char *fen, const char *name, int value)
{
    params_t p;
    char err[256];
    params_default(&p);
    CHECK_EQ_INT(params_set(&p, name, value, err, sizeof err), 0);
    return s_eval(fen, VARIANT_CAPABLANCA, &p);
}

static void a_chancellors_knight_jumps_count_against_the_king(void)
{
    /* The chancellor on h5 reaches Black's king zone (f8) only by its knight
     * jumps (g7, f6); a rook on h5 does not reach it at all. */
    const char *chancellor = "r4k4/4ppp3/10/7C2/10/10/2PPPPPP2/3Q1K4 w - - 0 1";
    const char *rook = "r4k4/4ppp3/10/7R2/10/10/2PPPPPP2/3Q1K4 w - - 0 1";
    params_t p;
    params_default(&p);
    CHECK(s_eval(chancellor, VARIANT_CAPABLANCA, &p) >
          s_eval_with(chancellor, "KingAttackChancellor", 0));
    CHECK_EQ_INT(s_eval(rook, VARIANT_CAPABLANCA, &p), s_eval_with(rook, "KingAttackRook", 0));
}

static void king_danger_needs_a_queen_chancellor_or_archbishop(void)
{
    /* Two rooks attack Black's king zone (e6, e7, g7): no danger term
     * without a heavier piece to lead the attack; with an archbishop, one. */
    const char *rooks = "r4k4/4ppp3/10/10/4R5/6R3/2PPPPPP2/5K4 w - - 0 1";
    const char *with_a = "r4k4/4ppp3/10/10/4R5/6R3/2PPPPPP2/A4K4 w - - 0 1";
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(s_eval(rooks, VARIANT_CAPABLANCA, &p), s_eval_with(rooks, "KingDangerMg", 0));
    CHECK(s_eval(with_a, VARIANT_CAPABLANCA, &p) > s_eval_with(with_a, "KingDangerMg", 0));
}

static void king_danger_grows_faster_than_the_attack_and_stops_at_its_cap(void)
{
    /* Doubling every attack weight more than doubles the penalty; a cap of
     * zero removes it. */
    const char *fen = "r1b2k3r/pp3ppppp/2n7/2ap2q3/10/2NB1Q4/PPP2PPPPP/R3AK3R w - - 0 12";
    params_t p, twice;
    params_default(&p);
    twice = p;
    static const param_id_t W[] = { PARAM_KingAttackKnight, PARAM_KingAttackBishop,
                                    PARAM_KingAttackRook, PARAM_KingAttackArchbishop,
                                    PARAM_KingAttackChancellor, PARAM_KingAttackQueen,
                                    PARAM_KingSafeCheck };
    for (size_t i = 0; i < sizeof W / sizeof W[0]; i++)
        twice.value[W[i]] *= 2;
    twice.value[PARAM_KingDangerCapMg] = 2000;
    int none = s_eval_with(fen, "KingDangerCapMg", 0);
    int base = s_eval(fen, VARIANT_CAPABLANCA, &p);
    int doubled = s_eval(fen, VARIANT_CAPABLANCA, &twice);
    CHECK(none > base);  /* White to move is the side under attack */
    CHECK_MSG(none - doubled > 3 * (none - base), "none %d base %d doubled %d", none, base, doubled);
}

/* One term alone in fen: the score (from the side to move) with
 * material-only parameters and the term's mg and eg weights (eg may be -1:
 * none) at v, less the same with them at 0. */
static int s_term(const char *fen, int mg, int eg, int v)
{
    params_t p;
    params_default(&p);
    params_material_only(&p);
    int without = s_eval(fen, VARIANT_CAPABLANCA, &p);
    p.value[mg] = v;
    if (eg >= 0)
        p.value[eg] = v;
    return s_eval(fen, VARIANT_CAPABLANCA, &p) - without;
}

static int s_knight_mobility(const char *fen)
{
    return s_term(fen, PARAM_KnightMobilityMg, PARAM_KnightMobilityEg, 8);
}

static void mobility_counts_squares_of_own_pieces_but_not_own_pawns_king_or_enemy_pawn_attacks(void)
{
    /* The knight on e4 reaches c3, c5, d2, d6, f2, f6, g3 and g5; the piece
     * moved between g3 and a square it does not reach. With the weight at 8,
     * 8 squares are worth 53 x 8 / 16 = 26 and 7 squares 41 x 8 / 16 = 20
     * (the curve 2 sqrt(4 n) - 8 in sixteenths, rounded; the side's sum
     * divided by 16, towards zero): one square less costs 6. */
    const char *empty = "9k/p9/10/10/4N5/10/8PP/K9 w - - 0 1";
    int base = s_knight_mobility(empty);
    CHECK_EQ_INT(base, 26);
    CHECK_EQ_INT(s_knight_mobility("9k/p9/10/10/4N5/6R3/8PP/K9 w - - 0 1"), base);
    CHECK_EQ_INT(s_knight_mobility("9k/p9/10/10/4N5/6P3/8PP/K9 w - - 0 1"), base - 6);
    CHECK_EQ_INT(s_knight_mobility("9k/p9/10/10/4N5/6K3/8PP/10 w - - 0 1"), base - 6);
    /* A black pawn on h4 attacks g3 (and i3, which the knight does not reach). */
    CHECK_EQ_INT(s_knight_mobility("9k/10/10/10/4N2p2/10/8PP/K9 w - - 0 1"), base - 6);
    /* An enemy piece on g3 not defended by a pawn is a square like any other. */
    CHECK_EQ_INT(s_knight_mobility("9k/p9/10/10/4N5/6r3/8PP/K9 w - - 0 1"), base);
}

static void mobility_counts_less_per_square_the_freer_the_piece(void)
{
    /* The knight on a1 reaches b3 and c2; a pawn of ours on c2 leaves it b3
     * alone: 2 squares are -37 sixteenths, 1 square -64, so with the weight
     * at 8 they score -18 (-18.5 towards zero) and -32: the lost square
     * costs 14, more than twice the 6 that one of the e4 knight's 8 costs. */
    int two = s_knight_mobility("9k/p9/10/10/10/10/8PP/N8K w - - 0 1");
    int one = s_knight_mobility("9k/p9/10/10/10/10/2P5PP/N8K w - - 0 1");
    CHECK_EQ_INT(two, -18);
    CHECK_EQ_INT(one, -32);
    int free_loss = s_knight_mobility("9k/p9/10/10/4N5/10/8PP/K9 w - - 0 1") -
                    s_knight_mobility("9k/p9/10/10/4N5/6P3/8PP/K9 w - - 0 1");
    CHECK(two - one > 2 * free_loss);
}

static void a_backward_pawn_is_one_whose_neighbours_have_gone_ahead_and_whose_stop_is_guarded(void)
{
    /* e3: its neighbour d4 stands ahead, and the pawn on f5 guards e4. */
    const char *fen = "9k/10/10/5p4/3P6/4P5/10/K9 w - - 0 1";
    CHECK_EQ_INT(s_term(fen, PARAM_BackwardPawnMg, PARAM_BackwardPawnEg, -20), -20);
    /* Nothing guards e4: not backward. */
    CHECK_EQ_INT(s_term("9k/10/10/10/3P6/4P5/10/K9 w - - 0 1", PARAM_BackwardPawnMg,
                        PARAM_BackwardPawnEg, -20), 0);
    /* A neighbour beside it: connected, not backward. */
    CHECK_EQ_INT(s_term("9k/10/10/5p4/3P6/3PP5/10/K9 w - - 0 1", PARAM_BackwardPawnMg,
                        PARAM_BackwardPawnEg, -20), 0);
}

static void an_outpost_is_a_defended_square_no_enemy_pawn_can_attack(void)
{
    const char *fen = "9k/10/10/4N5/3P6/10/10/K9 w - - 0 1";
    CHECK_EQ_INT(s_term(fen, PARAM_KnightOutpostMg, PARAM_KnightOutpostEg, 30), 30);
    /* The pawn on f7 can come to f6 and attack it. */
    CHECK_EQ_INT(s_term("9k/5p4/10/4N5/3P6/10/10/K9 w - - 0 1", PARAM_KnightOutpostMg,
                        PARAM_KnightOutpostEg, 30), 0);
    /* Not defended by a pawn. */
    CHECK_EQ_INT(s_term("9k/10/10/4N5/10/3P6/10/K9 w - - 0 1", PARAM_KnightOutpostMg,
                        PARAM_KnightOutpostEg, 30), 0);
    /* The archbishop counts as a knight, the bishop has its own weight. */
    CHECK_EQ_INT(s_term("9k/10/10/4A5/3P6/10/10/K9 w - - 0 1", PARAM_KnightOutpostMg,
                        PARAM_KnightOutpostEg, 30), 30);
    CHECK_EQ_INT(s_term("9k/10/10/4B5/3P6/10/10/K9 w - - 0 1", PARAM_BishopOutpostMg,
                        PARAM_BishopOutpostEg, 30), 30);
}

static void a_rook_or_chancellor_on_the_seventh_needs_pawns_there_or_the_king_behind(void)
{
    CHECK_EQ_INT(s_term("4k5/2R7/10/10/10/10/10/K9 w - - 0 1", PARAM_RookSeventhMg,
                        PARAM_RookSeventhEg, 25), 25);
    CHECK_EQ_INT(s_term("10/2C4p2/10/7k2/10/10/10/K9 w - - 0 1", PARAM_RookSeventhMg,
                        PARAM_RookSeventhEg, 25), 25);
    CHECK_EQ_INT(s_term("10/2R7/4k5/10/10/10/10/K9 w - - 0 1", PARAM_RookSeventhMg,
                        PARAM_RookSeventhEg, 25), 0);
}

static int s_behind(const char *fen)
{
    return s_term(fen, PARAM_MinorBehindPawnMg, PARAM_MinorBehindPawnEg, 20);
}

static void a_knight_or_bishop_with_a_pawn_in_front_of_it_is_behind_a_pawn(void)
{
    /* (each side keeps a pawn on the a- or j-file, in no minor's way, so
     * that no score is quartered for want of pawns) */
    /* Black's pawn in front of the knight, White's own in front of the bishop. */
    CHECK_EQ_INT(s_behind("9k/9p/10/4p5/4N5/10/P9/K9 w - - 0 1"), 20);
    CHECK_EQ_INT(s_behind("9k/9p/10/10/3P6/3B6/P9/K9 w - - 0 1"), 20);
    /* A pawn behind the knight, or diagonally in front of it: nothing. */
    CHECK_EQ_INT(s_behind("9k/9p/10/10/4N5/4P5/P9/K9 w - - 0 1"), 0);
    CHECK_EQ_INT(s_behind("9k/9p/10/5p4/4N5/10/P9/K9 w - - 0 1"), 0);
    /* Black's knight on e5 looks toward the first rank: White's pawn on e4
     * is in front of it. The archbishop is not a minor piece. */
    CHECK_EQ_INT(s_behind("9k/9p/10/4n5/4P5/10/P9/K9 w - - 0 1"), -20);
    CHECK_EQ_INT(s_behind("9k/9p/10/4p5/4A5/10/P9/K9 w - - 0 1"), 0);
    /* At home behind its own pawn, or on the second rank: not developed. */
    CHECK_EQ_INT(s_behind("9k/9p/10/10/10/10/P1P7/K1N7 w - - 0 1"), 0);
    CHECK_EQ_INT(s_behind("9k/9p/10/10/10/4P5/P3B5/K9 w - - 0 1"), 0);
    CHECK_EQ_INT(s_behind("k1n7/p1p7/10/10/10/10/P9/K9 w - - 0 1"), 0);
    CHECK_EQ_INT(s_behind("k9/p9/2n7/2p7/10/10/P9/K9 w - - 0 1"), -20);
}

static int s_bishop_pawns(const char *fen)
{
    return s_term(fen, PARAM_BishopPawnsMg, PARAM_BishopPawnsEg, -3);
}

static void a_bishop_counts_its_pawns_on_its_colour_more_with_the_centre_blocked(void)
{
    /* The bishop on c1 is on a1's colour, as are the pawns on a3, c3, e3 and
     * g3 (not b3): 4 pawns, times 1 (not defended by a pawn, none blocked). */
    CHECK_EQ_INT(s_bishop_pawns("9k/10/10/10/10/PPP1P1P3/10/2B1K5 w - - 0 1"), -12);
    /* Black's pawn on e4 blocks e3, on the central files: times 2. */
    CHECK_EQ_INT(s_bishop_pawns("9k/10/10/10/4p5/PPP1P1P3/10/2B1K5 w - - 0 1"), -24);
    /* On d4, defended by the pawns on c3 and e3: times 0, then times 1 with
     * e3 blocked; a pawn blocked on the c-file is not on the central files. */
    CHECK_EQ_INT(s_bishop_pawns("9k/10/10/10/3B6/PPP1P1P3/10/4K5 w - - 0 1"), 0);
    CHECK_EQ_INT(s_bishop_pawns("9k/10/10/10/3Bp5/PPP1P1P3/10/4K5 w - - 0 1"), -12);
    CHECK_EQ_INT(s_bishop_pawns("9k/10/10/10/2pB6/PPP1P1P3/10/4K5 w - - 0 1"), 0);
    /* On a light square, only b3 counts. */
    CHECK_EQ_INT(s_bishop_pawns("9k/10/10/10/10/PPP1P1P3/10/3BK5 w - - 0 1"), -3);
}

static void a_passed_pawn_with_a_free_path_counts_more_by_rank(void)
{
    /* b6: relative rank 5, so 3 x the weight; the rook on h8 attacks b8. */
    const char *free_path = "9k/10/1P8/10/10/10/10/K9 w - - 0 1";
    const char *guarded = "7r1k/10/1P8/10/10/10/10/K9 w - - 0 1";
    CHECK_EQ_INT(s_term(free_path, PARAM_PassedFreeMg, PARAM_PassedFreeEg, 10), 30);
    CHECK_EQ_INT(s_term(guarded, PARAM_PassedFreeMg, PARAM_PassedFreeEg, 10), 0);
    CHECK_EQ_INT(s_term(guarded, PARAM_PassedEmptyMg, PARAM_PassedEmptyEg, 10), 30);
    /* Blocked on b7: neither. */
    CHECK_EQ_INT(s_term("7r1k/1n8/1P8/10/10/10/10/K9 w - - 0 1", PARAM_PassedEmptyMg,
                        PARAM_PassedEmptyEg, 10), 0);
}

static void a_pawn_the_bare_king_cannot_catch_is_unstoppable(void)
{
    /* b4 needs four moves; the king on g5 needs five to b8: it is too far
     * with White to move, and just in time with Black to move. */
    CHECK_EQ_INT(s_term("10/10/10/6k3/1P8/10/10/K9 w - - 0 1", PARAM_PassedUnstoppableEg, -1, 300),
                 300);
    CHECK_EQ_INT(s_term("10/10/10/6k3/1P8/10/10/K9 b - - 0 1", PARAM_PassedUnstoppableEg, -1, 300),
                 0);
    /* From the second rank the double step saves a move: b2 needs five. */
    CHECK_EQ_INT(s_term("10/10/10/6k3/10/10/1P8/K9 w - - 0 1", PARAM_PassedUnstoppableEg, -1, 300),
                 0);
    CHECK_EQ_INT(s_term("10/10/10/7k2/10/10/1P8/K9 w - - 0 1", PARAM_PassedUnstoppableEg, -1, 300),
                 300);
    /* Its own king in the way, or a knight on the other side: not counted. */
    CHECK_EQ_INT(s_term("10/10/1K8/6k3/1P8/10/10/10 w - - 0 1", PARAM_PassedUnstoppableEg, -1, 300),
                 0);
    CHECK_EQ_INT(s_term("10/10/10/6k3/1P8/10/10/K8n w - - 0 1", PARAM_PassedUnstoppableEg, -1, 300),
                 0);
}

static void a_king_file_without_a_pawn_of_ours_is_open(void)
{
    /* White's king on f1: its files are e, f and g. Phase 40, so a
     * middle-game weight counts whole. */
    CHECK_EQ_INT(s_term("rnabqkbcnr/pppppppppp/10/10/10/10/PPPPP1PPPP/RNABQKBCNR w KQkq - 0 1",
                        PARAM_KingOpenFileMg, -1, -15), -15);
    /* A pawn ahead of the king on that file, on any rank, shuts it. */
    CHECK_EQ_INT(s_term("rnabqkbcnr/pppppppppp/10/10/10/5P4/PPPPP1PPPP/RNABQKBCNR w KQkq - 0 1",
                        PARAM_KingOpenFileMg, -1, -15), 0);
    /* A missing pawn away from the king's files does not count. */
    CHECK_EQ_INT(s_term("rnabqkbcnr/pppppppppp/10/10/10/10/1PPPPPPPPP/RNABQKBCNR w KQkq - 0 1",
                        PARAM_KingOpenFileMg, -1, -15), 0);
}

static void an_enemy_pawn_near_the_kings_files_storms_it(void)
{
    /* Black's g-pawn on g4 is three ranks from White's king on f1; on g3
     * two ranks (twice the weight); on g5 too far. */
    const char *g4 = "rnabqkbcnr/pppppp1ppp/10/10/6p3/10/PPPPPP1PPP/RNABQKBCNR w KQkq - 0 1";
    const char *g3 = "rnabqkbcnr/pppppp1ppp/10/10/10/6p3/PPPPPP1PPP/RNABQKBCNR w KQkq - 0 1";
    const char *g5 = "rnabqkbcnr/pppppp1ppp/10/6p3/10/10/PPPPPP1PPP/RNABQKBCNR w KQkq - 0 1";
    CHECK_EQ_INT(s_term(g4, PARAM_KingStormMg, -1, -8), -8);
    CHECK_EQ_INT(s_term(g3, PARAM_KingStormMg, -1, -8), -16);
    CHECK_EQ_INT(s_term(g5, PARAM_KingStormMg, -1, -8), 0);
}

static void a_king_zone_square_only_the_king_defends_adds_danger(void)
{
    /* The rook on the open h-file attacks h7, which only Black's king on i8
     * defends; a knight on g5 defends it too, and then the weight does
     * nothing. White's queen leads the attack. */
    const char *weak = "8k1/7ppp/10/10/10/10/Q9/K6R2 w - - 0 1";
    const char *defended = "8k1/7ppp/10/6n3/10/10/Q9/K6R2 w - - 0 1";
    CHECK(s_eval_with(weak, "KingWeakSquare", 40) > s_eval_with(weak, "KingWeakSquare", 0));
    CHECK_EQ_INT(s_eval_with(defended, "KingWeakSquare", 40),
                 s_eval_with(defended, "KingWeakSquare", 0));
}

static void a_compound_piece_attacked_by_a_lesser_one_is_threatened(void)
{
    /* The rook on c1 attacks the chancellor on c5 (and is attacked back:
     * no threat for Black, since a rook is worth less). A pawn each keeps
     * the drawish-material scaling out of the figures. */
    CHECK_EQ_INT(s_term("9k/9p/10/2c7/10/10/P9/K1R7 w - - 0 1", PARAM_ThreatByLesserMg,
                        PARAM_ThreatByLesserEg, 20), 20);
    /* A chancellor attacking an archbishop, or a rook a rook: nothing. */
    CHECK_EQ_INT(s_term("9k/9p/10/2a7/10/10/P9/K1C7 w - - 0 1", PARAM_ThreatByLesserMg,
                        PARAM_ThreatByLesserEg, 20), 0);
    CHECK_EQ_INT(s_term("9k/9p/10/2r7/10/10/P9/K1R7 w - - 0 1", PARAM_ThreatByLesserMg,
                        PARAM_ThreatByLesserEg, 20), 0);
}

static void a_safe_pawn_push_that_would_attack_a_piece_is_a_threat(void)
{
    /* d3-d4 would attack the knight on e5; with a black pawn on c5 guarding
     * d4 the push is not safe. */
    CHECK_EQ_INT(s_term("9k/9p/10/4n5/10/3P6/P9/K9 w - - 0 1", PARAM_PawnPushThreatMg,
                        PARAM_PawnPushThreatEg, 12), 12);
    CHECK_EQ_INT(s_term("9k/9p/10/2p1n5/10/3P6/P9/K9 w - - 0 1", PARAM_PawnPushThreatMg,
                        PARAM_PawnPushThreatEg, 12), 0);
    /* A blocked pawn threatens nothing. */
    CHECK_EQ_INT(s_term("9k/9p/10/4n5/3r6/3P6/P9/K9 w - - 0 1", PARAM_PawnPushThreatMg,
                        PARAM_PawnPushThreatEg, 12), 0);
}

/* A threat term's cases: each position's score with the term's Mg and Eg
 * weights at 20, less its score with both at 0 (White's view). */
typedef struct {
    const char *fen;
    int want;
} threat_case_t;

static void s_threat_cases(int mg, int eg, const threat_case_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int got = s_term(c[i].fen, mg, eg, 20);
        CHECK_MSG(got == c[i].want, "%s: %d, want %d", c[i].fen, got, c[i].want);
    }
}

static void a_rook_threatens_a_minor_no_pawn_defends(void)
{
    /* The rook on c1 attacks the knight on c5; Black's rook on c8 the
     * bishop on c4. A pawn on b6 defends c5; a chancellor is not a rook. */
    static const threat_case_t cases[] = {
        { "9k/9p/10/2n7/10/10/P9/K1R7 w - - 0 1", 20 },
        { "k1r7/p9/10/10/2B7/10/9P/9K w - - 0 1", -20 },
        { "9k/9p/1p8/2n7/10/10/P9/K1R7 w - - 0 1", 0 },
        { "9k/9p/10/2n7/10/10/P9/K1C7 w - - 0 1", 0 },
    };
    s_threat_cases(PARAM_ThreatByRookMg, PARAM_ThreatByRookEg, cases,
                   sizeof cases / sizeof cases[0]);
}

static void a_minor_threatens_a_minor(void)
{
    /* The bishop on e3 attacks the knight on c5, which does not attack it
     * back; knights on d3 and c5 attack each other; an archbishop is not a
     * minor; a rook on a minor is another term. */
    static const threat_case_t cases[] = {
        { "k9/p9/10/2n7/10/4B5/9P/9K w - - 0 1", 20 },
        { "9k/9p/10/2n7/10/3N6/P9/K9 w - - 0 1", 0 },
        { "k9/p9/10/2n7/10/4A5/9P/9K w - - 0 1", 0 },
        { "9k/9p/10/2n7/10/10/P9/K1R7 w - - 0 1", 0 },
    };
    s_threat_cases(PARAM_ThreatMinorOnMinorMg, PARAM_ThreatMinorOnMinorEg, cases,
                   sizeof cases / sizeof cases[0]);
}

static void a_king_threatens_a_loose_man_once(void)
{
    /* The king on a1 attacks the knight on b2, which nothing defends; and
     * the bishop on b1 too, still once; a rook on b8 defends the knight. */
    static const threat_case_t cases[] = {
        { "9k/9p/10/10/10/10/1n7P/K9 w - - 0 1", 20 },
        { "9k/9p/10/10/10/10/1n7P/Kb8 w - - 0 1", 20 },
        { "1r7k/9p/10/10/10/10/1n7P/K9 w - - 0 1", 0 },
    };
    s_threat_cases(PARAM_ThreatByKingMg, PARAM_ThreatByKingEg, cases,
                   sizeof cases / sizeof cases[0]);
}

static void squares_both_sides_attack_restrict_unless_a_pawn_defends_them(void)
{
    /* The rooks on e1 and e8 both attack e2 to e7: six squares each, even.
     * A black pawn on d6 defends e5 (five for White); a white pawn on d3
     * defends e4 (five for Black). */
    static const threat_case_t cases[] = {
        { "4r4k/9p/10/10/10/10/P9/K3R5 w - - 0 1", 0 },
        { "4r4k/9p/3p6/10/10/10/P9/K3R5 w - - 0 1", -20 },
        { "4r4k/9p/10/10/10/3P6/P9/K3R5 w - - 0 1", 20 },
    };
    s_threat_cases(PARAM_ThreatRestrictedMg, PARAM_ThreatRestrictedEg, cases,
                   sizeof cases / sizeof cases[0]);
}

/* Every parameter of the defaults moved by a seeded amount within its bounds. */
static void s_shuffled_params(params_t *p, uint64_t seed)
{
    params_default(p);
    for (int i = 0; i < params_count(); i++) {
        const param_info_t *info = params_info(i);
        int span = info->max - info->min < 40 ? info->max - info->min : 40;
        int v = p->value[i] + (int) (crc_splitmix64(&seed) % (uint64_t) (span + 1)) - span / 2;
        p->value[i] = v < info->min ? info->min : v > info->max ? info->max : v;
    }
}

/* Plays seeded random games from the position set in s_board; at every ply
 * the pawn key must equal its recomputation (after make and after unmake),
 * and every set of `sets`, in turn, must give the same score through the
 * shared pawn table t as directly. Returns the number of positions seen. */
static int s_walk_with_pawn_table(eval_pawn_table_t *t, const params_t *sets, int nsets,
                                  uint64_t seed, int plies)
{
    uint64_t rng = seed;
    int seen = 0;
    for (int ply = 0; ply < plies; ply++) {
        CHECK_EQ_U64(board_pawn_key(&s_board), board_compute_pawn_key(&s_board));
        /* Twice round the sets: a table that kept the entries of the last
         * set would answer the first one with them. */
        for (int k = 0; k < 2 * nsets; k++) {
            const params_t *p = &sets[k % nsets];
            int direct = eval_evaluate(&s_board, p);
            int cached = eval_evaluate_cached(&s_board, p, t);
            if (cached != direct) {
                char fen[FEN_MAX];
                board_get_fen(&s_board, fen, sizeof fen);
                CHECK_MSG(0, "%s, set %d: cached %d, direct %d", fen, k % nsets, cached, direct);
            }
        }
        seen++;
        move_list_t list;
        movegen_legal(&s_board, &list);
        if (list.count == 0)
            break;
        uint64_t before = board_pawn_key(&s_board);
        move_t m = list.moves[crc_splitmix64(&rng) % (uint64_t) list.count];
        board_make(&s_board, m);
        CHECK_EQ_U64(board_pawn_key(&s_board), board_compute_pawn_key(&s_board));
        if (crc_splitmix64(&rng) % 4 == 0) {
            board_unmake(&s_board);
            CHECK_EQ_U64(board_pawn_key(&s_board), before);
            board_make(&s_board, m);
        }
        if (!board_in_check(&s_board) && crc_splitmix64(&rng) % 8 == 0) {
            uint64_t key = board_pawn_key(&s_board);
            board_make_null(&s_board);
            CHECK_EQ_U64(board_pawn_key(&s_board), key);
            board_unmake_null(&s_board);
        }
    }
    while (board_undo_depth(&s_board) > 0) {
        board_unmake(&s_board);
        CHECK_EQ_U64(board_pawn_key(&s_board), board_compute_pawn_key(&s_board));
    }
    return seen;
}

static void the_pawn_table_gives_the_direct_score_whatever_parameters_came_before(void)
{
    /* The defaults, two shuffled sets (every pawn-structure weight among
     * the moved ones) and material only (pawn weights zero). */
    params_t sets[4];
    params_default(&sets[0]);
    s_shuffled_params(&sets[1], 11);
    s_shuffled_params(&sets[2], 12);
    params_default(&sets[3]);
    params_material_only(&sets[3]);
    eval_pawn_table_t *t = eval_pawn_table_new();
    CHECK(t != NULL);
    int seen = 0;
    uint64_t seed = 1;
    for (int v = 0; v < VARIANT_NB; v++)
        for (int g = 0; g < 3; g++) {
            CHECK_EQ_INT(board_set_startpos(&s_board, (variant_t) v), 0);
            seen += s_walk_with_pawn_table(t, sets, 4, seed++, 160);
        }
    for (int g = 0; g < 6; g++) {
        char fen[128], err[256];
        CHECK_EQ_INT(crc_start_fen((int) (crc_splitmix64(&seed) % (uint64_t) crc_count()), fen,
                                   sizeof fen), 0);
        CHECK_MSG(board_set_fen(&s_board, fen, VARIANT_CAPARANDOM, err, sizeof err) == 0, "%s", err);
        seen += s_walk_with_pawn_table(t, sets, 4, seed++, 160);
    }
    /* One set at a time too, so that the table fills and is read back. */
    for (int k = 0; k < 4; k++) {
        CHECK_EQ_INT(board_set_startpos(&s_board, VARIANT_CAPABLANCA), 0);
        seen += s_walk_with_pawn_table(t, &sets[k], 1, 100 + (uint64_t) k, 160);
    }
    eval_pawn_table_destroy(&t);
    CHECK(t == NULL);
    CHECK(seen > 2000);
}

static const check_case_t CASES[] = {
    CASE(colour_flipped_positions_evaluate_the_same),
    CASE(the_start_position_is_about_level),
    CASE(the_initiative_goes_to_the_side_ahead_and_never_turns_the_score),
    CASE(a_piece_value_parameter_moves_the_score_by_the_phase_share),
    CASE(the_score_is_from_the_side_to_move),
    CASE(a_passed_pawn_is_worth_more_the_further_it_stands),
    CASE(material_only_parameters_score_material_alone),
    CASE(an_archbishop_without_pawns_is_not_scaled_down_to_a_draw),
    CASE(the_end_game_part_is_scaled_down_with_few_pawns_of_the_side_ahead),
    CASE(opposite_coloured_bishops_scale_the_end_game_down),
    CASE(a_chancellors_knight_jumps_count_against_the_king),
    CASE(king_danger_needs_a_queen_chancellor_or_archbishop),
    CASE(king_danger_grows_faster_than_the_attack_and_stops_at_its_cap),
    CASE(mobility_counts_squares_of_own_pieces_but_not_own_pawns_king_or_enemy_pawn_attacks),
    CASE(mobility_counts_less_per_square_the_freer_the_piece),
    CASE(a_backward_pawn_is_one_whose_neighbours_have_gone_ahead_and_whose_stop_is_guarded),
    CASE(an_outpost_is_a_defended_square_no_enemy_pawn_can_attack),
    CASE(a_rook_or_chancellor_on_the_seventh_needs_pawns_there_or_the_king_behind),
    CASE(every_evaluation_weight_has_a_group_and_no_search_parameter_does),
    CASE(the_terms_of_a_position_are_each_groups_share_from_whites_view),
    CASE(a_knight_or_bishop_with_a_pawn_in_front_of_it_is_behind_a_pawn),
    CASE(a_bishop_counts_its_pawns_on_its_colour_more_with_the_centre_blocked),
    CASE(a_passed_pawn_with_a_free_path_counts_more_by_rank),
    CASE(a_pawn_the_bare_king_cannot_catch_is_unstoppable),
    CASE(a_king_file_without_a_pawn_of_ours_is_open),
    CASE(an_enemy_pawn_near_the_kings_files_storms_it),
    CASE(a_king_zone_square_only_the_king_defends_adds_danger),
    CASE(a_compound_piece_attacked_by_a_lesser_one_is_threatened),
    CASE(a_safe_pawn_push_that_would_attack_a_piece_is_a_threat),
    CASE(a_rook_threatens_a_minor_no_pawn_defends),
    CASE(a_minor_threatens_a_minor),
    CASE(a_king_threatens_a_loose_man_once),
    CASE(squares_both_sides_attack_restrict_unless_a_pawn_defends_them),
    CASE(the_pawn_table_gives_the_direct_score_whatever_parameters_came_before),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
