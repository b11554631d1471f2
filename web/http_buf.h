/* http_buf.h - a growing text buffer for HTTP bodies and HTML pages, with
 * HTML escaping of everything that came from users.
 *
 *   http_buf_t b = { 0 };
 *   http_buf_printf(&b, "<td>%d</td>", n);
 *   http_buf_html(&b, run_name);          escaped text
 *   char *text = http_buf_take(&b, &len);  caller frees; NULL if memory ran out
 *
 * A failed allocation sets b.oom and makes later appends no-ops, so callers
 * check once at the end (http_buf_take returns NULL then).
 */
#ifndef CAPA_COORD_HTTP_BUF_H
#define CAPA_COORD_HTTP_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char *data;     /* heap, NUL-terminated when len > 0 */
    size_t len, cap;
    bool oom;
} http_buf_t;

void http_buf_add(http_buf_t *b, const char *text, size_t len);
void http_buf_puts(http_buf_t *b, const char *text);
void http_buf_printf(http_buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Appends text with & < > " ' escaped (and control characters other than
 * tab/newline dropped); NULL appends nothing. */
void http_buf_html(http_buf_t *b, const char *text);
/* Hands the text over (caller frees; "" when empty) and resets b; NULL and
 * b freed if an allocation failed. */
char *http_buf_take(http_buf_t *b, size_t *len_out);
void http_buf_free(http_buf_t *b);

#endif
