/* err.h - the one error enum every capalab function returns from.
 *
 * Functions return 0 (CAPA_OK) on success or a negative capa_err_t. Where a
 * caller needs to tell a person what went wrong, the function also fills a
 * caller-owned message buffer (char *err, size_t errlen).
 */
#ifndef CAPA_ERR_H
#define CAPA_ERR_H

#include <stddef.h>

typedef enum {
    CAPA_OK = 0,
    CAPA_EINVAL = -1,     /* malformed input: a FEN, a message, a document */
    CAPA_ERANGE = -2,     /* a value outside its bounds */
    CAPA_ENOMEM = -3,
    CAPA_EIO = -4,        /* a file or socket failed */
    CAPA_ENOTFOUND = -5,  /* no such run, worker, parameter, ... */
    CAPA_EDB = -6,        /* the database refused or is unreachable */
    CAPA_EAUTH = -7,      /* a missing, wrong or revoked token */
    CAPA_EPROTO = -8,     /* a protocol violation: wrong version, bad sequence */
    CAPA_ESTATE = -9,     /* not allowed now: lease expired, run stopped */
    CAPA_ETIMEOUT = -10,
    CAPA_EDUP = -11,      /* already there (counted once; not an error for replays) */
    CAPA_EILLEGAL = -12,  /* an illegal move */
    CAPA_EFULL = -13,     /* no space left: a disk, a queue, a table */
    CAPA_ERR_MIN = -13
} capa_err_t;

/* A short constant name such as "EINVAL"; never NULL. */
const char *capa_err_name(int err);

/* Writes a formatted message into err (if err and errlen are non-zero) and
 * returns code, so that a function can say `return capa_fail(err, errlen,
 * CAPA_EINVAL, "rank %d has %d files", r, n);`. */
int capa_fail(char *err, size_t errlen, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
