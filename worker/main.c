/* main.c - capa-worker: donate CPU time to a capalab coordinator.
 *
 *   capa-worker [--config FILE] [--coordinator tcp://host:5555 --token capa_...]
 *   capa-worker setup --coordinator tcp://host:5555 --token capa_...
 *   capa-worker status
 *   capa-worker --help
 *
 * Without --config or CAPA_CONFIG the default config file is read when it
 * exists (/etc/capalab/worker.json as root, else ~/.config/capalab/worker.json).
 * Exit statuses: worker.h and docs/config.md.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "worker.h"

static const char s_epilogue[] =
    "\n"
    "Commands:\n"
    "  capa-worker [options]      play the coordinator's games until stopped\n"
    "  capa-worker setup --coordinator tcp://HOST:PORT --token TOKEN [--KEY VALUE ...]\n"
    "                             write the config file (default /etc/capalab/worker.json\n"
    "                             as root, else ~/.config/capalab/worker.json), which is\n"
    "                             read when neither --config nor CAPA_CONFIG is given\n"
    "  capa-worker status [options]   what the running worker is doing, from\n"
    "                             <state_dir>/status.json (exit 0 running, 1 not)\n"
    "\n"
    "Exit status:\n"
    "  0  stopped by SIGTERM/SIGINT, or stop_at/max_hours reached; the spool is kept\n"
    "  1  could not start or go on (state folder not writable or full, bench failed)\n"
    "  2  bad config: unknown key, value out of range, malformed coordinator address,\n"
    "     unreadable token file (the message names it)\n"
    "  3  the coordinator refuses the token (unknown or revoked): get a new one and\n"
    "     run capa-worker setup; not retried\n"
    "  4  the coordinator wants another engine (bench signature): update this install\n"
    "     (.deb, Docker image or source build, as the message says); not retried\n"
    "  5  the coordinator speaks another protocol version: update; not retried\n"
    "Temporary trouble (coordinator unreachable or silent, database down) is retried\n"
    "with backoff (backoff_first_ms doubling up to backoff_max_ms), never an exit.\n"
    "SIGTERM: no new tasks; running games get grace_seconds, the last RESULTs\n"
    "ack_wait_ms, then BYE hands the unplayed pairs back to the coordinator: the\n"
    "worker is gone within grace_seconds + ack_wait_ms + 1 s (124 s by default). A\n"
    "second signal abandons running games at once.\n";

/* The default config file when neither --config nor CAPA_CONFIG names one. */
static void s_default_config(int argc, char **argv)
{
    const char *env = getenv("CAPA_CONFIG");
    if (env && env[0])
        return;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--config") == 0 || strncmp(argv[i], "--config=", 9) == 0)
            return;
    char path[4096];
    worker_default_config_path(path, sizeof path);
    if (access(path, F_OK) == 0)
        setenv("CAPA_CONFIG", path, 1);
}

int main(int argc, char **argv)
{
    capa_log_init("capa-worker");
    /* Errors of write(2) are handled where they happen (full spool disk,
     * file size limit, closed sockets), never as signals. */
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    if (argc > 1 && strcmp(argv[1], "setup") == 0)
        return worker_setup_main(argc - 1, argv + 1);
    s_default_config(argc, argv);
    if (argc > 1 && strcmp(argv[1], "status") == 0)
        return worker_status_main(argc - 1, argv + 1);
    worker_config_t cfg;
    bool help = false;
    char err[512];
    if (worker_config_load(&cfg, argc, argv, &help, err, sizeof err) < 0) {
        LOG(LOG_ERROR, "%s", err);
        return WORKER_EXIT_USAGE;
    }
    if (help) {
        fputs(s_epilogue, stdout);
        return WORKER_EXIT_OK;
    }
    capa_log_set_level((capa_log_level_t) capa_log_level_parse(cfg.log_level));
    worker_config_log(&cfg);
    worker_t *w = NULL;
    int rc = worker_new(&cfg, &w, err, sizeof err);
    if (rc < 0) {
        LOG(LOG_ERROR, "%s", err);
        return rc == WORKER_NEW_EUSAGE ? WORKER_EXIT_USAGE : WORKER_EXIT_FAILURE;
    }
    int status = worker_run(w);
    worker_destroy(&w);
    LOG(LOG_INFO, "exit status %d", status);
    return status;
}
