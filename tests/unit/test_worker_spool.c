/* test_worker_spool.c - the worker's durable RESULT spool. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "err.h"
#include "log.h"
#include "spool.h"

static char s_dir[256];
static char s_mounted[256];  /* a tmpfs a failed case may have left mounted */

static void s_cleanup_mount(void)
{
    if (!s_mounted[0])
        return;
    umount2(s_mounted, MNT_DETACH);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_mounted);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", s_mounted);
    s_mounted[0] = '\0';
}

static void s_fresh_dir(void)
{
    s_cleanup_mount();
    snprintf(s_dir, sizeof s_dir, "/tmp/capa-spool-test-%d-XXXXXX", (int) getpid());
    CHECK(mkdtemp(s_dir) != NULL);
}

static void s_rm_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static long s_file_size(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0 ? (long) st.st_size : -1;
}

static void s_append_n(spool_t *sp, int64_t task, int from, int to)
{
    char err[256], frame[64];
    for (int b = from; b < to; b++) {
        int n = snprintf(frame, sizeof frame, "{\"task\":%lld,\"batch\":%d}", (long long) task, b);
        CHECK_EQ_INT(spool_append(sp, task, b, frame, (size_t) n, err, sizeof err), 0);
    }
}

static void appended_batches_survive_a_reopen_in_their_order(void)
{
    s_fresh_dir();
    char err[256];
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 0);
    s_append_n(sp, 812, 0, 3);
    s_append_n(sp, 7, 0, 2);
    spool_destroy(&sp);
    CHECK(sp == NULL);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 5);
    const int64_t want[5][2] = { { 812, 0 }, { 812, 1 }, { 812, 2 }, { 7, 0 }, { 7, 1 } };
    for (size_t i = 0; i < 5; i++) {
        const spool_entry_t *e = spool_entry(sp, i);
        CHECK_EQ_INT(e->task_id, want[i][0]);
        CHECK_EQ_INT(e->batch, want[i][1]);
        char frame[64];
        snprintf(frame, sizeof frame, "{\"task\":%lld,\"batch\":%lld}", (long long) want[i][0],
                 (long long) want[i][1]);
        CHECK_EQ_STR(e->frame, frame);
        CHECK_EQ_INT(e->len, strlen(frame));
    }
    CHECK_EQ_INT(spool_max_batch(sp, 812), 2);
    CHECK_EQ_INT(spool_max_batch(sp, 99), -1);
    spool_destroy(&sp);
    s_rm_dir(s_dir);
}

static void an_acknowledged_batch_is_gone_after_a_reopen(void)
{
    s_fresh_dir();
    char err[256];
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    s_append_n(sp, 1, 0, 4);
    long before = s_file_size(s_dir, SPOOL_FILE);
    CHECK_EQ_INT(spool_remove(sp, 1, 1, err, sizeof err), 0);
    CHECK_EQ_INT(spool_remove(sp, 1, 1, err, sizeof err), CAPA_ENOTFOUND);
    CHECK(!spool_dirty(sp));
    CHECK_EQ_INT(s_file_size(s_dir, SPOOL_FILE), before + 28);  /* one tombstone */
    /* appending after a compaction still works */
    s_append_n(sp, 2, 0, 1);
    spool_destroy(&sp);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 4);
    CHECK_EQ_INT(spool_entry(sp, 0)->batch, 0);
    CHECK_EQ_INT(spool_entry(sp, 1)->batch, 2);
    CHECK_EQ_INT(spool_entry(sp, 2)->batch, 3);
    CHECK_EQ_INT(spool_entry(sp, 3)->task_id, 2);
    CHECK(spool_find(sp, 1, 1) == NULL);
    CHECK(spool_find(sp, 1, 3) != NULL);
    for (int b = 0; b < 4; b++)
        if (b != 1)
            CHECK_EQ_INT(spool_remove(sp, 1, b, err, sizeof err), 0);
    CHECK_EQ_INT(spool_remove(sp, 2, 0, err, sizeof err), 0);
    CHECK_EQ_INT(s_file_size(s_dir, SPOOL_FILE), 0);
    CHECK_EQ_INT(s_file_size(s_dir, SPOOL_FILE ".tmp"), -1);
    spool_destroy(&sp);
    s_rm_dir(s_dir);
}

static void the_same_batch_cannot_be_spooled_twice(void)
{
    s_fresh_dir();
    char err[256];
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    s_append_n(sp, 5, 0, 1);
    CHECK_EQ_INT(spool_append(sp, 5, 0, "{}", 2, err, sizeof err), CAPA_EDUP);
    CHECK_EQ_INT(spool_append(sp, 5, 1, "", 0, err, sizeof err), CAPA_ERANGE);
    CHECK_EQ_INT(spool_count(sp), 1);
    spool_destroy(&sp);
    s_rm_dir(s_dir);
}

/* Cuts the file at every length inside its last record: the earlier
 * records always survive, the torn one is dropped and the file shortened. */
