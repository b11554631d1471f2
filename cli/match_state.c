/* match_state.c - a match's counts in a file, to resume from (match_state.h). */
#include "match_state.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "game.h"

#define STATE_MAGIC "capa-match-state 1"

/* A name: printable, no blank (it is one word of a line). */
static bool s_name_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if ((unsigned char) *s <= ' ' || *s == 127)
            return false;
    return true;
}

/* (a match's name always fits in a state's, so only its characters are checked) */
_Static_assert(sizeof((match_state_t *) 0)->engine[0] >=
                   sizeof((match_config_t *) 0)->engine[0].name,
               "a state keeps every engine name a match has");

int match_state_from_config(match_state_t *st, const match_config_t *cfg, char *err, size_t errlen)
{
    memset(st, 0, sizeof *st);
    for (int i = 0; i < 2; i++) {
        const char *name = cfg->engine[i].name;
        if (!s_name_ok(name)) {
            snprintf(err, errlen,
                     "the engine name \"%.80s\" cannot be kept in a state file: it must be one "
                     "word of 1 to %zu printable characters, without blanks (--name)",
                     name, sizeof st->engine[i] - 1);
            return -1;
        }
        snprintf(st->engine[i], sizeof st->engine[i], "%s", name);
    }
    st->variant = cfg->variant;
    st->nodes = cfg->nodes;
    st->tc_base_ms = cfg->nodes ? 0 : cfg->tc_base_ms;
    st->tc_inc_ms = cfg->nodes ? 0 : cfg->tc_inc_ms;
    st->sprt = cfg->sprt;
    if (cfg->sprt)
        st->sprt_params = cfg->sprt_params;
    st->nseeds = 1;
    st->seeds[0] = cfg->seed;
    return 0;
}

/* The next line of f without its newline into line; false at the end. */
static bool s_line(FILE *f, char *line, size_t len)
{
    if (!fgets(line, (int) len, f))
        return false;
    line[strcspn(line, "\r\n")] = 0;
    return true;
}

