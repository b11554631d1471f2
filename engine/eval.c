/* eval.c - the parameterised static evaluation. */
#include "eval.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "attacks.h"

/* More squares than any piece attacks on a 10x8 board (a queen: at most 16
 * along the lines and 13 along the diagonals). */
#define MOBILITY_MAX 48

/* Constant tables, filled once by eval_init. */
typedef struct {
    bitboard_t file[FILE_NB];
    bitboard_t rank[RANK_NB];
    bitboard_t adjacent_files[FILE_NB];
    bitboard_t passed_span[COLOR_NB][SQ_NB];  /* squares ahead on this and adjacent files */
    bitboard_t shield[COLOR_NB][SQ_NB];       /* the two ranks in front of the king, 3 files */
    bitboard_t front[COLOR_NB][SQ_NB];        /* squares ahead on the same file */
    bitboard_t zone[COLOR_NB][SQ_NB];         /* king square, neighbours, 3 squares 2 ranks ahead */
    bitboard_t dark;                          /* squares of a1's colour */
    bitboard_t queen_side, king_side;         /* files a-e, files f-j */
    bitboard_t centre_files;                  /* files d to g */
    int8_t centre[SQ_NB];                     /* 0 (corner) .. 7 (the four centre squares) */
    int8_t centre_rel[SQ_NB];                 /* centre[s] minus its board average (rounded) */
    int8_t distance[SQ_NB][SQ_NB];            /* king distance */
    int16_t mobility[PIECE_TYPE_NB][MOBILITY_MAX];  /* s_mobility_curve, sixteenths */
} eval_tables_t;

static eval_tables_t s_t;
static pthread_once_t s_once = PTHREAD_ONCE_INIT;

static const int PHASE_WEIGHT[PIECE_TYPE_NB] = { 0, 0, 1, 1, 2, 4, 4, 4, 0 };
/* Mobility counted relative to a typical value, so that the mobility term
 * of an average piece is about zero and the material term keeps its meaning.
 * Since the mobility area takes in squares held by our own pieces (below),
 * each kind's base grows by what that adds on average, rounded: rook +0.8,
 * archbishop +1.1, queen +1.3 (one each), chancellor +1.5 (two), knight +0.5
 * and bishop +0.3 (none), in 33,557 quiet positions of 548 games at 10,000
 * nodes; so an average piece's mobility term stays where it was. The
 * count then goes through s_mobility_curve, which is 0 at the base and
 * concave (docs/strength.md, test 40). */
static const int MOBILITY_BASE[PIECE_TYPE_NB] = { 0, 0, 4, 6, 8, 11, 13, 14, 0 };
/* Danger units per attacked king-zone square, per attacker type. */
static const int ATTACK_UNIT[PIECE_TYPE_NB] = {
    0, 0, PARAM_KingAttackKnight, PARAM_KingAttackBishop, PARAM_KingAttackRook,
    PARAM_KingAttackArchbishop, PARAM_KingAttackChancellor, PARAM_KingAttackQueen, 0 };

/* With GCC on x86-64 the evaluation is compiled twice, for CPUs with the
 * popcnt instruction (every x86-64 CPU since 2008) and for the baseline, and
 * the loader picks one (target_clones, an ifunc): the helpers below are
 * inlined into eval_evaluate_cached so that both copies take them in. A
 * population count is the same number either way, so play and the bench
 * signature do not depend on the copy that runs. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__POPCNT__)
#define EVAL_CLONES __attribute__((target_clones("popcnt", "default")))
#define EVAL_INLINE static inline __attribute__((always_inline))
#else
#define EVAL_CLONES
#define EVAL_INLINE static inline
#endif

EVAL_INLINE int s_popcount(bitboard_t b)
{
    return __builtin_popcountll((uint64_t) b) + __builtin_popcountll((uint64_t) (b >> 64));
}

static int s_abs(int x)
{
    return x < 0 ? -x : x;
}

static int s_max(int a, int b)
{
    return a > b ? a : b;
}

/* The mobility of a piece that attacks n squares of the mobility area, in
 * sixteenths of a square: 2 sqrt(n b) - 2 b for its kind's base b, which is
 * 0 at n = b and rises by one square per square there, as the linear count
 * n - b did; below b it falls faster, above b it rises slower (a trapped
 * piece loses more than a free one gains). */
static int s_mobility_curve(int n, int base)
{
    double v = 2.0 * sqrt((double) n * base) - 2.0 * base;
    return (int) lround(16.0 * v);
}

