/*
 * See include/mw_spawn.h.
 */
#define _GNU_SOURCE
#include "mw_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

int mw_spawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int lowfd) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    return posix_spawn_file_actions_addclosefrom_np(actions, lowfd);
#else
    (void)actions;
    (void)lowfd;
    return ENOSYS;
#endif
}

int mw_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    return posix_spawn_file_actions_addchdir_np(actions, path);
#else
    (void)actions;
    (void)path;
    return ENOSYS;
#endif
}

int mw_pipe_cloexec(int fds[2]) {
#if defined(__linux__)
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0) return -1;
    for (int i = 0; i < 2; i++) {
        if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) != 0) {
            int saved = errno;
            close(fds[0]);
            close(fds[1]);
            errno = saved;
            return -1;
        }
    }
    return 0;
#endif
}

void mw_thread_set_name(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
#if defined(__linux__)
    pthread_setname_np(pthread_self(), cut);
#elif defined(__APPLE__)
    pthread_setname_np(cut);
#endif
}

int mw_thread_get_name(char *name, size_t length) {
    if (length == 0) return EINVAL;
    name[0] = 0;
#if defined(__linux__) || defined(__APPLE__)
    return pthread_getname_np(pthread_self(), name, length);
#else
    return ENOSYS;
#endif
}
