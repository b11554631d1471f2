/* table.h - plain-text tables for the capa command: columns padded to their
 * widest cell (counted in UTF-8 characters), numbers right-aligned.
 *
 *   table_t *t = table_new(3, (const char *[]) { "id", "name", "pairs" }, "rlr");
 *   table_addf(t, "%d", 7); table_addf(t, "%s", name); table_addf(t, "%lld", n);
 *   char *text = table_format(t);    caller frees; NULL if memory ran out
 *   table_destroy(&t);
 *
 * Cells are added left to right; a row is complete after ncols cells.
 * Control characters in cells are shown as '?', so a hostile name cannot
 * move the cursor or recolour the terminal.
 */
#ifndef CAPA_CLI_TABLE_H
#define CAPA_CLI_TABLE_H

#include <stddef.h>

typedef struct table_s table_t;

/* align: one letter per column, 'l' or 'r' (NULL = all left). */
table_t *table_new(size_t ncols, const char *const *heads, const char *align);
void table_destroy(table_t **self_p);
/* Adds the next cell; 0 or CAPA_ENOMEM. */
int table_addf(table_t *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Rows added (complete or not). */
size_t table_rows(const table_t *t);
/* The table as text, one line per row after the header and a rule; lines
 * end in '\n' without trailing spaces. Caller frees. */
char *table_format(const table_t *t);
/* Display width of UTF-8 text (code points). */
size_t table_width(const char *text);

#endif
