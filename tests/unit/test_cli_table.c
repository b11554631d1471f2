/* Unit tests of the capa command's pure parts: text tables, the
 * progress gauges of `capa watch`, and the reading of engines' info lines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cli.h"
#include "match.h"
#include "progress.h"
#include "table.h"
#include "uciproc.h"

static void a_table_pads_columns_and_right_aligns_numbers(void)
{
    static const char *const heads[] = { "id", "name", "pairs" };
    table_t *t = table_new(3, heads, "rlr");
    CHECK(t != NULL);
    table_addf(t, "%d", 7);
    table_addf(t, "%s", "sprt-a");
    table_addf(t, "%d", 12000);
    table_addf(t, "%d", 12);
    table_addf(t, "%s", "b");
    table_addf(t, "%d", 5);
    CHECK_EQ_INT(table_rows(t), 2);
    char *s = table_format(t);
    CHECK_EQ_STR(s, "id  name    pairs\n"
                    "--  ------  -----\n"
                    " 7  sprt-a  12000\n"
                    "12  b           5\n");
    free(s);
    table_destroy(&t);
    CHECK(t == NULL);
}

static void utf8_names_count_as_characters_not_bytes(void)
{
    static const char *const heads[] = { "name", "x" };
    table_t *t = table_new(2, heads, NULL);
    table_addf(t, "%s", "J\xc3\xa4ger");   /* Jäger: 5 characters, 6 bytes */
    table_addf(t, "1");
    table_addf(t, "%s", "abcde");
    table_addf(t, "2");
    char *s = table_format(t);
    CHECK_EQ_STR(s, "name   x\n-----  -\nJ\xc3\xa4ger  1\nabcde  2\n");
    CHECK_EQ_INT(table_width("J\xc3\xa4ger"), 5);
    free(s);
    table_destroy(&t);
}

static void control_characters_in_cells_cannot_reach_the_terminal(void)
{
    static const char *const heads[] = { "name" };
    table_t *t = table_new(1, heads, NULL);
    table_addf(t, "%s", "evil\x1b[2J\rname");
    char *s = table_format(t);
    CHECK(strchr(s, '\x1b') == NULL);
    CHECK(strchr(s, '\r') == NULL);
    CHECK(strstr(s, "evil?[2J?name") != NULL);
    free(s);
    table_destroy(&t);
}

static void an_incomplete_last_row_and_an_empty_table_format(void)
{
    static const char *const heads[] = { "a", "b" };
    table_t *t = table_new(2, heads, "lr");
    char *s = table_format(t);
    CHECK_EQ_STR(s, "a  b\n-  -\n");
    free(s);
    table_addf(t, "%s", "x");
    s = table_format(t);
    CHECK_EQ_STR(s, "a  b\n-  -\nx\n");
    free(s);
    table_destroy(&t);
    CHECK(table_new(0, NULL, NULL) == NULL);
}

static void the_progress_bar_fills_in_proportion_and_clamps(void)
{
    char b[64];
    progress_bar(b, sizeof b, 10, 5, 10);
    CHECK_EQ_STR(b, "[#####.....]  50.0%");
    progress_bar(b, sizeof b, 10, 0, 0);
    CHECK_EQ_STR(b, "[..........]   0.0%");
    progress_bar(b, sizeof b, 10, 30, 10);
    CHECK_EQ_STR(b, "[##########] 100.0%");
    progress_bar(b, sizeof b, 4, -3, 10);
    CHECK_EQ_STR(b, "[....]   0.0%");
    progress_bar(b, 8, 10, 5, 10);   /* truncated, still terminated */
    CHECK_EQ_INT(strlen(b), 7);
}

static void the_llr_gauge_marks_the_llr_and_zero_between_the_bounds(void)
{
    char b[64];
    progress_llr(b, sizeof b, 11, 0, -2.94, 2.94);
    CHECK_EQ_STR(b, "H0 |-----*-----| H1");
    progress_llr(b, sizeof b, 11, 2.94, -2.94, 2.94);
    CHECK_EQ_STR(b, "H0 |-----:----*| H1");
    progress_llr(b, sizeof b, 11, -99, -2.94, 2.94);
    CHECK_EQ_STR(b, "H0 |*----:-----| H1");
    progress_llr(b, sizeof b, 11, 1.0 / 0.0, -2.94, 2.94);   /* no number: no mark */
    CHECK_EQ_STR(b, "H0 |-----------| H1");
}

