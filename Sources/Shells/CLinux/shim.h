// Linux headers and calls that Swift's Glibc module leaves out: signalfd(2), for listd's
// signals; renameat2(2), for a replace of the list file that loses no editor's racing write;
// epoll(7), for the floor spike's loop without SwiftNIO (bench/floor).
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LISTD_RENAME_NOREPLACE 1
#define LISTD_RENAME_EXCHANGE 2

/// renameat2(2) (glibc declares it only with _GNU_SOURCE): -1 with errno set on failure.
static inline int listd_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}


/// accept4(2) (glibc declares it only with _GNU_SOURCE): -1 with errno set on failure.
static inline int listd_accept4(int sockfd, int flags) {
    return (int)syscall(SYS_accept4, sockfd, (void *)0, (void *)0, flags);
}
