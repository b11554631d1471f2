/* uciproc.c - a UCI engine as a child process. */
#define _GNU_SOURCE  /* pipe2 */
#include "uciproc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define UCIPROC_BUF 65536
#define UCIPROC_MAX_OPTIONS 256

typedef struct {
    char name[64];
    char type[16];
    long min, max;
    char vars[1024];   /* " var1 var2 ... " (combo), with spaces around each */
} uci_option_t;

struct uciproc_s {
    pid_t pid;
    int to, from;
    char buf[UCIPROC_BUF];
    size_t len;
    char id_name[128];
    uci_option_t *options;
    int noptions;
};

int uciproc_parse_info(const char *line, uciproc_info_t *out)
{
    memset(out, 0, sizeof *out);
    if (strncmp(line, "info ", 5) != 0 || strncmp(line, "info string", 11) == 0)
        return 0;
    const char *d = strstr(line, " depth ");
    int v;
    if (d && sscanf(d + 7, "%d", &v) == 1 && v > 0)
        out->depth = v;
    const char *s = strstr(line, " score ");
    if (!s)
        return 1;
    s += 7;
    int n = 0;  /* the characters read up to the end of the number */
    if (strncmp(s, "cp ", 3) == 0 && sscanf(s, "cp %d%n", &v, &n) == 1)
        out->kind = UCIPROC_SCORE_CP;
    else if (strncmp(s, "mate ", 5) == 0 && sscanf(s, "mate %d%n", &v, &n) == 1)
        out->kind = UCIPROC_SCORE_MATE;
    else
        return 1;
    out->value = v;
    s += n;
    out->bound = strncmp(s, " lowerbound", 11) == 0 || strncmp(s, " upperbound", 11) == 0;
    return 1;
}

int64_t uciproc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void s_set_err(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void s_set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* "option name N type T [default D] [min a] [max b] [var v]..." */
static void s_parse_option(uciproc_t *p, const char *line)
{
    if (p->noptions >= UCIPROC_MAX_OPTIONS)
        return;
    const char *name = line + strlen("option name ");
    const char *type = strstr(name, " type ");
    if (!type)
        return;
    uci_option_t *o = &p->options[p->noptions];
    memset(o, 0, sizeof *o);
    size_t n = (size_t) (type - name);
    if (n == 0 || n >= sizeof o->name)
        return;
    memcpy(o->name, name, n);
    sscanf(type + 6, "%15s", o->type);
    o->min = LONG_MIN;
    o->max = LONG_MAX;
    const char *s = strstr(type, " min ");
    if (s)
        o->min = strtol(s + 5, NULL, 10);
    s = strstr(type, " max ");
    if (s)
        o->max = strtol(s + 5, NULL, 10);
    size_t vl = 0;
    o->vars[vl++] = ' ';
    for (s = strstr(type, " var "); s; s = strstr(s + 1, " var ")) {
        char v[128];
        if (sscanf(s + 5, "%127s", v) != 1)
            continue;
        size_t l = strlen(v);
        if (vl + l + 2 >= sizeof o->vars)
            break;
        memcpy(o->vars + vl, v, l);
        vl += l;
        o->vars[vl++] = ' ';
    }
    o->vars[vl] = 0;
    p->noptions++;
}

static const uci_option_t *s_find_option(const uciproc_t *p, const char *name)
{
    for (int i = 0; i < p->noptions; i++)
        if (strcasecmp(p->options[i].name, name) == 0)
            return &p->options[i];
    return NULL;
}

bool uciproc_has_variant(const uciproc_t *p, const char *var)
{
    const uci_option_t *o = s_find_option(p, "UCI_Variant");
    if (!o)
        return false;
    char want[80];
    snprintf(want, sizeof want, " %s ", var);
    return strstr(o->vars, want) != NULL;
}

const char *uciproc_id_name(const uciproc_t *p)
{
    return p->id_name;
}

int uciproc_check_option(const uciproc_t *p, const char *name, const char *value, char *err,
                         size_t errlen)
{
    const uci_option_t *o = s_find_option(p, name);
    if (!o) {
        s_set_err(err, errlen, "the engine has no option \"%s\"", name);
        return -1;
    }
    if (strcmp(o->type, "spin") == 0) {
        char *end;
        errno = 0;
        long v = strtol(value, &end, 10);
        if (!*value || *end || errno) {
            s_set_err(err, errlen, "option %s takes an integer, not \"%s\"", o->name, value);
            return -1;
        }
        if (v < o->min || v > o->max) {
            s_set_err(err, errlen, "option %s: %ld is outside [%ld, %ld]", o->name, v, o->min,
                      o->max);
            return -1;
        }
    } else if (strcmp(o->type, "check") == 0) {
        if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0) {
            s_set_err(err, errlen, "option %s takes true or false, not \"%s\"", o->name, value);
            return -1;
        }
    } else if (strcmp(o->type, "combo") == 0) {
        char want[160];
        snprintf(want, sizeof want, " %s ", value);
        if (!strstr(o->vars, want)) {
            s_set_err(err, errlen, "option %s: \"%s\" is not one of its values:%s", o->name,
                      value, o->vars);
            return -1;
        }
    } else if (strcmp(o->type, "button") == 0 && *value) {
        s_set_err(err, errlen, "option %s is a button and takes no value", o->name);
        return -1;
    }
    return 0;
}

