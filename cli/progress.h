/* progress.h - one-line text gauges for `capa watch`.
 *
 * progress_bar:  "[##########..........]  50.0%"  (width = characters inside [])
 * progress_llr:  "H0 |--------*-----------| H1" the LLR's place between its
 *                bounds (clamped at the ends, '*' marks it)
 * Both write at most cap - 1 bytes and always NUL-terminate (cap > 0).
 */
#ifndef CAPA_CLI_PROGRESS_H
#define CAPA_CLI_PROGRESS_H

#include <stddef.h>

void progress_bar(char *buf, size_t cap, int width, double done, double total);
void progress_llr(char *buf, size_t cap, int width, double llr, double lower, double upper);

#endif
