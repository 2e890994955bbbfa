// powercutfs: a FUSE file system that keeps in memory every change not yet made durable, and can
// "cut the power": from that moment every request fails, and what was durable — a file's data as
// of its last fsync/fdatasync, a directory's entries as of its last fsync — is written to the
// image directory. Mounting that image again shows exactly what a disk would after a power cut.
// PowerLossTests runs listd on it. Everything lives in memory, served by one thread: no locks.
//
//   powercutfs IMAGE MOUNTPOINT [--cut-at-op N] [--cut-before-rename NAME] [--cut-after-rename NAME]
//              [--rename-count K]
//
// IMAGE is read at mount (all of it durable) and rewritten when the power is cut, or with the
// current state on a clean unmount (SIGTERM, umount). SIGUSR1 cuts the power now; SIGUSR2 fills
// the disk (writes, creates and syncs fail with ENOSPC) or, sent again, frees it. --cut-at-op N
// cuts just before the N-th changing request (write, truncate, create, mkdir, unlink, rmdir,
// rename, fsync, fsyncdir); the rename options cut just before or just after the K-th (first)
// rename onto NAME (an exchange of two names, RENAME_EXCHANGE, counts as one onto its target). stdout says "mounted", then "cut: REASON" once the image holds the durable state.
#define FUSE_USE_VERSION 35
#define _GNU_SOURCE
#include <fuse_lowlevel.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct entry {
    char *name;
    fuse_ino_t ino;
};

struct entries {
    struct entry *items;
    size_t count;
};

struct node {
    fuse_ino_t ino;
    fuse_ino_t parent;
    mode_t mode;
    uid_t uid;
    gid_t gid;
    nlink_t links;
    struct timespec atime, mtime, ctime;
    // A file: its bytes now, and as of its last fsync.
    char *data;
    size_t size;
    char *durable_data;
    size_t durable_size;
    // Lowest offset changed since the last fsync (SIZE_MAX: none): an fsync copies from there.
    size_t dirty_from;
    // A directory: its entries now, and as of its last fsync.
    struct entries children;
    struct entries durable_children;
};

static struct node **nodes;  // indexed by inode number; 1 is the root
static size_t node_count;
static const char *image;
static struct fuse_session *session;

static long cut_at_op = -1;
static const char *cut_before_rename;
static const char *cut_after_rename;
static long rename_count = 1;
static long renames_seen;
static long operations;
static int power_cut;
static volatile sig_atomic_t cut_requested;
static volatile sig_atomic_t disk_full;

static void die(const char *what) {
    perror(what);
    exit(1);
}

static void *checked_realloc(void *pointer, size_t size) {
    void *result = realloc(pointer, size ? size : 1);
    if (!result) die("realloc");
    return result;
}

static struct timespec now(void) {
    struct timespec time;
    clock_gettime(CLOCK_REALTIME, &time);
    return time;
}

static struct node *new_node(mode_t mode, fuse_ino_t parent) {
    struct node *node = calloc(1, sizeof *node);
    if (!node) die("calloc");
    nodes = checked_realloc(nodes, (node_count + 2) * sizeof *nodes);
    if (node_count == 0) nodes[node_count++] = NULL;  // inode 0 is no inode
    node->ino = node_count;
    nodes[node_count++] = node;
    node->parent = parent;
    node->mode = mode;
    node->uid = getuid();
    node->gid = getgid();
    node->links = S_ISDIR(mode) ? 2 : 1;
    node->atime = node->mtime = node->ctime = now();
    node->dirty_from = SIZE_MAX;
    return node;
}

static struct node *node_of(fuse_ino_t ino) {
    return ino < node_count ? nodes[ino] : NULL;
}

static struct entry *find(struct entries *entries, const char *name) {
    for (size_t index = 0; index < entries->count; index++) {
        if (strcmp(entries->items[index].name, name) == 0) return &entries->items[index];
    }
    return NULL;
}

