/* check.h - the test harness every tests/unit/test_*.c uses.
 *
 *   static void fen_round_trip_keeps_every_field(void) { CHECK(...); CHECK_EQ_INT(a, b); }
 *   static const check_case_t CASES[] = { CASE(fen_round_trip_keeps_every_field), {0} };
 *   int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
 *
 * With no arguments every case runs; with arguments only the named ones (a
 * name that is no case counts as a failure). A failed CHECK reports file:line and ends that case (later cases still run).
 * The last line is "N passed, N failed" and the exit code is 1 on any failure.
 */
#ifndef CAPA_CHECK_H
#define CAPA_CHECK_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    const char *name;
    void (*fn)(void);
} check_case_t;

#define CASE(fn) { #fn, fn }

static jmp_buf check_jmp_;
static int check_failed_;

static inline void check_fail_(const char *file, int line, const char *msg)
{
    fprintf(stderr, "  %s:%d: %s\n", file, line, msg);
    check_failed_ = 1;
    longjmp(check_jmp_, 1);
}

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond))                                                            \
            check_fail_(__FILE__, __LINE__, "CHECK(" #cond ") failed");         \
    } while (0)

#define CHECK_MSG(cond, ...)                                                    \
    do {                                                                        \
        if (!(cond)) {                                                          \
            char m_[1024];                                                      \
            snprintf(m_, sizeof m_, __VA_ARGS__);                               \
            check_fail_(__FILE__, __LINE__, m_);                                \
        }                                                                       \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                      \
    do {                                                                        \
        long long a_ = (long long) (a), b_ = (long long) (b);                   \
        CHECK_MSG(a_ == b_, "%s == %s: %lld != %lld", #a, #b, a_, b_);          \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                      \
    do {                                                                        \
        uint64_t a_ = (uint64_t) (a), b_ = (uint64_t) (b);                      \
        CHECK_MSG(a_ == b_, "%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_); \
    } while (0)

#define CHECK_EQ_STR(a, b)                                                      \
    do {                                                                        \
        const char *a_ = (a), *b_ = (b);                                        \
        CHECK_MSG(a_ && b_ && strcmp(a_, b_) == 0, "%s == %s: \"%s\" != \"%s\"", \
                  #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");             \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                   \
    do {                                                                        \
        double a_ = (double) (a), b_ = (double) (b), t_ = (double) (tol);       \
        CHECK_MSG(a_ - b_ <= t_ && b_ - a_ <= t_, "%s ~ %s: %.9g vs %.9g (tol %g)", \
                  #a, #b, a_, b_, t_);                                          \
    } while (0)

/* Runs one case; setjmp sits in its own frame so no local is clobbered. */
static inline int check_run_(void (*fn)(void))
{
    check_failed_ = 0;
    if (setjmp(check_jmp_) == 0)
        fn();
    return check_failed_;
}

static inline int check_main(int argc, char **argv, const check_case_t *cases)
{
    int passed = 0, failed = 0;
    /* A name that is no case fails (a renamed or deleted case must not turn
     * its ctest test into one that runs nothing and passes). */
    for (int i = 1; i < argc; i++) {
        const check_case_t *c = cases;
        while (c->name && strcmp(argv[i], c->name) != 0)
            c++;
        if (!c->name) {
            printf("FAIL %s (no such case)\n", argv[i]);
            failed++;
        }
    }
    for (const check_case_t *c = cases; c->name; c++) {
        if (argc > 1) {
            int wanted = 0;
            for (int i = 1; i < argc; i++)
                wanted |= strcmp(argv[i], c->name) == 0;
            if (!wanted)
                continue;
        }
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        int bad = check_run_(c->fn);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
        printf("%s %s (%.0f ms)\n", bad ? "FAIL" : "ok  ", c->name, ms);
        fflush(stdout);
        if (bad)
            failed++;
        else
            passed++;
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif
