// Implementations that need _GNU_SOURCE or must hide a packed struct from Swift.
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <pthread.h>
#include "CCourierLinux.h"

void courier_set_thread_name(const char *name) {
    char cut[16];
    snprintf(cut, sizeof cut, "%s", name);
    (void)pthread_setname_np(pthread_self(), cut);
}

int courier_iov_max(void) { return IOV_MAX; }

int courier_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

int courier_mkostemp(char *template_, int flags) {
    return mkostemp(template_, flags);
}

void courier_strerror(int errnum, char *buf, size_t len) {
    if (len == 0) return;
    // With _GNU_SOURCE, strerror_r returns a pointer that may or may not be `buf`.
    const char *msg = strerror_r(errnum, buf, len);
    if (msg != buf) {
        snprintf(buf, len, "%s", msg ? msg : "Unknown error");
    }
}

int courier_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = token;
    return epoll_ctl(epfd, op, fd, &ev);
}

int courier_epoll_wait(int epfd, courier_epoll_event *out, int max, int timeout_ms) {
    struct epoll_event evs[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].events = evs[i].events;
        out[i].token = evs[i].data.u64;
    }
    return n;
}
