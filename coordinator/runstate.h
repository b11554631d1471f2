/* runstate.h - a run's life: which status an event moves it to.
 *
 *   pending --lease--> running --decided/complete--> finished
 *   pending|running --stop--> stopped --resume--> pending
 *   pending|running --fail--> failed
 *
 * finished and failed are final. A lease on a running run, a stop of a
 * stopped run and a resume of a pending/running run change nothing (0 with
 * the same status), so replays after a restart are harmless.
 */
#ifndef CAPA_COORD_RUNSTATE_H
#define CAPA_COORD_RUNSTATE_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

typedef enum {
    RUNSTATE_LEASE = 0,   /* a task was handed out */
    RUNSTATE_STOP,        /* an admin stopped it */
    RUNSTATE_RESUME,      /* an admin started it again */
    RUNSTATE_DECIDED,     /* an SPRT crossed a bound */
    RUNSTATE_COMPLETE,    /* every planned pair is stored */
    RUNSTATE_FAIL         /* it cannot go on (bad document) */
} runstate_event_t;

const char *runstate_event_name(runstate_event_t ev);
/* 0 and *next, or CAPA_ESTATE when the event is not allowed in cur. */
int runstate_next(store_run_status_t cur, runstate_event_t ev, store_run_status_t *next);
/* Whether the coordinator hands out work for a run in this status. */
bool runstate_is_active(store_run_status_t status);
/* A values run (or any run) is complete when every planned pair is stored. */
bool runstate_is_complete(int64_t pairs_stored, int64_t pairs_planned);

#endif