static void a_torn_last_record_is_dropped_and_the_rest_kept(void)
{
    s_fresh_dir();
    char err[256], path[512];
    snprintf(path, sizeof path, "%s/%s", s_dir, SPOOL_FILE);
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    s_append_n(sp, 3, 0, 2);
    long two = s_file_size(s_dir, SPOOL_FILE);
    s_append_n(sp, 3, 2, 3);
    long three = s_file_size(s_dir, SPOOL_FILE);
    spool_destroy(&sp);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    char *whole = malloc((size_t) three);
    CHECK(fread(whole, 1, (size_t) three, f) == (size_t) three);
    fclose(f);
    capa_log_set_level(LOG_ERROR);  /* one WARN per cut otherwise */
    for (long cut = two + 1; cut < three; cut++) {
        f = fopen(path, "wb");
        CHECK(fwrite(whole, 1, (size_t) cut, f) == (size_t) cut);
        fclose(f);
        CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
        CHECK_EQ_INT(spool_count(sp), 2);
        CHECK_EQ_INT(s_file_size(s_dir, SPOOL_FILE), two);
        spool_destroy(&sp);
    }
    capa_log_set_level(LOG_INFO);
    /* a flipped byte in the last payload: the checksum catches it */
    whole[three - 8] ^= 0x20;
    f = fopen(path, "wb");
    CHECK(fwrite(whole, 1, (size_t) three, f) == (size_t) three);
    fclose(f);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 2);
    /* and the spool is usable afterwards */
    s_append_n(sp, 3, 2, 3);
    spool_destroy(&sp);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 3);
    spool_destroy(&sp);
    free(whole);
    s_rm_dir(s_dir);
}

static void a_quarantined_batch_moves_to_the_bad_file(void)
{
    s_fresh_dir();
    char err[256];
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    s_append_n(sp, 9, 0, 2);
    CHECK_EQ_INT(spool_quarantine(sp, 9, 0, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 1);
    CHECK(s_file_size(s_dir, SPOOL_BAD_FILE) > 0);
    spool_destroy(&sp);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 1);
    CHECK_EQ_INT(spool_entry(sp, 0)->batch, 1);
    spool_destroy(&sp);
    s_rm_dir(s_dir);
}

/* RLIMIT_FSIZE makes every write past the limit fail with EFBIG, which
 * works without privileges: the append fails with a clear error, the
 * spool keeps what it had, and works again once there is room. */
static void a_write_beyond_the_file_size_limit_fails_cleanly(void)
{
    s_fresh_dir();
    char err[256];
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    s_append_n(sp, 4, 0, 1);
    long size = s_file_size(s_dir, SPOOL_FILE);
    struct rlimit old, lim;
    CHECK(getrlimit(RLIMIT_FSIZE, &old) == 0);
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);
    lim = old;
    lim.rlim_cur = (rlim_t) size + 40;
    CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    char big[200];
    memset(big, 'x', sizeof big);
    int rc = spool_append(sp, 4, 1, big, sizeof big, err, sizeof err);
    CHECK(setrlimit(RLIMIT_FSIZE, &old) == 0);
    signal(SIGXFSZ, prev);
    CHECK_EQ_INT(rc, CAPA_EFULL);
    CHECK(strstr(err, "cannot write spool") != NULL);
    CHECK_EQ_INT(spool_count(sp), 1);
    CHECK_EQ_INT(s_file_size(s_dir, SPOOL_FILE), size);
    CHECK_EQ_INT(spool_append(sp, 4, 1, big, sizeof big, err, sizeof err), 0);
    spool_destroy(&sp);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 2);
    spool_destroy(&sp);
    s_rm_dir(s_dir);
}

/* A real full disk: a 64 KiB tmpfs (needs CAP_SYS_ADMIN; without it the
 * case says so and checks the file-size-limit path only). */
static void a_full_disk_gives_efull_and_keeps_the_spool_readable(void)
{
    s_fresh_dir();
    if (mount("tmpfs", s_dir, "tmpfs", 0, "size=64k") != 0) {
        printf("  (cannot mount a tmpfs: %s; full-disk case not run)\n", strerror(errno));
        s_rm_dir(s_dir);
        return;
    }
    snprintf(s_mounted, sizeof s_mounted, "%s", s_dir);
    char err[256];
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    char *big = malloc(10000);
    memset(big, 'y', 10000);
    int rc = 0, n = 0;
    while (n < 100 && (rc = spool_append(sp, 1, n, big, 10000, err, sizeof err)) == 0)
        n++;
    CHECK_EQ_INT(rc, CAPA_EFULL);
    CHECK(n >= 3 && n < 100);
    CHECK_EQ_INT(spool_count(sp), (size_t) n);
    /* removing needs a temp copy: may fail on a full disk but never loses data */
    spool_destroy(&sp);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), (size_t) n);
    /* while full, a removal either fits its small tombstone or fails; if
     * it fails the record stays in the file (a later duplicate) and memory
     * forgets it: nothing breaks either way */
    rc = spool_remove(sp, 1, 0, err, sizeof err);
    CHECK(rc == 0 || rc == CAPA_EFULL);
    CHECK_EQ_INT(spool_dirty(sp), rc == CAPA_EFULL);
    CHECK_EQ_INT(spool_count(sp), (size_t) n - 1);
    CHECK_EQ_INT(spool_append(sp, 1, n, big, 10000, err, sizeof err), CAPA_EFULL);
    /* once every batch is acknowledged the file is cut without a copy */
    for (int b = 1; b < n; b++)
        spool_remove(sp, 1, b, err, sizeof err);
    CHECK_EQ_INT(spool_count(sp), 0);
    CHECK(!spool_dirty(sp));
    CHECK_EQ_INT(spool_append(sp, 1, n, big, 10000, err, sizeof err), 0);
    spool_destroy(&sp);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 1);
    CHECK_EQ_INT(spool_entry(sp, 0)->batch, n);
    spool_destroy(&sp);
    /* read-only: appends fail with a message, nothing crashes */
    CHECK(mount(NULL, s_dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) == 0);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err) < 0, 1);
    CHECK(strstr(err, "spool") != NULL);
    CHECK(sp == NULL);
    free(big);
    CHECK(umount(s_dir) == 0);
    s_mounted[0] = '\0';
    s_rm_dir(s_dir);
}

