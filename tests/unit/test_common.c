/* Unit tests for the small shared pieces: error names and messages, logging. */
#include "check.h"
#include "err.h"
#include "log.h"

static void every_error_code_has_its_own_name(void)
{
    for (int e = CAPA_ERR_MIN; e <= 0; e++) {
        CHECK(strcmp(capa_err_name(e), "EUNKNOWN") != 0);
        for (int f = CAPA_ERR_MIN; f < e; f++)
            CHECK(strcmp(capa_err_name(e), capa_err_name(f)) != 0);
    }
    CHECK_EQ_STR(capa_err_name(-999), "EUNKNOWN");
}

static void capa_fail_formats_the_message_and_returns_the_code(void)
{
    char msg[32];
    CHECK_EQ_INT(capa_fail(msg, sizeof msg, CAPA_EINVAL, "rank %d has %d files", 3, 11), CAPA_EINVAL);
    CHECK_EQ_STR(msg, "rank 3 has 11 files");
    CHECK_EQ_INT(capa_fail(NULL, 0, CAPA_ERANGE, "ignored"), CAPA_ERANGE);
    char tiny[8];
    capa_fail(tiny, sizeof tiny, CAPA_EINVAL, "a long message that is cut");
    CHECK_EQ_INT(strlen(tiny), 7);
}

static void log_levels_parse_by_name_and_reject_others(void)
{
    CHECK_EQ_INT(capa_log_level_parse("error"), LOG_ERROR);
    CHECK_EQ_INT(capa_log_level_parse("WARN"), LOG_WARN);
    CHECK_EQ_INT(capa_log_level_parse("warning"), LOG_WARN);
    CHECK_EQ_INT(capa_log_level_parse("info"), LOG_INFO);
    CHECK_EQ_INT(capa_log_level_parse("debug"), LOG_DEBUG);
    CHECK_EQ_INT(capa_log_level_parse("verbose"), -1);
    capa_log_set_level(LOG_WARN);
    CHECK_EQ_INT(capa_log_level(), LOG_WARN);
    capa_log_set_level(LOG_INFO);
}

static const check_case_t CASES[] = {
    CASE(every_error_code_has_its_own_name),
    CASE(capa_fail_formats_the_message_and_returns_the_code),
    CASE(log_levels_parse_by_name_and_reject_others),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
