/* textbuf.h - formatted text appended to a caller-owned fixed buffer.
 *
 *   textbuf_t t = textbuf_make(buf, len);
 *   textbuf_put(&t, "%d pairs\n", n);
 *   return t.full ? CAPA_EFULL : 0;
 *
 * The buffer always holds a NUL-terminated string; once something does not
 * fit, the text is cut there and `full` stays set.
 */
#ifndef CAPA_TEXTBUF_H
#define CAPA_TEXTBUF_H

#include <stddef.h>

typedef struct {
    char *buf;
    size_t len, used;
    int full;
} textbuf_t;

/* A textbuf over buf[len], emptied. */
textbuf_t textbuf_make(char *buf, size_t len);
void textbuf_put(textbuf_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
