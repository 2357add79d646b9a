// Counts the allocation calls of the `courier` process, so `courier bench` can print mallocs per
// request and per MB beside each workload (issue: transport at wire speed, "measure the hops").
//
// An executable's own definitions of malloc & co. take precedence over libc's for every library
// in the process (ELF symbol interposition), so defining them here sees the Swift runtime's,
// OpenSSL's and zlib's allocations too; each forwards to libc's through dlsym(RTLD_NEXT). Only
// the `courier` executable links this target — a library must never replace the allocator of the
// program it is linked into (scripts/check-sources enforces that). The cost is one relaxed atomic
// increment per allocation.
//
// dlsym may allocate while the real functions are being looked up: those few calls are served
// from a small static arena, and free ignores pointers into it.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>
#include "allocation_counter.h"

static atomic_ulong allocationCalls;

// Benchmarks/tools/malloccount.c preloads this file into other programs and needs a larger arena.
#ifndef COURIER_ALLOCATION_ARENA
#define COURIER_ALLOCATION_ARENA 16384
#endif
static char arena[COURIER_ALLOCATION_ARENA];
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

static int inArena(const void *p) { return (const char *)p >= arena && (const char *)p < arena + sizeof arena; }

static inline void count(void) { atomic_fetch_add_explicit(&allocationCalls, 1, memory_order_relaxed); }

unsigned long courier_allocation_count(void) { return atomic_load_explicit(&allocationCalls, memory_order_relaxed); }

void *malloc(size_t size) {
    resolve();
    if (!realMalloc) return fromArena(size);
    count();
    return realMalloc(size);
}

void *calloc(size_t n, size_t size) {
    resolve();
    if (!realCalloc) {
        void *p = fromArena(n * size);
        if (p) memset(p, 0, n * size);
        return p;
    }
    count();
    return realCalloc(n, size);
}

void *realloc(void *p, size_t size) {
    resolve();
    count();
    if (inArena(p)) {
        void *q = realMalloc(size);
        size_t available = (size_t)(arena + sizeof arena - (char *)p);
        if (q) memcpy(q, p, size < available ? size : available);
        return q;
    }
    return realRealloc(p, size);
}

void free(void *p) {
    if (p == NULL || inArena(p)) return;
    resolve();
    realFree(p);
}

int posix_memalign(void **out, size_t alignment, size_t size) {
    resolve();
    count();
    return realPosixMemalign(out, alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    resolve();
    count();
    return realAlignedAlloc(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    resolve();
    count();
    return realMemalign(alignment, size);
}