static void s_init(void)
{
    attacks_init();
    for (int f = 0; f < FILE_NB; f++) {
        s_t.file[f] = 0;
        for (int r = 0; r < RANK_NB; r++)
            s_t.file[f] |= bb_square(square_make(f, r));
    }
    for (int r = 0; r < RANK_NB; r++)
        s_t.rank[r] = bb_rank(r);
    for (int f = 0; f < FILE_NB; f++)
        s_t.adjacent_files[f] = (f > 0 ? s_t.file[f - 1] : 0) | (f < FILE_NB - 1 ? s_t.file[f + 1] : 0);
    s_t.dark = bb_dark_squares();
    s_t.queen_side = s_t.king_side = 0;
    for (int f = 0; f < FILE_NB; f++)
        *(f < FILE_NB / 2 ? &s_t.queen_side : &s_t.king_side) |= s_t.file[f];
    s_t.centre_files = 0;
    for (int f = FILE_NB / 2 - 2; f < FILE_NB / 2 + 2; f++)
        s_t.centre_files |= s_t.file[f];
    int centre_sum = 0;
    for (square_t s = 0; s < SQ_NB; s++) {
        int f = square_file(s), r = square_rank(s);
        int fd = f <= 4 ? 4 - f : f - 5;
        int rd = r <= 3 ? 3 - r : r - 4;
        centre_sum += 7 - fd - rd;
    }
    for (square_t s = 0; s < SQ_NB; s++) {
        int f = square_file(s), r = square_rank(s);
        for (int c = 0; c < COLOR_NB; c++) {
            bitboard_t span = 0, shield = 0;
            for (square_t t = 0; t < SQ_NB; t++) {
                int tf = square_file(t), tr = square_rank(t);
                if (s_abs(tf - f) > 1)
                    continue;
                int ahead = c == WHITE ? tr - r : r - tr;
                if (ahead > 0)
                    span |= bb_square(t);
                if (ahead > 0 && tf == f)
                    s_t.front[c][s] |= bb_square(t);
                if (ahead == 1 || ahead == 2)
                    shield |= bb_square(t);
            }
            s_t.passed_span[c][s] = span;
            s_t.shield[c][s] = shield;
            s_t.zone[c][s] = attacks_king(s) | bb_square(s) | shield;
        }
        int fd = f <= 4 ? 4 - f : f - 5;
        int rd = r <= 3 ? 3 - r : r - 4;
        s_t.centre[s] = (int8_t) (7 - fd - rd);
        s_t.centre_rel[s] = (int8_t) (7 - fd - rd - (centre_sum + SQ_NB / 2) / SQ_NB);
        for (square_t t = 0; t < SQ_NB; t++)
            s_t.distance[s][t] = (int8_t) s_max(s_abs(square_file(t) - f), s_abs(square_rank(t) - r));
    }
    for (int t = 0; t < PIECE_TYPE_NB; t++)
        for (int n = 0; n < MOBILITY_MAX; n++)
            s_t.mobility[t][n] = (int16_t) s_mobility_curve(n, MOBILITY_BASE[t]);
}

void eval_init(void)
{
    pthread_once(&s_once, s_init);
}

int eval_phase(const board_t *b)
{
    int phase = 0;
    for (int t = KNIGHT; t <= QUEEN; t++)
        phase += PHASE_WEIGHT[t] * (board_count(b, piece_make(WHITE, (piece_type_t) t)) +
                                    board_count(b, piece_make(BLACK, (piece_type_t) t)));
    return phase > EVAL_PHASE_MAX ? EVAL_PHASE_MAX : phase;
}

/* The square in front of a pawn of colour c on s. */
EVAL_INLINE square_t s_stop(color_t c, square_t s)
{
    return c == WHITE ? s + FILE_NB : s - FILE_NB;
}

/* Every square of the board. */
#define S_BOARD ((((bitboard_t) 1) << SQ_NB) - 1)

/* The squares one step ahead of pawns of colour c (occupied or not). */
EVAL_INLINE bitboard_t s_pawn_steps(bitboard_t pawns, color_t c)
{
    return c == WHITE ? (pawns << FILE_NB) & S_BOARD : pawns >> FILE_NB;
}

EVAL_INLINE bitboard_t s_pawn_attacks(bitboard_t pawns, color_t c)
{
    bitboard_t not_a = ~s_t.file[0], not_j = ~s_t.file[FILE_NB - 1];
    if (c == WHITE)
        return (((pawns & not_a) << 9) | ((pawns & not_j) << 11)) & S_BOARD;
    return ((pawns & not_a) >> 11) | ((pawns & not_j) >> 9);
}

#define V(name) (p->value[PARAM_##name])

/* ---- pawn structure and the pawn table ---- */

/* The parameters of the pawn-structure terms: s_pawn_side reads these and
 * no others, through a pawn_params_t, so that a pawn table entry depends on
 * the pawns and on these values alone. Mg before its Eg twin. */
#define PAWN_PARAMS(X)                                                            \
    X(PawnCentreMg) X(PawnCentreEg) X(IsolatedPawnMg) X(IsolatedPawnEg)           \
    X(DoubledPawnMg) X(DoubledPawnEg) X(ConnectedPawnMg) X(ConnectedPawnEg)       \
    X(BackwardPawnMg) X(BackwardPawnEg) X(PassedPawnRank2Mg) X(PassedPawnRank2Eg) \
    X(PassedPawnRank3Mg) X(PassedPawnRank3Eg) X(PassedPawnRank4Mg)                \
    X(PassedPawnRank4Eg) X(PassedPawnRank5Mg) X(PassedPawnRank5Eg)                \
    X(PassedPawnRank6Mg) X(PassedPawnRank6Eg) X(PassedPawnRank7Mg)                \
    X(PassedPawnRank7Eg)

typedef enum {
#define PP_ENUM_(name) PP_##name,
    PAWN_PARAMS(PP_ENUM_)
#undef PP_ENUM_
    PP_NB
} pawn_param_id_t;

static const param_id_t PAWN_PARAM_ID[PP_NB] = {
#define PP_ID_(name) PARAM_##name,
    PAWN_PARAMS(PP_ID_)
#undef PP_ID_
};

typedef struct {
    int32_t value[PP_NB];
} pawn_params_t;

#define PV(name) (pp->value[PP_##name])

/* The pawn-structure terms of both sides: mg/eg White's minus Black's. */
typedef struct {
    uint64_t key;                  /* board_pawn_key */
    int32_t mg, eg;
    bitboard_t passed[COLOR_NB];   /* passed pawns (the front one of doubled pawns only) */
} pawn_entry_t;

/* 2^13 entries of 48 bytes: 384 KB. */
#define PAWN_TABLE_BITS 13
#define PAWN_TABLE_SIZE (1u << PAWN_TABLE_BITS)

