/* fault_proxy.c - the fault suite's TCP proxy (see fault_proxy.h). */
#include "fault_proxy.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CONN_MAX 32
#define CAPTURE_MAX (8u << 20)

typedef struct {
    int down;   /* accepted client side */
    int up;     /* upstream side */
} conn_t;

struct fault_proxy {
    int listen_fd;
    int port;
    int upstream_port;
    pthread_t thread;
    pthread_mutex_t lock;
    bool stop, cut, heal;
    int accepted;
    conn_t conns[CONN_MAX];
    int nconns;
    char *capture;
    size_t captured;
};

static void s_close_all(fault_proxy_t *p)
{
    for (int i = 0; i < p->nconns; i++) {
        close(p->conns[i].down);
        close(p->conns[i].up);
    }
    p->nconns = 0;
}

static void s_drop(fault_proxy_t *p, int i)
{
    close(p->conns[i].down);
    close(p->conns[i].up);
    p->conns[i] = p->conns[--p->nconns];
}

static void s_capture(fault_proxy_t *p, const char *buf, size_t n)
{
    pthread_mutex_lock(&p->lock);
    size_t room = CAPTURE_MAX - p->captured;
    if (n > room)
        n = room;
    memcpy(p->capture + p->captured, buf, n);
    p->captured += n;
    pthread_mutex_unlock(&p->lock);
}

static void s_accept(fault_proxy_t *p)
{
    int fd = accept(p->listen_fd, NULL, NULL);
    if (fd < 0)
        return;
    int up = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t) p->upstream_port) };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (up < 0 || connect(up, (struct sockaddr *) &a, sizeof a) < 0 || p->nconns == CONN_MAX) {
        if (up >= 0)
            close(up);
        close(fd);
        return;
    }
    p->conns[p->nconns++] = (conn_t) { .down = fd, .up = up };
    pthread_mutex_lock(&p->lock);
    p->accepted++;
    pthread_mutex_unlock(&p->lock);
}

/* Moves what is readable on from to to; false when the connection ended. */
static bool s_pump(fault_proxy_t *p, int from, int to)
{
    char buf[65536];
    ssize_t n = read(from, buf, sizeof buf);
    if (n <= 0)
        return n < 0 && (errno == EINTR || errno == EAGAIN);
    s_capture(p, buf, (size_t) n);
    for (ssize_t off = 0; off < n;) {
        ssize_t w = write(to, buf + off, (size_t) (n - off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        off += w;
    }
    return true;
}

static void *s_run(void *arg)
{
    fault_proxy_t *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        bool stop = p->stop, cut = p->cut, heal = p->heal;
        p->heal = false;
        pthread_mutex_unlock(&p->lock);
        if (stop)
            break;
        if (heal)
            s_close_all(p);
        if (cut) {
            usleep(20 * 1000);
            continue;
        }
        struct pollfd fds[1 + 2 * CONN_MAX];
        int n = 0;
        fds[n++] = (struct pollfd) { .fd = p->listen_fd, .events = POLLIN };
        for (int i = 0; i < p->nconns; i++) {
            fds[n++] = (struct pollfd) { .fd = p->conns[i].down, .events = POLLIN };
            fds[n++] = (struct pollfd) { .fd = p->conns[i].up, .events = POLLIN };
        }
        int nconns = p->nconns;
        if (poll(fds, (nfds_t) n, 20) <= 0)
            continue;
        /* Backwards, so dropping connection i keeps the lower indexes valid. */
        for (int i = nconns - 1; i >= 0; i--) {
            bool ok = true;
            if (fds[1 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR))
                ok = s_pump(p, p->conns[i].down, p->conns[i].up);
            if (ok && (fds[2 + 2 * i].revents & (POLLIN | POLLHUP | POLLERR)))
                ok = s_pump(p, p->conns[i].up, p->conns[i].down);
            if (!ok)
                s_drop(p, i);
        }
        if (fds[0].revents & POLLIN)
            s_accept(p);
    }
    s_close_all(p);
    return NULL;
}

fault_proxy_t *fault_proxy_new(int upstream_port)
{
    fault_proxy_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->capture = malloc(CAPTURE_MAX);
    p->upstream_port = upstream_port;
    p->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t alen = sizeof a;
    if (!p->capture || p->listen_fd < 0 || bind(p->listen_fd, (struct sockaddr *) &a, sizeof a) < 0 ||
        listen(p->listen_fd, 16) < 0 || getsockname(p->listen_fd, (struct sockaddr *) &a, &alen) < 0) {
        fprintf(stderr, "fault_proxy: cannot listen: %s\n", strerror(errno));
        if (p->listen_fd >= 0)
            close(p->listen_fd);
        free(p->capture);
        free(p);
        return NULL;
    }
    p->port = ntohs(a.sin_port);
    pthread_mutex_init(&p->lock, NULL);
    if (pthread_create(&p->thread, NULL, s_run, p) != 0) {
        close(p->listen_fd);
        pthread_mutex_destroy(&p->lock);
        free(p->capture);
        free(p);
        return NULL;
    }
    return p;
}

void fault_proxy_destroy(fault_proxy_t **self_p)
{
    fault_proxy_t *p = self_p ? *self_p : NULL;
    if (!p)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    close(p->listen_fd);
    pthread_mutex_destroy(&p->lock);
    free(p->capture);
    free(p);
    *self_p = NULL;
}

int fault_proxy_port(const fault_proxy_t *self) { return self->port; }

void fault_proxy_cut(fault_proxy_t *self)
{
    pthread_mutex_lock(&self->lock);
    self->cut = true;
    pthread_mutex_unlock(&self->lock);
}

void fault_proxy_heal(fault_proxy_t *self)
{
    pthread_mutex_lock(&self->lock);
    self->cut = false;
    self->heal = true;
    pthread_mutex_unlock(&self->lock);
}

int fault_proxy_accepted(fault_proxy_t *self)
{
    pthread_mutex_lock(&self->lock);
    int n = self->accepted;
    pthread_mutex_unlock(&self->lock);
    return n;
}

static bool s_contains(const char *hay, size_t n, const char *needle, size_t len)
{
    if (len == 0)
        return true;
    for (size_t i = 0; i + len <= n; i++)
        if (hay[i] == needle[0] && memcmp(hay + i, needle, len) == 0)
            return true;
    return false;
}

bool fault_proxy_saw(fault_proxy_t *self, const void *needle, size_t len)
{
    pthread_mutex_lock(&self->lock);
    bool found = s_contains(self->capture, self->captured, needle, len);
    pthread_mutex_unlock(&self->lock);
    return found;
}

size_t fault_proxy_bytes(fault_proxy_t *self)
{
    pthread_mutex_lock(&self->lock);
    size_t n = self->captured;
    pthread_mutex_unlock(&self->lock);
    return n;
}
