/* test_params.c - the named parameter table and its JSON form. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "check.h"
#include "err.h"
#include "params.h"

static void defaults_lie_within_their_bounds_and_names_are_unique(void)
{
    CHECK(params_count() >= 30);
    for (int i = 0; i < params_count(); i++) {
        const param_info_t *pi = params_info(i);
        CHECK(pi && pi->name);
        CHECK_MSG(pi->min <= pi->def && pi->def <= pi->max, "%s", pi->name);
        CHECK_EQ_INT(params_find(pi->name), i);
        CHECK_MSG((pi->min <= 0 && pi->max >= 0) || pi->material || pi->search,
                  "%s cannot be zeroed", pi->name);
    }
    CHECK(params_info(params_count()) == NULL);
    CHECK(params_info(-1) == NULL);
}

static void middle_game_material_is_the_fairy_max_table(void)
{
    /* The values the tuner never moves (capa tune without --tune-material)
     * stay those of the Fairy-Max table in centipawns: the end-game pawn
     * and the middle-game values of every piece (the minor pieces' and
     * the rook's too). The middle-game pawn is 75 (docs/strength.md, test
     * 91): it is worth less against the pieces than in the ending. The
     * end-game values were fitted to games (test 67): each piece is worth
     * more pawns in the end game than in the middle game (against the
     * end-game pawn), in the Fairy-Max order. */
    params_t p;
    params_default(&p);
    CHECK_EQ_INT(p.value[PARAM_PawnValueMg], 75);
    CHECK(p.value[PARAM_PawnValueMg] < p.value[PARAM_PawnValueEg]);
    CHECK_EQ_INT(p.value[PARAM_PawnValueEg], 100);
    CHECK_EQ_INT(p.value[PARAM_KnightValueMg], 310);
    CHECK_EQ_INT(p.value[PARAM_BishopValueMg], 350);
    CHECK_EQ_INT(p.value[PARAM_RookValueMg], 475);
    CHECK_EQ_INT(p.value[PARAM_ArchbishopValueMg], 825);
    CHECK_EQ_INT(p.value[PARAM_ChancellorValueMg], 875);
    CHECK_EQ_INT(p.value[PARAM_QueenValueMg], 950);
    static const param_id_t MG[] = { PARAM_KnightValueMg, PARAM_BishopValueMg,
                                     PARAM_RookValueMg, PARAM_ArchbishopValueMg,
                                     PARAM_ChancellorValueMg, PARAM_QueenValueMg };
    static const param_id_t EG[] = { PARAM_KnightValueEg, PARAM_BishopValueEg,
                                     PARAM_RookValueEg, PARAM_ArchbishopValueEg,
                                     PARAM_ChancellorValueEg, PARAM_QueenValueEg };
    for (size_t i = 0; i < sizeof MG / sizeof MG[0]; i++) {
        CHECK(p.value[EG[i]] > p.value[MG[i]]);
        if (i > 0)
            CHECK(p.value[EG[i]] > p.value[EG[i - 1]]);
    }
}

