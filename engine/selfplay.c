/* selfplay.c - threaded self-play matches and the selfplay command. */
#include "selfplay.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crc.h"
#include "err.h"
#include "pgn.h"
#include "timeman.h"

void selfplay_config_default(selfplay_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    game_config_default(&cfg->game);
    cfg->starts.source = STARTPOS_VARIANT;
    cfg->starts.variant = VARIANT_CAPABLANCA;
    cfg->pairs = 10;
    cfg->threads = 1;
    params_default(&cfg->a);
    params_default(&cfg->b);
    cfg->name_a = "A";
    cfg->name_b = "B";
}

typedef struct {
    const selfplay_config_t *cfg;
    atomic_int next;
    pthread_mutex_t lock;
    selfplay_stats_t *stats;
    char **pgn;                /* [2 * pairs] formatted games */
    int rc;
    char err[320];  /* "pair N: " + a game error of up to 256 */
    int done;
} s_shared_t;

static void s_count(selfplay_stats_t *st, const game_record_t *rec, bool b_is_white)
{
    int hp = game_half_points(rec, b_is_white ? WHITE : BLACK);
    if (hp == 2)
        st->wins++;
    else if (hp == 1)
        st->draws++;
    else
        st->losses++;
    st->terminations[rec->termination]++;
    st->white_wins += rec->result == RESULT_WHITE_WINS;
    st->black_wins += rec->result == RESULT_BLACK_WINS;
    st->illegal += rec->termination == TERM_ILLEGAL_MOVE;
    st->plies += (uint64_t) rec->plies;
    st->nodes += rec->nodes[WHITE] + rec->nodes[BLACK];
}

/* The variant of the games a spec starts: CRC arrays are caparandom. */
static variant_t s_variant(const startpos_spec_t *spec)
{
    return spec->source == STARTPOS_CRC ? VARIANT_CAPARANDOM : (variant_t) spec->variant;
}

static void *s_worker(void *arg)
{
    s_shared_t *sh = arg;
    const selfplay_config_t *cfg = sh->cfg;
    game_workspace_t *ws = game_workspace_new(cfg->game.hash_mb);
    game_record_t *rec = malloc(2 * sizeof *rec);
    if (!ws || !rec) {
        pthread_mutex_lock(&sh->lock);
        sh->rc = capa_fail(sh->err, sizeof sh->err, CAPA_ENOMEM, "selfplay: out of memory");
        pthread_mutex_unlock(&sh->lock);
        goto out;
    }
    for (;;) {
        int k = atomic_fetch_add(&sh->next, 1);
        if (k >= cfg->pairs)
            break;
        pthread_mutex_lock(&sh->lock);
        bool failed = sh->rc < 0;
        pthread_mutex_unlock(&sh->lock);
        if (failed)
            break;
        game_config_t gc = cfg->game;
        char err[256] = "";
        startpos_t sp;
        int rc = startpos_for_pair(&cfg->starts, k, &sp, err, sizeof err);
        int quarters = 0;
        /* B is white in game g when b_white[g]. */
        bool b_white[2] = { false, true };
        if (rc == CAPA_OK) {
            gc.variant = s_variant(&cfg->starts);
            snprintf(gc.start_fen, sizeof gc.start_fen, "%s", sp.fen);
        }
        if (rc == CAPA_OK && !sp.imbalance[0]) {
            rc = game_play_pair(ws, &gc, &cfg->a, &cfg->b, rec, &quarters, err, sizeof err);
        } else if (rc == CAPA_OK) {
            b_white[0] = true;
            b_white[1] = false;
            rc = game_play_ws(ws, &gc, &cfg->b, &cfg->a, &rec[0], err, sizeof err);
            snprintf(gc.start_fen, sizeof gc.start_fen, "%s", sp.fen2);
            if (rc == CAPA_OK)
                rc = game_play_ws(ws, &gc, &cfg->a, &cfg->b, &rec[1], err, sizeof err);
            if (rc == CAPA_OK)
                quarters = game_half_points(&rec[0], WHITE) + game_half_points(&rec[1], BLACK);
        }
        char *text[2] = { NULL, NULL };
        if (rc == CAPA_OK && cfg->pgn) {
            char date[16];
            time_t now = time(NULL);
            struct tm tm;
            gmtime_r(&now, &tm);
            strftime(date, sizeof date, "%Y.%m.%d", &tm);
            for (int g = 0; g < 2; g++) {
                char round[32];
                snprintf(round, sizeof round, "%d.%d", k + 1, g + 1);
                pgn_tags_t tags = { "capalab selfplay", "capa-engine", date, round,
                                    b_white[g] ? cfg->name_b : cfg->name_a,
                                    b_white[g] ? cfg->name_a : cfg->name_b, cfg->pgn_comments };
                text[g] = pgn_format(&rec[g], &tags);
            }
        }
        pthread_mutex_lock(&sh->lock);
        if (rc < 0) {
            if (sh->rc == 0) {
                sh->rc = rc;
                snprintf(sh->err, sizeof sh->err, "pair %d: %s", k, err);
            }
        } else {
            selfplay_stats_t *st = sh->stats;
            st->pairs++;
            st->penta[quarters]++;
            s_count(st, &rec[0], b_white[0]);
            s_count(st, &rec[1], b_white[1]);
            if (sh->pgn) {
                sh->pgn[2 * k] = text[0];
                sh->pgn[2 * k + 1] = text[1];
            }
            sh->done++;
            if (cfg->progress && (sh->done % 10 == 0 || sh->done == cfg->pairs))
                fprintf(stderr, "selfplay: %d/%d pairs, B %d-%d-%d\n", sh->done, cfg->pairs,
                        st->wins, st->draws, st->losses);
        }
        pthread_mutex_unlock(&sh->lock);
    }
out:
    free(rec);
    game_workspace_destroy(&ws);
    return NULL;
}

