/* params.h - the one named table of the engine's parameters.
 *
 * Every tunable weight of the evaluation is a named integer (centipawns)
 * with a default, a minimum and a maximum. Terms that differ between the
 * middle game and the end game come as two parameters named ...Mg / ...Eg
 * (e.g. ArchbishopValueMg, ArchbishopValueEg); the evaluation tapers between
 * them by game phase. The same names are used by JSON parameter sets, UCI
 * options (setoption name ArchbishopValueMg value 850) and SPSA runs.
 *
 * Piece-square terms come as one centralisation weight per piece kind
 * (<Piece>CentreMg/Eg, centipawns per step of the 0..7 centre distance on
 * the 10x8 board: 0 in a corner, 7 on the four centre squares), counted
 * relative to the board's average centre value so that a piece's material
 * parameter keeps its meaning as the value of an average-placed piece.
 *
 * King danger: KingAttack<Piece> are danger units (not centipawns) per
 * square of the enemy king's zone (its square, its neighbours and the three
 * squares two ranks in front) that a piece of that kind attacks, the knight
 * jumps of A and C included; KingSafeCheck the units per square from which
 * a piece could give check without being taken there, KingWeakSquare the
 * units per zone square that we attack and they defend with nothing but the
 * king. The middle-game
 * penalty is KingDangerMg x units^2 / 1024 centipawns, at most
 * KingDangerCapMg, counted only when the attacker has a queen, chancellor
 * or archbishop.
 *
 * Initiative (all 0 by default, which leaves it out): the side ahead in
 * the end game gains the complexity of the position, InitiativeBase plus
 * Initiative<Term> for each passed pawn, each pawn, each file the kings
 * stand apart beyond the ranks they do (Outflank), a king beyond the middle
 * of the board (Infiltrate), pawns on both flanks (files a-e and f-j),
 * no pieces but kings and pawns, and no passed pawn with the kings facing
 * each other and the pawns on one flank (Unwinnable). A negative
 * complexity takes from its end-game score, never beyond zero; the
 * middle-game score loses what complexity + InitiativeMgOffset falls below
 * zero, never beyond zero (Stockfish 11's initiative, in these terms).
 *
 * Minor pieces and pawns (all 0 by default, which leaves them out):
 * MinorBehindPawn for a knight or bishop on its third rank or beyond with
 * a pawn of either colour on the square in front of it (shielded from the
 * files' attacks, and the pawn supported; not at home, where it would pay
 * for not developing, docs/strength.md test 80); BishopPawns per pawn of
 * ours on squares of the bishop's colour, times one more than our pawns
 * blocked on the central files d to g, and one less when a pawn of ours
 * defends the bishop (Stockfish 11's "bishop pawns"; a negative weight is
 * a penalty).
 *
 * More threats (all 0 by default, which leaves them out): ThreatByRook per
 * knight or bishop of theirs a rook of ours attacks and no pawn of theirs
 * defends; ThreatMinorOnMinor per knight or bishop of theirs a knight or
 * bishop of ours attacks; ThreatByKing once when our king attacks a man of
 * theirs (not the king) that nothing of theirs defends; ThreatRestricted
 * per square both sides attack that no pawn of theirs defends (their
 * pieces' moves there are contested). Stockfish 11 has these four in its
 * own terms.
 *
 * Defaults: the end-game pawn (100) and every piece's middle-game value
 * from the Fairy-Max engine table (N 3.1, B 3.5, R 4.75, A 8.25, C 8.75,
 * Q 9.5 pawns of 100 centipawns), bishop pair +0.5 (H. G. Muller), as the
 * start. The middle-game pawn is 75 (test 91: Fairy-Stockfish's scores
 * make the pawn worth about 74 of ours in the middle game), so against
 * it the middle-game pieces are a third more (N 4.13 pawns). The pieces'
 * end-game values were fitted by capa tune --tune-material to game
 * results and accepted by SPRT (docs/strength.md, test 67); every other
 * evaluation weight was fitted by capa tune to capalab's own games (test
 * 13). capa tune never moves the pawn, archbishop, chancellor and queen
 * values without --tune-material: the values studies measure the
 * engine's table as an influence (docs/methods.md). The king's shelter terms KingOpenFileMg (per file of the
 * king's three without a pawn of ours ahead of it) and KingStormMg (per
 * rank an enemy pawn on those files has come within three ranks of it)
 * and KingWeakSquare were set by hand (test 17), as were ThreatByLesser
 * (an archbishop, chancellor or queen attacked by a lesser rook,
 * archbishop or chancellor) and PawnPushThreat (a piece a safe pawn step
 * would attack) (test 19).
 *
 * End-game scale (not centipawns; 64ths of the end-game part, set by hand,
 * test 63): the part that favours a side keeps 64 - max(0, ScaleNoPawns -
 * ScalePerPawn x its pawns) 64ths, and at most 64 - ScaleOppositeBishops
 * when each side has one bishop, of opposite colours, and nothing else but
 * pawns and the king. At 0 they scale nothing.
 *
 * Search parameters (named Search...; engine/search.c reads them, the
 * evaluation does not) hold the search's margins and limits, defaults the
 * constants the search used before they were named (bench 905037), but
 * for the history bonus (SearchHistory..., test 38 in docs/strength.md):
 * SearchAspDelta the first aspiration half-window (cp); reverse futility
 * at non-PV nodes of depth <= SearchRfpDepth with margin SearchRfpMargin
 * x depth; the null move's reduction SearchNullBase + depth /
 * SearchNullDepthDiv + min((eval - beta) / SearchNullEvalDiv, 3); internal
 * iterative reduction from SearchIirDepth; late move pruning at depth <=
 * SearchLmpDepth after SearchLmpBase + SearchLmpScale x depth^2 / 100
 * quiet moves (SearchLmpScale 100 since test 75); futility of a quiet
 * move whose LMR depth (depth less its LMR table reduction, at least 0) is
 * <= SearchFutDepth when eval + SearchFutBase + SearchFutMargin x LMR
 * depth <= alpha; SEE pruning of
 * quiet moves of LMR depth <= SearchSeeQuietDepth below
 * -SearchSeeQuietMargin x (LMR depth)^2, of captures at depth <=
 * SearchSeeNoisyDepth below -SearchSeeNoisyMargin x depth; LMR from
 * SearchLmrBase / 100 + ln(depth) ln(move) / (SearchLmrDivisor / 100),
 * less (history + counter-move history) / SearchLmrHistoryDiv, plus
 * SearchLmrCutNode at an expected cut node; the
 * history bonus of a quiet move
 * that cuts off (and the malus of those tried before it) SearchHistoryBonus
 * x depth^2 + SearchHistoryLinear x depth + SearchHistoryOffset, at most
 * SearchHistoryMax and at least 1; quiescence delta pruning margin
 * SearchQsDelta; with SearchQsTtStand 1 the quiescence search stands
 * on the hash score instead of the evaluation where the entry's bound
 * says the score is the better estimate. They are what an
 * SPSA run tunes for strength (configs/run-spsa-search.json); the texel
 * tuner (capa tune) fits evaluation weights only and leaves them alone, and
 * params_material_only keeps them.
 *
 * A params_t is a plain value (no pointers): copy it with `=`.
 */
