// CCourierLinux: the C pieces Swift's Glibc module does not hand over cleanly — declarations
// hidden behind _GNU_SOURCE (accept4, mkostemp), the GNU/XSI strerror_r split, and macro or
// enum constants (IOV_MAX, EPOLL*, SOCK_NONBLOCK) re-exported as plain ints. Only CourierPosix
// imports this module, and only its syscall file calls these functions (design §7).
#ifndef C_COURIER_LINUX_H
#define C_COURIER_LINUX_H

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <netdb.h>
#include <limits.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>

/// accept4(2) (a GNU extension, hidden from Swift's Glibc module).
int courier_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);

/// mkostemp(3) (GNU): creates and opens a unique file from `template_` ("...XXXXXX"), mode 0600.
int courier_mkostemp(char *template_, int flags);

/// Names the calling thread (pthread_setname_np, GNU); `name` is cut to 15 bytes.
void courier_set_thread_name(const char *name);

/// Writes the message for `errnum` into `buf` (NUL-terminated), whichever strerror_r glibc gives.
void courier_strerror(int errnum, char *buf, size_t len);

/// The most iovecs one writev/sendmsg accepts (IOV_MAX; 1024 on Linux).
int courier_iov_max(void);

static inline int courier_sock_stream(void) { return SOCK_STREAM; }
static inline int courier_sock_nonblock(void) { return SOCK_NONBLOCK; }
static inline int courier_sock_cloexec(void) { return SOCK_CLOEXEC; }
static inline int courier_msg_nosignal(void) { return MSG_NOSIGNAL; }

static inline uint32_t courier_epollin(void) { return EPOLLIN; }
static inline uint32_t courier_epollout(void) { return EPOLLOUT; }
static inline uint32_t courier_epollerr(void) { return EPOLLERR; }
static inline uint32_t courier_epollhup(void) { return EPOLLHUP; }
static inline uint32_t courier_epollrdhup(void) { return EPOLLRDHUP; }

/// One epoll event, unpacked (struct epoll_event is packed on x86_64, which Swift imports poorly).
typedef struct {
    uint32_t events;
    uint64_t token;
} courier_epoll_event;

/// epoll_ctl(2) with the user data set to `token`.
int courier_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t token);

/// epoll_wait(2) into `out` (at most `max`, which must be at most 256).
int courier_epoll_wait(int epfd, courier_epoll_event *out, int max, int timeout_ms);

/// The number of columns of the terminal on `fd` (TIOCGWINSZ), or 0 when it is not a terminal.
int courier_terminal_columns(int fd);

/// stat(2) reduced to what callers need: the size and whether it is a directory.
int courier_stat(const char *path, int64_t *size, int *is_directory);

/// getrandom(2) from the kernel's CSPRNG (sys/random.h is not in Glibc's module map).
ssize_t courier_getrandom(void *buffer, size_t length, unsigned int flags);

/// getxattr(2), setxattr(2), removexattr(2) (declared in <sys/xattr.h>, which Glibc's module lacks).
ssize_t courier_getxattr(const char *path, const char *name, void *value, size_t size);
int courier_setxattr(const char *path, const char *name, const void *value, size_t size);
int courier_removexattr(const char *path, const char *name);

/// signal(SIGPIPE, SIG_IGN), for the command-line tool.
void courier_ignore_sigpipe(void);

/// pipe2(fds, O_CLOEXEC).
int courier_pipe_cloexec(int fds[2]);

/// pipe2(fds, O_CLOEXEC | O_NONBLOCK), then F_SETPIPE_SZ to `size` bytes on it (best effort: a
/// smaller pipe still works).
int courier_pipe_nonblocking(int fds[2], int size);

/// splice(2) (declared under _GNU_SOURCE): `flags` is a combination of the two below.
ssize_t courier_splice(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t len, unsigned int flags);
/// SPLICE_F_MOVE.
unsigned int courier_splice_move(void);
/// SPLICE_F_NONBLOCK.
unsigned int courier_splice_nonblock(void);

/// Installs the handler of SIGINT, SIGTERM, SIGHUP and SIGQUIT: the first of them writes its
/// number as one byte to `notify_fd` (write(2) is async-signal-safe) for a watcher thread to clean
/// up and end the process; a second one calls _exit(128 + its number).
int courier_install_termination_handlers(int notify_fd);

/// Ends the process by `signo` itself (default action restored, unblocked, raised), so the
/// parent sees "killed by signal" as for curl; SIGQUIT without a core file.
void courier_die_by_signal(int signo);

/// open(directory, O_TMPFILE | flags, mode): an unnamed file in `directory` (Linux 3.11).
int courier_open_unnamed(const char *directory, int flags, unsigned int mode);

/// Gives the unnamed file `fd` the name `path`: linkat of /proc/self/fd/N with
/// AT_SYMLINK_FOLLOW (AT_EMPTY_PATH when /proc is missing). Fails with EEXIST when `path` exists.
int courier_link_unnamed(int fd, const char *path);

/// socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE).
int courier_netlink_route_socket(void);

/// bind(2) of a netlink socket to the kernel-assigned port with `groups` (RTMGRP_* bits) joined.
int courier_netlink_bind(int fd, uint32_t groups);

/// recvmsg(2) of one netlink datagram into `buf`. On success returns the bytes copied and sets
/// `*sender` to the sender's port (0: the kernel) and `*truncated` to 1 when the datagram was
/// longer than `len` (MSG_TRUNC). Returns -1 with errno set on failure.
long courier_netlink_recv(int fd, void *buf, unsigned long len, uint32_t *sender, int *truncated);

#endif