int selfplay_run(const selfplay_config_t *cfg, selfplay_stats_t *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (cfg->pairs < 0 || cfg->threads < 1 || cfg->threads > 1024)
        return capa_fail(err, errlen, CAPA_EINVAL, "selfplay: bad pair or thread count");
    s_shared_t sh;
    memset(&sh, 0, sizeof sh);
    sh.cfg = cfg;
    atomic_init(&sh.next, 0);
    pthread_mutex_init(&sh.lock, NULL);
    sh.stats = out;
    if (cfg->pgn && cfg->pairs > 0) {
        sh.pgn = calloc((size_t) cfg->pairs * 2, sizeof(char *));
        if (!sh.pgn)
            return capa_fail(err, errlen, CAPA_ENOMEM, "selfplay: out of memory");
    }
    int64_t t0 = timeman_now_ms();
    int n = cfg->threads < cfg->pairs ? cfg->threads : (cfg->pairs > 0 ? cfg->pairs : 1);
    pthread_t *tid = calloc((size_t) n, sizeof *tid);
    int started = 0;
    for (int i = 0; tid && i < n; i++) {
        if (pthread_create(&tid[i], NULL, s_worker, &sh) != 0)
            break;
        started++;
    }
    if (started == 0)
        s_worker(&sh);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    out->seconds = (timeman_now_ms() - t0) / 1000.0;
    if (sh.pgn) {
        for (int i = 0; i < cfg->pairs * 2; i++) {
            if (sh.pgn[i] && fputs(sh.pgn[i], cfg->pgn) < 0 && sh.rc == 0)
                sh.rc = capa_fail(sh.err, sizeof sh.err, CAPA_EIO, "selfplay: writing PGN failed");
            free(sh.pgn[i]);
        }
        free(sh.pgn);
        fflush(cfg->pgn);
    }
    pthread_mutex_destroy(&sh.lock);
    if (sh.rc < 0)
        return capa_fail(err, errlen, sh.rc, "%s", sh.err);
    return CAPA_OK;
}

double selfplay_score(const selfplay_stats_t *s)
{
    int games = s->wins + s->draws + s->losses;
    return games ? (s->wins + 0.5 * s->draws) / games : 0.5;
}

double selfplay_elo(const selfplay_stats_t *s)
{
    double sc = selfplay_score(s);
    if (sc <= 0.0)
        return -INFINITY;
    if (sc >= 1.0)
        return INFINITY;
    return -400.0 * log10(1.0 / sc - 1.0);
}

