// The allocation counter of the `courier` executable (and of nothing else: only CourierCLI links
// this target). See allocation_counter.c.
#ifndef COURIER_ALLOCATION_COUNTER_H
#define COURIER_ALLOCATION_COUNTER_H

/// The number of allocation calls (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// memalign) the process has made so far.
unsigned long courier_allocation_count(void);

#endif
