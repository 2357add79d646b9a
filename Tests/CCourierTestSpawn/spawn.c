// See include/courier_test_spawn.h.
#define _GNU_SOURCE
#include <spawn.h>
#include "courier_test_spawn.h"

int courier_test_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
