/* json.h - cJSON parsing that is safe from several threads.
 *
 * cJSON records the place of the last parse error in one global that every
 * parse writes, so two threads parsing at once (the coordinator's loop, its
 * writer and the HTTP server's threads; a worker's game threads) race on
 * it. The parsed trees are unaffected, but it is a data race all the same.
 * Every parse in capalab's programs goes through here, one at a time under
 * one lock; parses are short next to what is done with their result.
 *
 *   cJSON *doc = json_parse(text);            NULL for NULL or invalid text
 *   cJSON *doc = json_parse_len(body, len);   text need not end in NUL
 *   json_parse_opts(text, &end, true)         as cJSON_ParseWithOpts
 *
 * The caller owns the tree (cJSON_Delete).
 */
#ifndef CAPA_JSON_H
#define CAPA_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

cJSON *json_parse(const char *text);
cJSON *json_parse_len(const char *text, size_t len);
cJSON *json_parse_opts(const char *text, const char **end, bool require_null_terminated);

#endif