static void add_entry(struct entries *entries, const char *name, fuse_ino_t ino) {
    entries->items = checked_realloc(entries->items, (entries->count + 1) * sizeof *entries->items);
    entries->items[entries->count].name = strdup(name);
    entries->items[entries->count].ino = ino;
    entries->count++;
}

static void remove_entry(struct entries *entries, const char *name) {
    struct entry *entry = find(entries, name);
    if (!entry) return;
    free(entry->name);
    *entry = entries->items[--entries->count];
}

static void copy_entries(struct entries *to, const struct entries *from) {
    for (size_t index = 0; index < to->count; index++) free(to->items[index].name);
    to->items = checked_realloc(to->items, from->count * sizeof *to->items);
    to->count = from->count;
    for (size_t index = 0; index < from->count; index++) {
        to->items[index].name = strdup(from->items[index].name);
        to->items[index].ino = from->items[index].ino;
    }
}

// ---- The image: a plain directory tree, read at mount and written when the power goes. ----

static int remove_one(const char *path, const struct stat *info, int flag, struct FTW *walk) {
    (void)info;
    (void)flag;
    if (walk->level > 0 && remove(path) != 0) die(path);
    return 0;
}

// Writes the tree under `dir`, each file's durable bytes and each directory's durable entries
// (or, for a clean unmount, what is there now).
static void write_tree(struct node *dir, const char *path, int durable_only) {
    struct entries *entries = durable_only ? &dir->durable_children : &dir->children;
    for (size_t index = 0; index < entries->count; index++) {
        struct node *node = node_of(entries->items[index].ino);
        char *child;
        if (!node || asprintf(&child, "%s/%s", path, entries->items[index].name) < 0) continue;
        if (S_ISDIR(node->mode)) {
            if (mkdir(child, node->mode & 07777) != 0) die(child);
            write_tree(node, child, durable_only);
        } else {
            int fd = open(child, O_WRONLY | O_CREAT | O_TRUNC, node->mode & 07777);
            if (fd < 0) die(child);
            const char *bytes = durable_only ? node->durable_data : node->data;
            size_t size = durable_only ? node->durable_size : node->size;
            for (size_t written = 0; written < size;) {
                ssize_t count = write(fd, bytes + written, size - written);
                if (count < 0) die(child);
                written += (size_t)count;
            }
            fchmod(fd, node->mode & 07777);
            close(fd);
        }
        free(child);
    }
}

