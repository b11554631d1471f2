/* runstate.c - run status transitions (see runstate.h). */
#include "runstate.h"

#include "err.h"

const char *runstate_event_name(runstate_event_t ev)
{
    static const char *const NAMES[] = { "lease", "stop", "resume", "decided", "complete", "fail" };
    return (unsigned) ev < sizeof NAMES / sizeof NAMES[0] ? NAMES[ev] : "?";
}

int runstate_next(store_run_status_t cur, runstate_event_t ev, store_run_status_t *next)
{
    if (cur == STORE_RUN_FINISHED || cur == STORE_RUN_FAILED)
        return CAPA_ESTATE;
    store_run_status_t to = cur;
    switch (ev) {
    case RUNSTATE_LEASE:
        if (cur == STORE_RUN_STOPPED)
            return CAPA_ESTATE;
        to = STORE_RUN_RUNNING;
        break;
    case RUNSTATE_STOP:
        to = STORE_RUN_STOPPED;
        break;
    case RUNSTATE_RESUME:
        to = cur == STORE_RUN_STOPPED ? STORE_RUN_PENDING : cur;
        break;
    case RUNSTATE_DECIDED:
    case RUNSTATE_COMPLETE:
        if (cur == STORE_RUN_STOPPED)
            return CAPA_ESTATE;
        to = STORE_RUN_FINISHED;
        break;
    case RUNSTATE_FAIL:
        to = STORE_RUN_FAILED;
        break;
    default:
        return CAPA_ESTATE;
    }
    *next = to;
    return 0;
}

bool runstate_is_active(store_run_status_t status)
{
    return status == STORE_RUN_PENDING || status == STORE_RUN_RUNNING;
}

bool runstate_is_complete(int64_t pairs_stored, int64_t pairs_planned)
{
    return pairs_planned > 0 && pairs_stored >= pairs_planned;
}
