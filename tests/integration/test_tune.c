/* test_tune.c - `capa tune` end to end: games played by the engine library
 * are stored in a real PostgreSQL database (ctest fixture "pg") as a run's
 * pairs with their UCI moves, and written as PGN; the command reads both,
 * fits, and writes a parameter set the engine accepts. Bad input (a
 * malformed PGN, an unknown or frozen parameter, an empty database, a
 * database that is not there) ends with a message and exit code 1 or 3. */
#include "check.h"
#include "pgtest.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include "crc.h"
#include "err.h"
#include "game.h"
#include "log.h"
#include "notation.h"
#include "params.h"
#include "pgn.h"
#include "store.h"

#define OUT_MAX (1 << 18)
#define PAIRS 4

static char s_out[OUT_MAX];
static char s_db[512];        /* a database with a run of PAIRS real pairs */
static int64_t s_run_id;
static char s_pgn[512];       /* the same games as PGN */
static board_t s_board;

/* Runs `capa tune ARGS`, stdout and stderr into s_out; the exit code. */
static int s_tune(const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s/capa' tune %s 2>&1", CAPA_BINARY_DIR, args);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    size_t n = fread(s_out, 1, sizeof s_out - 1, p);
    s_out[n] = 0;
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* rec's moves as UCI text (static buffer). */
static const char *s_uci_text(const game_record_t *rec)
{
    static char text[GAME_MAX_PLIES * 8];
    size_t len = 0;
    CHECK_EQ_INT(board_set_fen(&s_board, rec->start_fen, rec->variant, NULL, 0), 0);
    for (int i = 0; i < rec->plies; i++) {
        char m[UCI_MOVE_MAX];
        move_to_uci(&s_board, rec->moves[i].move, rec->chess960, m);
        len += (size_t) snprintf(text + len, sizeof text - len, "%s%s", i ? " " : "", m);
        board_make(&s_board, rec->moves[i].move);
    }
    text[len] = 0;
    return text;
}

static int s_white_half_points(const game_record_t *rec)
{
    return rec->result == RESULT_WHITE_WINS ? STORE_WHITE_WINS
           : rec->result == RESULT_BLACK_WINS ? STORE_BLACK_WINS : STORE_DRAW;
}

/* A migrated database with one sprt run of PAIRS pairs played at 300 nodes
 * from CRC arrays (moves kept as a worker sends them), and the PGN file. */
static void s_setup(void)
{
    static bool ready;
    if (ready)
        return;
    CHECK(pgtest_create_db("tune", s_db, sizeof s_db) == 0);
    char err[256];
    store_t *st = NULL;
    CHECK_MSG(store_open(s_db, &st, err, sizeof err) == 0, "%s", err);
    CHECK_MSG(store_migrate(st, CAPA_SOURCE_DIR "/sql", NULL) == 0, "%s", store_last_error(st));
    store_run_t run = { .kind = PROTO_KIND_SPRT, .name = "tune source",
                        .doc = "{\"kind\": \"sprt\", \"variant\": \"caparandom\"}", .seed = 9,
                        .pairs_planned = PAIRS };
    CHECK(store_run_insert(st, &run, &s_run_id) == 0);

    snprintf(s_pgn, sizeof s_pgn, "%s/tests/test_tune_%d.pgn", CAPA_BINARY_DIR, (int) getpid());
    FILE *pgn = fopen(s_pgn, "w");
    CHECK(pgn != NULL);
    game_config_t cfg;
    game_config_default(&cfg);
    cfg.variant = VARIANT_CAPARANDOM;
    cfg.chess960 = true;
    cfg.nodes = 300;
    cfg.hash_mb = 1;
    params_t a, b;
    params_default(&a);
    params_default(&b);
    b.value[PARAM_Tempo] = 14;
    static game_record_t rec[2];
    char *moves[2] = { NULL, NULL };
    for (int k = 0; k < PAIRS; k++) {
        CHECK_EQ_INT(crc_start_fen(100 + 37 * k, cfg.start_fen, sizeof cfg.start_fen), 0);
        int quarters = 0;
        CHECK_MSG(game_play_pair(NULL, &cfg, &a, &b, rec, &quarters, err, sizeof err) == 0, "%s",
                  err);
        pgn_tags_t tags = { "tune test", "here", "2026.12.01", "1", "a", "b", false };
        for (int g = 0; g < 2; g++) {
            CHECK_EQ_INT(pgn_write(pgn, &rec[g], &tags), 0);
            moves[g] = strdup(s_uci_text(&rec[g]));
        }
        store_pair_t p = {
            .pair_no = k, .fen = cfg.start_fen,
            .result = { s_white_half_points(&rec[0]), s_white_half_points(&rec[1]) },
            .b_white = { false, true }, .end = { "adjudication_draw", "adjudication_draw" },
            .plies = { rec[0].plies, rec[1].plies }, .moves = { moves[0], moves[1] },
            .cpu_ms = 10,
        };
        p.score = quarters;   /* B's quarter points: Black in game 1, White in game 2 */
        CHECK_EQ_INT(p.score, (2 - p.result[0]) + p.result[1]);
        CHECK_MSG(store_insert_pairs(st, s_run_id, &p, 1, NULL, NULL) == 0, "%s",
                  store_last_error(st));
        free(moves[0]);
        free(moves[1]);
    }
    fclose(pgn);
    store_destroy(&st);
    ready = true;
}

static void tune_fits_the_games_of_a_run_and_writes_a_set_the_engine_takes(void)
{
    s_setup();
    char out[600], args[2048];
    snprintf(out, sizeof out, "%s/tests/test_tune_%d.json", CAPA_BINARY_DIR, (int) getpid());
    snprintf(args, sizeof args,
             "--db '%s' --run %lld --per-game 40 --skip-plies 4 --iterations 3 --steps 50 "
             "--out '%s'", s_db, (long long) s_run_id, out);
    int rc = s_tune(args);
    CHECK_MSG(rc == 0, "exit %d: %.900s", rc, s_out);
    char want[128];
    snprintf(want, sizeof want, "database: %d counted pairs, %d games with moves (run %lld)",
             PAIRS, 2 * PAIRS, (long long) s_run_id);
    CHECK_MSG(strstr(s_out, want), "%.900s", s_out);
    CHECK_MSG(strstr(s_out, "from 8 games (0 unfinished)"), "%.900s", s_out);
    /* every evaluation parameter but the eight piece values the studies
     * measure (P, A, C, Q, Mg and Eg), whatever the evaluation's parameters
     * are today; never the search's (Search...) */
    int search = 0;
    for (int i = 0; i < params_count(); i++)
        search += params_info(i)->search;
    CHECK(search > 0);
    char tuned[96];
    snprintf(tuned, sizeof tuned, "(fitted on the start); %d parameters tuned",
             params_count() - 8 - search);
    CHECK_MSG(strstr(s_out, tuned), "%.900s", s_out);
    CHECK_MSG(strstr(s_out, "iteration 1: error "), "%.900s", s_out);
    const char *line = strstr(s_out, "\nerror ");
    CHECK_MSG(line, "%.900s", s_out);
    double before = 0, after = 0;
    CHECK(sscanf(line, "\nerror %lf -> %lf", &before, &after) == 2);
    CHECK_MSG(after <= before && before > 0, "%.200s", line);

    FILE *f = fopen(out, "r");
    CHECK(f != NULL);
    static char json[65536];
    size_t n = fread(json, 1, sizeof json - 1, f);
    json[n] = 0;
    fclose(f);
    params_t p;
    params_default(&p);
    char err[256];
    CHECK_MSG(params_from_json(json, &p, err, sizeof err) == 0, "%s: %.600s", err, json);
    /* the piece values the values studies measure stay where they were */
    CHECK(!strstr(json, "ArchbishopValue") && !strstr(json, "ChancellorValue") &&
          !strstr(json, "QueenValue") && !strstr(json, "PawnValue"));
    CHECK(strcmp(json, "{}\n") != 0);
    remove(out);

    /* the same games from the PGN file give the same positions */
    const char *pos = strstr(s_out, "positions: ");
    CHECK(pos);
    char db_line[256];
    snprintf(db_line, sizeof db_line, "%.*s", (int) strcspn(pos, "\n"), pos);
    snprintf(args, sizeof args,
             "--pgn '%s' --per-game 40 --skip-plies 4 --iterations 1 --steps 10 "
             "--params KnightMobilityMg,RookOpenFileMg", s_pgn);
    rc = s_tune(args);
    CHECK_MSG(rc == 0, "exit %d: %.900s", rc, s_out);
    CHECK_MSG(strstr(s_out, db_line), "pgn:\n%.600s\ndatabase: %.200s", s_out, db_line);
    CHECK_MSG(strstr(s_out, "2 parameters tuned"), "%.900s", s_out);
}

static void s_write(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    CHECK(fputs(text, f) >= 0);
    CHECK(fclose(f) == 0);
}

static void tune_refuses_bad_input_with_a_message(void)
{
    s_setup();
    char args[2048], bad[600];
    snprintf(args, sizeof args, "--pgn '%s' --params KnightMobilityMg,NoSuchThing", s_pgn);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "unknown parameter \"NoSuchThing\""), "%.900s", s_out);
    snprintf(args, sizeof args, "--pgn '%s' --params ArchbishopValueMg", s_pgn);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "ArchbishopValueMg is a piece value") &&
              strstr(s_out, "--tune-material"), "%.900s", s_out);
    snprintf(args, sizeof args,
             "--pgn '%s' --params ArchbishopValueMg --tune-material --iterations 1 --steps 5",
             s_pgn);
    CHECK_MSG(s_tune(args) == 0, "%.900s", s_out);
    /* Search parameters: not read by the static evaluation, so never fitted. */
    snprintf(args, sizeof args, "--pgn '%s' --params SearchRfpMargin", s_pgn);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "SearchRfpMargin is a search parameter"), "%.900s", s_out);

    snprintf(bad, sizeof bad, "%s/tests/test_tune_bad_%d.pgn", CAPA_BINARY_DIR, (int) getpid());
    s_write(bad, "[Variant \"caparandom\"]\n[FEN \"nbrnbqakcr/pppppppppp/10/10/10/10/PPPPPPPPPP/"
                 "NBRNBQAKCR w JCjc - 0 1\"]\n[Result \"1-0\"]\n\n1. f4 f5 2. Zz9 1-0\n");
    snprintf(args, sizeof args, "--pgn '%s'", bad);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "game 1 (from line 1)") && strstr(s_out, "Zz9"), "%.900s", s_out);
    s_write(bad, "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - c9 \"1-0\";\n"
                 "rnabqkbcnr/ppppppppp/10 w - - [0.5]\n");
    snprintf(args, sizeof args, "--epd '%s' --variant capablanca", bad);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "line 2:"), "%.900s", s_out);
    remove(bad);
    snprintf(args, sizeof args, "--epd '%s'", "/nonexistent/file.epd");
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "No such file"), "%.900s", s_out);
    CHECK_EQ_INT(s_tune("--pgn x.pgn --db y"), 1);
    CHECK_MSG(strstr(s_out, "exactly one of --db, --pgn and --epd"), "%.900s", s_out);

    /* an empty database, a run that does not exist, a server that is not there */
    char empty[512];
    CHECK(pgtest_create_db("tune_empty", empty, sizeof empty) == 0);
    store_t *st = NULL;
    char err[256];
    CHECK(store_open(empty, &st, err, sizeof err) == 0);
    CHECK(store_migrate(st, CAPA_SOURCE_DIR "/sql", NULL) == 0);
    store_destroy(&st);
    snprintf(args, sizeof args, "--db '%s'", empty);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "the database holds no games with moves"), "%.900s", s_out);
    snprintf(args, sizeof args, "--db '%s' --run 999", s_db);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "no such run"), "%.900s", s_out);
    CHECK_EQ_INT(s_tune("--db 'host=127.0.0.1 port=1 dbname=x connect_timeout=2'"), 3);
    CHECK_MSG(strstr(s_out, "--db:"), "%.900s", s_out);
    remove(s_pgn);
}