#ifndef CAPA_ENGINE_PARAMS_H
#define CAPA_ENGINE_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* X(name, default, min, max) */
#define PARAMS_TABLE(X)                       \
    X(PawnValueMg, 75, 0, 1000)               \
    X(PawnValueEg, 100, 0, 1000)              \
    X(KnightValueMg, 310, 0, 2000)            \
    X(KnightValueEg, 357, 0, 2000)            \
    X(BishopValueMg, 350, 0, 2000)            \
    X(BishopValueEg, 382, 0, 2000)            \
    X(RookValueMg, 475, 0, 3000)              \
    X(RookValueEg, 705, 0, 3000)              \
    X(ArchbishopValueMg, 825, 0, 4000)        \
    X(ArchbishopValueEg, 1131, 0, 4000)       \
    X(ChancellorValueMg, 875, 0, 4000)        \
    X(ChancellorValueEg, 1250, 0, 4000)       \
    X(QueenValueMg, 950, 0, 4000)             \
    X(QueenValueEg, 1335, 0, 4000)            \
    X(BishopPairMg, 51, -200, 300)            \
    X(BishopPairEg, 49, -200, 300)            \
    X(KnightMobilityMg, 4, -50, 50)           \
    X(KnightMobilityEg, 3, -50, 50)           \
    X(BishopMobilityMg, 5, -50, 50)           \
    X(BishopMobilityEg, 6, -50, 50)           \
    X(RookMobilityMg, 5, -50, 50)             \
    X(RookMobilityEg, 9, -50, 50)             \
    X(ArchbishopMobilityMg, 0, -50, 50)       \
    X(ArchbishopMobilityEg, 6, -50, 50)       \
    X(ChancellorMobilityMg, 3, -50, 50)       \
    X(ChancellorMobilityEg, 5, -50, 50)       \
    X(QueenMobilityMg, 3, -50, 50)            \
    X(QueenMobilityEg, 4, -50, 50)            \
    X(PawnCentreMg, 4, -50, 50)               \
    X(PawnCentreEg, -4, -50, 50)              \
    X(KnightCentreMg, 11, -50, 50)            \
    X(KnightCentreEg, 6, -50, 50)             \
    X(BishopCentreMg, -1, -50, 50)            \
    X(BishopCentreEg, 4, -50, 50)             \
    X(RookCentreMg, 5, -50, 50)               \
    X(RookCentreEg, 0, -50, 50)               \
    X(ArchbishopCentreMg, 5, -50, 50)         \
    X(ArchbishopCentreEg, 6, -50, 50)         \
    X(ChancellorCentreMg, 0, -50, 50)         \
    X(ChancellorCentreEg, 3, -50, 50)         \
    X(QueenCentreMg, 1, -50, 50)              \
    X(QueenCentreEg, 1, -50, 50)              \
    X(RookOpenFileMg, 24, -200, 200)          \
    X(RookOpenFileEg, 11, -200, 200)          \
    X(KingAttackKnight, 8, 0, 100)            \
    X(KingAttackBishop, 7, 0, 100)            \
    X(KingAttackRook, 10, 0, 100)             \
    X(KingAttackArchbishop, 8, 0, 100)        \
    X(KingAttackChancellor, 11, 0, 100)       \
    X(KingAttackQueen, 11, 0, 100)            \
    X(KingSafeCheck, 16, 0, 100)              \
    X(KingDangerMg, 42, 0, 400)               \
    X(KingDangerCapMg, 500, 0, 2000)          \
    X(KingShieldMg, 7, -100, 200)             \
    X(KingOpenFileMg, -12, -200, 200)         \
    X(KingStormMg, -6, -100, 100)             \
    X(KingWeakSquare, 6, 0, 100)              \
    X(KingCentreMg, -16, -100, 100)           \
    X(KingCentreEg, 6, -100, 100)             \
    X(DoubledPawnMg, -13, -200, 200)          \
    X(DoubledPawnEg, -21, -200, 200)          \
    X(IsolatedPawnMg, -11, -200, 200)         \
    X(IsolatedPawnEg, -14, -200, 200)         \
    X(PassedPawnRank2Mg, 4, -200, 500)        \
    X(PassedPawnRank2Eg, 9, -200, 500)        \
    X(PassedPawnRank3Mg, 4, -200, 500)        \
    X(PassedPawnRank3Eg, 14, -200, 500)       \
    X(PassedPawnRank4Mg, 9, -200, 500)        \
    X(PassedPawnRank4Eg, 29, -200, 500)       \
    X(PassedPawnRank5Mg, 25, -200, 500)       \
    X(PassedPawnRank5Eg, 55, -200, 500)       \
    X(PassedPawnRank6Mg, 50, -200, 500)       \
    X(PassedPawnRank6Eg, 100, -200, 500)      \
    X(PassedPawnRank7Mg, 80, -200, 500)       \
    X(PassedPawnRank7Eg, 160, -200, 500)      \
    X(ConnectedPawnMg, 1, -50, 50)            \
    X(ConnectedPawnEg, -1, -50, 50)           \
    X(PassedKingDistanceEg, 5, -50, 50)       \
    X(PassedEmptyMg, 1, -50, 100)             \
    X(PassedEmptyEg, 6, -50, 100)             \
    X(PassedFreeMg, 3, -50, 100)              \
    X(PassedFreeEg, 16, -50, 100)             \
    X(PassedUnstoppableEg, 300, 0, 1000)      \
    X(BackwardPawnMg, -7, -200, 200)          \
    X(BackwardPawnEg, -8, -200, 200)          \
    X(KnightOutpostMg, 19, -100, 200)         \
    X(KnightOutpostEg, 10, -100, 200)         \
    X(BishopOutpostMg, 10, -100, 200)         \
    X(BishopOutpostEg, 5, -100, 200)          \
    X(RookSeventhMg, 10, -100, 200)           \
    X(RookSeventhEg, 21, -100, 200)           \
    X(MinorBehindPawnMg, 0, -100, 200)        \
    X(MinorBehindPawnEg, 0, -100, 200)        \
    X(BishopPawnsMg, 0, -50, 50)              \
    X(BishopPawnsEg, 0, -50, 50)              \
    X(ThreatByPawnMg, 60, -300, 300)          \
    X(ThreatByPawnEg, 39, -300, 300)          \
    X(ThreatByMinorMg, 31, -300, 300)         \
    X(ThreatByMinorEg, 30, -300, 300)         \
    X(HangingMg, 35, -300, 300)               \
    X(HangingEg, 25, -300, 300)               \
    X(ThreatByLesserMg, 25, -300, 300)        \
    X(ThreatByLesserEg, 20, -300, 300)        \
    X(PawnPushThreatMg, 15, -300, 300)        \
    X(PawnPushThreatEg, 10, -300, 300)        \
    X(ThreatByRookMg, 0, -300, 300)           \
    X(ThreatByRookEg, 0, -300, 300)           \
    X(ThreatMinorOnMinorMg, 0, -300, 300)     \
    X(ThreatMinorOnMinorEg, 0, -300, 300)     \
    X(ThreatByKingMg, 0, -300, 300)           \
    X(ThreatByKingEg, 0, -300, 300)           \
    X(ThreatRestrictedMg, 0, -100, 100)       \
    X(ThreatRestrictedEg, 0, -100, 100)       \
    X(MopUpEg, 10, 0, 100)                    \
    X(ScaleNoPawns, 28, 0, 64)                \
    X(ScalePerPawn, 7, 0, 64)                 \
    X(ScaleOppositeBishops, 42, 0, 64)        \
    X(Tempo, 11, -100, 100)                   \
    X(InitiativePassed, 0, -100, 100)         \
    X(InitiativePawn, 0, -100, 100)           \
    X(InitiativeOutflank, 0, -100, 100)       \
    X(InitiativeInfiltrate, 0, -100, 100)     \
    X(InitiativeBothFlanks, 0, -200, 200)     \
    X(InitiativeNoPieces, 0, -200, 200)       \
    X(InitiativeUnwinnable, 0, -200, 200)     \
    X(InitiativeBase, 0, -500, 500)           \
    X(InitiativeMgOffset, 0, -500, 500)       \
    X(SearchAspDelta, 30, 5, 300)             \
    X(SearchRfpDepth, 6, 0, 16)               \
    X(SearchRfpMargin, 90, 10, 400)           \
    X(SearchNullBase, 3, 1, 8)                \
    X(SearchNullDepthDiv, 4, 1, 16)           \
    X(SearchNullEvalDiv, 200, 20, 1000)       \
    X(SearchIirDepth, 4, 2, 16)               \
    X(SearchLmpDepth, 4, 0, 16)               \
    X(SearchLmpBase, 3, 1, 30)                \
    X(SearchLmpScale, 100, 25, 800)           \
    X(SearchFutDepth, 3, 0, 16)               \
    X(SearchFutBase, 100, 0, 600)             \
    X(SearchFutMargin, 120, 10, 600)          \
    X(SearchSeeQuietDepth, 6, 0, 16)          \
    X(SearchSeeQuietMargin, 25, 0, 200)       \
    X(SearchSeeNoisyDepth, 4, 0, 16)          \
    X(SearchSeeNoisyMargin, 100, 0, 500)      \
    X(SearchLmrBase, 75, 0, 300)              \
    X(SearchLmrDivisor, 225, 50, 1000)        \
    X(SearchLmrHistoryDiv, 8000, 500, 65536)  \
    X(SearchLmrCutNode, 0, 0, 4)              \
    X(SearchHistoryBonus, 44, 1, 400)         \
    X(SearchHistoryLinear, 211, -2000, 2000)  \
    X(SearchHistoryOffset, -205, -4000, 4000) \
    X(SearchHistoryMax, 8000, 100, 16384)     \
    X(SearchQsDelta, 200, 0, 1000)            \
    X(SearchQsTtStand, 0, 0, 1)