int match_state_read(const char *path, match_state_t *st, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return -1;
    }
    memset(st, 0, sizeof *st);
    char line[4096], a[128], b[128];
    int lineno = 1;
    const char *what = NULL;
    double nums[4];
    /* each line in turn; what names the first one that is wrong */
    if (!s_line(f, line, sizeof line) || strcmp(line, STATE_MAGIC) != 0) {
        what = "the first line is not \"" STATE_MAGIC "\"";
        goto bad;
    }
    lineno++;
    if (!s_line(f, line, sizeof line) || sscanf(line, "engines %127s %127s", a, b) != 2 ||
        !s_name_ok(a) || !s_name_ok(b) || strlen(a) >= sizeof st->engine[0] ||
        strlen(b) >= sizeof st->engine[1]) {
        what = "expected \"engines BASELINE TEST\"";
        goto bad;
    }
    /* (lengths checked above; snprintf here made gcc -O0 warn of truncation) */
    memcpy(st->engine[0], a, strlen(a) + 1);
    memcpy(st->engine[1], b, strlen(b) + 1);
    lineno++;
    if (!s_line(f, line, sizeof line) || sscanf(line, "variant %127s", a) != 1 ||
        variant_from_name(a, &st->variant) < 0) {
        what = "expected \"variant NAME\"";
        goto bad;
    }
    lineno++;
    long long x, y;
    char tail;
    what = "expected \"limit nodes N\" or \"limit tc BASE_MS INC_MS\"";
    if (!s_line(f, line, sizeof line))
        goto bad;
    if (sscanf(line, "limit nodes %lld %c", &x, &tail) == 1 && x > 0) {
        st->nodes = (uint64_t) x;
    } else if (sscanf(line, "limit tc %lld %lld %c", &x, &y, &tail) == 2 && x > 0 && y >= 0) {
        st->tc_base_ms = x;
        st->tc_inc_ms = y;
    } else {
        goto bad;
    }
    lineno++;
    what = "expected \"sprt none\" or \"sprt MODEL ELO0 ELO1 ALPHA BETA\"";
    if (!s_line(f, line, sizeof line))
        goto bad;
    if (strcmp(line, "sprt none") != 0) {
        char chk[256];
        int model;
        if (sscanf(line, "sprt %127s %lf %lf %lf %lf %c", a, &nums[0], &nums[1], &nums[2],
                   &nums[3], &tail) != 5 ||
            (model = stats_model_parse(a)) < 0)
            goto bad;
        st->sprt = true;
        stats_sprt_params_default(&st->sprt_params);
        st->sprt_params.model = (stats_elo_model_t) model;
        st->sprt_params.elo0 = nums[0];
        st->sprt_params.elo1 = nums[1];
        st->sprt_params.alpha = nums[2];
        st->sprt_params.beta = nums[3];
        if (stats_sprt_params_check(&st->sprt_params, chk, sizeof chk) < 0) {
            snprintf(err, errlen, "%s, line %d: %s", path, lineno, chk);
            fclose(f);
            return -1;
        }
    }
    lineno++;
    if (!s_line(f, line, sizeof line) || strncmp(line, "seeds ", 6) != 0) {
        what = "expected \"seeds S...\"";
        goto bad;
    }
    for (char *p = line + 6; *p;) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(p, &end, 10);
        if (end == p || errno || *p == '-' || st->nseeds == MATCH_STATE_MAX_SEEDS) {
            what = "expected \"seeds S...\" (at most 256 numbers)";
            goto bad;
        }
        st->seeds[st->nseeds++] = s;
        p = end + strspn(end, " ");
    }
    if (st->nseeds == 0) {
        what = "expected \"seeds S...\"";
        goto bad;
    }
    lineno++;
    int64_t c[9];
    if (!s_line(f, line, sizeof line) ||
        sscanf(line, "counts %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64
                     " %" SCNd64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %c",
               &c[0], &c[1], &c[2], &c[3], &c[4], &c[5], &c[6], &c[7], &c[8], &tail) != 9) {
        what = "expected \"counts PAIRS W D L P0 P1 P2 P3 P4\"";
        goto bad;
    }
    st->pairs = c[0];
    st->counts.wins = c[1];
    st->counts.draws = c[2];
    st->counts.losses = c[3];
    for (int i = 0; i < 5; i++)
        st->counts.penta[i] = c[4 + i];
    char chk[256];
    bool pairs_ok = st->pairs >= 0 && st->pairs == stats_counts_pairs(&st->counts);
    if (!pairs_ok || stats_counts_check(&st->counts, chk, sizeof chk) < 0) {
        snprintf(err, errlen, "%s, line %d: the counts do not add up (%s)", path, lineno,
                 pairs_ok ? chk : "PAIRS is not P0 + ... + P4");
        fclose(f);
        return -1;
    }
    if (s_line(f, line, sizeof line)) {
        lineno++;
        what = "nothing may follow the counts";
        goto bad;
    }
    fclose(f);
    return 1;
bad:
    snprintf(err, errlen, "%s, line %d: not a capa match state: %s", path, lineno, what);
    fclose(f);
    return -1;
}

/* x in the fewest digits that read back as x. */
static const char *s_num(double x, char *buf, size_t len)
{
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, x);
        if (strtod(buf, NULL) == x)
            break;
    }
    return buf;
}

/* A limit in words: "300 nodes a move" or "a 10000+100 ms clock". */
static const char *s_limit(const match_state_t *st, char *buf, size_t len)
{
    if (st->nodes)
        snprintf(buf, len, "%" PRIu64 " nodes a move", st->nodes);
    else
        snprintf(buf, len, "a %" PRId64 "+%" PRId64 " ms clock", st->tc_base_ms, st->tc_inc_ms);
    return buf;
}

