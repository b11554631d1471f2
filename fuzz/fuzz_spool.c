/* fuzz_spool.c - the worker's spool file (worker/spool.c) as found on disk
 * after a crash, a full disk or tampering: whatever the bytes, spool_open
 * either refuses with a message or yields well-formed entries (non-empty
 * frames within SPOOL_RECORD_MAX, no batch twice), and the spool then
 * accepts a new batch and finds it. The file lives in a private folder
 * under /dev/shm (or /tmp). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char s_dir[256];

static void s_setup(void)
{
    if (s_dir[0])
        return;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(s_dir, sizeof s_dir, "%s/capa-fuzz-spool-%ld", base, (long) getpid());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    s_setup();
    char path[512], bad[512];
    if (access(s_dir, F_OK) != 0 && mkdir(s_dir, 0700) != 0)
        abort();
    snprintf(path, sizeof path, "%s/%s", s_dir, SPOOL_FILE);
    snprintf(bad, sizeof bad, "%s/%s", s_dir, SPOOL_BAD_FILE);
    unlink(bad);
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    spool_t *sp = NULL;
    char err[512] = "";
    if (spool_open(s_dir, &sp, err, sizeof err) != 0) {
        if (sp || !err[0])
            abort();   /* a refusal leaves nothing open and says why */
        return 0;
    }
    size_t n = spool_count(sp);
    for (size_t i = 0; i < n; i++) {
        const spool_entry_t *e = spool_entry(sp, i);
        if (!e || !e->frame || e->len == 0 || e->len > SPOOL_RECORD_MAX)
            abort();
        if (spool_find(sp, e->task_id, e->batch) != e)
            abort();   /* one entry per task and batch */
    }
    int64_t task = INT64_C(1) << 40;
    if (!spool_find(sp, task, 0)) {   /* (the input may hold that batch already) */
        if (spool_append(sp, task, 0, "{}", 2, err, sizeof err) != 0)
            abort();
        if (!spool_find(sp, task, 0) || spool_count(sp) != n + 1)
            abort();
    }
    spool_destroy(&sp);
    return 0;
}
