// Linux headers that Swift's Glibc module leaves out: signalfd(2), for listd's signals.
#include <sys/signalfd.h>