static void write_image(int durable_only) {
    if (nftw(image, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0) die("clear the image");
    write_tree(nodes[FUSE_ROOT_ID], image, durable_only);
    sync();
}

static void read_tree(struct node *dir, const char *path) {
    DIR *stream = opendir(path);
    if (!stream) die(path);
    struct dirent *item;
    while ((item = readdir(stream))) {
        if (strcmp(item->d_name, ".") == 0 || strcmp(item->d_name, "..") == 0) continue;
        char *child;
        if (asprintf(&child, "%s/%s", path, item->d_name) < 0) die("asprintf");
        struct stat info;
        if (lstat(child, &info) != 0) die(child);
        if (S_ISDIR(info.st_mode) || S_ISREG(info.st_mode)) {
            struct node *node = new_node(info.st_mode, dir->ino);
            add_entry(&dir->children, item->d_name, node->ino);
            add_entry(&dir->durable_children, item->d_name, node->ino);
            if (S_ISDIR(info.st_mode)) {
                dir->links++;
                read_tree(node, child);
            } else {
                node->size = node->durable_size = (size_t)info.st_size;
                node->data = checked_realloc(NULL, node->size);
                node->durable_data = checked_realloc(NULL, node->size);
                int fd = open(child, O_RDONLY);
                if (fd < 0 || read(fd, node->data, node->size) != (ssize_t)node->size) die(child);
                memcpy(node->durable_data, node->data, node->size);
                close(fd);
            }
        }
        free(child);
    }
    closedir(stream);
}

// ---- The power cut. ----

static void cut_power(const char *reason) {
    if (power_cut) return;
    power_cut = 1;
    write_image(1);
    printf("cut: %s (at operation %ld)\n", reason, operations);
    fflush(stdout);
}

// Called first by every request: after a cut the machine is off, and nothing answers.
static int powered(void) {
    if (cut_requested) cut_power("SIGUSR1");
    return !power_cut;
}

// Called first by every request that changes something; false once the power is cut, or (for
// one that takes space) while the disk is full: the caller answers `refusal()`.
static int changing_space(int takes_space) {
    if (!powered() || (takes_space && disk_full)) return 0;
    operations++;
    if (cut_at_op > 0 && operations >= cut_at_op) {
        char reason[64];
        snprintf(reason, sizeof reason, "operation %ld", cut_at_op);
        cut_power(reason);
        return 0;
    }
    return 1;
}

static int changing(void) {
    return changing_space(1);
}

// The error a refused request gets: the machine is off, or the disk is full.
static int refusal(void) {
    return power_cut ? EIO : ENOSPC;
}

// ---- Requests. ----

static const double cache_seconds = 1.0;

static void fill_stat(const struct node *node, struct stat *info) {
    memset(info, 0, sizeof *info);
    info->st_ino = node->ino;
    info->st_mode = node->mode;
    info->st_nlink = node->links;
    info->st_uid = node->uid;
    info->st_gid = node->gid;
    info->st_size = (off_t)node->size;
    info->st_blksize = 4096;
    info->st_blocks = (blkcnt_t)((node->size + 511) / 512);
    info->st_atim = node->atime;
    info->st_mtim = node->mtime;
    info->st_ctim = node->ctime;
}

static void reply_entry(fuse_req_t req, const struct node *node) {
    struct fuse_entry_param entry = {0};
    entry.ino = node->ino;
    entry.attr_timeout = cache_seconds;
    entry.entry_timeout = cache_seconds;
    fill_stat(node, &entry.attr);
    fuse_reply_entry(req, &entry);
}

static void on_init(void *userdata, struct fuse_conn_info *conn) {
    (void)userdata;
    // Every write reaches this process at once: the kernel must not hold dirty pages of its own.
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
}

static void on_destroy(void *userdata) {
    (void)userdata;
    if (!power_cut) write_image(0);  // a clean unmount: everything is on disk
}

static void on_lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
    if (!powered()) return (void)fuse_reply_err(req, EIO);
    struct node *dir = node_of(parent);
    struct entry *entry = dir ? find(&dir->children, name) : NULL;
    if (!entry) return (void)fuse_reply_err(req, ENOENT);
    reply_entry(req, nodes[entry->ino]);
}

static void on_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void)fi;
    if (!powered()) return (void)fuse_reply_err(req, EIO);
    struct node *node = node_of(ino);
    if (!node) return (void)fuse_reply_err(req, ENOENT);
    struct stat info;
    fill_stat(node, &info);
    fuse_reply_attr(req, &info, cache_seconds);
}

static void mark_dirty(struct node *node, size_t from) {
    if (from < node->dirty_from) node->dirty_from = from;
}

static void resize(struct node *node, size_t size) {
    if (size > node->size) {
        node->data = checked_realloc(node->data, size);
        memset(node->data + node->size, 0, size - node->size);
    }
    mark_dirty(node, size < node->size ? size : node->size);
    node->size = size;
    node->mtime = node->ctime = now();
}