/* Every entry holds the terms of the pawns of its key under `params`, or is
 * all zero: key 0 (no pawns), whose terms are 0 under any parameters. */
struct eval_pawn_table_s {
    pawn_params_t params;
    pawn_entry_t entry[PAWN_TABLE_SIZE];
};

eval_pawn_table_t *eval_pawn_table_new(void)
{
    return calloc(1, sizeof(eval_pawn_table_t));
}

void eval_pawn_table_destroy(eval_pawn_table_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free(*self_p);
    *self_p = NULL;
}

/* Isolated, doubled, connected, backward, centralised and passed pawns of
 * colour us (terms from us's point of view); needs nothing but the pawns. */
EVAL_INLINE void s_pawn_side(const pawn_params_t *pp, color_t us, bitboard_t pawns,
                             bitboard_t their_pawns, bitboard_t our_pawn_att,
                             bitboard_t their_pawn_att, int *mg, int *eg, bitboard_t *passed)
{
    static const int PASSED_MG[RANK_NB] = {
        0, PP_PassedPawnRank2Mg, PP_PassedPawnRank3Mg, PP_PassedPawnRank4Mg,
        PP_PassedPawnRank5Mg, PP_PassedPawnRank6Mg, PP_PassedPawnRank7Mg, 0 };
    color_t them = (color_t) !us;
    int m = 0, e = 0;
    bitboard_t out = 0;
    bitboard_t set = pawns;
    while (set) {
        square_t s = bb_pop_lsb(&set);
        int f = square_file(s);
        m += s_t.centre_rel[s] * PV(PawnCentreMg);
        e += s_t.centre_rel[s] * PV(PawnCentreEg);
        if (!(s_t.adjacent_files[f] & pawns)) {
            m += PV(IsolatedPawnMg);
            e += PV(IsolatedPawnEg);
        }
        /* Doubled: counted once for each pawn with another of ours ahead of it. */
        if (s_t.front[us][s] & pawns) {
            m += PV(DoubledPawnMg);
            e += PV(DoubledPawnEg);
            continue;
        }
        int r = square_relative_rank(us, s);
        /* Connected: defended by a pawn or beside one; worth more the further it is. */
        bitboard_t beside = s_t.adjacent_files[f] & s_t.rank[square_rank(s)];
        if ((our_pawn_att & bb_square(s)) || (pawns & beside)) {
            m += PV(ConnectedPawnMg) * r;
            e += PV(ConnectedPawnEg) * r;
        } else if (s_t.adjacent_files[f] & pawns &&
                   !(s_t.adjacent_files[f] & pawns & s_t.passed_span[them][s]) &&
                   (their_pawn_att & bb_square(s_stop(us, s)))) {
            /* Backward: no pawn of ours beside or behind on the files beside
             * (though it has some there: else it is isolated), and an enemy
             * pawn guards the square in front. */
            m += PV(BackwardPawnMg);
            e += PV(BackwardPawnEg);
        }
        if (!(s_t.passed_span[us][s] & their_pawns)) {
            out |= bb_square(s);
            if (PASSED_MG[r]) {
                m += pp->value[PASSED_MG[r]];
                e += pp->value[PASSED_MG[r] + 1];
            }
        }
    }
    *mg = m;
    *eg = e;
    *passed = out;
}

/* Fills the terms of entry *pe (not its key). */
EVAL_INLINE void s_pawn_structure(const board_t *b, const pawn_params_t *pp,
                                  const bitboard_t patt[COLOR_NB], pawn_entry_t *pe)
{
    bitboard_t pawns[COLOR_NB] = { board_pieces(b, WHITE, PAWN), board_pieces(b, BLACK, PAWN) };
    int mg[COLOR_NB], eg[COLOR_NB];
    for (int c = 0; c < COLOR_NB; c++)
        s_pawn_side(pp, (color_t) c, pawns[c], pawns[!c], patt[c], patt[!c], &mg[c], &eg[c],
                    &pe->passed[c]);
    pe->mg = mg[WHITE] - mg[BLACK];
    pe->eg = eg[WHITE] - eg[BLACK];
}

/* The pawn-structure terms of b under p: from t when it holds them,
 * computed (and stored in t) otherwise. A t filled with other values of
 * the pawn parameters is emptied first. Returns the entry to read. */
EVAL_INLINE const pawn_entry_t *s_pawn_probe(const board_t *b, const params_t *p,
                                             eval_pawn_table_t *t,
                                             const bitboard_t patt[COLOR_NB],
                                             pawn_entry_t *scratch)
{
    if (!t) {
        pawn_params_t pp;
        for (int i = 0; i < PP_NB; i++)
            pp.value[i] = p->value[PAWN_PARAM_ID[i]];
        s_pawn_structure(b, &pp, patt, scratch);
        return scratch;
    }
    int32_t diff = 0;
    for (int i = 0; i < PP_NB; i++)
        diff |= t->params.value[i] ^ p->value[PAWN_PARAM_ID[i]];
    if (__builtin_expect(diff != 0, 0)) {
        memset(t->entry, 0, sizeof t->entry);
        for (int i = 0; i < PP_NB; i++)
            t->params.value[i] = p->value[PAWN_PARAM_ID[i]];
    }
    uint64_t key = board_pawn_key(b);
    pawn_entry_t *pe = &t->entry[key & (PAWN_TABLE_SIZE - 1)];
    if (pe->key != key) {
        s_pawn_structure(b, &t->params, patt, pe);
        pe->key = key;
    }
    return pe;
}

