#ifndef LISTD_CSYSTEMD_SHIM_H
#define LISTD_CSYSTEMD_SHIM_H

// listd sends CODE_FILE, CODE_LINE and CODE_FUNC itself: the macros that would add them are
// variadic, which Swift cannot call.
#define SD_JOURNAL_SUPPRESS_LOCATION 1

#include <sys/uio.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#endif
