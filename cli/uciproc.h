/* uciproc.h - a UCI engine as a child process: start, handshake, options,
 * lines in and out with timeouts, stop.
 *
 * The engine runs with its stdin and stdout on pipes (stderr is inherited).
 * uciproc_start checks that the file exists and is executable, starts it,
 * sends "uci" and reads its id and options until "uciok"; a program that
 * cannot be executed, exits, or does not answer uciok within the timeout is
 * refused with a sentence saying which. Every read has a deadline, so a hung
 * engine never hangs the caller. Not thread-safe per process: one thread
 * drives one uciproc_t (different processes on different threads are fine).
 * uciproc_start sets SIGPIPE to be ignored in the whole program: writing to
 * an engine that died must be an error (uciproc_send returns -1), not the
 * end of the program.
 */
#ifndef CAPA_CLI_UCIPROC_H
#define CAPA_CLI_UCIPROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct uciproc_s uciproc_t;

/* Starts path (no arguments) and completes the uci/uciok handshake within
 * timeout_ms. NULL with a message in err when it cannot. */
uciproc_t *uciproc_start(const char *path, int64_t timeout_ms, char *err, size_t errlen);
/* Sends "quit", waits up to a second for the process to end, then kills it;
 * frees everything and sets *self_p to NULL. */
void uciproc_stop(uciproc_t **self_p);
/* Kills the process and its process group (SIGKILL) and frees it. */
void uciproc_kill(uciproc_t **self_p);

/* The "id name" the engine gave ("" if none). */
const char *uciproc_id_name(const uciproc_t *p);
/* Whether the engine listed the UCI_Variant option with value var. */
bool uciproc_has_variant(const uciproc_t *p, const char *var);
/* Checks "setoption name NAME value VALUE" against the engine's option
 * list: the option must exist; a spin value must be an integer within
 * its min and max, a check value true or false, a combo value one of its
 * vars. 0, or -1 with a message. */
int uciproc_check_option(const uciproc_t *p, const char *name, const char *value, char *err,
                         size_t errlen);

/* Writes one line (a newline is added). 0, or -1 when the engine is gone. */
int uciproc_send(uciproc_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Reads one line (without the newline) within timeout_ms: 1 with the line
 * in out, 0 on timeout, -1 when the engine closed its output (it exited). */
int uciproc_readline(uciproc_t *p, char *out, size_t outlen, int64_t timeout_ms);
/* Sends isready and waits for readyok: 1, 0 on timeout, -1 when it exited. */
int uciproc_sync(uciproc_t *p, int64_t timeout_ms);

/* What an engine's "info" line says about its search. */
typedef enum { UCIPROC_SCORE_NONE, UCIPROC_SCORE_CP, UCIPROC_SCORE_MATE } uciproc_score_kind_t;
typedef struct {
    int depth;                  /* 0 when the line gives none */
    uciproc_score_kind_t kind;  /* NONE when the line gives no score */
    int value;                  /* centipawns, or moves to mate (< 0: mated; 0: mated now) */
    bool bound;                 /* the score is a lowerbound or upperbound */
} uciproc_info_t;
/* Reads an "info" line: 1 with *out filled, 0 (and *out cleared) for any
 * other line, "info string" included. A score from the side to move's view. */
int uciproc_parse_info(const char *line, uciproc_info_t *out);

/* Milliseconds of a monotonic clock. */
int64_t uciproc_now_ms(void);

#endif
