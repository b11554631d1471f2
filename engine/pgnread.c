/* pgnread.c - reading games from PGN text. */
#include "pgnread.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "notation.h"

#define TAG_MAX 256

/* Skips blanks and newlines (counting them) and '%' escape lines. */
static void s_skip_space(pgn_cursor_t *c)
{
    for (;;) {
        while (*c->p && isspace((unsigned char) *c->p)) {
            if (*c->p == '\n')
                c->line++;
            c->p++;
        }
        if (*c->p == '%') {   /* an escape line */
            while (*c->p && *c->p != '\n')
                c->p++;
            continue;
        }
        return;
    }
}

/* After a bad game: on to the next line that opens a tag section. */
static void s_skip_game(pgn_cursor_t *c)
{
    while (*c->p) {
        if (*c->p == '\n') {
            c->line++;
            if (c->p[1] == '[') {
                c->p++;
                return;
            }
        }
        c->p++;
    }
}

static game_result_t s_result(const char *s)
{
    if (strcmp(s, "1-0") == 0)
        return RESULT_WHITE_WINS;
    if (strcmp(s, "0-1") == 0)
        return RESULT_BLACK_WINS;
    if (strcmp(s, "1/2-1/2") == 0)
        return RESULT_DRAW;
    return RESULT_ONGOING;
}

static bool s_is_marker(const char *s)
{
    return strcmp(s, "1-0") == 0 || strcmp(s, "0-1") == 0 || strcmp(s, "1/2-1/2") == 0 ||
           strcmp(s, "*") == 0;
}

/* Reads one tag pair "[Name "value"]" at c->p (which is '['). */
static int s_tag(pgn_cursor_t *c, char *name, char *value, char *err, size_t errlen)
{
    const char *p = c->p + 1;
    size_t n = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    while (*p && (isalnum((unsigned char) *p) || *p == '_') && n + 1 < TAG_MAX)
        name[n++] = *p++;
    name[n] = 0;
    while (*p == ' ' || *p == '\t')
        p++;
    if (n == 0 || *p != '"')
        return capa_fail(err, errlen, CAPA_EINVAL, "a tag that is not [Name \"value\"]");
    p++;
    n = 0;
    while (*p && *p != '"' && *p != '\n') {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
            p++;
        if (n + 1 < TAG_MAX)
            value[n++] = *p;
        p++;
    }
    value[n] = 0;
    if (*p != '"')
        return capa_fail(err, errlen, CAPA_EINVAL, "tag %s: unterminated value", name);
    p++;
    while (*p == ' ' || *p == '\t')
        p++;
    if (*p != ']')
        return capa_fail(err, errlen, CAPA_EINVAL, "tag %s: no closing ]", name);
    c->p = p + 1;
    return CAPA_OK;
}

/* Skips a comment or a variation at c->p ('{', ';' or '('). */
static int s_skip_aside(pgn_cursor_t *c, char *err, size_t errlen)
{
    int depth = 0;
    do {
        char ch = *c->p;
        if (!ch)
            return capa_fail(err, errlen, CAPA_EINVAL, depth ? "unclosed variation '('"
                                                              : "unclosed comment '{'");
        if (ch == '{') {
            while (*c->p && *c->p != '}') {
                c->line += *c->p == '\n';
                c->p++;
            }
            if (!*c->p)
                return capa_fail(err, errlen, CAPA_EINVAL, "unclosed comment '{'");
        } else if (ch == ';') {
            while (*c->p && *c->p != '\n')
                c->p++;
            continue;
        } else if (ch == '(') {
            depth++;
        } else if (ch == ')') {
            depth--;
        } else if (ch == '\n') {
            c->line++;
        }
        c->p++;
    } while (depth > 0);
    return CAPA_OK;
}

