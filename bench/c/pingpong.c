/* Baseline: the least a Unix-socket request/reply server can do. Each connection gets a thread;
 * every line read is answered at once with a fixed JSON-RPC reply line. No framework.
 * Usage: pingpong SOCKET */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char reply[] = "{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":{}}\n";

static void *serve(void *arg) {
    int fd = (int)(long)arg;
    char buffer[65536];
    ssize_t count;
    while ((count = read(fd, buffer, sizeof buffer)) > 0) {
        for (ssize_t i = 0; i < count; i++) {
            if (buffer[i] == '\n' && write(fd, reply, sizeof reply - 1) < 0) goto done;
        }
    }
done:
    close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: pingpong SOCKET\n"); return 2; }
    int listener = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    strncpy(address.sun_path, argv[1], sizeof address.sun_path - 1);
    unlink(argv[1]);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) != 0 || listen(listener, 1024) != 0) {
        perror("pingpong: bind/listen");
        return 1;
    }
    for (;;) {
        int fd = accept(listener, NULL, NULL);
        if (fd < 0) continue;
        pthread_t thread;
        pthread_create(&thread, NULL, serve, (void *)(long)fd);
        pthread_detach(thread);
    }
}