void selfplay_print(FILE *f, const selfplay_stats_t *s)
{
    int games = s->wins + s->draws + s->losses;
    double elo = selfplay_elo(s);
    if (fabs(elo) < 0.05)
        elo = 0.0;  /* no "-0.0" */
    fprintf(f, "pairs %d, games %d: B wins %d, draws %d, losses %d (score %.1f%%, Elo %+.1f)\n",
            s->pairs, games, s->wins, s->draws, s->losses, 100.0 * selfplay_score(s), elo);
    fprintf(f, "pentanomial (B's pair score 0, 1/4, 1/2, 3/4, 1): [%d, %d, %d, %d, %d]\n",
            s->penta[0], s->penta[1], s->penta[2], s->penta[3], s->penta[4]);
    fprintf(f, "white wins %d, black wins %d, illegal-move endings %d\n", s->white_wins,
            s->black_wins, s->illegal);
    fprintf(f, "terminations:");
    for (int t = 1; t < TERM_NB; t++)
        if (s->terminations[t])
            fprintf(f, " %s %d", game_termination_name((game_termination_t) t), s->terminations[t]);
    fprintf(f, "\n");
    double mins = s->seconds / 60.0;
    fprintf(f, "time %.1f s, %.1f games/min, %.1f plies/game, %" PRIu64 " nodes\n", s->seconds,
            mins > 0 ? games / mins : 0.0, games ? (double) s->plies / games : 0.0, s->nodes);
}

/* ---- the command ---- */

static const char *const USAGE =
    "usage: capa-engine selfplay [options]\n"
    "  --pairs N              game pairs to play (10)\n"
    "  --threads N            games at once (1)\n"
    "  --nodes N              nodes per move (10000)\n"
    "  --depth N              depth per move instead of nodes\n"
    "  --tc BASE[+INC]        seconds per game (+ increment) instead of nodes\n"
    "  --a SET, --b SET       parameter sets: inline JSON, a JSON file, 'default' or\n"
    "                         'material' (every non-material term zero); B is under test\n"
    "  --name-a S, --name-b S labels for the PGN\n"
    "  --variant V            capablanca, gothic, embassy, janus, caparandom\n"
    "  --crc N | --crc-random start from CRC array N / an array drawn per pair\n"
    "  --book FILE            FEN file (one per line, '#' comments): pair k plays\n"
    "                         line (k + offset) mod lines, offset drawn from the seed\n"
    "  --random-plies N       random legal plies after the start (0..40)\n"
    "  --imbalance 'X vs Y'   as in a values run: B (under test) holds X where A\n"
    "                         holds Y ('A vs R+N', 'P vs nothing'), from a CRC array\n"
    "                         drawn per pair, B white in game 1 and black in game 2\n"
    "  --seed S               run seed (1)\n"
    "  --hash MB              per engine (16)\n"
    "  --resign CP MOVES      resign adjudication (1000 4); --no-resign\n"
    "  --draw CP MOVES FROM   draw adjudication (10 8 40); --no-draw\n"
    "  --max-moves N          move cap (400)\n"
    "  --pgn FILE             write the games; --comments adds score/depth\n"
    "  --progress             a progress line every 10 pairs\n";

static int s_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return CAPA_EINVAL;
    *out = v;
    return CAPA_OK;
}

static int s_load_params(const char *spec, params_t *p, char *err, size_t errlen)
{
    params_default(p);
    if (strcmp(spec, "default") == 0)
        return CAPA_OK;
    if (strcmp(spec, "material") == 0) {
        params_material_only(p);
        return CAPA_OK;
    }
    if (spec[0] == '{')
        return params_from_json(spec, p, err, errlen);
    FILE *f = fopen(spec, "r");
    if (!f)
        return capa_fail(err, errlen, CAPA_EIO, "%s: %s", spec, strerror(errno));
    char *text = NULL;
    size_t len = 0, cap = 0;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            char *g = realloc(text, cap);
            if (!g) {
                free(text);
                fclose(f);
                return capa_fail(err, errlen, CAPA_ENOMEM, "out of memory");
            }
            text = g;
        }
        memcpy(text + len, buf, n);
        len += n;
        text[len] = 0;
    }
    fclose(f);
    int rc = params_from_json(text ? text : "", p, err, errlen);
    free(text);
    return rc;
}