static void an_unusable_spool_folder_is_a_clear_error(void)
{
    char err[256];
    spool_t *sp = NULL;
    int rc = spool_open("/proc/capa-no-such-folder", &sp, err, sizeof err);
    CHECK(rc < 0);
    CHECK(sp == NULL);
    CHECK(strstr(err, "/proc/capa-no-such-folder") != NULL);
}

static void the_checksum_is_crc32(void)
{
    CHECK_EQ_U64(spool_crc32("123456789", 9), 0xCBF43926u);
    CHECK_EQ_U64(spool_crc32("", 0), 0);
}

static void many_acknowledgements_compact_the_file(void)
{
    s_fresh_dir();
    char err[256];
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    static char big[20000];
    memset(big, 'z', sizeof big);
    for (int b = 0; b < 100; b++)
        CHECK_EQ_INT(spool_append(sp, 8, b, big, sizeof big, err, sizeof err), 0);
    long full = s_file_size(s_dir, SPOOL_FILE);
    CHECK(full > 100 * 20000);
    for (int b = 0; b < 70; b++)
        CHECK_EQ_INT(spool_remove(sp, 8, b, err, sizeof err), 0);
    /* compacted once the dead bytes passed 1 MiB and the live ones: the
     * file never holds more than the live bytes plus about as much again */
    long now = s_file_size(s_dir, SPOOL_FILE);
    CHECK_MSG(now < full / 2, "file of %ld bytes for 30 live batches", now);
    CHECK_MSG(now < 2 * 30 * 20100 + (1 << 20), "file of %ld bytes", now);
    CHECK_EQ_INT(spool_count(sp), 30);
    spool_destroy(&sp);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    CHECK_EQ_INT(spool_count(sp), 30);
    CHECK_EQ_INT(spool_entry(sp, 0)->batch, 70);
    CHECK_EQ_INT(spool_entry(sp, 29)->batch, 99);
    spool_destroy(&sp);
    s_rm_dir(s_dir);
}

static void a_torn_tombstone_brings_its_batch_back(void)
{
    s_fresh_dir();
    char err[256], path[512];
    snprintf(path, sizeof path, "%s/%s", s_dir, SPOOL_FILE);
    spool_t *sp = NULL;
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    s_append_n(sp, 6, 0, 3);
    CHECK_EQ_INT(spool_remove(sp, 6, 1, err, sizeof err), 0);
    long size = s_file_size(s_dir, SPOOL_FILE);
    spool_destroy(&sp);
    CHECK(truncate(path, size - 5) == 0);
    capa_log_set_level(LOG_ERROR);
    CHECK_EQ_INT(spool_open(s_dir, &sp, err, sizeof err), 0);
    capa_log_set_level(LOG_INFO);
    CHECK_EQ_INT(spool_count(sp), 3);  /* resent, then acknowledged as a duplicate */
    CHECK(spool_find(sp, 6, 1) != NULL);
    spool_destroy(&sp);
    s_rm_dir(s_dir);
}

static const check_case_t CASES[] = {
    CASE(appended_batches_survive_a_reopen_in_their_order),
    CASE(an_acknowledged_batch_is_gone_after_a_reopen),
    CASE(the_same_batch_cannot_be_spooled_twice),
    CASE(a_torn_last_record_is_dropped_and_the_rest_kept),
    CASE(a_quarantined_batch_moves_to_the_bad_file),
    CASE(a_write_beyond_the_file_size_limit_fails_cleanly),
    CASE(a_full_disk_gives_efull_and_keeps_the_spool_readable),
    CASE(an_unusable_spool_folder_is_a_clear_error),
    CASE(the_checksum_is_crc32),
    CASE(many_acknowledgements_compact_the_file),
    CASE(a_torn_tombstone_brings_its_batch_back),
    { 0 },
};

int main(int argc, char **argv)
{
    int rc = check_main(argc, argv, CASES);
    s_cleanup_mount();
    return rc;
}
