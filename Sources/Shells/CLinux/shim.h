// Linux headers and calls that Swift's Glibc module leaves out: signalfd(2), for listd's
// signals; renameat2(2), for a replace of the list file that loses no editor's racing write.
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#define LISTD_RENAME_NOREPLACE 1
#define LISTD_RENAME_EXCHANGE 2

/// renameat2(2) (glibc declares it only with _GNU_SOURCE): -1 with errno set on failure.
static inline int listd_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return (int)syscall(SYS_renameat2, olddirfd, oldpath, newdirfd, newpath, flags);
}

