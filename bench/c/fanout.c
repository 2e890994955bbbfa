/* Baseline: the least a 1→N Unix-socket fan-out server can do. One thread, poll(). A connection
 * whose first line is "SUB" is a subscriber; any other line is a publication: it is written to
 * every subscriber (the same bytes, one write each) and answered with one reply line.
 * Usage: fanout SOCKET */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX 20000
static struct pollfd fds[MAX];
static int subscriber[MAX];
static int count = 1;
static const char reply[] = "{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}\n";

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: fanout SOCKET\n"); return 2; }
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
    unlink(argv[1]);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 4096) != 0) {
        perror("fanout: bind/listen");
        return 1;
    }
    fds[0].fd = listener;
    fds[0].events = POLLIN;
    static char buffer[1 << 20];
    for (;;) {
        if (poll(fds, count, -1) < 0) continue;
        if (fds[0].revents & POLLIN) {
            int fd = accept(listener, NULL, NULL);
            if (fd >= 0 && count < MAX) {
                fds[count].fd = fd;
                fds[count].events = POLLIN;
                fds[count].revents = 0; /* not seen by this poll: nothing to read yet */
                subscriber[count] = 0;
                count++;
            }
        }
        for (int i = 1; i < count; i++) {
            if (!(fds[i].revents & (POLLIN | POLLHUP))) continue;
            ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
            if (n <= 0) {
                close(fds[i].fd);
                fds[i] = fds[count - 1];
                subscriber[i] = subscriber[count - 1];
                count--;
                i--;
                continue;
            }
            if (n >= 3 && memcmp(buffer, "SUB", 3) == 0) {
                subscriber[i] = 1;
                if (write(fds[i].fd, reply, sizeof reply - 1) < 0) continue;
                continue;
            }
            /* Every line read is one publication, sent on as it came. */
            ssize_t start = 0;
            for (ssize_t j = 0; j < n; j++) {
                if (buffer[j] != '\n') continue;
                for (int s = 1; s < count; s++) {
                    if (subscriber[s] && write(fds[s].fd, buffer + start, j + 1 - start) < 0) {}
                }
                if (write(fds[i].fd, reply, sizeof reply - 1) < 0) {}
                start = j + 1;
            }
        }
    }
}