/* What one side attacks, for the threat and king-danger terms. */
typedef struct {
    bitboard_t all;      /* every square attacked by a piece, pawn or the king */
    bitboard_t no_king;  /* every square attacked by a piece or pawn */
    bitboard_t minor;    /* by a knight or bishop */
    bitboard_t by[PIECE_TYPE_NB];  /* by the pieces of one kind (knight..queen) */
    bitboard_t passed;   /* our passed pawns (the front one of doubled pawns only) */
    int zone_units;      /* danger units of the attacks on the enemy king's zone */
} side_attacks_t;

/* Scores one side but for its pawn structure (s_pawn_side); mg/eg from that
 * side's point of view. Leaves out->passed alone. */
EVAL_INLINE void s_side(const board_t *b, const params_t *p, color_t us, bitboard_t our_pawn_att,
                   bitboard_t their_pawn_att, int *mg, int *eg, side_attacks_t *out)
{
    color_t them = (color_t) !us;
    bitboard_t occ = board_occupied(b);
    bitboard_t pawns = board_pieces(b, us, PAWN), their_pawns = board_pieces(b, them, PAWN);
    /* Mobility area: every square but those of our pawns and king and those
     * their pawns attack; a square held by another of our pieces counts (the
     * piece defends it, and it is free once that piece moves). */
    bitboard_t mob_area = ~(pawns | bb_square(board_king_sq(b, us))) & ~their_pawn_att;
    square_t their_king = board_king_sq(b, them);
    bitboard_t zone = s_t.zone[them][their_king];
    int m = 0, e = 0;
    int mob_m = 0, mob_e = 0; /* sixteenths */
    int units = 0;
    bitboard_t all_att = our_pawn_att, minor_att = 0;
    for (int t = 0; t < PIECE_TYPE_NB; t++)
        out->by[t] = 0;

    static const int VALUE_MG[PIECE_TYPE_NB] = {
        0, PARAM_PawnValueMg, PARAM_KnightValueMg, PARAM_BishopValueMg, PARAM_RookValueMg,
        PARAM_ArchbishopValueMg, PARAM_ChancellorValueMg, PARAM_QueenValueMg, 0 };
    static const int CENTRE_MG[PIECE_TYPE_NB] = {
        0, PARAM_PawnCentreMg, PARAM_KnightCentreMg, PARAM_BishopCentreMg, PARAM_RookCentreMg,
        PARAM_ArchbishopCentreMg, PARAM_ChancellorCentreMg, PARAM_QueenCentreMg, 0 };
    static const int MOB_MG[PIECE_TYPE_NB] = {
        0, 0, PARAM_KnightMobilityMg, PARAM_BishopMobilityMg, PARAM_RookMobilityMg,
        PARAM_ArchbishopMobilityMg, PARAM_ChancellorMobilityMg, PARAM_QueenMobilityMg, 0 };

    /* For MinorBehindPawn: the squares right behind a pawn of either colour
     * (as we look). For BishopPawns: our pawns on each colour of square, and
     * how many of ours a man blocks on the central files. */
    bool minor_terms = V(MinorBehindPawnMg) | V(MinorBehindPawnEg) | V(BishopPawnsMg) |
                       V(BishopPawnsEg);
    bitboard_t behind_pawn = 0;
    int pawns_on[2] = { 0, 0 }, blocked = 0;
    if (minor_terms) {
        behind_pawn = s_pawn_steps(pawns | their_pawns, them);
        pawns_on[1] = s_popcount(pawns & s_t.dark);
        pawns_on[0] = s_popcount(pawns) - pawns_on[1];
        blocked = s_popcount(s_pawn_steps(pawns, us) & occ & s_t.centre_files);
    }

    int npawns = board_count(b, piece_make(us, PAWN));
    m += npawns * V(PawnValueMg);
    e += npawns * V(PawnValueEg);
    for (int t = KNIGHT; t <= QUEEN; t++) {
        bitboard_t set = board_pieces(b, us, (piece_type_t) t);
        if (!set)
            continue;
        int n = board_count(b, piece_make(us, (piece_type_t) t));
        /* Eg parameters follow their Mg twin in the table. */
        m += n * p->value[VALUE_MG[t]];
        e += n * p->value[VALUE_MG[t] + 1];
        while (set) {
            square_t s = bb_pop_lsb(&set);
            m += s_t.centre_rel[s] * p->value[CENTRE_MG[t]];
            e += s_t.centre_rel[s] * p->value[CENTRE_MG[t] + 1];
            bitboard_t att = attacks_piece((piece_type_t) t, us, s, occ);
            all_att |= att;
            out->by[t] |= att;
            if (t == KNIGHT || t == BISHOP)
                minor_att |= att;
            int mob = s_t.mobility[t][s_popcount(att & mob_area)];
            mob_m += mob * p->value[MOB_MG[t]];
            mob_e += mob * p->value[MOB_MG[t] + 1];
            units += p->value[ATTACK_UNIT[t]] * s_popcount(att & zone);
            int rr = square_relative_rank(us, s);
            /* Outpost: in the enemy half, defended by a pawn, and no enemy
             * pawn on the files beside can come to attack it. The
             * archbishop counts as a knight. */
            if ((t == KNIGHT || t == BISHOP || t == ARCHBISHOP) && rr >= 4 && rr <= 6 &&
                (our_pawn_att & bb_square(s)) &&
                !(s_t.passed_span[us][s] & ~s_t.file[square_file(s)] & their_pawns)) {
                m += t == BISHOP ? V(BishopOutpostMg) : V(KnightOutpostMg);
                e += t == BISHOP ? V(BishopOutpostEg) : V(KnightOutpostEg);
            }
            if (minor_terms && (t == KNIGHT || t == BISHOP)) {
                /* from the third rank on: a minor at home behind its own
                 * pawn is not developed (test 80) */
                if ((behind_pawn & bb_square(s)) && square_relative_rank(us, s) >= 2) {
                    m += V(MinorBehindPawnMg);
                    e += V(MinorBehindPawnEg);
                }
                if (t == BISHOP) {
                    int k = pawns_on[(s_t.dark & bb_square(s)) != 0] *
                            (!(our_pawn_att & bb_square(s)) + blocked);
                    m += k * V(BishopPawnsMg);
                    e += k * V(BishopPawnsEg);
                }
            }
            /* Rook or chancellor on the seventh rank, with enemy pawns there
             * or the enemy king on the eighth. */
            if ((t == ROOK || t == CHANCELLOR) && rr == RANK_NB - 2 &&
                ((their_pawns & s_t.rank[square_rank(s)]) ||
                 square_relative_rank(us, their_king) == RANK_NB - 1)) {
                m += V(RookSeventhMg);
                e += V(RookSeventhEg);
            }
            if (piece_type_slides_straight((piece_type_t) t) && t != QUEEN) {
                bitboard_t f = s_t.file[square_file(s)];
                if (!(f & pawns)) {
                    int full = !(f & their_pawns);
                    m += full ? V(RookOpenFileMg) : V(RookOpenFileMg) / 2;
                    e += full ? V(RookOpenFileEg) : V(RookOpenFileEg) / 2;
                }
            }
        }
    }
    m += mob_m / 16;
    e += mob_e / 16;
    if (bb_more_than_one(board_pieces(b, us, BISHOP))) {
        bitboard_t bishops = board_pieces(b, us, BISHOP);
        bitboard_t dark = bishops & s_t.dark;
        if (dark && dark != bishops) {
            m += V(BishopPairMg);
            e += V(BishopPairEg);
        }
    }

    /* Our king: shelter and centralisation. */
    square_t ksq = board_king_sq(b, us);
    if (square_relative_rank(us, ksq) <= 1)
        m += V(KingShieldMg) * s_popcount(s_t.shield[us][ksq] & pawns);
    m += V(KingCentreMg) * s_t.centre[ksq];
    e += V(KingCentreEg) * s_t.centre[ksq];
    /* The king's file and the files beside it, ahead of the king: each
     * without a pawn of ours (KingOpenFile), and enemy pawns storming it,
     * KingStorm for each rank an enemy pawn has come within three ranks of
     * the king. */
    bitboard_t ahead = s_t.passed_span[us][ksq];
    int kf = square_file(ksq), kr = square_rank(ksq);
    for (int f = kf > 0 ? kf - 1 : 0; f <= kf + 1 && f < FILE_NB; f++) {
        bitboard_t column = ahead & s_t.file[f];
        if (!(column & pawns))
            m += V(KingOpenFileMg);
        bitboard_t storm = column & their_pawns;
        if (storm) {
            square_t nearest = us == WHITE ? bb_lsb(storm) : bb_msb(storm);
            int d = s_abs(square_rank(nearest) - kr);
            if (d <= 3)
                m += V(KingStormMg) * (4 - d);
        }
    }

    *mg = m;
    *eg = e;
    out->no_king = all_att;
    all_att |= attacks_king(ksq);
    out->all = all_att;
    out->minor = minor_att;
    out->zone_units = units;
}

