/* textbuf.c - formatted text appended to a fixed buffer. */
#include "textbuf.h"

#include <stdarg.h>
#include <stdio.h>

textbuf_t textbuf_make(char *buf, size_t len)
{
    if (len)
        buf[0] = '\0';
    return (textbuf_t) { buf, len, 0, 0 };
}

void textbuf_put(textbuf_t *t, const char *fmt, ...)
{
    if (t->full || t->len == 0) {
        t->full = 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t) n >= t->len - t->used) {
        t->full = 1;
        t->used = t->len - 1;
    } else {
        t->used += (size_t) n;
    }
}
