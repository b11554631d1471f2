/* test_worker_upload.c - gzip'ed PGN uploads against a small real HTTP
 * server (libmicrohttpd) in this process. */
#include <dirent.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "err.h"
#include "upload.h"

typedef struct {
    pthread_mutex_t mu;
    _Atomic int status;          /* what the server answers */
    int requests;
    char url[256];
    char encoding[64];
    char auth[128];
    unsigned char body[65536];
    size_t body_len;
} s_server_t;

static s_server_t S = { .mu = PTHREAD_MUTEX_INITIALIZER };

typedef struct {
    unsigned char buf[65536];
    size_t len;
} s_conn_t;

static enum MHD_Result s_handler(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version, const char *data,
                                 size_t *data_size, void **con_cls)
{
    (void) cls;
    (void) version;
    if (!*con_cls) {
        *con_cls = calloc(1, sizeof(s_conn_t));
        return MHD_YES;
    }
    s_conn_t *cc = *con_cls;
    if (*data_size) {
        size_t n = *data_size;
        if (cc->len + n <= sizeof cc->buf) {
            memcpy(cc->buf + cc->len, data, n);
            cc->len += n;
        }
        *data_size = 0;
        return MHD_YES;
    }
    pthread_mutex_lock(&S.mu);
    S.requests++;
    snprintf(S.url, sizeof S.url, "%s %s", method, url);
    const char *enc = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Encoding");
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
    snprintf(S.encoding, sizeof S.encoding, "%s", enc ? enc : "");
    snprintf(S.auth, sizeof S.auth, "%s", auth ? auth : "");
    memcpy(S.body, cc->buf, cc->len);
    S.body_len = cc->len;
    pthread_mutex_unlock(&S.mu);
    struct MHD_Response *r = MHD_create_response_from_buffer(2, (void *) "ok",
                                                             MHD_RESPMEM_PERSISTENT);
    enum MHD_Result ret = MHD_queue_response(c, (unsigned) S.status, r);
    MHD_destroy_response(r);
    return ret;
}

static void s_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                        enum MHD_RequestTerminationCode toe)
{
    (void) cls;
    (void) c;
    (void) toe;
    free(*con_cls);
    *con_cls = NULL;
}

static struct MHD_Daemon *s_serve(int *port)
{
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, s_handler, NULL,
        MHD_OPTION_NOTIFY_COMPLETED, s_completed, NULL, MHD_OPTION_END);
    if (!d)
        return NULL;
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    *port = info ? info->port : 0;
    return d;
}

static char s_dir[256];

static void s_fresh_dir(void)
{
    snprintf(s_dir, sizeof s_dir, "/tmp/capa-upload-test-%d-XXXXXX", (int) getpid());
    CHECK(mkdtemp(s_dir) != NULL);
}

static void s_rm_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", s_dir);
    CHECK(system(cmd) == 0);
}

static int s_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)))
        n += de->d_name[0] != '.';
    closedir(d);
    return n;
}

static size_t s_gunzip(const unsigned char *in, size_t len, char *out, size_t cap)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 16) != Z_OK)
        return 0;
    zs.next_in = (Bytef *) in;
    zs.avail_in = (uInt) len;
    zs.next_out = (Bytef *) out;
    zs.avail_out = (uInt) cap - 1;
    int rc = inflate(&zs, Z_FINISH);
    size_t n = cap - 1 - zs.avail_out;
    inflateEnd(&zs);
    if (rc != Z_STREAM_END)
        return 0;
    out[n] = '\0';
    return n;
}

static bool s_wait(bool (*cond)(void *), void *ctx, int ms)
{
    for (int i = 0; i < ms / 10; i++) {
        if (cond(ctx))
            return true;
        usleep(10000);
    }
    return cond(ctx);
}

static bool s_sent_at_least(void *ctx)
{
    upload_stats_t st;
    upload_stats(ctx, &st);
    return st.sent >= 1;
}

static bool s_failed_twice(void *ctx)
{
    upload_stats_t st;
    upload_stats(ctx, &st);
    return st.failed >= 2;
}

static const char PGN[] = "[Event \"capalab run 7 task 812\"]\n[Site \"capa-worker\"]\n"
                          "[Result \"1/2-1/2\"]\n\n1. e4 e5 1/2-1/2\n\n";

static void gzip_output_inflates_to_the_input(void)
{
    unsigned char *gz;
    size_t len;
    CHECK_EQ_INT(upload_gzip(PGN, strlen(PGN), &gz, &len), 0);
    CHECK(len > 18 && gz[0] == 0x1f && gz[1] == 0x8b);
    char back[1024];
    CHECK_EQ_INT(s_gunzip(gz, len, back, sizeof back), strlen(PGN));
    CHECK(strcmp(back, PGN) == 0);
    free(gz);
}