/* King danger that us poses to them's king (middle game, centipawns, >= 0):
 * the danger units of the attacks on its zone plus KingSafeCheck per square
 * from which one of our pieces could check without being taken there,
 * turned into KingDangerMg x units^2 / 1024, at most KingDangerCapMg. Only
 * when we have a queen, chancellor or archbishop to lead the attack. */
EVAL_INLINE int s_king_danger(const board_t *b, const params_t *p, color_t us,
                         const side_attacks_t att[COLOR_NB])
{
    color_t them = (color_t) !us;
    if (!(board_pieces(b, us, QUEEN) | board_pieces(b, us, CHANCELLOR) |
          board_pieces(b, us, ARCHBISHOP)))
        return 0;
    square_t ksq = board_king_sq(b, them);
    bitboard_t occ = board_occupied(b);
    bitboard_t diag = attacks_bishop(ksq, occ), orth = attacks_rook(ksq, occ);
    bitboard_t jump = attacks_knight(ksq);
    bitboard_t safe = ~board_color_bb(b, us) & ~att[them].all;
    const bitboard_t *by = att[us].by;
    int checks = s_popcount(by[KNIGHT] & jump & safe) + s_popcount(by[BISHOP] & diag & safe) +
                 s_popcount(by[ROOK] & orth & safe) +
                 s_popcount(by[ARCHBISHOP] & (diag | jump) & safe) +
                 s_popcount(by[CHANCELLOR] & (orth | jump) & safe) +
                 s_popcount(by[QUEEN] & (diag | orth) & safe);
    /* Zone squares we attack that only their king defends. */
    int weak = s_popcount(s_t.zone[them][ksq] & att[us].all & ~att[them].no_king);
    int64_t units = att[us].zone_units + (int64_t) checks * V(KingSafeCheck) +
                    (int64_t) weak * V(KingWeakSquare);
    int64_t danger = (int64_t) V(KingDangerMg) * units * units / 1024;
    return danger > V(KingDangerCapMg) ? V(KingDangerCapMg) : (int) danger;
}

/* Threats of colour us against them's pieces (not pawns, not the king):
 * attacked by a pawn; a rook or better attacked by a minor; an archbishop,
 * chancellor or queen attacked by a lesser rook, archbishop or chancellor
 * (ThreatByLesser); attacked and not defended; attacked from a square one
 * of our pawns can step to safely (PawnPushThreat: empty, not attacked by
 * their pawns, and defended by us or not attacked by them); a minor not
 * defended by a pawn attacked by a rook (ThreatByRook); a minor attacked
 * by a minor (ThreatMinorOnMinor); once, a man the king attacks that
 * nothing defends (ThreatByKing); and the squares both attack that no pawn
 * of theirs defends (ThreatRestricted). */
