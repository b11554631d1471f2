/* crc_cmd.c - `capa-engine crc`: count, show N, check ARRAY, fen N [W B], seed S. */
#include "crc_cmd.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc.h"

static int s_usage(void)
{
    fprintf(stderr, "usage: capa-engine crc count\n"
                    "       capa-engine crc show N            the array numbered N\n"
                    "       capa-engine crc check ARRAY       validate, print its number\n"
                    "       capa-engine crc fen N [WHITE BLACK]  start FEN, pieces removed\n"
                    "       capa-engine crc seed S            the array drawn for seed S\n");
    return 2;
}

static int s_number(const char *s, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

int crc_cmd_main(int argc, char **argv)
{
    char err[256], array[CRC_ARRAY_LEN], fen[160];
    long long n;
    if (argc < 2)
        return s_usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "count") == 0 && argc == 2) {
        printf("%d\n", crc_count());
        return 0;
    }
    if (strcmp(cmd, "show") == 0 && argc == 3) {
        if (s_number(argv[2], 0, crc_count() - 1, &n)) {
            fprintf(stderr, "crc show: N must be a number in 0..%d\n", crc_count() - 1);
            return 1;
        }
        crc_array_from_number((int) n, array);
        printf("%s\n", array);
        return 0;
    }
    if (strcmp(cmd, "check") == 0 && argc == 3) {
        char up[CRC_ARRAY_LEN] = { 0 };
        strncpy(up, argv[2], 10);
        for (int i = 0; up[i]; i++)
            up[i] = (char) toupper((unsigned char) up[i]);
        int num = strlen(argv[2]) == 10 ? crc_number_of(up, err, sizeof err)
                                        : crc_number_of(argv[2], err, sizeof err);
        if (num < 0) {
            printf("invalid: %s\n", err);
            return 1;
        }
        printf("valid: number %d\n", num);
        return 0;
    }
    if (strcmp(cmd, "fen") == 0 && (argc == 3 || argc == 5)) {
        if (s_number(argv[2], 0, crc_count() - 1, &n)) {
            fprintf(stderr, "crc fen: N must be a number in 0..%d\n", crc_count() - 1);
            return 1;
        }
        int rc = crc_fen_with_removed((int) n, argc == 5 ? argv[3] : NULL, argc == 5 ? argv[4] : NULL,
                                      fen, sizeof fen, err, sizeof err);
        if (rc) {
            fprintf(stderr, "crc fen: %s\n", err);
            return 1;
        }
        printf("%s\n", fen);
        return 0;
    }
    if (strcmp(cmd, "seed") == 0 && argc == 3) {
        char *end;
        errno = 0;
        uint64_t seed = strtoull(argv[2], &end, 0);
        if (errno || end == argv[2] || *end) {
            fprintf(stderr, "crc seed: S must be a 64-bit number\n");
            return 1;
        }
        int num = crc_from_seed(seed);
        crc_array_from_number(num, array);
        printf("%d %s\n", num, array);
        return 0;
    }
    return s_usage();
}
