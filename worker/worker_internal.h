/* worker_internal.h - helpers shared by worker.c and worker_config.c (and
 * their tests); not part of the worker's public interface. */
#ifndef CAPA_WORKER_INTERNAL_H
#define CAPA_WORKER_INTERNAL_H

#include <stddef.h>

#include "protocol.h"

/* The state folder: configured, else $XDG_STATE_HOME/capalab/worker, else
 * ~/.capalab/worker; created (mode 0700) if missing. */
int worker_state_dir(const char *configured, char *out, size_t cap, char *err, size_t errlen);
/* The first line of a small file, blanks trimmed. CAPA_ENOTFOUND if the
 * file does not exist. */
int worker_read_line(const char *path, char *out, size_t cap, char *err, size_t errlen);
/* OS, CPU model and memory for HELLO's host object. */
void worker_host_info(proto_hello_t *h);
/* The host name as protocol text. */
void worker_default_name(char *out, size_t cap);

#endif
