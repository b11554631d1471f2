/* table.c - plain-text tables (see table.h). */
#include "table.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

struct table_s {
    size_t ncols;
    char **heads;
    char *align;
    char **cells;      /* row-major */
    size_t ncells, cap;
};

static char *s_clean(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d)
        return NULL;
    for (unsigned char *p = (unsigned char *) d; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            *p = '?';
    return d;
}

table_t *table_new(size_t ncols, const char *const *heads, const char *align)
{
    if (ncols == 0)
        return NULL;
    table_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->ncols = ncols;
    t->heads = calloc(ncols, sizeof *t->heads);
    t->align = calloc(ncols + 1, 1);
    if (!t->heads || !t->align) {
        table_destroy(&t);
        return NULL;
    }
    for (size_t i = 0; i < ncols; i++) {
        t->heads[i] = s_clean(heads ? heads[i] : "");
        t->align[i] = align && strlen(align) > i && align[i] == 'r' ? 'r' : 'l';
        if (!t->heads[i]) {
            table_destroy(&t);
            return NULL;
        }
    }
    return t;
}

void table_destroy(table_t **self_p)
{
    table_t *t = *self_p;
    if (!t)
        return;
    for (size_t i = 0; t->heads && i < t->ncols; i++)
        free(t->heads[i]);
    for (size_t i = 0; i < t->ncells; i++)
        free(t->cells[i]);
    free(t->heads);
    free(t->align);
    free(t->cells);
    free(t);
    *self_p = NULL;
}

int table_addf(table_t *t, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *cell;
    if ((size_t) n < sizeof small) {
        cell = s_clean(small);
    } else {
        char *big = malloc((size_t) n + 1);
        if (!big)
            return CAPA_ENOMEM;
        va_start(ap, fmt);
        vsnprintf(big, (size_t) n + 1, fmt, ap);
        va_end(ap);
        cell = s_clean(big);
        free(big);
    }
    if (!cell)
        return CAPA_ENOMEM;
    if (t->ncells == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        char **c = realloc(t->cells, cap * sizeof *c);
        if (!c) {
            free(cell);
            return CAPA_ENOMEM;
        }
        t->cells = c;
        t->cap = cap;
    }
    t->cells[t->ncells++] = cell;
    return 0;
}

size_t table_rows(const table_t *t)
{
    return (t->ncells + t->ncols - 1) / t->ncols;
}

size_t table_width(const char *text)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *) text; *p; p++)
        w += (*p & 0xc0) != 0x80;
    return w;
}

static void s_cell(char **out, const char *text, size_t width, char align, bool last)
{
    size_t w = table_width(text), pad = width > w ? width - w : 0;
    if (align == 'r') {
        memset(*out, ' ', pad);
        *out += pad;
    }
    size_t n = strlen(text);
    memcpy(*out, text, n);
    *out += n;
    if (align != 'r' && !last) {
        memset(*out, ' ', pad);
        *out += pad;
    }
}

char *table_format(const table_t *t)
{
    size_t rows = table_rows(t);
    size_t *width = calloc(2 * t->ncols, sizeof *width);
    if (!width)
        return NULL;
    size_t *maxbytes = width + t->ncols;
    for (size_t c = 0; c < t->ncols; c++) {
        width[c] = table_width(t->heads[c]);
        maxbytes[c] = strlen(t->heads[c]);
    }
    for (size_t i = 0; i < t->ncells; i++) {
        size_t c = i % t->ncols, w = table_width(t->cells[i]), n = strlen(t->cells[i]);
        if (w > width[c])
            width[c] = w;
        if (n > maxbytes[c])
            maxbytes[c] = n;
    }
    /* A line holds at most width + bytes per column (padding plus text). */
    size_t line = 2;
    for (size_t c = 0; c < t->ncols; c++)
        line += width[c] + maxbytes[c] + 2;
    char *buf = malloc(line * (rows + 2) + 1);
    if (!buf) {
        free(width);
        return NULL;
    }
    char *o = buf;
    for (size_t r = 0; r < rows + 2; r++) {
        char *start = o;
        for (size_t c = 0; c < t->ncols; c++) {
            if (c)
                *o++ = ' ', *o++ = ' ';
            bool last = c + 1 == t->ncols;
            if (r == 0) {
                s_cell(&o, t->heads[c], width[c], t->align[c], last);
            } else if (r == 1) {
                memset(o, '-', width[c]);
                o += width[c];
            } else {
                size_t i = (r - 2) * t->ncols + c;
                s_cell(&o, i < t->ncells ? t->cells[i] : "", width[c], t->align[c], last);
            }
        }
        while (o > start && o[-1] == ' ')
            o--;
        *o++ = '\n';
    }
    *o = 0;
    free(width);
    return buf;
}
