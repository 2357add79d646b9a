// malloccount: an LD_PRELOAD library that counts the allocation calls of a whole process (malloc,
// calloc, realloc, posix_memalign, aligned_alloc, memalign) and writes the total to the file named
// by MALLOCCOUNT_OUT when the process ends, however it ends (exit, _exit, or return from main).
// Used by Benchmarks/cli-mallocs.sh to put `courier` and `curl` side by side; heaptrack loses the
// data of a process that ends with _exit, and valgrind 3.19 cannot read Swift's DWARF 5.
//
//   cc -O2 -shared -fPIC -o malloccount.so malloccount.c -ldl
//   MALLOCCOUNT_OUT=/tmp/n LD_PRELOAD=./malloccount.so courier URL...
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_ulong calls;
static atomic_int reported;

// dlsym itself may allocate: serve those few calls from a static arena.
static char arena[65536];
static size_t arenaUsed;
static int resolving;

static void *(*realMalloc)(size_t);
static void *(*realCalloc)(size_t, size_t);
static void *(*realRealloc)(void *, size_t);
static void (*realFree)(void *);
static int (*realPosixMemalign)(void **, size_t, size_t);
static void *(*realAlignedAlloc)(size_t, size_t);
static void *(*realMemalign)(size_t, size_t);

static void resolve(void) {
    if (realMalloc || resolving) return;
    resolving = 1;
    realMalloc = dlsym(RTLD_NEXT, "malloc");
    realCalloc = dlsym(RTLD_NEXT, "calloc");
    realRealloc = dlsym(RTLD_NEXT, "realloc");
    realFree = dlsym(RTLD_NEXT, "free");
    realPosixMemalign = dlsym(RTLD_NEXT, "posix_memalign");
    realAlignedAlloc = dlsym(RTLD_NEXT, "aligned_alloc");
    realMemalign = dlsym(RTLD_NEXT, "memalign");
    resolving = 0;
}

static void *fromArena(size_t size) {
    size = (size + 15) & ~(size_t)15;
    if (arenaUsed + size > sizeof arena) return NULL;
    void *p = arena + arenaUsed;
    arenaUsed += size;
    return p;
}

static int inArena(void *p) { return (char *)p >= arena && (char *)p < arena + sizeof arena; }

void *malloc(size_t size) {
    resolve();
    if (!realMalloc) return fromArena(size);
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return realMalloc(size);
}

void *calloc(size_t n, size_t size) {
    resolve();
    if (!realCalloc) { void *p = fromArena(n * size); if (p) memset(p, 0, n * size); return p; }
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return realCalloc(n, size);
}

void *realloc(void *p, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    if (inArena(p)) { void *q = realMalloc(size); if (q) memcpy(q, p, size); return q; }
    return realRealloc(p, size);
}

void free(void *p) {
    if (inArena(p)) return;
    resolve();
    if (realFree) realFree(p);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return realPosixMemalign(out, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return realAlignedAlloc(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    resolve();
    atomic_fetch_add_explicit(&calls, 1, memory_order_relaxed);
    return realMemalign(alignment, size);
}

static void report(void) {
    if (atomic_exchange(&reported, 1)) return;
    const char *path = getenv("MALLOCCOUNT_OUT");
    if (!path) return;
    char text[32];
    int n = snprintf(text, sizeof text, "%lu\n", atomic_load(&calls));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { (void)!write(fd, text, n); close(fd); }
}

__attribute__((destructor)) static void atEnd(void) { report(); }

void _exit(int status) {
    report();
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}
