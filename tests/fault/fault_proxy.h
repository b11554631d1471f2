/* fault_proxy.h - a TCP proxy on loopback for the fault suite: it forwards
 * bytes between clients and one upstream address, can cut the network (stop
 * forwarding and stop accepting, like a pulled cable) and heal it (drop every
 * connection it holds, then forward again), and keeps a copy of the first
 * bytes that crossed it so a test can look for plaintext secrets.
 *
 *   fault_proxy_t *p = fault_proxy_new(coordinator_port);
 *   worker connects to tcp://127.0.0.1:<fault_proxy_port(p)>
 *   fault_proxy_cut(p); ... fault_proxy_heal(p);
 *   fault_proxy_saw(p, token, strlen(token))
 *   fault_proxy_destroy(&p);
 *
 * One thread; for tests only (failures print to stderr, nothing exits).
 */
#ifndef CAPA_TEST_FAULT_PROXY_H
#define CAPA_TEST_FAULT_PROXY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct fault_proxy fault_proxy_t;

/* Listens on a free 127.0.0.1 port and forwards to 127.0.0.1:upstream_port.
 * NULL on failure. The caller owns the proxy (fault_proxy_destroy). */
fault_proxy_t *fault_proxy_new(int upstream_port);
void fault_proxy_destroy(fault_proxy_t **self_p);
int fault_proxy_port(const fault_proxy_t *self);
/* Stops moving bytes and accepting connections (bytes wait in the kernel). */
void fault_proxy_cut(fault_proxy_t *self);
/* Closes every connection held (what waited is lost) and forwards again. */
void fault_proxy_heal(fault_proxy_t *self);
/* Connections accepted so far. */
int fault_proxy_accepted(fault_proxy_t *self);
/* True if needle occurred in the bytes captured so far (the first 8 MiB in
 * each direction). */
bool fault_proxy_saw(fault_proxy_t *self, const void *needle, size_t len);
/* Bytes captured so far (both directions). */
size_t fault_proxy_bytes(fault_proxy_t *self);

#endif