/* The movetext after the tags: replays the moves on b. */
static int s_movetext(pgn_cursor_t *c, board_t *b, pgn_game_t *g, game_result_t *marker,
                      char *err, size_t errlen)
{
    char tok[64];
    for (;;) {
        s_skip_space(c);
        char ch = *c->p;
        if (!ch || ch == '[')
            return CAPA_OK;   /* no termination marker: the Result tag decides */
        if (ch == '{' || ch == ';' || ch == '(') {
            int rc = s_skip_aside(c, err, errlen);
            if (rc < 0)
                return rc;
            continue;
        }
        if (ch == ')')
            return capa_fail(err, errlen, CAPA_EINVAL, "a ')' without its '('");
        size_t n = 0;
        while (*c->p && !isspace((unsigned char) *c->p) && !strchr("{}();[", *c->p)) {
            if (n + 1 < sizeof tok)
                tok[n] = *c->p;
            n++;
            c->p++;
        }
        if (n >= sizeof tok)
            return capa_fail(err, errlen, CAPA_EINVAL, "a token of %zu characters", n);
        tok[n] = 0;
        if (n == 0)
            return capa_fail(err, errlen, CAPA_EINVAL, "unexpected '%c'", ch);
        if (s_is_marker(tok)) {
            *marker = s_result(tok);
            return CAPA_OK;
        }
        if (tok[0] == '$')
            continue;
        const char *san = tok;
        while (isdigit((unsigned char) *san))
            san++;
        if (san != tok && *san && *san != '.')
            return capa_fail(err, errlen, CAPA_EINVAL, "\"%s\" is neither a move nor a move number",
                             tok);
        while (*san == '.')
            san++;
        if (!*san)
            continue;   /* a move number ("12." or "12...") or an ellipsis */
        if (g->plies >= GAME_MAX_PLIES)
            return capa_fail(err, errlen, CAPA_ERANGE, "more than %d plies", GAME_MAX_PLIES);
        move_t m;
        int rc = move_from_san(b, san, &m);
        if (rc < 0) {
            int fullmove = board_fullmove(b);
            return capa_fail(err, errlen, rc, "move %d%s %s: %s", fullmove,
                             board_side(b) == WHITE ? "." : "...", san,
                             rc == CAPA_EILLEGAL ? "not a legal move here" : "not a move");
        }
        g->moves[g->plies++] = m;
        board_make(b, m);
    }
}

int pgn_read_game(pgn_cursor_t *c, pgn_game_t *g, char *err, size_t errlen)
{
    for (;;) {
        s_skip_space(c);
        if (*c->p == '{' || *c->p == ';') {
            char msg[64];
            int rc = s_skip_aside(c, msg, sizeof msg);
            if (rc < 0)
                return capa_fail(err, errlen, rc, "after game %d (line %d): %s", c->games,
                                 c->line, msg);
            continue;
        }
        break;
    }
    if (!*c->p)
        return 0;
    int start_line = c->line;
    int number = ++c->games;
    char name[TAG_MAX], value[TAG_MAX], fen[TAG_MAX] = "";
    char msg[320] = "";
    game_result_t tag_result = RESULT_ONGOING;
    bool has_result = false;
    memset(g, 0, offsetof(pgn_game_t, moves));
    g->variant = VARIANT_CAPABLANCA;
    int rc = CAPA_OK;
    board_t *b = NULL;
    while (*c->p == '[') {
        rc = s_tag(c, name, value, msg, sizeof msg);
        if (rc < 0)
            goto fail;
        if (strcmp(name, "Variant") == 0) {
            for (char *q = value; *q; q++)
                *q = (char) tolower((unsigned char) *q);
            variant_t v;
            if (variant_from_name(value, &v) < 0) {
                rc = capa_fail(msg, sizeof msg, CAPA_EINVAL, "unknown variant \"%s\"", value);
                goto fail;
            }
            g->variant = v;
        } else if (strcmp(name, "FEN") == 0) {
            snprintf(fen, sizeof fen, "%s", value);
        } else if (strcmp(name, "Result") == 0) {
            tag_result = s_result(value);
            has_result = true;
        }
        s_skip_space(c);
    }
    b = malloc(sizeof *b);
    if (!b) {
        rc = capa_fail(msg, sizeof msg, CAPA_ENOMEM, "out of memory");
        goto fail;
    }
    if (fen[0]) {
        char ferr[256];
        if (board_set_fen(b, fen, g->variant, ferr, sizeof ferr) < 0) {
            rc = capa_fail(msg, sizeof msg, CAPA_EINVAL, "FEN tag: %s", ferr);
            goto fail;
        }
    } else {
        board_set_startpos(b, g->variant);
    }
    board_get_fen(b, g->start_fen, sizeof g->start_fen);
    game_result_t marker = RESULT_ONGOING;
    rc = s_movetext(c, b, g, &marker, msg, sizeof msg);
    if (rc < 0)
        goto fail;
    g->result = has_result ? tag_result : marker;
    free(b);
    return 1;
fail:
    free(b);
    s_skip_game(c);
    return capa_fail(err, errlen, rc, "game %d (from line %d): %s", number, start_line, msg);
}