static void on_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi) {
    (void)fi;
    if (!((to_set & FUSE_SET_ATTR_SIZE) ? changing() : powered())) return (void)fuse_reply_err(req, refusal());
    struct node *node = node_of(ino);
    if (!node) return (void)fuse_reply_err(req, ENOENT);
    if (to_set & FUSE_SET_ATTR_SIZE) {
        if (S_ISDIR(node->mode)) return (void)fuse_reply_err(req, EISDIR);
        resize(node, (size_t)attr->st_size);
    }
    if (to_set & FUSE_SET_ATTR_MODE) node->mode = (node->mode & S_IFMT) | (attr->st_mode & 07777);
    if (to_set & FUSE_SET_ATTR_UID) node->uid = attr->st_uid;
    if (to_set & FUSE_SET_ATTR_GID) node->gid = attr->st_gid;
    if (to_set & FUSE_SET_ATTR_ATIME) node->atime = attr->st_atim;
    if (to_set & FUSE_SET_ATTR_MTIME) node->mtime = attr->st_mtim;
    if (to_set & FUSE_SET_ATTR_ATIME_NOW) node->atime = now();
    if (to_set & FUSE_SET_ATTR_MTIME_NOW) node->mtime = now();
    node->ctime = now();
    on_getattr(req, ino, NULL);
}

static struct node *make(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
    struct node *dir = node_of(parent);
    if (!dir || !S_ISDIR(dir->mode)) return fuse_reply_err(req, ENOENT), NULL;
    if (find(&dir->children, name)) return fuse_reply_err(req, EEXIST), NULL;
    const struct fuse_ctx *context = fuse_req_ctx(req);
    struct node *node = new_node(mode, parent);
    node->uid = context->uid;
    node->gid = context->gid;
    add_entry(&dir->children, name, node->ino);
    if (S_ISDIR(mode)) dir->links++;
    dir->mtime = dir->ctime = now();
    return node;
}

static void on_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev) {
    (void)rdev;
    if (!changing()) return (void)fuse_reply_err(req, refusal());
    if (!S_ISREG(mode)) return (void)fuse_reply_err(req, EPERM);  // listd makes files and directories only
    struct node *node = make(req, parent, name, mode);
    if (node) reply_entry(req, node);
}

static void on_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
    if (!changing()) return (void)fuse_reply_err(req, refusal());
    struct node *node = make(req, parent, name, S_IFDIR | (mode & 07777));
    if (node) reply_entry(req, node);
}

static void on_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi) {
    if (!changing()) return (void)fuse_reply_err(req, refusal());
    struct node *dir = node_of(parent);
    struct entry *existing = dir ? find(&dir->children, name) : NULL;
    struct node *node;
    if (existing) {
        if (fi->flags & O_EXCL) return (void)fuse_reply_err(req, EEXIST);
        node = nodes[existing->ino];
        if (fi->flags & O_TRUNC) resize(node, 0);
    } else if (!(node = make(req, parent, name, S_IFREG | (mode & 07777)))) {
        return;
    }
    fi->fh = (uint64_t)fi->flags;
    struct fuse_entry_param entry = {0};
    entry.ino = node->ino;
    entry.attr_timeout = cache_seconds;
    entry.entry_timeout = cache_seconds;
    fill_stat(node, &entry.attr);
    fuse_reply_create(req, &entry, fi);
}

static void on_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    if (!((fi->flags & O_TRUNC) ? changing() : powered())) return (void)fuse_reply_err(req, refusal());
    struct node *node = node_of(ino);
    if (!node) return (void)fuse_reply_err(req, ENOENT);
    if (fi->flags & O_TRUNC) resize(node, 0);
    fi->fh = (uint64_t)fi->flags;
    fuse_reply_open(req, fi);
}

static void on_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
    (void)fi;
    if (!powered()) return (void)fuse_reply_err(req, EIO);
    struct node *node = node_of(ino);
    if (!node) return (void)fuse_reply_err(req, ENOENT);
    if ((size_t)off >= node->size) return (void)fuse_reply_buf(req, NULL, 0);
    size_t count = node->size - (size_t)off < size ? node->size - (size_t)off : size;
    fuse_reply_buf(req, node->data + off, count);
}

