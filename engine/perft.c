/* perft.c - perft counting and the `perft` / `perft-suite` commands. */
#include "perft.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "err.h"
#include "movegen.h"
#include "notation.h"

uint64_t perft(board_t *b, int depth)
{
    if (depth <= 0)
        return 1;
    if (depth == 1)
        return (uint64_t) movegen_count(b);
    move_list_t list;
    movegen_legal(b, &list);
    uint64_t nodes = 0;
    for (int i = 0; i < list.count; i++) {
        board_make(b, list.moves[i]);
        nodes += perft(b, depth - 1);
        board_unmake(b);
    }
    return nodes;
}

static double s_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static int s_usage(void)
{
    fprintf(stderr, "usage: capa-engine perft [--variant V] [--fen FEN] [--chess960] "
                    "[--moves m1 m2 ...] DEPTH\n");
    return 2;
}

int perft_main(int argc, char **argv)
{
    variant_t variant = VARIANT_CAPABLANCA;
    const char *fen = NULL;
    int depth = -1;
    bool chess960 = false;
    int moves_at = -1, moves_n = 0;
    char err[256];

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--variant") == 0 && i + 1 < argc) {
            if (variant_from_name(argv[++i], &variant)) {
                fprintf(stderr, "perft: unknown variant '%s'\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--fen") == 0 && i + 1 < argc) {
            fen = argv[++i];
        } else if (strcmp(argv[i], "--chess960") == 0) {
            chess960 = true;
        } else if (strcmp(argv[i], "--moves") == 0) {
            moves_at = i + 1;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 &&
                   !(i + 2 == argc && strspn(argv[i + 1], "0123456789") == strlen(argv[i + 1]))) {
                i++;
                moves_n++;
            }
        } else if (depth < 0 && strspn(argv[i], "0123456789") == strlen(argv[i]) && argv[i][0]) {
            depth = atoi(argv[i]);
        } else {
            return s_usage();
        }
    }
    if (depth < 0 || depth > 20)
        return s_usage();

    static board_t board;
    int rc = fen ? board_set_fen_flags(&board, fen, variant, BOARD_FEN_ALLOW_CAPTURE_KING, err, sizeof err)
                 : board_set_startpos(&board, variant);
    if (rc) {
        fprintf(stderr, "perft: bad FEN: %s\n", err);
        return 1;
    }
    for (int i = 0; i < moves_n; i++) {
        move_t m;
        if (move_from_uci(&board, argv[moves_at + i], &m)) {
            fprintf(stderr, "perft: illegal move '%s'\n", argv[moves_at + i]);
            return 1;
        }
        board_make(&board, m);
    }

    double t0 = s_now();
    uint64_t total = 0;
    if (depth == 0) {
        total = 1;
    } else {
        move_list_t list;
        movegen_legal(&board, &list);
        for (int i = 0; i < list.count; i++) {
            char uci[UCI_MOVE_MAX];
            move_to_uci(&board, list.moves[i], chess960, uci);
            board_make(&board, list.moves[i]);
            uint64_t n = perft(&board, depth - 1);
            board_unmake(&board);
            printf("%s: %" PRIu64 "\n", uci, n);
            total += n;
        }
    }
    double secs = s_now() - t0;
    printf("\nNodes searched: %" PRIu64 "\n", total);
    printf("Time: %.3f s\n", secs);
    printf("Nodes/second: %.0f\n", secs > 0 ? (double) total / secs : 0.0);
    return 0;
}

/* Splits a tab-separated line into at most n fields (in place). */
static int s_split_tabs(char *line, char **fields, int n)
{
    int k = 0;
    char *p = line;
    while (k < n) {
        fields[k++] = p;
        char *tab = strchr(p, '\t');
        if (!tab)
            break;
        *tab = '\0';
        p = tab + 1;
    }
    return k;
}

int perft_suite_main(int argc, char **argv)
{
    const char *path = NULL;
    uint64_t max_nodes = UINT64_MAX, min_nodes = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-nodes") == 0 && i + 1 < argc)
            max_nodes = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--min-nodes") == 0 && i + 1 < argc)
            min_nodes = strtoull(argv[++i], NULL, 10);
        else if (!path)
            path = argv[i];
        else {
            fprintf(stderr, "usage: capa-engine perft-suite FILE.tsv [--max-nodes N] [--min-nodes N]\n");
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: capa-engine perft-suite FILE.tsv [--max-nodes N] [--min-nodes N]\n");
        return 2;
    }
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "perft-suite: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    static board_t board;
    char line[1024];
    int lineno = 0, run = 0, failed = 0;
    uint64_t total = 0;
    double t0 = s_now();
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\r\n")] = '\0';
        if (!line[0] || line[0] == '#' || strncmp(line, "variant\t", 8) == 0)
            continue;
        char *fld[5];
        if (s_split_tabs(line, fld, 5) < 4) {
            fprintf(stderr, "%s:%d: expected variant, fen, depth, nodes\n", path, lineno);
            failed++;
            continue;
        }
        variant_t v;
        char err[256];
        if (variant_from_name(fld[0], &v)) {
            fprintf(stderr, "%s:%d: unknown variant '%s'\n", path, lineno, fld[0]);
            failed++;
            continue;
        }
        int depth = atoi(fld[2]);
        uint64_t expected = strtoull(fld[3], NULL, 10);
        if (expected > max_nodes || expected < min_nodes)
            continue;
        if (board_set_fen_flags(&board, fld[1], v, BOARD_FEN_ALLOW_CAPTURE_KING, err, sizeof err)) {
            fprintf(stderr, "%s:%d: bad FEN: %s\n", path, lineno, err);
            failed++;
            continue;
        }
        double t1 = s_now();
        uint64_t got = perft(&board, depth);
        run++;
        total += got;
        printf("%s %-10s %s depth %d: %" PRIu64 " (%.2f s)\n", got == expected ? "ok  " : "FAIL",
               fld[0], fld[1], depth, got, s_now() - t1);
        if (got != expected) {
            printf("     expected %" PRIu64 "\n", expected);
            failed++;
        }
    }
    fclose(f);
    double secs = s_now() - t0;
    printf("%d rows run, %d failed, %" PRIu64 " nodes in %.2f s\n", run, failed, total, secs);
    return failed ? 1 : (run ? 0 : 1);
}
