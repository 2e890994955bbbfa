/* Baseline: a one-shot client process: connect, send one request line, print the reply line.
 * Usage: oneshot SOCKET LINE */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: oneshot SOCKET LINE\n"); return 2; }
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) { perror("oneshot: connect"); return 3; }
    size_t length = strlen(argv[2]);
    if (write(fd, argv[2], length) != (ssize_t)length || write(fd, "\n", 1) != 1) return 4;
    char buffer[65536];
    size_t used = 0;
    ssize_t n;
    while (used < sizeof buffer && (n = read(fd, buffer + used, sizeof buffer - used)) > 0) {
        used += n;
        if (memchr(buffer, '\n', used)) break;
    }
    fwrite(buffer, 1, used, stdout);
    return strstr(buffer, "\"result\"") ? 0 : 1;
}