static void on_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi) {
    if (!changing()) return (void)fuse_reply_err(req, refusal());
    struct node *node = node_of(ino);
    if (!node) return (void)fuse_reply_err(req, ENOENT);
    size_t at = (fi->fh & O_APPEND) ? node->size : (size_t)off;
    if (at + size > node->size) resize(node, at + size);
    memcpy(node->data + at, buf, size);
    mark_dirty(node, at);
    node->mtime = node->ctime = now();
    fuse_reply_write(req, size);
}

static void on_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi) {
    (void)datasync;
    (void)fi;
    if (!changing()) return (void)fuse_reply_err(req, refusal());
    struct node *node = node_of(ino);
    if (!node) return (void)fuse_reply_err(req, ENOENT);
    if (node->dirty_from != SIZE_MAX || node->durable_size != node->size) {
        size_t from = node->dirty_from < node->size ? node->dirty_from : node->size;
        if (from > node->durable_size) from = node->durable_size;
        node->durable_data = checked_realloc(node->durable_data, node->size);
        memcpy(node->durable_data + from, node->data + from, node->size - from);
        node->durable_size = node->size;
        node->dirty_from = SIZE_MAX;
    }
    fuse_reply_err(req, 0);
}

static void on_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi) {
    (void)datasync;
    (void)fi;
    if (!changing()) return (void)fuse_reply_err(req, refusal());
    struct node *node = node_of(ino);
    if (!node) return (void)fuse_reply_err(req, ENOENT);
    copy_entries(&node->durable_children, &node->children);
    fuse_reply_err(req, 0);
}

static void on_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void)ino;
    (void)fi;
    fuse_reply_err(req, 0);  // a close is not a sync
}

static void on_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void)ino;
    (void)fi;
    fuse_reply_err(req, 0);
}

static void unlink_node(struct node *dir, const char *name) {
    struct entry *entry = find(&dir->children, name);
    struct node *node = nodes[entry->ino];
    if (S_ISDIR(node->mode)) dir->links--;
    node->links = S_ISDIR(node->mode) ? 0 : node->links - 1;
    node->ctime = dir->mtime = dir->ctime = now();
    remove_entry(&dir->children, name);
}

static void on_unlink(fuse_req_t req, fuse_ino_t parent, const char *name) {
    if (!changing_space(0)) return (void)fuse_reply_err(req, refusal());
    struct node *dir = node_of(parent);
    struct entry *entry = dir ? find(&dir->children, name) : NULL;
    if (!entry) return (void)fuse_reply_err(req, ENOENT);
    if (S_ISDIR(nodes[entry->ino]->mode)) return (void)fuse_reply_err(req, EISDIR);
    unlink_node(dir, name);
    fuse_reply_err(req, 0);
}

static void on_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name) {
    if (!changing_space(0)) return (void)fuse_reply_err(req, refusal());
    struct node *dir = node_of(parent);
    struct entry *entry = dir ? find(&dir->children, name) : NULL;
    if (!entry) return (void)fuse_reply_err(req, ENOENT);
    struct node *node = nodes[entry->ino];
    if (!S_ISDIR(node->mode)) return (void)fuse_reply_err(req, ENOTDIR);
    if (node->children.count) return (void)fuse_reply_err(req, ENOTEMPTY);
    unlink_node(dir, name);
    fuse_reply_err(req, 0);
}

