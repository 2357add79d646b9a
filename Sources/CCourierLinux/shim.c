// Implementations that need _GNU_SOURCE or must hide a packed struct from Swift.
#define _GNU_SOURCE
#include <sys/random.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <sys/resource.h>
#include <fcntl.h>

#include <linux/netlink.h>
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

int courier_terminal_columns(int fd) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
    return size.ws_col;
}

void courier_ignore_sigpipe(void) { (void)signal(SIGPIPE, SIG_IGN); }

int courier_pipe_cloexec(int fds[2]) { return pipe2(fds, O_CLOEXEC); }

int courier_pipe_nonblocking(int fds[2], int size) {
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return -1;
    (void)fcntl(fds[1], F_SETPIPE_SZ, size);
    return 0;
}

ssize_t courier_splice(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len, unsigned int flags) {
    return splice(fd_in, (loff_t *)off_in, fd_out, (loff_t *)off_out, len, flags);
}

unsigned int courier_splice_move(void) { return SPLICE_F_MOVE; }
unsigned int courier_splice_nonblock(void) { return SPLICE_F_NONBLOCK; }

static volatile sig_atomic_t courier_terminations = 0;
static int courier_termination_fd = -1;
static const int courier_termination_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

// Only async-signal-safe calls here (signal-safety(7)): write(2) and _exit(2). The first signal
// is handed to the watcher as one byte, its number; a second one ends the process at once.
static void courier_on_termination(int signo) {
    int saved = errno;
    if (courier_terminations++ > 0) _exit(128 + signo);
    if (courier_termination_fd >= 0) {
        unsigned char byte = (unsigned char)signo;
        ssize_t ignored = write(courier_termination_fd, &byte, 1);
        (void)ignored;
    }
    errno = saved;
}

int courier_install_termination_handlers(int notify_fd) {
    courier_termination_fd = notify_fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = courier_on_termination;
    sigemptyset(&action.sa_mask);
    // While one of them is being handed over, the others wait (a second one still ends the
    // process: the counter is checked when each handler runs).
    for (size_t i = 0; i < sizeof courier_termination_signals / sizeof courier_termination_signals[0]; i++) {
        sigaddset(&action.sa_mask, courier_termination_signals[i]);
    }
    action.sa_flags = SA_RESTART;
    for (size_t i = 0; i < sizeof courier_termination_signals / sizeof courier_termination_signals[0]; i++) {
        if (sigaction(courier_termination_signals[i], &action, NULL) != 0) return -1;
    }
    return 0;
}

void courier_die_by_signal(int signo) {
    // The shell then reports 128 + signo and stops a script or a loop, as when the signal kills
    // curl. SIGQUIT would dump core: not for a signal that was handled.
    if (signo == SIGQUIT) {
        struct rlimit none = { 0, 0 };
        (void)setrlimit(RLIMIT_CORE, &none);
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    (void)sigaction(signo, &action, NULL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signo);
    (void)pthread_sigmask(SIG_UNBLOCK, &only, NULL);
    (void)raise(signo);
    _exit(128 + signo);  // not reached unless the signal is ignored by the kernel
}

int courier_open_unnamed(const char *directory, int flags, unsigned int mode) {
    return open(directory, O_TMPFILE | flags, (mode_t)mode);
}

int courier_link_unnamed(int fd, const char *path) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    int r = linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
    if (r == 0 || errno != ENOENT) return r;
    // No /proc: AT_EMPTY_PATH does the same but needs CAP_DAC_READ_SEARCH.
    int saved = errno;
    r = linkat(fd, "", AT_FDCWD, path, AT_EMPTY_PATH);
    if (r != 0 && errno == EPERM) errno = saved;
    return r;
}

int courier_stat(const char *path, int64_t *size, int *is_directory) {
    struct stat info;
    int r = stat(path, &info);
    if (r != 0) return r;
    *size = (int64_t)info.st_size;
    *is_directory = S_ISDIR(info.st_mode) ? 1 : 0;
    return 0;
}

ssize_t courier_getrandom(void *buffer, size_t length, unsigned int flags) {
    return getrandom(buffer, length, flags);
}

ssize_t courier_getxattr(const char *path, const char *name, void *value, size_t size) {
    return getxattr(path, name, value, size);
}

int courier_setxattr(const char *path, const char *name, const void *value, size_t size) {
    return setxattr(path, name, value, size, 0);
}

int courier_removexattr(const char *path, const char *name) { return removexattr(path, name); }

int courier_netlink_route_socket(void) {
    return socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
}

int courier_netlink_bind(int fd, uint32_t groups) {
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_pid = 0;          // the kernel assigns the port
    address.nl_groups = groups;
    return bind(fd, (struct sockaddr *)&address, sizeof address);
}

long courier_netlink_recv(int fd, void *buf, unsigned long len, uint32_t *sender, int *truncated) {
    struct sockaddr_nl from;
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    struct msghdr message;
    memset(&from, 0, sizeof from);
    memset(&message, 0, sizeof message);
    message.msg_name = &from;
    message.msg_namelen = sizeof from;
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    ssize_t n = recvmsg(fd, &message, 0);
    if (n >= 0) {
        // Nothing after recvmsg may touch errno on the failure path: the caller reads it.
        *sender = from.nl_pid;
        *truncated = (message.msg_flags & MSG_TRUNC) ? 1 : 0;
    }
    return (long)n;
}
