#define _GNU_SOURCE
#include "CFileSync.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef __linux__
/* Written bytes are handed to the kernel's writeback a MiB at a time; the stream buffers 256 KiB
 * (stdio's own 4 KiB made photo24's 3.2 MB JPEG 390 write(2)s, each with an lseek). */
enum { RK_WRITEBACK_CHUNK = 1 << 20, RK_WRITEBACK_BUFFER = RK_WRITEBACK_BUFFER_BYTES };

typedef struct {
    int fd;
    int *write_error; /* the first write(2) error, for the caller (it outlives the stream) */
    off_t started; /* writeback asked for up to here */
    off_t at;      /* the descriptor's offset */
    char buffer[RK_WRITEBACK_BUFFER];
} rk_writeback;

static ssize_t rk_writeback_read(void *cookie, char *buffer, size_t size) {
    rk_writeback *w = cookie;
    ssize_t n;
    do n = read(w->fd, buffer, size);
    while (n < 0 && errno == EINTR);
    return n;
}

/* fopencookie's contract: the bytes written, 0 on error (errno set), never negative. */
static ssize_t rk_writeback_write(void *cookie, const char *buffer, size_t size) {
    rk_writeback *w = cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(w->fd, buffer + done, size - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (w->write_error && *w->write_error == 0) *w->write_error = errno;
            return (ssize_t)done;
        }
        done += (size_t)n;
    }
    w->at += (off_t)done;
    if (w->at >= w->started + RK_WRITEBACK_CHUNK) {
        /* Only a hint: a failure here shows again at the fsync, which the caller checks. */
        (void)sync_file_range(w->fd, w->started, w->at - w->started, SYNC_FILE_RANGE_WRITE);
        w->started = w->at;
    }
    return (ssize_t)done;
}

static int rk_writeback_seek(void *cookie, off64_t *offset, int whence) {
    rk_writeback *w = cookie;
    off_t at = lseek(w->fd, (off_t)*offset, whence);
    if (at < 0) return -1;
    *offset = at;
    w->at = at;
    /* A seek back (TIFF rewrites its header) starts the count again from where writing resumes. */
    if (at < w->started) w->started = at;
    return 0;
}

/* Frees the stream's buffer with the cookie: glibc's fclose flushes before it calls this and does
 * not touch a buffer of the caller's after it. */
static int rk_writeback_close(void *cookie) {
    rk_writeback *w = cookie;
    int result = close(w->fd);
    free(w);
    return result;
}

FILE *rk_writeback_stream(int fd, int *write_error) {
    rk_writeback *w = malloc(sizeof *w);
    if (!w) return NULL;
    w->fd = fd;
    w->write_error = write_error;
    w->started = 0;
    w->at = lseek(fd, 0, SEEK_CUR);
    if (w->at < 0) w->at = 0;
    cookie_io_functions_t io = {rk_writeback_read, rk_writeback_write, rk_writeback_seek, rk_writeback_close};
    FILE *stream = fopencookie(w, "w", io);
    if (!stream) {
        free(w);
        return NULL;
    }
    setvbuf(stream, w->buffer, _IOFBF, RK_WRITEBACK_BUFFER);
    return stream;
}
#else
FILE *rk_writeback_stream(int fd, int *write_error) {
    (void)fd;
    (void)write_error;
    return NULL;
}
#endif