static void on_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
                      const char *newname, unsigned int flags) {
    if (!changing()) return (void)fuse_reply_err(req, refusal());
    const char *aimed_at = cut_before_rename ? cut_before_rename : cut_after_rename;
    int at_aim = aimed_at && strcmp(newname, aimed_at) == 0 && ++renames_seen == rename_count;
    if (at_aim && cut_before_rename) {
        char reason[PATH_MAX + 32];
        snprintf(reason, sizeof reason, "before rename %ld onto %s", rename_count, newname);
        cut_power(reason);
        return (void)fuse_reply_err(req, EIO);
    }
    struct node *from = node_of(parent), *to = node_of(newparent);
    struct entry *entry = from ? find(&from->children, name) : NULL;
    if (!entry || !to) return (void)fuse_reply_err(req, ENOENT);
    fuse_ino_t moved = entry->ino;
    struct entry *target = find(&to->children, newname);
    if (flags & RENAME_EXCHANGE) {
        // The two names trade inodes (listd's compare-and-swap of the list file): files only.
        if (!target) return (void)fuse_reply_err(req, ENOENT);
        if (S_ISDIR(nodes[moved]->mode) || S_ISDIR(nodes[target->ino]->mode)) return (void)fuse_reply_err(req, EINVAL);
        entry->ino = target->ino;
        target->ino = moved;
        from->mtime = from->ctime = to->mtime = to->ctime = now();
        if (at_aim && cut_after_rename) {
            char reason[PATH_MAX + 32];
            snprintf(reason, sizeof reason, "after rename %ld onto %s", rename_count, newname);
            cut_power(reason);
        }
        return (void)fuse_reply_err(req, 0);
    }
    if (target) {
        if (target->ino == moved) return (void)fuse_reply_err(req, 0);
        if (flags & RENAME_NOREPLACE) return (void)fuse_reply_err(req, EEXIST);
        struct node *replaced = nodes[target->ino];
        if (S_ISDIR(replaced->mode) != S_ISDIR(nodes[moved]->mode))
            return (void)fuse_reply_err(req, S_ISDIR(replaced->mode) ? EISDIR : ENOTDIR);
        if (S_ISDIR(replaced->mode) && replaced->children.count) return (void)fuse_reply_err(req, ENOTEMPTY);
        unlink_node(to, newname);
    }
    remove_entry(&from->children, name);
    add_entry(&to->children, newname, moved);
    if (S_ISDIR(nodes[moved]->mode) && from != to) {
        from->links--;
        to->links++;
        nodes[moved]->parent = newparent;
    }
    from->mtime = from->ctime = to->mtime = to->ctime = now();
    if (at_aim && cut_after_rename) {
        char reason[PATH_MAX + 32];
        snprintf(reason, sizeof reason, "after rename %ld onto %s", rename_count, newname);
        cut_power(reason);
    }
    fuse_reply_err(req, 0);
}

static void on_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
    (void)fi;
    if (!powered()) return (void)fuse_reply_err(req, EIO);
    struct node *dir = node_of(ino);
    if (!dir || !S_ISDIR(dir->mode)) return (void)fuse_reply_err(req, ENOTDIR);
    // The whole listing, then the part from `off` on (offsets are positions in it).
    char *listing = NULL;
    size_t length = 0;
    for (size_t index = 0; index < dir->children.count + 2; index++) {
        const char *name = index == 0 ? "." : index == 1 ? ".." : dir->children.items[index - 2].name;
        struct stat info = {0};
        info.st_ino = index == 0 ? dir->ino : index == 1 ? dir->parent : dir->children.items[index - 2].ino;
        info.st_mode = index < 2 ? S_IFDIR : nodes[info.st_ino]->mode;
        size_t needed = fuse_add_direntry(req, NULL, 0, name, NULL, 0);
        listing = checked_realloc(listing, length + needed);
        fuse_add_direntry(req, listing + length, needed, name, &info, (off_t)(length + needed));
        length += needed;
    }
    if ((size_t)off >= length) {
        fuse_reply_buf(req, NULL, 0);
    } else {
        fuse_reply_buf(req, listing + off, length - (size_t)off < size ? length - (size_t)off : size);
    }
    free(listing);
}

static void on_statfs(fuse_req_t req, fuse_ino_t ino) {
    (void)ino;
    struct statvfs info = {0};
    info.f_bsize = info.f_frsize = 4096;
    info.f_blocks = info.f_bfree = info.f_bavail = 1 << 20;
    info.f_files = info.f_ffree = 1 << 20;
    info.f_namemax = 255;
    fuse_reply_statfs(req, &info);
}

static void on_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname) {
    (void)ino;
    (void)newparent;
    (void)newname;
    fuse_reply_err(req, EPERM);  // hard links are not modelled
}