/* --label-engine: capa-engine (a real UCI process) searches each position;
 * its score, from White's view, replaces the label; --save-epd writes the
 * labels so that --epd reads them back. */
static void tune_labels_positions_with_a_uci_engine(void)
{
    char epd[600], saved[600], args[2048];
    snprintf(epd, sizeof epd, "%s/tests/test_tune_label_%d.epd", CAPA_BINARY_DIR, (int) getpid());
    snprintf(saved, sizeof saved, "%s/tests/test_tune_saved_%d.epd", CAPA_BINARY_DIR,
             (int) getpid());
    /* labels that lie: White a queen up, labelled lost; Black a queen up
     * (Black to move), labelled won for White */
    s_write(epd, "rnab1kbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNABQKBCNR w KQkq - 0 1 [0.0]\n"
                 "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNAB1KBCNR b KQkq - 0 1 [1.0]\n");
    snprintf(args, sizeof args,
             "--epd '%s' --variant capablanca --label-engine '%s/capa-engine' --label-nodes 2000 "
             "--label-threads 2 --save-epd '%s' --iterations 0",
             epd, CAPA_BINARY_DIR, saved);
    int rc = s_tune(args);
    CHECK_MSG(rc == 0, "exit %d: %.900s", rc, s_out);
    CHECK_MSG(strstr(s_out, "labelled 2 positions with"), "%.900s", s_out);
    CHECK_MSG(strstr(s_out, "wrote 2 positions to"), "%.900s", s_out);
    FILE *f = fopen(saved, "r");
    CHECK(f != NULL);
    char line[2][256];
    CHECK(fgets(line[0], sizeof line[0], f) && strcmp(line[0], "# variant capablanca\n") == 0);
    double label[2];
    for (int i = 0; i < 2; i++) {
        CHECK(fgets(line[i], sizeof line[i], f) != NULL);
        const char *open = strrchr(line[i], '[');
        CHECK_MSG(open && sscanf(open, "[%lf]", &label[i]) == 1, "%s", line[i]);
    }
    fclose(f);
    CHECK_MSG(label[0] > 0.9 && label[0] < 1.0, "White a queen up: %s", line[0]);
    CHECK_MSG(label[1] < 0.1 && label[1] > 0.0, "Black a queen up: %s", line[1]);
    CHECK(strncmp(line[1], "rnabqkbcnr/pppppppppp/10/10/10/10/PPPPPPPPPP/RNAB1KBCNR b", 57) == 0);
    /* the saved file is an --epd input as it is */
    snprintf(args, sizeof args, "--epd '%s' --variant capablanca --iterations 0", saved);
    CHECK_MSG(s_tune(args) == 0, "%.900s", s_out);
    CHECK_MSG(strstr(s_out, "positions: 2\n"), "%.900s", s_out);

    /* half the engine's label, half the (false) result */
    snprintf(args, sizeof args,
             "--epd '%s' --variant capablanca --label-engine '%s/capa-engine' --label-nodes 2000 "
             "--label-weight 0.5 --save-epd '%s' --iterations 0",
             epd, CAPA_BINARY_DIR, saved);
    CHECK_MSG(s_tune(args) == 0, "%.900s", s_out);
    f = fopen(saved, "r");
    CHECK(f && fgets(line[0], sizeof line[0], f) && fgets(line[0], sizeof line[0], f));
    fclose(f);
    CHECK(sscanf(strrchr(line[0], '['), "[%lf]", &label[0]) == 1);
    CHECK_MSG(label[0] > 0.45 && label[0] < 0.5, "%s", line[0]);

    /* an engine that is not there, a program that is no UCI engine, a bad weight */
    snprintf(args, sizeof args, "--epd '%s' --variant capablanca --label-engine /nonexistent/eng",
             epd);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "--label-engine:") && strstr(s_out, "/nonexistent/eng"), "%.900s",
              s_out);
    snprintf(args, sizeof args, "--epd '%s' --variant capablanca --label-engine /bin/true", epd);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "--label-engine:") && strstr(s_out, "/bin/true"), "%.900s", s_out);
    /* an engine that closes its input once it has read "uci" and before it
     * answers, so capa's next write fails with EPIPE every time: an error,
     * not a SIGPIPE that kills capa */
    char closer[600];
    snprintf(closer, sizeof closer, "%s/tests/test_tune_closer_%d.sh", CAPA_BINARY_DIR,
             (int) getpid());
    s_write(closer, "#!/bin/sh\nread line\nexec 0<&-\n"
                    "echo 'option name UCI_Variant type combo default chess var capablanca'\n"
                    "echo uciok\nsleep 2\n");
    CHECK(chmod(closer, 0755) == 0);
    snprintf(args, sizeof args, "--epd '%s' --variant capablanca --label-engine '%s'", epd,
             closer);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "--label-engine:") && strstr(s_out, closer), "%.900s", s_out);
    remove(closer);
    snprintf(args, sizeof args, "--epd '%s' --variant capablanca --label-engine /bin/true "
             "--label-weight 1.5", epd);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "--label-weight must be in [0, 1]"), "%.900s", s_out);
    snprintf(args, sizeof args, "--epd '%s' --variant capablanca --label-nodes 100", epd);
    CHECK_EQ_INT(s_tune(args), 1);
    CHECK_MSG(strstr(s_out, "need --label-engine"), "%.900s", s_out);
    remove(epd);
    remove(saved);
}

static const check_case_t CASES[] = {
    CASE(tune_fits_the_games_of_a_run_and_writes_a_set_the_engine_takes),
    CASE(tune_labels_positions_with_a_uci_engine),
    CASE(tune_refuses_bad_input_with_a_message),
    { 0 },
};

int main(int argc, char **argv)
{
    capa_log_init("test_tune");
    if (!getenv("CAPA_LOG_LEVEL"))
        capa_log_set_level(LOG_ERROR);
    return check_main(argc, argv, CASES);
}
