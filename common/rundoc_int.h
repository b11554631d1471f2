/* rundoc_int.h - what rundoc.c and rundoc_series.c share; not for other
 * modules. */
#ifndef CAPA_RUNDOC_INT_H
#define CAPA_RUNDOC_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "protocol_json.h"
#include "rundoc.h"

/* Reads "ladder" or "iterate" of a values document whose game, params and
 * imbalances are read already; checks them against the rest. 0 or a
 * negative capa_err_t with err naming the field. */
int rundoc_series_read(const cJSON *root, rundoc_t *d, char *err, size_t errlen);
/* Adds the document's "ladder" or "iterate" to its canonical JSON j. */
bool rundoc_series_to_json(cJSON *j, const rundoc_t *d);

#endif