typedef enum {
#define PARAMS_ENUM_(name, def, lo, hi) PARAM_##name,
    PARAMS_TABLE(PARAMS_ENUM_)
#undef PARAMS_ENUM_
    PARAM_NB
} param_id_t;

typedef struct {
    int32_t value[PARAM_NB];
} params_t;

typedef struct {
    const char *name;
    int32_t def, min, max;
    bool material;  /* a piece value (kept by params_material_only) */
    bool search;    /* a search parameter, Search... (kept too; not an evaluation weight) */
} param_info_t;

/* The number of parameters and the description of parameter i (0 <= i <
 * params_count(); NULL otherwise). Static storage. */
int params_count(void);
const param_info_t *params_info(int i);

/* Fills *p with the defaults. */
void params_default(params_t *p);
/* Zeroes every evaluation parameter that is not a piece value (a
 * material-only evaluation, the baseline a strength test plays against);
 * the search parameters keep their values. */
void params_material_only(params_t *p);
/* Index of a parameter (exact, case-sensitive name), or CAPA_ENOTFOUND. */
int params_find(const char *name);
/* Checks that name exists and value lies within [min, max] (fractional
 * values are rounded to the nearest integer first, as params_set does).
 * 0, CAPA_ENOTFOUND or CAPA_ERANGE with a message. */
int params_check(const char *name, double value, char *err, size_t errlen);
/* The same as a callback for the run-document parser (ctx unused). */
int params_check_cb(const char *name, double value, char *err, size_t errlen, void *ctx);
/* Sets one parameter after params_check. */
int params_set(params_t *p, const char *name, double value, char *err, size_t errlen);
/* Applies a JSON object {"Name": number, ...} on top of *p (start from
 * params_default for "defaults plus overrides"). All names and values are
 * checked before anything is changed: on error *p is unchanged. json may be
 * text (params_from_json) or a parsed cJSON object (params_from_cjson). */
int params_from_json(const char *json, params_t *p, char *err, size_t errlen);
struct cJSON;
int params_from_cjson(const struct cJSON *obj, params_t *p, char *err, size_t errlen);
/* The parameters as a JSON object text; with only_changed, only those that
 * differ from the defaults ("{}" for the defaults). Caller frees; NULL on
 * allocation failure. */
char *params_to_json(const params_t *p, bool only_changed);
/* Whether two sets are equal. */
bool params_equal(const params_t *a, const params_t *b);

#endif
