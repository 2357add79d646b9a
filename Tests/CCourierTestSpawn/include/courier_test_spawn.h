// CCourierTestSpawn: the one spawn action tests need that Swift's Glibc module does not export.
// A child started by a test must inherit none of the test process's descriptors above 2 — a build
// lock held by `swift test`, a pipe, a listening socket — so that a server left behind by a
// crashed test holds nothing of the run (one such s_server once held the build lock for minutes).
#ifndef C_COURIER_TEST_SPAWN_H
#define C_COURIER_TEST_SPAWN_H

#include <spawn.h>

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34+, a GNU extension): closes every
/// descriptor from `from` up in the child, after the actions added before it.
int courier_test_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);

#endif