static void run_ids_on_the_command_line_are_positive_numbers(void)
{
    CHECK_EQ_INT(cli_parse_id("12"), 12);
    CHECK_EQ_INT(cli_parse_id("0"), -1);
    CHECK_EQ_INT(cli_parse_id("x1"), -1);
    CHECK_EQ_INT(cli_parse_id(""), -1);
    CHECK_EQ_INT(cli_parse_id("3.5"), -1);
}

static void engine_info_lines_give_depth_score_and_bound(void)
{
    uciproc_info_t i;
    CHECK_EQ_INT(uciproc_parse_info("info depth 12 seldepth 20 score cp -35 nodes 9 pv e2e4", &i), 1);
    CHECK_EQ_INT(i.depth, 12);
    CHECK_EQ_INT(i.kind, UCIPROC_SCORE_CP);
    CHECK_EQ_INT(i.value, -35);
    CHECK(!i.bound);
    CHECK_EQ_INT(uciproc_parse_info("info depth 9 score cp 120 lowerbound nodes 5", &i), 1);
    CHECK(i.bound && i.value == 120);
    CHECK_EQ_INT(uciproc_parse_info("info depth 9 score mate -3 upperbound", &i), 1);
    CHECK(i.bound && i.kind == UCIPROC_SCORE_MATE && i.value == -3);
    CHECK_EQ_INT(uciproc_parse_info("info score mate 0", &i), 1);
    CHECK(i.kind == UCIPROC_SCORE_MATE && i.value == 0 && i.depth == 0 && !i.bound);
    /* no score, or one that says neither cp nor mate */
    CHECK_EQ_INT(uciproc_parse_info("info depth 3 currmove e2e4 currmovenumber 1", &i), 1);
    CHECK(i.depth == 3 && i.kind == UCIPROC_SCORE_NONE);
    CHECK_EQ_INT(uciproc_parse_info("info depth 4 score wdl 300 400 300", &i), 1);
    CHECK(i.depth == 4 && i.kind == UCIPROC_SCORE_NONE);
    /* not info lines, and words inside a string */
    CHECK_EQ_INT(uciproc_parse_info("info string depth 5 score cp 10", &i), 0);
    CHECK(i.depth == 0 && i.kind == UCIPROC_SCORE_NONE);
    CHECK_EQ_INT(uciproc_parse_info("bestmove e2e4", &i), 0);
    CHECK_EQ_INT(uciproc_parse_info("information depth 5", &i), 0);
}

/* A search that has found a mate reports depths of 100 and more in a few
 * nodes (Fairy-Stockfish: 245): such moves stay out of the depth average. */
static void moves_with_a_mate_score_stay_out_of_the_depth_average(void)
{
    CHECK(match_depth_counts(12, -35));
    CHECK(match_depth_counts(7, MATCH_NO_SCORE));
    CHECK(match_depth_counts(30, 2500));
    CHECK(match_depth_counts(30, -2500));
    CHECK(!match_depth_counts(0, 20));
    CHECK(!match_depth_counts(245, MATCH_MATE_SCORE - 3));
    CHECK(!match_depth_counts(99, -MATCH_MATE_SCORE + 4));
    CHECK(!match_depth_counts(9, MATCH_MATE_SCORE));
}

static const check_case_t CASES[] = {
    CASE(a_table_pads_columns_and_right_aligns_numbers),
    CASE(utf8_names_count_as_characters_not_bytes),
    CASE(control_characters_in_cells_cannot_reach_the_terminal),
    CASE(an_incomplete_last_row_and_an_empty_table_format),
    CASE(the_progress_bar_fills_in_proportion_and_clamps),
    CASE(the_llr_gauge_marks_the_llr_and_zero_between_the_bounds),
    CASE(run_ids_on_the_command_line_are_positive_numbers),
    CASE(engine_info_lines_give_depth_score_and_bound),
    CASE(moves_with_a_mate_score_stay_out_of_the_depth_average),
    { 0 },
};

int main(int argc, char **argv)
{
    return check_main(argc, argv, CASES);
}