int selfplay_main(int argc, char **argv)
{
    selfplay_config_t cfg;
    selfplay_config_default(&cfg);
    cfg.starts.seed = 1;
    const char *pgn_path = NULL, *book_path = NULL;
    char err[512] = "";
    variant_t variant = VARIANT_CAPABLANCA;
    bool variant_given = false, crc_random = false;
    long crc_fixed = -1;
    startpos_imbalance_t imbalance;
    bool has_imbalance = false;
    char **book = NULL;
    size_t book_lines = 0;
    char crc_fen[STARTPOS_FEN_MAX];
    const char *crc_book[1] = { crc_fen };
    long v;
    int rc = 0;
#define NEED(k)                                                                       \
    do {                                                                              \
        if (i + (k) >= argc) {                                                        \
            fprintf(stderr, "selfplay: %s needs %d argument(s)\n%s", a, (k), USAGE); \
            return 2;                                                                 \
        }                                                                             \
    } while (0)
#define NUM(s, lo, hi)                                                                \
    do {                                                                              \
        if (s_long((s), (lo), (hi), &v) < 0) {                                        \
            fprintf(stderr, "selfplay: %s: '%s' is not a number in %ld..%ld\n", a,   \
                    (s), (long) (lo), (long) (hi));                                   \
            return 2;                                                                 \
        }                                                                             \
    } while (0)
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(USAGE, stdout);
            return 0;
        } else if (strcmp(a, "--pairs") == 0) {
            NEED(1); NUM(argv[++i], 0, 10000000); cfg.pairs = (int) v;
        } else if (strcmp(a, "--threads") == 0) {
            NEED(1); NUM(argv[++i], 1, 1024); cfg.threads = (int) v;
        } else if (strcmp(a, "--nodes") == 0) {
            NEED(1); NUM(argv[++i], 1, 2000000000); cfg.game.nodes = (uint64_t) v; cfg.game.depth = 0;
        } else if (strcmp(a, "--depth") == 0) {
            NEED(1); NUM(argv[++i], 1, SEARCH_MAX_DEPTH); cfg.game.depth = (int) v; cfg.game.nodes = 0;
        } else if (strcmp(a, "--tc") == 0) {
            NEED(1);
            double base = 0, inc = 0;
            const char *s = argv[++i];
            char *end;
            base = strtod(s, &end);
            if (*end == '+')
                inc = strtod(end + 1, &end);
            if (*end || !(base > 0) || inc < 0 || base > 1e6 || inc > 1e4) {
                fprintf(stderr, "selfplay: --tc wants BASE[+INC] in seconds, e.g. 10+0.1\n");
                return 2;
            }
            cfg.game.tc_base_ms = (int64_t) (base * 1000);
            cfg.game.tc_inc_ms = (int64_t) (inc * 1000);
            cfg.game.nodes = 0;
            cfg.game.depth = 0;
        } else if (strcmp(a, "--a") == 0 || strcmp(a, "--b") == 0) {
            NEED(1);
            if (s_load_params(argv[++i], a[2] == 'a' ? &cfg.a : &cfg.b, err, sizeof err) < 0) {
                fprintf(stderr, "selfplay: %s: %s\n", a, err);
                return 2;
            }
        } else if (strcmp(a, "--name-a") == 0) {
            NEED(1); cfg.name_a = argv[++i];
        } else if (strcmp(a, "--name-b") == 0) {
            NEED(1); cfg.name_b = argv[++i];
        } else if (strcmp(a, "--variant") == 0) {
            NEED(1);
            variant_t var;
            if (variant_from_name(argv[++i], &var) < 0) {
                fprintf(stderr, "selfplay: unknown variant '%s'\n", argv[i]);
                return 2;
            }
            variant = var;
            variant_given = true;
        } else if (strcmp(a, "--crc") == 0) {
            NEED(1); NUM(argv[++i], 0, crc_count() - 1);
            crc_fixed = v;
        } else if (strcmp(a, "--crc-random") == 0) {
            crc_random = true;
        } else if (strcmp(a, "--book") == 0) {
            NEED(1); book_path = argv[++i];
        } else if (strcmp(a, "--random-plies") == 0) {
            NEED(1); NUM(argv[++i], 0, 40); cfg.starts.random_plies = (int) v;
        } else if (strcmp(a, "--imbalance") == 0) {
            NEED(1);
            has_imbalance = true;
            if (startpos_imbalance_parse(argv[++i], &imbalance, err, sizeof err) < 0) {
                fprintf(stderr, "selfplay: %s\n", err);
                return 2;
            }
        } else if (strcmp(a, "--seed") == 0) {
            NEED(1);
            char *end;
            errno = 0;
            unsigned long long s = strtoull(argv[++i], &end, 10);
            if (errno || *end || end == argv[i]) {
                fprintf(stderr, "selfplay: --seed wants a non-negative integer\n");
                return 2;
            }
            cfg.starts.seed = s;
        } else if (strcmp(a, "--hash") == 0) {
            NEED(1); NUM(argv[++i], 1, 65536); cfg.game.hash_mb = (size_t) v;
        } else if (strcmp(a, "--resign") == 0) {
            NEED(2); NUM(argv[i + 1], 1, 100000); cfg.game.resign_score = (int) v;
            NUM(argv[i + 2], 1, 1000); cfg.game.resign_moves = (int) v; i += 2;
        } else if (strcmp(a, "--no-resign") == 0) {
            cfg.game.resign_moves = 0;
        } else if (strcmp(a, "--draw") == 0) {
            NEED(3); NUM(argv[i + 1], 0, 100000); cfg.game.draw_score = (int) v;
            NUM(argv[i + 2], 1, 1000); cfg.game.draw_moves = (int) v;
            NUM(argv[i + 3], 0, 10000); cfg.game.draw_move_number = (int) v; i += 3;
        } else if (strcmp(a, "--no-draw") == 0) {
            cfg.game.draw_moves = 0;
        } else if (strcmp(a, "--max-moves") == 0) {
            NEED(1); NUM(argv[++i], 1, GAME_MAX_PLIES / 2); cfg.game.max_moves = (int) v;
        } else if (strcmp(a, "--pgn") == 0) {
            NEED(1); pgn_path = argv[++i];
        } else if (strcmp(a, "--comments") == 0) {
            cfg.pgn_comments = true;
        } else if (strcmp(a, "--progress") == 0) {
            cfg.progress = true;
        } else {
            fprintf(stderr, "selfplay: unknown option '%s'\n%s", a, USAGE);
            return 2;
        }
    }
