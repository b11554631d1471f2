/* pages_int.h - what the page files (pages*.c) share: the frame of a page
 * (header, navigation, CSS, Content-Security-Policy), readers of the API's
 * JSON and the small bits of markup every page uses. Not for other modules.
 *
 *   http_buf_t b = { 0 };
 *   pages_open(&b, "Title", PAGES_REFRESH_SECONDS);
 *   ... http_buf_* ...
 *   return pages_close(req, &b);            (replies; takes the buffer)
 */
#ifndef CAPA_WEB_PAGES_INT_H
#define CAPA_WEB_PAGES_INT_H

#include <cjson/cJSON.h>

#include "http_buf.h"
#include "http_int.h"
#include "stats_values.h"

#define PAGES_REFRESH_SECONDS 30 /* pages of live runs reload themselves */

/* One colour and one name per piece type (P N B R A C Q), the same in every chart. */
extern const char *const pages_piece_color[STATS_PIECE_NB];
extern const char *const pages_piece_name[STATS_PIECE_NB];

/* The page's head, header and navigation; refresh: seconds after which the
 * browser reloads the page (0 = never). */
void pages_open(http_buf_t *b, const char *title, int refresh);
/* Ends the page and replies 200 with it (500 when memory ran out). */
int pages_close(http_req_t *req, http_buf_t *b);

/* A member of an API object: NAN, or "", when absent or of another type. */
double pages_num(const cJSON *o, const char *key);
const char *pages_str(const cJSON *o, const char *key);
/* {"value": v, "ci95": [lo, hi]} into v, lo, hi (NAN where missing). */
void pages_interval(const cJSON *o, double *v, double *lo, double *hi);
/* "v [lo, hi]" with fmt for each number ("-" without a value). */
void pages_interval_text(http_buf_t *b, const cJSON *o, const char *fmt);

/* Epoch milliseconds as "YYYY-MM-DD HH:MM" (UTC), "-" unless > 0. */
void pages_time(http_buf_t *b, double ms);
/* A coloured tag (class cls: a run status or a verdict). */
void pages_tag(http_buf_t *b, const char *cls, const char *text);
/* A progress bar of done out of planned. */
void pages_bar(http_buf_t *b, double done, double planned);

/* ---- pages_values.c ---- */
/* A values run's sections of its page: the contrasts and the unit first,
 * then the values, the lack of fit and the convergence of the stored fits,
 * the endings, the imbalances (rep: the run's report). */
void pages_run_values(http_buf_t *b, store_t *st, int64_t id, const cJSON *rep);
/* The contrast table of a fit (its "contrasts"), one row of it, the unit
 * sentence with the scale and what the design cannot separate, and the lack
 * of fit line (vals: a fit, the report's "values"). */
void pages_contrasts(http_buf_t *b, const cJSON *vals);
void pages_contrast_row(http_buf_t *b, const cJSON *c);
void pages_unit(http_buf_t *b, const cJSON *vals);
void pages_lack_of_fit(http_buf_t *b, const cJSON *vals);

#endif