int match_state_write(const char *path, const match_state_t *st, char *err, size_t errlen)
{
    char tmp[4200];
    if ((size_t) snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        return -1;
    }
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
        return -1;
    }
    fprintf(f, STATE_MAGIC "\nengines %s %s\nvariant %s\n", st->engine[0], st->engine[1],
            variant_name(st->variant));
    if (st->nodes)
        fprintf(f, "limit nodes %" PRIu64 "\n", st->nodes);
    else
        fprintf(f, "limit tc %" PRId64 " %" PRId64 "\n", st->tc_base_ms, st->tc_inc_ms);
    char n[4][32];
    if (st->sprt)
        fprintf(f, "sprt %s %s %s %s %s\n", stats_model_name(st->sprt_params.model),
                s_num(st->sprt_params.elo0, n[0], sizeof n[0]),
                s_num(st->sprt_params.elo1, n[1], sizeof n[1]),
                s_num(st->sprt_params.alpha, n[2], sizeof n[2]),
                s_num(st->sprt_params.beta, n[3], sizeof n[3]));
    else
        fprintf(f, "sprt none\n");
    fprintf(f, "seeds");
    for (int i = 0; i < st->nseeds; i++)
        fprintf(f, " %" PRIu64, st->seeds[i]);
    const stats_counts_t *c = &st->counts;
    fprintf(f, "\ncounts %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64
               " %" PRId64 " %" PRId64 " %" PRId64 "\n",
            st->pairs, c->wins, c->draws, c->losses, c->penta[0], c->penta[1], c->penta[2],
            c->penta[3], c->penta[4]);
    bool ok = fflush(f) == 0 && !ferror(f);
    int saved = errno;
    if (fclose(f) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok || rename(tmp, path) != 0) {
        if (ok)
            saved = errno;
        snprintf(err, errlen, "%s: cannot write: %s", ok ? path : tmp, strerror(saved));
        remove(tmp);
        return -1;
    }
    return 0;
}

int match_state_check(const match_state_t *st, const match_config_t *cfg, char *err,
                      size_t errlen)
{
    match_state_t now;
    if (match_state_from_config(&now, cfg, err, errlen) < 0)
        return -1;
    if (strcmp(st->engine[0], now.engine[0]) != 0 || strcmp(st->engine[1], now.engine[1]) != 0) {
        snprintf(err, errlen, "it is a match of %s against %s; this one is %s against %s (--name)",
                 st->engine[1], st->engine[0], now.engine[1], now.engine[0]);
        return -1;
    }
    if (st->variant != now.variant) {
        snprintf(err, errlen, "it was played in %s; this match is %s", variant_name(st->variant),
                 variant_name(now.variant));
        return -1;
    }
    if (st->nodes != now.nodes || st->tc_base_ms != now.tc_base_ms ||
        st->tc_inc_ms != now.tc_inc_ms) {
        char x[64], y[64];
        snprintf(err, errlen, "it was played at %s; this match is at %s",
                 s_limit(st, x, sizeof x), s_limit(&now, y, sizeof y));
        return -1;
    }
    const stats_sprt_params_t *a = &st->sprt_params, *b = &now.sprt_params;
    if (st->sprt != now.sprt ||
        (st->sprt && (a->model != b->model || a->elo0 != b->elo0 || a->elo1 != b->elo1 ||
                      a->alpha != b->alpha || a->beta != b->beta))) {
        snprintf(err, errlen, "its SPRT (%s) is not this match's (--sprt, --model, --alpha, --beta)",
                 st->sprt ? stats_model_name(a->model) : "none");
        return -1;
    }
    for (int i = 0; i < st->nseeds; i++) {
        if (st->seeds[i] == cfg->seed) {
            snprintf(err, errlen, "seed %" PRIu64 " was played already; the same seed would replay "
                     "the same start arrays: give a new --seed", cfg->seed);
            return -1;
        }
    }
    if (st->nseeds >= MATCH_STATE_MAX_SEEDS) {
        snprintf(err, errlen, "it holds %d seeds, the most a state keeps", st->nseeds);
        return -1;
    }
    if (st->sprt && st->pairs > 0) {
        stats_sprt_report_t rep;
        char chk[256];
        if (stats_sprt_report(&st->sprt_params, &st->counts, &rep, chk, sizeof chk) == 0 &&
            rep.verdict != STATS_SPRT_CONTINUE) {
            snprintf(err, errlen, "its SPRT has already stopped (%s, LLR %.2f, %" PRId64 " pairs)",
                     rep.verdict == STATS_SPRT_ACCEPT_H1 ? "H1 accepted" : "H0 accepted", rep.llr,
                     st->pairs);
            return -1;
        }
    }
    return 0;
}
