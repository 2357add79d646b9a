// malloccount: an LD_PRELOAD library that counts the allocation calls of a whole process (malloc,
// calloc, realloc, posix_memalign, aligned_alloc, memalign) and writes the total to the file named
// by MALLOCCOUNT_OUT when the process ends, however it ends (exit, _exit, or return from main).
// Used by Benchmarks/cli-mallocs.sh to put `courier` and `curl` side by side; heaptrack loses the
// data of a process that ends with _exit, and valgrind 3.19 cannot read Swift's DWARF 5.
//
// The counting is the `courier` executable's own allocation counter, compiled in here, so both
// programs are counted by the same code; this file only adds the report at exit.
//
//   cc -O2 -shared -fPIC -I../../Sources/CCourierAllocationCounter/include -o malloccount.so malloccount.c -ldl
//   MALLOCCOUNT_OUT=/tmp/n LD_PRELOAD=./malloccount.so courier URL...

// dlsym allocates more from the arena in a program with many libraries, such as curl.
#define COURIER_ALLOCATION_ARENA 65536
#include "../../Sources/CCourierAllocationCounter/allocation_counter.c"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int reported;

static void report(void) {
    if (atomic_exchange(&reported, 1)) return;
    const char *path = getenv("MALLOCCOUNT_OUT");
    if (!path) return;
    char text[32];
    int n = snprintf(text, sizeof text, "%lu\n", courier_allocation_count());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) { (void)!write(fd, text, n); close(fd); }
}

__attribute__((destructor)) static void atEnd(void) { report(); }

void _exit(int status) {
    report();
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}
