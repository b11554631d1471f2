/* client.h - one HTTP request to the coordinator (libcurl), for the capa
 * command.
 *
 *   client_response_t r;
 *   if (client_request(server, token, "GET", "/api/runs", NULL, 0, 30, &r, err, sizeof err) == 0)
 *       ... r.status, r.body (NUL-terminated) ...; client_response_free(&r);
 */
#ifndef CAPA_CLI_CLIENT_H
#define CAPA_CLI_CLIENT_H

#include <stddef.h>

typedef struct {
    long status;      /* HTTP status */
    char *body;       /* heap, NUL-terminated (decoded if it was gzip) */
    size_t len;
} client_response_t;

/* Sends one request (token "" = no Authorization header; body may be NULL).
 * Returns 0 when an HTTP answer came (whatever its status), CAPA_EIO when
 * the server could not be reached (err says why), CAPA_EINVAL for a bad
 * URL, CAPA_ENOMEM. The caller frees the response. */
int client_request(const char *server, const char *token, const char *method, const char *path,
                   const char *body, size_t len, int timeout_s, client_response_t *out,
                   char *err, size_t errlen);
void client_response_free(client_response_t *r);

/* The "error" text of a JSON error body, else the start of the body
 * (printable characters only) into buf. */
void client_error_text(const client_response_t *r, char *buf, size_t cap);

#endif