static void a_stored_pgn_is_posted_gzipped_and_deleted_after_success(void)
{
    s_fresh_dir();
    int port = 0;
    S.status = 200;
    S.requests = 0;
    struct MHD_Daemon *d = s_serve(&port);
    CHECK(d != NULL && port > 0);
    char base[64], dir[300], err[256];
    snprintf(base, sizeof base, "http://127.0.0.1:%d/", port);
    snprintf(dir, sizeof dir, "%s/pgn", s_dir);
    upload_t *up = NULL;
    CHECK_EQ_INT(upload_new(dir, base, "capa_tok", &up, err, sizeof err), 0);
    CHECK_EQ_INT(upload_store(up, 812, PGN, strlen(PGN), err, sizeof err), 0);
    CHECK(s_wait(s_sent_at_least, up, 5000));
    pthread_mutex_lock(&S.mu);
    CHECK_EQ_STR(S.url, "POST /api/tasks/812/pgn");
    CHECK_EQ_STR(S.encoding, "gzip");
    CHECK_EQ_STR(S.auth, "Bearer capa_tok");
    char back[1024];
    CHECK_EQ_INT(s_gunzip(S.body, S.body_len, back, sizeof back), strlen(PGN));
    pthread_mutex_unlock(&S.mu);
    CHECK(strcmp(back, PGN) == 0);
    usleep(50000);
    CHECK_EQ_INT(s_files(dir), 0);
    upload_destroy(&up);
    CHECK(up == NULL);
    MHD_stop_daemon(d);
    s_rm_dir();
}

static void a_refused_upload_stays_on_disk_and_is_retried(void)
{
    s_fresh_dir();
    int port = 0;
    S.status = 503;
    S.requests = 0;
    struct MHD_Daemon *d = s_serve(&port);
    CHECK(d != NULL);
    char base[64], dir[300], err[256];
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    snprintf(dir, sizeof dir, "%s/pgn", s_dir);
    upload_t *up = NULL;
    CHECK_EQ_INT(upload_new(dir, base, "", &up, err, sizeof err), 0);
    upload_set_retry(up, 50, 200);
    CHECK_EQ_INT(upload_store(up, 5, PGN, strlen(PGN), err, sizeof err), 0);
    CHECK(s_wait(s_failed_twice, up, 5000));
    CHECK_EQ_INT(s_files(dir), 1);
    S.status = 201;
    CHECK(s_wait(s_sent_at_least, up, 5000));
    usleep(50000);
    CHECK_EQ_INT(s_files(dir), 0);
    upload_destroy(&up);
    MHD_stop_daemon(d);
    s_rm_dir();
}

static void files_left_by_an_earlier_run_are_sent_and_no_server_breaks_nothing(void)
{
    s_fresh_dir();
    char dir[300], err[256];
    snprintf(dir, sizeof dir, "%s/pgn", s_dir);
    /* no server on this port: attempts fail, the file stays, destroy is prompt */
    upload_t *up = NULL;
    CHECK_EQ_INT(upload_new(dir, "http://127.0.0.1:9", "", &up, err, sizeof err), 0);
    upload_set_retry(up, 20, 50);
    CHECK_EQ_INT(upload_store(up, 77, PGN, strlen(PGN), err, sizeof err), 0);
    CHECK(s_wait(s_failed_twice, up, 5000));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    upload_destroy(&up);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    CHECK(t1.tv_sec - t0.tv_sec < 3);
    CHECK_EQ_INT(s_files(dir), 1);
    /* a new uploader with a server sends what is there */
    int port = 0;
    S.status = 200;
    struct MHD_Daemon *d = s_serve(&port);
    char base[64];
    snprintf(base, sizeof base, "http://127.0.0.1:%d", port);
    CHECK_EQ_INT(upload_new(dir, base, "", &up, err, sizeof err), 0);
    CHECK(s_wait(s_sent_at_least, up, 5000));
    pthread_mutex_lock(&S.mu);
    CHECK_EQ_STR(S.url, "POST /api/tasks/77/pgn");
    pthread_mutex_unlock(&S.mu);
    upload_destroy(&up);
    MHD_stop_daemon(d);
    s_rm_dir();
}

static void without_a_base_url_nothing_is_kept(void)
{
    s_fresh_dir();
    char dir[300], err[256];
    snprintf(dir, sizeof dir, "%s/pgn", s_dir);
    upload_t *up = NULL;
    CHECK_EQ_INT(upload_new(dir, "", "", &up, err, sizeof err), 0);
    CHECK_EQ_INT(upload_store(up, 1, PGN, strlen(PGN), err, sizeof err), 0);
    CHECK_EQ_INT(s_files(dir), -1);
    upload_destroy(&up);
    s_rm_dir();
}

static const check_case_t CASES[] = {
    CASE(gzip_output_inflates_to_the_input),
    CASE(a_stored_pgn_is_posted_gzipped_and_deleted_after_success),
    CASE(a_refused_upload_stays_on_disk_and_is_retried),
    CASE(files_left_by_an_earlier_run_are_sent_and_no_server_breaks_nothing),
    CASE(without_a_base_url_nothing_is_kept),
    { 0 },
};

int main(int argc, char **argv) { return check_main(argc, argv, CASES); }
