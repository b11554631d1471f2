/* http_buf.c - growing text buffer with HTML escaping (see http_buf.h). */
#include "http_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool s_reserve(http_buf_t *b, size_t more)
{
    if (b->oom)
        return false;
    if (b->len + more + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + more + 1) {
        if (cap > ((size_t) -1) / 2) {
            b->oom = true;
            return false;
        }
        cap *= 2;
    }
    char *d = realloc(b->data, cap);
    if (!d) {
        b->oom = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

void http_buf_add(http_buf_t *b, const char *text, size_t len)
{
    if (!s_reserve(b, len))
        return;
    memcpy(b->data + b->len, text, len);
    b->len += len;
    b->data[b->len] = 0;
}

void http_buf_puts(http_buf_t *b, const char *text)
{
    if (text)
        http_buf_add(b, text, strlen(text));
}

void http_buf_printf(http_buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t) n < sizeof small) {
        http_buf_add(b, small, (size_t) n);
        return;
    }
    if (!s_reserve(b, (size_t) n))
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t) n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t) n;
}

void http_buf_html(http_buf_t *b, const char *text)
{
    if (!text)
        return;
    const char *run = text;
    for (const char *p = text;; p++) {
        unsigned char c = (unsigned char) *p;
        const char *rep = NULL;
        bool drop = false;
        switch (c) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': rep = "&gt;"; break;
        case '"': rep = "&quot;"; break;
        case '\'': rep = "&#39;"; break;
        default: drop = c != 0 && c < 0x20 && c != '\t' && c != '\n'; break;
        }
        if (rep || drop || c == 0) {
            http_buf_add(b, run, (size_t) (p - run));
            if (rep)
                http_buf_puts(b, rep);
            run = p + 1;
        }
        if (c == 0)
            break;
    }
}

char *http_buf_take(http_buf_t *b, size_t *len_out)
{
    if (!b->oom && !b->data)
        s_reserve(b, 0);
    if (b->oom) {
        http_buf_free(b);
        if (len_out)
            *len_out = 0;
        return NULL;
    }
    b->data[b->len] = 0;
    char *d = b->data;
    if (len_out)
        *len_out = b->len;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}

void http_buf_free(http_buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = false;
}