static void json_overrides_only_the_named_values(void)
{
    params_t p, d;
    params_default(&p);
    params_default(&d);
    char err[256];
    CHECK_EQ_INT(params_from_json("{\"ArchbishopValueMg\": 875, \"ChancellorValueEg\": 900.4}", &p,
                                  err, sizeof err), 0);
    CHECK_EQ_INT(p.value[PARAM_ArchbishopValueMg], 875);
    CHECK_EQ_INT(p.value[PARAM_ChancellorValueEg], 900);
    CHECK_EQ_INT(p.value[PARAM_QueenValueMg], d.value[PARAM_QueenValueMg]);
    CHECK_EQ_INT(params_from_json("{}", &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.value[PARAM_ArchbishopValueMg], 875);
}

static void an_unknown_name_is_rejected_by_name_and_nothing_changes(void)
{
    params_t p, d;
    params_default(&p);
    d = p;
    char err[256] = "";
    int rc = params_from_json("{\"ArchbishopValueMg\": 900, \"ArchBishopValue\": 1}", &p, err,
                              sizeof err);
    CHECK_EQ_INT(rc, CAPA_ENOTFOUND);
    CHECK(strstr(err, "ArchBishopValue") != NULL);
    CHECK(params_equal(&p, &d));
}

static void an_out_of_range_value_is_rejected_with_its_bounds(void)
{
    params_t p, d;
    params_default(&p);
    d = p;
    char err[256] = "";
    CHECK_EQ_INT(params_from_json("{\"QueenValueMg\": 99999}", &p, err, sizeof err), CAPA_ERANGE);
    CHECK(strstr(err, "QueenValueMg") && strstr(err, "4000"));
    CHECK(params_equal(&p, &d));
    CHECK_EQ_INT(params_set(&p, "KnightValueMg", -1, err, sizeof err), CAPA_ERANGE);
    CHECK_EQ_INT(params_check("Tempo", INFINITY, err, sizeof err), CAPA_ERANGE);
}

static void malformed_json_and_non_numbers_are_errors(void)
{
    params_t p;
    params_default(&p);
    char err[256] = "";
    CHECK_EQ_INT(params_from_json("{\"Tempo\": ", &p, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(params_from_json("[1,2]", &p, err, sizeof err), CAPA_EINVAL);
    CHECK_EQ_INT(params_from_json("{\"Tempo\": \"ten\"}", &p, err, sizeof err), CAPA_EINVAL);
    CHECK(strstr(err, "Tempo") != NULL);
    CHECK_EQ_INT(params_from_json(NULL, &p, err, sizeof err), CAPA_EINVAL);
}

static void to_json_round_trips_and_lists_only_changes_on_request(void)
{
    params_t p, q;
    params_default(&p);
    char err[256];
    CHECK_EQ_INT(params_set(&p, "ChancellorValueMg", 911, err, sizeof err), 0);
    char *all = params_to_json(&p, false);
    char *diff = params_to_json(&p, true);
    CHECK(all && diff);
    CHECK_EQ_STR(diff, "{\"ChancellorValueMg\":911}");
    params_default(&q);
    q.value[PARAM_Tempo] = 77;
    CHECK_EQ_INT(params_from_json(all, &q, err, sizeof err), 0);
    CHECK(params_equal(&p, &q));
    free(all);
    free(diff);
}

static void check_callback_agrees_with_params_check(void)
{
    char err[128];
    CHECK_EQ_INT(params_check_cb("ArchbishopValueEg", 850, err, sizeof err, NULL), 0);
    CHECK_EQ_INT(params_check_cb("Nope", 1, err, sizeof err, NULL), CAPA_ENOTFOUND);
    CHECK_EQ_INT(params_check_cb("MopUpEg", -5, err, sizeof err, NULL), CAPA_ERANGE);
}

static void search_parameters_are_the_search_ones_and_material_only_keeps_them(void)
{
    int n = 0;
    params_t p;
    params_default(&p);
    params_material_only(&p);
    for (int i = 0; i < params_count(); i++) {
        const param_info_t *pi = params_info(i);
        bool named = strncmp(pi->name, "Search", 6) == 0;
        CHECK_MSG(pi->search == named, "%s", pi->name);
        CHECK_MSG(!(pi->search && pi->material), "%s", pi->name);
        if (pi->search) {
            n++;
            CHECK_MSG(p.value[i] == pi->def, "%s zeroed by params_material_only", pi->name);
        }
    }
    CHECK(n >= 20);
    CHECK(params_info(PARAM_SearchRfpMargin)->search);
    CHECK(!params_info(PARAM_Tempo)->search);
    CHECK(!params_info(PARAM_KnightValueMg)->search);
}

static void material_only_keeps_piece_values_and_zeroes_the_rest(void)
{
    params_t p;
    params_default(&p);
    params_material_only(&p);
    CHECK_EQ_INT(p.value[PARAM_ArchbishopValueEg], 1131);
    CHECK_EQ_INT(p.value[PARAM_PawnValueMg], 75);
    CHECK_EQ_INT(p.value[PARAM_BishopPairMg], 0);
    CHECK_EQ_INT(p.value[PARAM_KnightMobilityMg], 0);
    CHECK_EQ_INT(p.value[PARAM_PassedPawnRank7Eg], 0);
    CHECK_EQ_INT(p.value[PARAM_Tempo], 0);
}

static void cjson_objects_are_accepted_directly(void)
{
    cJSON *o = cJSON_Parse("{\"RookValueEg\": 500}");
    params_t p;
    params_default(&p);
    char err[64];
    CHECK_EQ_INT(params_from_cjson(o, &p, err, sizeof err), 0);
    CHECK_EQ_INT(p.value[PARAM_RookValueEg], 500);
    cJSON_Delete(o);
}

static const check_case_t CASES[] = {
    CASE(defaults_lie_within_their_bounds_and_names_are_unique),
    CASE(middle_game_material_is_the_fairy_max_table),
    CASE(json_overrides_only_the_named_values),
    CASE(an_unknown_name_is_rejected_by_name_and_nothing_changes),
    CASE(an_out_of_range_value_is_rejected_with_its_bounds),
    CASE(malformed_json_and_non_numbers_are_errors),
    CASE(to_json_round_trips_and_lists_only_changes_on_request),
    CASE(check_callback_agrees_with_params_check),
    CASE(material_only_keeps_piece_values_and_zeroes_the_rest),
    CASE(search_parameters_are_the_search_ones_and_material_only_keeps_them),
    CASE(cjson_objects_are_accepted_directly),
    { 0 } };

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
