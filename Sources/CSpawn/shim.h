#ifndef CSPAWN_SHIM_H
#define CSPAWN_SHIM_H
// glibc's GNU extensions for spawning children. Swift's Glibc module is built without _GNU_SOURCE,
// so it hides them; they are declared here exactly as glibc (2.34 or later) declares them.
#include <spawn.h>
#include <unistd.h>

// Changes the child's working directory (glibc 2.29).
extern int posix_spawn_file_actions_addchdir_np(posix_spawn_file_actions_t *__restrict actions,
                                                const char *__restrict path);
// Closes every descriptor from `from` upwards in the child (glibc 2.34).
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);
// A pipe whose ends are close-on-exec from the moment they exist.
extern int pipe2(int fds[2], int flags);
#endif