EVAL_INLINE void s_threats(const board_t *b, const params_t *p, color_t us,
                      const side_attacks_t att[COLOR_NB], bitboard_t our_pawn_att,
                      bitboard_t their_pawn_att, int *mg, int *eg)
{
    color_t them = (color_t) !us;
    bitboard_t theirs = board_color_bb(b, them) & ~board_type_bb(b, PAWN) & ~board_type_bb(b, KING);
    bitboard_t heavy = theirs & ~board_type_bb(b, KNIGHT) & ~board_type_bb(b, BISHOP);
    bitboard_t queens = board_pieces(b, them, QUEEN);
    bitboard_t chancellors = board_pieces(b, them, CHANCELLOR);
    bitboard_t compound = queens | chancellors | board_pieces(b, them, ARCHBISHOP);
    bitboard_t lesser = (compound & att[us].by[ROOK]) |
                        ((queens | chancellors) & att[us].by[ARCHBISHOP]) |
                        (queens & att[us].by[CHANCELLOR]);
    bitboard_t push = s_pawn_steps(board_pieces(b, us, PAWN), us) & ~board_occupied(b) &
                      ~their_pawn_att & (att[us].all | ~att[them].all);
    int n_pawn = s_popcount(theirs & our_pawn_att);
    int n_minor = s_popcount(heavy & att[us].minor);
    int n_lesser = s_popcount(lesser);
    int n_hang = s_popcount(theirs & att[us].all & ~att[them].all);
    int n_push = s_popcount(s_pawn_attacks(push, us) & theirs & ~our_pawn_att);
    *mg = n_pawn * V(ThreatByPawnMg) + n_minor * V(ThreatByMinorMg) +
          n_lesser * V(ThreatByLesserMg) + n_hang * V(HangingMg) + n_push * V(PawnPushThreatMg);
    *eg = n_pawn * V(ThreatByPawnEg) + n_minor * V(ThreatByMinorEg) +
          n_lesser * V(ThreatByLesserEg) + n_hang * V(HangingEg) + n_push * V(PawnPushThreatEg);
    if (V(ThreatByRookMg) | V(ThreatByRookEg) | V(ThreatMinorOnMinorMg) |
        V(ThreatMinorOnMinorEg) | V(ThreatByKingMg) | V(ThreatByKingEg) |
        V(ThreatRestrictedMg) | V(ThreatRestrictedEg)) {
        bitboard_t minors = board_pieces(b, them, KNIGHT) | board_pieces(b, them, BISHOP);
        bitboard_t loose = board_color_bb(b, them) & ~board_type_bb(b, KING) & ~att[them].all;
        int n_rook = s_popcount(minors & att[us].by[ROOK] & ~their_pawn_att);
        int n_mm = s_popcount(minors & att[us].minor);
        int n_king = (attacks_king(board_king_sq(b, us)) & loose) != 0;
        int n_restr = s_popcount(att[us].all & att[them].all & ~their_pawn_att);
        *mg += n_rook * V(ThreatByRookMg) + n_mm * V(ThreatMinorOnMinorMg) +
               n_king * V(ThreatByKingMg) + n_restr * V(ThreatRestrictedMg);
        *eg += n_rook * V(ThreatByRookEg) + n_mm * V(ThreatMinorOnMinorEg) +
               n_king * V(ThreatByKingEg) + n_restr * V(ThreatRestrictedEg);
    }
}

/* Passed pawns of colour us: the kings' distances to the square in front
 * (PassedKingDistance); and those that can advance: the square in front
 * empty (PassedEmpty), the whole path to promotion empty and not attacked
 * by them (PassedFree); each times (relative rank - 2) from the fourth
 * rank on; and, when them has nothing but king and pawns, a passed pawn their
 * king cannot catch (the rule of the square, with the side to move and the
 * double step) whose path our own pieces do not block. */
EVAL_INLINE void s_passed(const board_t *b, const params_t *p, color_t us,
                     const side_attacks_t att[COLOR_NB], bool them_bare, int *mg, int *eg)
{
    color_t them = (color_t) !us;
    bitboard_t occ = board_occupied(b);
    int m = 0, e = 0;
    bool unstoppable = false;
    bitboard_t set = att[us].passed;
    while (set) {
        square_t s = bb_pop_lsb(&set);
        int r = square_relative_rank(us, s);
        bitboard_t path = s_t.front[us][s];
        if (them_bare && !(path & occ)) {
            square_t promo = square_make(square_file(s), us == WHITE ? RANK_NB - 1 : 0);
            int pawn_moves = RANK_NB - 1 - r - (r == 1 ? 1 : 0);
            int king_moves = s_t.distance[board_king_sq(b, them)][promo] -
                             (board_side(b) == them ? 1 : 0);
            if (king_moves > pawn_moves)
                unstoppable = true;
        }
        if (r < 3)
            continue;
        /* In the ending, the kings' distances to the square in front. */
        square_t stop = s_stop(us, s);
        int d = 2 * s_t.distance[board_king_sq(b, them)][stop] -
                s_t.distance[board_king_sq(b, us)][stop];
        e += V(PassedKingDistanceEg) * d * (r - 2);
        if (occ & bb_square(stop))
            continue;
        m += V(PassedEmptyMg) * (r - 2);
        e += V(PassedEmptyEg) * (r - 2);
        if (!(path & (occ | att[them].all))) {
            m += V(PassedFreeMg) * (r - 2);
            e += V(PassedFreeEg) * (r - 2);
        }
    }
    /* One unstoppable pawn is enough. */
    if (unstoppable)
        e += V(PassedUnstoppableEg);
    *mg = m;
    *eg = e;
}

