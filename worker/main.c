/* main.c - capa-worker: donate CPU time to a capalab coordinator.
 *
 *   capa-worker --coordinator tcp://host:5555 --token capa_...   (or CAPA_TOKEN)
 *   capa-worker --help
 *
 * Exit status: 0 after SIGINT/SIGTERM, 1 failure, 2 bad config, 3 token
 * refused, 4 engine signature mismatch, 5 protocol version mismatch.
 */
#include <signal.h>
#include <stdio.h>

#include "log.h"
#include "worker.h"

int main(int argc, char **argv)
{
    capa_log_init("capa-worker");
    /* Errors of write(2) are handled where they happen (full spool disk,
     * file size limit, closed sockets), never as signals. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    worker_config_t cfg;
    bool help = false;
    char err[512];
    if (worker_config_load(&cfg, argc, argv, &help, err, sizeof err) < 0) {
        LOG(LOG_ERROR, "%s", err);
        return WORKER_EXIT_USAGE;
    }
    if (help)
        return WORKER_EXIT_OK;
    capa_log_set_level((capa_log_level_t) capa_log_level_parse(cfg.log_level));
    worker_config_log(&cfg);
    worker_t *w = NULL;
    if (worker_new(&cfg, &w, err, sizeof err) < 0) {
        LOG(LOG_ERROR, "%s", err);
        return WORKER_EXIT_FAILURE;
    }
    int status = worker_run(w);
    worker_destroy(&w);
    LOG(LOG_INFO, "exit status %d", status);
    return status;
}
