/* bootstrap.h - the contributor a coordinator registers from a token file at
 * start, so that a deployment (docker/compose.yaml) can hand one secret file
 * to the coordinator and to its workers without running an admin command.
 *
 *   capa-coordinator --bootstrap_contributor cluster \
 *                    --bootstrap_token_file /run/secrets/worker_token
 *
 * The file's first line is the token (capa_ + 43 characters, as
 * docker/make-secrets.sh or `capa-coordinator contributor add` make them);
 * only its hash reaches the database. Idempotent: a restart with the same
 * file changes nothing; a different token in the file replaces the stored
 * hash (rotation: the old token stops working); a contributor an admin has
 * revoked stays revoked (a warning is logged). A token whose hash belongs to
 * another contributor is refused.
 */
#ifndef CAPA_COORD_BOOTSTRAP_H
#define CAPA_COORD_BOOTSTRAP_H

#include <stddef.h>

#include "coord.h"
#include "store.h"

typedef enum {
    BOOTSTRAP_NONE,       /* not configured */
    BOOTSTRAP_ADDED,      /* a new contributor */
    BOOTSTRAP_KEPT,       /* it exists with this token: nothing to do */
    BOOTSTRAP_ROTATED,    /* it existed with another token: the hash was replaced */
    BOOTSTRAP_REVOKED,    /* it exists and is revoked: left alone */
} bootstrap_outcome_t;

/* Reads a token from the first line of path (trailing blanks and CR/LF
 * dropped) into token (at least TOKEN_TEXT_MAX bytes) and checks its format.
 * CAPA_EIO if unreadable, CAPA_EINVAL if empty or malformed (the message
 * never quotes the file's content). */
int bootstrap_read_token(const char *path, char *token, size_t cap, char *err, size_t errlen);

/* Registers contributor name with the token in token_file (see above).
 * outcome may be NULL. */
int bootstrap_contributor(store_t *store, const char *name, const char *token_file,
                          bootstrap_outcome_t *outcome, char *err, size_t errlen);

/* cfg->bootstrap_contributor / bootstrap_token_file: both empty = nothing
 * to do (BOOTSTRAP_NONE); one without the other is CAPA_EINVAL. Logs what it
 * did. */
int bootstrap_from_config(store_t *store, const coord_config_t *cfg,
                          bootstrap_outcome_t *outcome, char *err, size_t errlen);

#endif