EVAL_INLINE int s_non_pawn(const board_t *b, const params_t *p, color_t c)
{
    return board_count(b, piece_make(c, KNIGHT)) * V(KnightValueEg) +
           board_count(b, piece_make(c, BISHOP)) * V(BishopValueEg) +
           board_count(b, piece_make(c, ROOK)) * V(RookValueEg) +
           board_count(b, piece_make(c, ARCHBISHOP)) * V(ArchbishopValueEg) +
           board_count(b, piece_make(c, CHANCELLOR)) * V(ChancellorValueEg) +
           board_count(b, piece_make(c, QUEEN)) * V(QueenValueEg);
}

/* The share of the end-game part kept, in 64ths, when it favours strong:
 * less with fewer of strong's pawns (64 - ScaleNoPawns + ScalePerPawn x
 * pawns, at most 64: the shape of Stockfish 11's general scale factor),
 * and at most 64 - ScaleOppositeBishops when each side has one bishop, on
 * squares of opposite colours, and nothing else but pawns and the king.
 * Against a bare king, and with the three at 0, nothing is scaled. */
EVAL_INLINE int s_eg_scale(const board_t *b, const params_t *p, color_t strong)
{
    /* against a bare king the mop-up terms lead the win */
    if (board_color_bb(b, (color_t) !strong) == board_pieces(b, (color_t) !strong, KING))
        return 64;
    int cut = V(ScaleNoPawns) - V(ScalePerPawn) * bb_popcount(board_pieces(b, strong, PAWN));
    int keep = 64 - (cut > 0 ? cut : 0);
    if (64 - V(ScaleOppositeBishops) >= keep)
        return keep;
    bitboard_t wb = board_pieces(b, WHITE, BISHOP), bb = board_pieces(b, BLACK, BISHOP);
    bitboard_t others = board_occupied(b) & ~board_type_bb(b, PAWN) & ~board_type_bb(b, KING) &
                        ~board_type_bb(b, BISHOP);
    if (bb_popcount(wb) == 1 && bb_popcount(bb) == 1 && !others &&
        ((wb & s_t.dark) != 0) != ((bb & s_t.dark) != 0))
        keep = 64 - V(ScaleOppositeBishops);
    return keep;
}

/* The initiative (params.h): what the side ahead gains, or loses toward a
 * draw, by how much is left to play for; *m and *e from White's view. */
EVAL_INLINE void s_initiative(const board_t *b, const params_t *p, const pawn_entry_t *pawn,
                              int *m, int *e)
{
    square_t wk = board_king_sq(b, WHITE), bk = board_king_sq(b, BLACK);
    int outflank = s_abs(square_file(wk) - square_file(bk)) - s_abs(square_rank(wk) - square_rank(bk));
    bool infiltrate = square_rank(wk) >= RANK_NB / 2 || square_rank(bk) < RANK_NB / 2;
    bitboard_t pawns = board_type_bb(b, PAWN);
    bool both_flanks = (pawns & s_t.queen_side) && (pawns & s_t.king_side);
    int passed = s_popcount(pawn->passed[WHITE] | pawn->passed[BLACK]);
    bool no_pieces = !(board_occupied(b) & ~pawns & ~board_type_bb(b, KING));
    bool unwinnable = !passed && outflank < 0 && !both_flanks;
    int complexity = V(InitiativeBase) + V(InitiativePassed) * passed +
                     V(InitiativePawn) * s_popcount(pawns) + V(InitiativeOutflank) * outflank +
                     V(InitiativeInfiltrate) * infiltrate + V(InitiativeBothFlanks) * both_flanks +
                     V(InitiativeNoPieces) * no_pieces + V(InitiativeUnwinnable) * unwinnable;
    int v = s_max(complexity, -s_abs(*e));
    *e += *e > 0 ? v : *e < 0 ? -v : 0;
    int u = complexity + V(InitiativeMgOffset);
    u = s_max(u < 0 ? u : 0, -s_abs(*m));
    *m += *m > 0 ? u : *m < 0 ? -u : 0;
}

