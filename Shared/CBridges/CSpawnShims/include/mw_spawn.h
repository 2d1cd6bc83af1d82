/*
 * The glibc process-spawning calls that Swift's Glibc module hides behind
 * _GNU_SOURCE: closing every inherited descriptor in the child, changing its
 * directory, making pipes close-on-exec from creation, and naming a thread.
 */
#ifndef MW_SPAWN_H
#define MW_SPAWN_H

#include <spawn.h>
#include <stddef.h>

/* posix_spawn_file_actions_addclosefrom_np(actions, lowfd) (glibc 2.34+):
 * the child closes every descriptor >= lowfd. Returns 0 or an errno value
 * (ENOSYS where the C library lacks it). */
int mw_spawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int lowfd);

/* posix_spawn_file_actions_addchdir_np(actions, path) (glibc 2.29+). */
int mw_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/* pipe2(fds, O_CLOEXEC): 0, or -1 with errno set. */
int mw_pipe_cloexec(int fds[2]);

/* pthread_setname_np(pthread_self(), name): names the calling thread
 * (longer names are cut to 15 bytes). */
void mw_thread_set_name(const char *name);

/* pthread_getname_np(pthread_self(), ...): the calling thread's name into
 * name (at least 16 bytes); 0, or an errno value. */
int mw_thread_get_name(char *name, size_t length);

#endif