int uciproc_send(uciproc_t *p, const char *fmt, ...)
{
    char line[UCIPROC_BUF];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int) sizeof line - 1)
        return -1;
    line[n++] = '\n';
    ssize_t off = 0;
    while (off < n) {
        ssize_t w = write(p->to, line + off, (size_t) (n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += w;
    }
    return 0;
}

int uciproc_readline(uciproc_t *p, char *out, size_t outlen, int64_t timeout_ms)
{
    int64_t deadline = uciproc_now_ms() + timeout_ms;
    for (;;) {
        char *nl = memchr(p->buf, '\n', p->len);
        if (nl) {
            size_t l = (size_t) (nl - p->buf);
            size_t c = l < outlen - 1 ? l : outlen - 1;
            memcpy(out, p->buf, c);
            out[c] = 0;
            if (c && out[c - 1] == '\r')
                out[c - 1] = 0;
            memmove(p->buf, nl + 1, p->len - l - 1);
            p->len -= l + 1;
            return 1;
        }
        int64_t left = deadline - uciproc_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd pfd = { p->from, POLLIN, 0 };
        int r = poll(&pfd, 1, (int) (left < INT_MAX ? left : INT_MAX));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 0;
        if (p->len == sizeof p->buf)
            p->len = 0;  /* a line longer than the buffer: drop what came so far */
        ssize_t n = read(p->from, p->buf + p->len, sizeof p->buf - p->len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p->len += (size_t) n;
    }
}

int uciproc_sync(uciproc_t *p, int64_t timeout_ms)
{
    if (uciproc_send(p, "isready") < 0)
        return -1;
    int64_t deadline = uciproc_now_ms() + timeout_ms;
    char line[4096];
    for (;;) {
        int64_t left = deadline - uciproc_now_ms();
        int r = uciproc_readline(p, line, sizeof line, left > 0 ? left : 0);
        if (r <= 0)
            return r;
        if (strcmp(line, "readyok") == 0)
            return 1;
    }
}

static void s_free(uciproc_t *p)
{
    if (p->to >= 0)
        close(p->to);
    if (p->from >= 0)
        close(p->from);
    free(p->options);
    free(p);
}

/* Waits up to ms for the child to end; true when it did (reaped). */
static bool s_wait(pid_t pid, int ms)
{
    int status;
    for (int waited = 0; waited <= ms; waited += 10) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid || (r < 0 && errno == ECHILD))
            return true;
        usleep(10000);
    }
    return false;
}

void uciproc_kill(uciproc_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    uciproc_t *p = *self_p;
    if (p->pid > 0) {
        /* The engine leads its own process group: helpers it started go too. */
        kill(-p->pid, SIGKILL);
        kill(p->pid, SIGKILL);
        waitpid(p->pid, NULL, 0);
    }
    s_free(p);
    *self_p = NULL;
}

void uciproc_stop(uciproc_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    uciproc_t *p = *self_p;
    if (p->pid > 0) {
        uciproc_send(p, "quit");
        close(p->to);
        p->to = -1;
        if (s_wait(p->pid, 1000))
            p->pid = 0;
    }
    uciproc_kill(self_p);
}