#undef NEED
#undef NUM
    /* The start positions, as a run document would name them. */
    if (has_imbalance) {
        if (book_path || crc_fixed >= 0 || cfg.starts.random_plies > 0 ||
            (variant_given && variant != VARIANT_CAPARANDOM)) {
            fprintf(stderr, "selfplay: --imbalance plays from a CRC array drawn per pair; it does "
                            "not combine with --book, --crc N, --random-plies or another variant\n");
            return 2;
        }
        cfg.starts.source = STARTPOS_CRC;
        cfg.starts.imbalances = &imbalance;
        cfg.starts.imbalance_count = 1;
    } else if (book_path) {
        if (startpos_book_load(book_path, "", &book, &book_lines, err, sizeof err) < 0) {
            fprintf(stderr, "selfplay: %s\n", err);
            return 2;
        }
        cfg.starts.source = STARTPOS_BOOK;
        cfg.starts.variant = (int) variant;
        cfg.starts.book = (const char *const *) book;
        cfg.starts.book_count = book_lines;
    } else if (crc_fixed >= 0) {
        /* One array: a book of one line. */
        crc_start_fen((int) crc_fixed, crc_fen, sizeof crc_fen);
        cfg.starts.source = STARTPOS_BOOK;
        cfg.starts.variant = VARIANT_CAPARANDOM;
        cfg.starts.book = crc_book;
        cfg.starts.book_count = 1;
    } else if (crc_random || variant == VARIANT_CAPARANDOM) {
        cfg.starts.source = STARTPOS_CRC;
    } else {
        cfg.starts.source = STARTPOS_VARIANT;
        cfg.starts.variant = (int) variant;
    }
    if (pgn_path) {
        cfg.pgn = fopen(pgn_path, "w");
        if (!cfg.pgn) {
            fprintf(stderr, "selfplay: %s: %s\n", pgn_path, strerror(errno));
            startpos_book_free(&book, book_lines);
            return 2;
        }
    }
    selfplay_stats_t st;
    if (selfplay_run(&cfg, &st, err, sizeof err) < 0) {
        fprintf(stderr, "selfplay: %s\n", err);
        rc = 1;
    }
    selfplay_print(stdout, &st);
    if (cfg.pgn && fclose(cfg.pgn) != 0) {
        fprintf(stderr, "selfplay: %s: %s\n", pgn_path, strerror(errno));
        rc = 1;
    }
    startpos_book_free(&book, book_lines);
    return rc ? rc : (st.illegal ? 1 : 0);
}
