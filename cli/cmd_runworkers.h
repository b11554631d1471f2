/* cmd_runworkers.h - capa workers [ID]: without an id every worker
 * (cmd_workers in cmd_info.c), with a run id that run's workers: pairs,
 * pentanomial, W/D/L, score and the outlier test (GET /api/runs/{id}/workers). */
#ifndef CAPA_CLI_CMD_RUNWORKERS_H
#define CAPA_CLI_CMD_RUNWORKERS_H

#include "cli.h"

int cmd_workers_or_run(const cli_opts_t *o, const cli_args_t *a);

#endif
