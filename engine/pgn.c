/* pgn.c - writing game records as PGN. */
#include "pgn.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "movegen.h"
#include "notation.h"

typedef struct {
    char *buf;
    size_t len, cap;
    int col;          /* column of the current move-text line */
    bool failed;
} s_out_t;

static void s_append(s_out_t *o, const char *text, size_t n)
{
    if (o->failed)
        return;
    if (o->len + n + 1 > o->cap) {
        size_t cap = o->cap ? o->cap : 1024;
        while (o->len + n + 1 > cap)
            cap *= 2;
        char *grown = realloc(o->buf, cap);
        if (!grown) {
            o->failed = true;
            return;
        }
        o->buf = grown;
        o->cap = cap;
    }
    memcpy(o->buf + o->len, text, n);
    o->len += n;
    o->buf[o->len] = 0;
}

static void s_printf(s_out_t *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void s_printf(s_out_t *o, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0)
        s_append(o, tmp, (size_t) n < sizeof tmp ? (size_t) n : sizeof tmp - 1);
}

/* A move-text token, wrapped at 80 columns. */
static void s_token(s_out_t *o, const char *tok)
{
    size_t n = strlen(tok);
    if (o->col > 0 && o->col + 1 + (int) n > 80) {
        s_append(o, "\n", 1);
        o->col = 0;
    }
    if (o->col > 0) {
        s_append(o, " ", 1);
        o->col++;
    }
    s_append(o, tok, n);
    o->col += (int) n;
}

/* Tag values: quote and backslash escaped. */
static void s_tag(s_out_t *o, const char *name, const char *value)
{
    s_printf(o, "[%s \"", name);
    for (const char *c = value && *value ? value : "?"; *c; c++) {
        if (*c == '"' || *c == '\\')
            s_append(o, "\\", 1);
        if ((unsigned char) *c >= 32)
            s_append(o, c, 1);
    }
    s_append(o, "\"]\n", 3);
}

const char *pgn_termination_tag(game_termination_t t)
{
    switch (t) {
    case TERM_ADJUDICATION_RESIGN:
    case TERM_ADJUDICATION_DRAW:
    case TERM_MOVE_CAP: return "adjudication";
    case TERM_TIME_FORFEIT: return "time forfeit";
    case TERM_ILLEGAL_MOVE: return "rules infraction";
    case TERM_NONE: return "unterminated";
    default: return "normal";
    }
}

static const char *s_reason_text(const game_record_t *rec)
{
    bool white = rec->result == RESULT_WHITE_WINS;
    switch (rec->termination) {
    case TERM_CHECKMATE: return white ? "White mates" : "Black mates";
    case TERM_STALEMATE: return "Draw by stalemate";
    case TERM_FIFTY_MOVE: return "Draw by fifty moves rule";
    case TERM_THREEFOLD: return "Draw by 3-fold repetition";
    case TERM_FIVEFOLD: return "Draw by 5-fold repetition";
    case TERM_INSUFFICIENT_MATERIAL: return "Draw by insufficient mating material";
    case TERM_ADJUDICATION_RESIGN: return white ? "White wins by adjudication" : "Black wins by adjudication";
    case TERM_ADJUDICATION_DRAW: return "Draw by adjudication";
    case TERM_MOVE_CAP: return "Draw by move limit";
    case TERM_ILLEGAL_MOVE: return white ? "Black makes an illegal move" : "White makes an illegal move";
    case TERM_TIME_FORFEIT:
        return rec->result == RESULT_DRAW ? "Draw by timeout vs insufficient material"
               : white ? "Black loses on time" : "White loses on time";
    default: return "Unterminated";
    }
}

char *pgn_format(const game_record_t *rec, const pgn_tags_t *tags)
{
    return pgn_format_ended(rec, tags, NULL, NULL);
}

char *pgn_format_ended(const game_record_t *rec, const pgn_tags_t *tags, const char *termination,
                       const char *reason)
{
    pgn_tags_t none = { 0 };
    if (!tags)
        tags = &none;
    board_t *b = malloc(sizeof *b);
    if (!b)
        return NULL;
    if (board_set_fen(b, rec->start_fen, rec->variant, NULL, 0) < 0) {
        free(b);
        return NULL;
    }
    s_out_t o = { 0 };
    const char *result = rules_result_string(rec->result);
    s_tag(&o, "Event", tags->event);
    s_tag(&o, "Site", tags->site);
    s_tag(&o, "Date", tags->date ? tags->date : "????.??.??");
    s_tag(&o, "Round", tags->round);
    s_tag(&o, "White", tags->white);
    s_tag(&o, "Black", tags->black);
    s_tag(&o, "Result", result);
    s_tag(&o, "Variant", variant_name(rec->variant));
    if (rec->variant == VARIANT_CAPARANDOM ||
        strcmp(rec->start_fen, variant_start_fen(rec->variant)) != 0) {
        s_tag(&o, "SetUp", "1");
        s_tag(&o, "FEN", rec->start_fen);
    }
    s_printf(&o, "[PlyCount \"%d\"]\n", rec->plies);
    s_tag(&o, "Termination", termination ? termination : pgn_termination_tag(rec->termination));
    s_append(&o, "\n", 1);

    char tok[256];
    for (int i = 0; i < rec->plies && !o.failed; i++) {
        move_t m = rec->moves[i].move;
        if (!movegen_is_legal(b, m)) {
            free(o.buf);
            free(b);
            return NULL;
        }
        /* The move number stays on the line of its move. */
        char san[SAN_MOVE_MAX];
        move_to_san(b, m, san);
        if (board_side(b) == WHITE || i == 0)
            snprintf(tok, sizeof tok, "%d.%s %s", board_fullmove(b),
                     board_side(b) == WHITE ? "" : "..", san);
        else
            snprintf(tok, sizeof tok, "%s", san);
        s_token(&o, tok);
        if (tags->comments && rec->moves[i].depth > 0) {
            int sc = rec->moves[i].score;
            int mate = search_mate_in(sc);
            if (mate)
                snprintf(tok, sizeof tok, "{%sM%d/%d}", mate > 0 ? "+" : "-", abs(mate),
                         rec->moves[i].depth);
            else
                snprintf(tok, sizeof tok, "{%+.2f/%d}", sc / 100.0, rec->moves[i].depth);
            s_token(&o, tok);
        }
        board_make(b, m);
    }
    snprintf(tok, sizeof tok, "{%s}", reason ? reason : s_reason_text(rec));
    s_token(&o, tok);
    s_token(&o, result);
    s_append(&o, "\n\n", 2);
    free(b);
    if (o.failed) {
        free(o.buf);
        return NULL;
    }
    return o.buf;
}

int pgn_write(FILE *f, const game_record_t *rec, const pgn_tags_t *tags)
{
    char *text = pgn_format(rec, tags);
    if (!text)
        return CAPA_ENOMEM;
    size_t n = strlen(text);
    int rc = fwrite(text, 1, n, f) == n ? CAPA_OK : CAPA_EIO;
    free(text);
    return rc;
}
