/* cmd_sprt.c - capa sprt: the offline SPRT calculator (common/stats_sprt.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "stats_sprt.h"

int cmd_sprt(const cli_opts_t *o, const cli_args_t *a)
{
    static const char *const allowed[] = { "elo0", "elo1", "alpha", "beta", "model", "penta",
                                           "wdl", "elo", "draw_ratio", NULL };
    int rc = cli_check_args(a, allowed, 0,
                            "sprt --elo0 E0 --elo1 E1 [--alpha A] [--beta B] [--model M] "
                            "[--penta N0,N1,N2,N3,N4 | --wdl W,D,L] [--elo TRUE [--draw-ratio R]]");
    if (rc)
        return rc;
    stats_sprt_params_t p;
    stats_sprt_params_default(&p);
    double elo = 0, draw = 0.5;
    if (cli_double(a, "elo0", p.elo0, &p.elo0) < 0 || cli_double(a, "elo1", p.elo1, &p.elo1) < 0 ||
        cli_double(a, "alpha", p.alpha, &p.alpha) < 0 || cli_double(a, "beta", p.beta, &p.beta) < 0 ||
        cli_double(a, "elo", 0, &elo) < 0 || cli_double(a, "draw_ratio", 0.5, &draw) < 0)
        return CLI_USAGE;
    const char *model = cli_opt(a, "model");
    if (model) {
        int m = stats_model_parse(model);
        if (m < 0) {
            cli_error("--model is normalized or logistic");
            return CLI_USAGE;
        }
        p.model = (stats_elo_model_t) m;
    }
    char err[512];
    if (stats_sprt_params_check(&p, err, sizeof err) < 0) {
        cli_error("%s", err);
        return CLI_USAGE;
    }
    if (!(draw >= 0 && draw < 1)) {
        cli_error("--draw-ratio is in [0, 1)");
        return CLI_USAGE;
    }
    stats_counts_t c;
    memset(&c, 0, sizeof c);
    const char *penta = cli_opt(a, "penta"), *wdl = cli_opt(a, "wdl");
    if (penta && wdl) {
        cli_error("give --penta or --wdl, not both");
        return CLI_USAGE;
    }
    if (penta && stats_counts_parse(penta, 5, c.penta, err, sizeof err) < 0) {
        cli_error("--penta: %s", err);
        return CLI_USAGE;
    }
    if (wdl) {
        int64_t v[3];
        if (stats_counts_parse(wdl, 3, v, err, sizeof err) < 0) {
            cli_error("--wdl: %s", err);
            return CLI_USAGE;
        }
        c.wins = v[0];
        c.draws = v[1];
        c.losses = v[2];
        p.trinomial = 1;
    }
    bool have_counts = penta || wdl;
    bool want_expect = cli_opt(a, "elo") != NULL;
    if (!have_counts && !want_expect) {
        cli_error("give counts (--penta or --wdl) and/or a true value (--elo)");
        return CLI_USAGE;
    }
    cJSON *out = cJSON_CreateObject();
    if (have_counts) {
        stats_sprt_report_t r;
        if (stats_sprt_report(&p, &c, &r, err, sizeof err) < 0) {
            cJSON_Delete(out);
            cli_error("%s", err);
            return CLI_USAGE;
        }
        if (o->json) {
            cJSON_AddItemToObject(out, "report", stats_sprt_to_json(&r));
        } else {
            char buf[4096];
            stats_sprt_format(&r, buf, sizeof buf);
            fputs(buf, stdout);
            if (buf[0] && buf[strlen(buf) - 1] != '\n')
                putchar('\n');
        }
    }
    if (want_expect) {
        stats_dist_t shape;
        if (have_counts && penta)
            stats_dist_from_penta(c.penta, &shape);
        else if (have_counts)
            stats_dist_from_games(c.wins, c.draws, c.losses, &shape);
        else
            stats_dist_from_draw_model(0, draw, 1, &shape);
        stats_sprt_expect_t e;
        if (stats_sprt_expect(&p, &shape, elo, &e, err, sizeof err) < 0) {
            cJSON_Delete(out);
            cli_error("%s", err);
            return CLI_USAGE;
        }
        const char *unit = shape.n == 5 ? "pairs" : "games";
        if (o->json) {
            cJSON *x = cJSON_AddObjectToObject(out, "expect");
            cJSON_AddNumberToObject(x, "elo", elo);
            cJSON_AddStringToObject(x, "model", stats_model_name(p.model));
            cJSON_AddNumberToObject(x, "pass_probability", e.pass_probability);
            cJSON_AddNumberToObject(x, "expected_n", e.expected_n);
            cJSON_AddStringToObject(x, "unit", unit);
        } else {
            printf("if the true value is %g %s (%s): passes with probability %.1f%%, "
                   "expected length %.0f %s\n", elo,
                   p.model == STATS_MODEL_LOGISTIC ? "Elo" : "nElo",
                   have_counts ? "outcome shape of the counts" : "draw model", 
                   e.pass_probability * 100, e.expected_n, unit);
        }
    }
    if (o->json)
        cli_print_json(out);
    cJSON_Delete(out);
    return CLI_OK;
}