uciproc_t *uciproc_start(const char *path, int64_t timeout_ms, char *err, size_t errlen)
{
    struct stat st;
    if (!path || !*path) {
        s_set_err(err, errlen, "no engine path given");
        return NULL;
    }
    if (stat(path, &st) < 0) {
        s_set_err(err, errlen, "engine %s: %s", path, strerror(errno));
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0) {
        s_set_err(err, errlen, "engine %s: not an executable file", path);
        return NULL;
    }
    uciproc_t *p = calloc(1, sizeof *p);
    if (p)
        p->options = calloc(UCIPROC_MAX_OPTIONS, sizeof *p->options);
    if (!p || !p->options) {
        free(p);
        s_set_err(err, errlen, "out of memory");
        return NULL;
    }
    p->to = p->from = -1;
    /* in: our writes -> its stdin; out: its stdout -> our reads; ex: exec's
     * errno back to us (closed on a successful exec). */
    int in[2] = { -1, -1 }, out[2] = { -1, -1 }, ex[2] = { -1, -1 };
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(out, O_CLOEXEC) < 0 || pipe2(ex, O_CLOEXEC) < 0) {
        s_set_err(err, errlen, "engine %s: pipe: %s", path, strerror(errno));
        goto fail_fds;
    }
    /* A write to an engine that died must fail with EPIPE, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    p->pid = fork();
    if (p->pid < 0) {
        s_set_err(err, errlen, "engine %s: fork: %s", path, strerror(errno));
        goto fail_fds;
    }
    if (p->pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        /* Its own process group: a Ctrl-C meant for the match does not kill
         * the engines mid-move; the match stops them itself. */
        setpgid(0, 0);
        char *const argv[] = { (char *) path, NULL };
        execv(path, argv);
        int e = errno;
        ssize_t w = write(ex[1], &e, sizeof e);
        (void) w;
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    close(ex[1]);
    p->to = in[1];
    p->from = out[0];
    int e = 0;
    ssize_t r;
    do
        r = read(ex[0], &e, sizeof e);
    while (r < 0 && errno == EINTR);
    close(ex[0]);
    if (r == (ssize_t) sizeof e) {
        waitpid(p->pid, NULL, 0);
        p->pid = 0;
        s_set_err(err, errlen, "engine %s: cannot execute: %s", path, strerror(e));
        s_free(p);
        return NULL;
    }
    /* A program that exited at once makes this write fail: the read below
     * then finds the end of its output and says so. */
    uciproc_send(p, "uci");
    int64_t deadline = uciproc_now_ms() + timeout_ms;
    char line[4096], first[64] = "";
    bool any = false;
    for (;;) {
        int64_t left = deadline - uciproc_now_ms();
        int rr = uciproc_readline(p, line, sizeof line, left > 0 ? left : 0);
        if (rr < 0) {
            if (any)
                s_set_err(err, errlen, "engine %s exited before answering \"uci\" with "
                          "\"uciok\" (its first line: \"%s\")", path, first);
            else
                s_set_err(err, errlen, "engine %s exited before answering \"uci\" with "
                          "\"uciok\" (it wrote nothing)", path);
            uciproc_kill(&p);
            return NULL;
        }
        if (rr == 0) {
            s_set_err(err, errlen,
                      "engine %s did not answer \"uci\" with \"uciok\" within %.1f s: "
                      "is it a UCI engine?", path, (double) timeout_ms / 1000.0);
            uciproc_kill(&p);
            return NULL;
        }
        if (!any)
            snprintf(first, sizeof first, "%.63s", line);
        any = true;
        if (strcmp(line, "uciok") == 0)
            break;
        if (strncmp(line, "id name ", 8) == 0)
            snprintf(p->id_name, sizeof p->id_name, "%.127s", line + 8);
        else if (strncmp(line, "option name ", 12) == 0)
            s_parse_option(p, line);
    }
    return p;

fail_fds:
    for (int i = 0; i < 2; i++) {
        if (in[i] >= 0)
            close(in[i]);
        if (out[i] >= 0)
            close(out[i]);
        if (ex[i] >= 0)
            close(ex[i]);
    }
    free(p->options);
    free(p);
    return NULL;
}