static void on_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name) {
    (void)link;
    (void)parent;
    (void)name;
    fuse_reply_err(req, EPERM);
}

static const struct fuse_lowlevel_ops operations_table = {
    .init = on_init,
    .destroy = on_destroy,
    .lookup = on_lookup,
    .getattr = on_getattr,
    .setattr = on_setattr,
    .mknod = on_mknod,
    .mkdir = on_mkdir,
    .unlink = on_unlink,
    .rmdir = on_rmdir,
    .symlink = on_symlink,
    .rename = on_rename,
    .link = on_link,
    .open = on_open,
    .read = on_read,
    .write = on_write,
    .flush = on_flush,
    .release = on_release,
    .fsync = on_fsync,
    .readdir = on_readdir,
    .fsyncdir = on_fsyncdir,
    .statfs = on_statfs,
    .create = on_create,
};

// ---- Start-up and the request loop. ----

static void on_cut_signal(int signal) {
    (void)signal;
    cut_requested = 1;
}

static void on_full_signal(int signal) {
    (void)signal;
    disk_full = !disk_full;
}

static void on_stop_signal(int signal) {
    (void)signal;
    fuse_session_exit(session);
}

static void handle(int signal, void (*handler)(int)) {
    struct sigaction action = {0};
    action.sa_handler = handler;  // no SA_RESTART: a signal wakes the loop from its read
    sigemptyset(&action.sa_mask);
    if (sigaction(signal, &action, NULL) != 0) die("sigaction");
}

int main(int argc, char *argv[]) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s IMAGE MOUNTPOINT [--cut-at-op N] [--cut-before-rename NAME] "
                        "[--cut-after-rename NAME] [--rename-count K]\n", argv[0]);
        return 2;
    }
    image = argv[1];
    const char *mountpoint = argv[2];
    for (int index = 3; index + 1 < argc; index += 2) {
        if (strcmp(argv[index], "--cut-at-op") == 0) cut_at_op = atol(argv[index + 1]);
        else if (strcmp(argv[index], "--cut-before-rename") == 0) cut_before_rename = argv[index + 1];
        else if (strcmp(argv[index], "--cut-after-rename") == 0) cut_after_rename = argv[index + 1];
        else if (strcmp(argv[index], "--rename-count") == 0) rename_count = atol(argv[index + 1]);
        else return fprintf(stderr, "unknown option %s\n", argv[index]), 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);

    struct node *root = new_node(S_IFDIR | 0755, FUSE_ROOT_ID);
    if (root->ino != FUSE_ROOT_ID) return fprintf(stderr, "the root is not inode 1\n"), 1;
    read_tree(root, image);

    char *fuse_argv[] = {argv[0], "-o", "fsname=powercutfs,subtype=powercutfs", NULL};
    struct fuse_args args = FUSE_ARGS_INIT(3, fuse_argv);
    session = fuse_session_new(&args, &operations_table, sizeof operations_table, NULL);
    if (!session) return 1;
    sigset_t none;  // a test runner may have started this with signals blocked
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    handle(SIGUSR1, on_cut_signal);
    handle(SIGUSR2, on_full_signal);
    handle(SIGTERM, on_stop_signal);
    handle(SIGINT, on_stop_signal);
    handle(SIGHUP, on_stop_signal);
    if (fuse_session_mount(session, mountpoint) != 0) return 1;
    printf("mounted\n");

    struct fuse_buf buffer = {0};
    while (!fuse_session_exited(session)) {
        int received = fuse_session_receive_buf(session, &buffer);
        if (cut_requested) cut_power("SIGUSR1");
        if (received == -EINTR || received == -EAGAIN) continue;
        if (received <= 0) break;
        fuse_session_process_buf(session, &buffer);
    }
    free(buffer.mem);
    fuse_session_unmount(session);
    fuse_session_destroy(session);
    return 0;
}
