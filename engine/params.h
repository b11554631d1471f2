/* params.h - the one named table of evaluation parameters.
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
 * a piece could give check without being taken there. The middle-game
 * penalty is KingDangerMg x units^2 / 1024 centipawns, at most
 * KingDangerCapMg, counted only when the attacker has a queen, chancellor
 * or archbishop.
 *
 * Defaults: material from the Fairy-Max engine table (N 3.1, B 3.5,
 * R 4.75, A 8.25, C 8.75, Q 9.5 pawns; pawn = 100), bishop pair +0.5
 * (H. G. Muller); the positional terms are our own round numbers.
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
    X(PawnValueMg, 100, 0, 1000)              \
    X(PawnValueEg, 100, 0, 1000)              \
    X(KnightValueMg, 310, 0, 2000)            \
    X(KnightValueEg, 310, 0, 2000)            \
    X(BishopValueMg, 350, 0, 2000)            \
    X(BishopValueEg, 350, 0, 2000)            \
    X(RookValueMg, 475, 0, 3000)              \
    X(RookValueEg, 475, 0, 3000)              \
    X(ArchbishopValueMg, 825, 0, 4000)        \
    X(ArchbishopValueEg, 825, 0, 4000)        \
    X(ChancellorValueMg, 875, 0, 4000)        \
    X(ChancellorValueEg, 875, 0, 4000)        \
    X(QueenValueMg, 950, 0, 4000)             \
    X(QueenValueEg, 950, 0, 4000)             \
    X(BishopPairMg, 50, -200, 300)            \
    X(BishopPairEg, 50, -200, 300)            \
    X(KnightMobilityMg, 4, -50, 50)           \
    X(KnightMobilityEg, 4, -50, 50)           \
    X(BishopMobilityMg, 5, -50, 50)           \
    X(BishopMobilityEg, 5, -50, 50)           \
    X(RookMobilityMg, 3, -50, 50)             \
    X(RookMobilityEg, 5, -50, 50)             \
    X(ArchbishopMobilityMg, 3, -50, 50)       \
    X(ArchbishopMobilityEg, 4, -50, 50)       \
    X(ChancellorMobilityMg, 2, -50, 50)       \
    X(ChancellorMobilityEg, 4, -50, 50)       \
    X(QueenMobilityMg, 1, -50, 50)            \
    X(QueenMobilityEg, 3, -50, 50)            \
    X(PawnCentreMg, 3, -50, 50)               \
    X(PawnCentreEg, 0, -50, 50)               \
    X(KnightCentreMg, 5, -50, 50)             \
    X(KnightCentreEg, 3, -50, 50)             \
    X(BishopCentreMg, 3, -50, 50)             \
    X(BishopCentreEg, 2, -50, 50)             \
    X(RookCentreMg, 0, -50, 50)               \
    X(RookCentreEg, 1, -50, 50)               \
    X(ArchbishopCentreMg, 4, -50, 50)         \
    X(ArchbishopCentreEg, 3, -50, 50)         \
    X(ChancellorCentreMg, 2, -50, 50)         \
    X(ChancellorCentreEg, 2, -50, 50)         \
    X(QueenCentreMg, 1, -50, 50)              \
    X(QueenCentreEg, 2, -50, 50)              \
    X(RookOpenFileMg, 25, -200, 200)          \
    X(RookOpenFileEg, 10, -200, 200)          \
    X(KingAttackKnight, 4, 0, 100)            \
    X(KingAttackBishop, 4, 0, 100)            \
    X(KingAttackRook, 6, 0, 100)              \
    X(KingAttackArchbishop, 8, 0, 100)        \
    X(KingAttackChancellor, 8, 0, 100)        \
    X(KingAttackQueen, 10, 0, 100)            \
    X(KingSafeCheck, 12, 0, 100)              \
    X(KingDangerMg, 40, 0, 400)               \
    X(KingDangerCapMg, 500, 0, 2000)          \
    X(KingShieldMg, 12, -100, 200)            \
    X(KingCentreMg, -8, -100, 100)            \
    X(KingCentreEg, 10, -100, 100)            \
    X(DoubledPawnMg, -10, -200, 200)          \
    X(DoubledPawnEg, -20, -200, 200)          \
    X(IsolatedPawnMg, -10, -200, 200)         \
    X(IsolatedPawnEg, -15, -200, 200)         \
    X(PassedPawnRank2Mg, 5, -200, 500)        \
    X(PassedPawnRank2Eg, 10, -200, 500)       \
    X(PassedPawnRank3Mg, 5, -200, 500)        \
    X(PassedPawnRank3Eg, 15, -200, 500)       \
    X(PassedPawnRank4Mg, 10, -200, 500)       \
    X(PassedPawnRank4Eg, 30, -200, 500)       \
    X(PassedPawnRank5Mg, 25, -200, 500)       \
    X(PassedPawnRank5Eg, 55, -200, 500)       \
    X(PassedPawnRank6Mg, 50, -200, 500)       \
    X(PassedPawnRank6Eg, 100, -200, 500)      \
    X(PassedPawnRank7Mg, 80, -200, 500)       \
    X(PassedPawnRank7Eg, 160, -200, 500)      \
    X(ConnectedPawnMg, 3, -50, 50)            \
    X(ConnectedPawnEg, 2, -50, 50)            \
    X(PassedKingDistanceEg, 4, -50, 50)       \
    X(ThreatByPawnMg, 60, -300, 300)          \
    X(ThreatByPawnEg, 40, -300, 300)          \
    X(ThreatByMinorMg, 30, -300, 300)         \
    X(ThreatByMinorEg, 30, -300, 300)         \
    X(HangingMg, 35, -300, 300)               \
    X(HangingEg, 25, -300, 300)               \
    X(MopUpEg, 10, 0, 100)                    \
    X(Tempo, 10, -100, 100)

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
} param_info_t;

/* The number of parameters and the description of parameter i (0 <= i <
 * params_count(); NULL otherwise). Static storage. */
int params_count(void);
const param_info_t *params_info(int i);

/* Fills *p with the defaults. */
void params_default(params_t *p);
/* Zeroes every parameter that is not a piece value (a material-only
 * evaluation, the baseline a strength test plays against). */
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