EVAL_CLONES int eval_evaluate_cached(const board_t *b, const params_t *p, eval_pawn_table_t *t)
{
    eval_init();
    int mg[COLOR_NB], eg[COLOR_NB];
    bitboard_t patt[COLOR_NB] = { s_pawn_attacks(board_pieces(b, WHITE, PAWN), WHITE),
                                  s_pawn_attacks(board_pieces(b, BLACK, PAWN), BLACK) };
    pawn_entry_t scratch;
    const pawn_entry_t *pawn = s_pawn_probe(b, p, t, patt, &scratch);
    side_attacks_t att[COLOR_NB];
    s_side(b, p, WHITE, patt[WHITE], patt[BLACK], &mg[WHITE], &eg[WHITE], &att[WHITE]);
    s_side(b, p, BLACK, patt[BLACK], patt[WHITE], &mg[BLACK], &eg[BLACK], &att[BLACK]);
    att[WHITE].passed = pawn->passed[WHITE];
    att[BLACK].passed = pawn->passed[BLACK];
    int m = mg[WHITE] - mg[BLACK] + pawn->mg;
    int e = eg[WHITE] - eg[BLACK] + pawn->eg;
    for (int c = 0; c < COLOR_NB; c++) {
        int tm, te;
        s_threats(b, p, (color_t) c, att, patt[c], patt[!c], &tm, &te);
        tm += s_king_danger(b, p, (color_t) c, att);
        int pm, pe;
        color_t them = (color_t) !c;
        bool bare = !(board_color_bb(b, them) & ~board_type_bb(b, PAWN) & ~board_type_bb(b, KING));
        s_passed(b, p, (color_t) c, att, bare, &pm, &pe);
        tm += pm;
        te += pe;
        m += c == WHITE ? tm : -tm;
        e += c == WHITE ? te : -te;
    }

    /* Pawnless endings: drive the bare side's king to the edge, bring ours
     * close; a small material edge without pawns rarely wins. */
    int np[COLOR_NB] = { s_non_pawn(b, p, WHITE), s_non_pawn(b, p, BLACK) };
    for (int c = 0; c < COLOR_NB; c++) {
        color_t weak = (color_t) !c;
        if (board_pieces(b, weak, PAWN) || np[c] - np[weak] < 300)
            continue;
        square_t wk = board_king_sq(b, weak), sk = board_king_sq(b, (color_t) c);
        int bonus = V(MopUpEg) * (7 - s_t.centre[wk]) + V(MopUpEg) / 2 * (7 - s_t.distance[wk][sk]);
        e += c == WHITE ? bonus : -bonus;
    }
    if (V(InitiativeBase) | V(InitiativePassed) | V(InitiativePawn) | V(InitiativeOutflank) |
        V(InitiativeInfiltrate) | V(InitiativeBothFlanks) | V(InitiativeNoPieces) |
        V(InitiativeUnwinnable) | V(InitiativeMgOffset))
        s_initiative(b, p, pawn, &m, &e);
    e = e * s_eg_scale(b, p, e > 0 ? WHITE : BLACK) / 64;
    int phase = eval_phase(b);
    int score = (m * phase + e * (EVAL_PHASE_MAX - phase)) / EVAL_PHASE_MAX;
    color_t strong = score > 0 ? WHITE : BLACK;
    if (!board_pieces(b, strong, PAWN) && np[strong] - np[!strong] < 400)
        score /= 4;
    score = board_side(b) == WHITE ? score : -score;
    return score + V(Tempo);
}

int eval_evaluate(const board_t *b, const params_t *p)
{
    return eval_evaluate_cached(b, p, NULL);
}

/* ---- the terms in groups ---- */

static const char *const TERM_NAME[EVAL_TERM_NB] = {
    "material", "placement", "mobility", "king-danger", "shelter", "pawns",
    "passed", "pieces", "threats", "initiative", "endgame", "tempo" };

/* A parameter's group by a part of its name, the first match in order. */
static const struct {
    const char *part;
    eval_term_t term;
} TERM_BY_NAME[] = {
    { "Value", EVAL_TERM_MATERIAL }, { "BishopPair", EVAL_TERM_MATERIAL },
    { "Centre", EVAL_TERM_PLACEMENT }, { "Mobility", EVAL_TERM_MOBILITY },
    { "KingAttack", EVAL_TERM_KING_DANGER }, { "KingSafeCheck", EVAL_TERM_KING_DANGER },
    { "KingDanger", EVAL_TERM_KING_DANGER }, { "KingWeakSquare", EVAL_TERM_KING_DANGER },
    { "KingShield", EVAL_TERM_SHELTER }, { "KingOpenFile", EVAL_TERM_SHELTER },
    { "KingStorm", EVAL_TERM_SHELTER }, { "Passed", EVAL_TERM_PASSED },
    { "DoubledPawn", EVAL_TERM_PAWNS }, { "IsolatedPawn", EVAL_TERM_PAWNS },
    { "ConnectedPawn", EVAL_TERM_PAWNS }, { "BackwardPawn", EVAL_TERM_PAWNS },
    { "Outpost", EVAL_TERM_PIECES }, { "RookOpenFile", EVAL_TERM_PIECES },
    { "RookSeventh", EVAL_TERM_PIECES }, { "MinorBehindPawn", EVAL_TERM_PIECES },
    { "BishopPawns", EVAL_TERM_PIECES }, { "Threat", EVAL_TERM_THREATS },
    { "Hanging", EVAL_TERM_THREATS }, { "Initiative", EVAL_TERM_INITIATIVE },
    { "MopUp", EVAL_TERM_ENDGAME }, { "Scale", EVAL_TERM_ENDGAME },
    { "Tempo", EVAL_TERM_TEMPO },
};

const char *eval_term_name(eval_term_t t)
{
    return t >= 0 && t < EVAL_TERM_NB ? TERM_NAME[t] : "?";
}

eval_term_t eval_term_of(int i)
{
    const param_info_t *info = params_info(i);
    if (!info || info->search)
        return EVAL_TERM_NB;
    for (size_t k = 0; k < sizeof TERM_BY_NAME / sizeof TERM_BY_NAME[0]; k++)
        if (strstr(info->name, TERM_BY_NAME[k].part))
            return TERM_BY_NAME[k].term;
    return EVAL_TERM_NB;
}

static int s_white(const board_t *b, const params_t *p)
{
    int v = eval_evaluate(b, p);
    return board_side(b) == WHITE ? v : -v;
}

int eval_terms(const board_t *b, const params_t *p, int out[EVAL_TERM_NB])
{
    /* one set of parameters per group, that group's weights at 0 */
    params_t without[EVAL_TERM_NB];
    for (int t = 0; t < EVAL_TERM_NB; t++)
        without[t] = *p;
    for (int i = 0; i < PARAM_NB; i++) {
        eval_term_t t = eval_term_of(i);
        if (t < EVAL_TERM_NB)
            without[t].value[i] = 0;
    }
    int all = s_white(b, p);
    for (int t = 0; t < EVAL_TERM_NB; t++)
        out[t] = all - s_white(b, &without[t]);
    return all;
}
