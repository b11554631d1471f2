/* bench_util.c - see bench_util.h. */
#include "bench_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

int bench_pg_cluster(const char *cmd, const char *dir, char *out, size_t len)
{
    char line[1024];
    snprintf(line, sizeof line, "'%s/scripts/pgtmp.sh' %s '%s'", CAPA_SOURCE_DIR, cmd, dir);
    FILE *p = popen(line, "r");
    if (!p)
        return -1;
    char buf[512] = "";
    if (!fgets(buf, sizeof buf, p))
        buf[0] = '\0';
    int rc = pclose(p);
    buf[strcspn(buf, "\n")] = '\0';
    if (out)
        snprintf(out, len, "%s", buf);
    return rc == 0 ? 0 : -1;
}

int bench_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *) &a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *) &a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

int bench_build_program(const char *name, char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len);
    if (n <= 0 || (size_t) n >= len)
        return -1;
    out[n] = 0;
    for (int up = 0; up < 2; up++) {
        char *s = strrchr(out, '/');
        if (s)
            *s = 0;
    }
    size_t have = strlen(out);
    if ((size_t) snprintf(out + have, len - have, "/%s", name) >= len - have)
        return -1;
    return 0;
}
