/**
 * @file dump.c
 * @brief Outputs written to files and read back (see dump.h).
 */
#define _POSIX_C_SOURCE 200809L /**< open() with O_NOFOLLOW, fstat() */
#include "dump.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "check.h"
#include "matrix.h"

static void path_of(char *path, size_t len, const char *dir, const char *name, int index)
{
    snprintf(path, len, "%s/%s.%d.bin", dir, name, index);
}

static void header_of(char *h, size_t len, const char *name, int index, size_t bytes)
{
    snprintf(h, len, "tutorial-dump 1 %s %d %zu\n", name, index, bytes);
}

int dump_write(const char *dir, const char *name, int index, const void *dev, size_t bytes)
{
    char path[4096], header[256];
    void *host = xmalloc(bytes > 0 ? bytes : 1);
    FILE *f;
    int ok;
    CUDA_CHECK(cudaMemcpy(host, dev, bytes, cudaMemcpyDeviceToHost));
    path_of(path, sizeof path, dir, name, index);
    header_of(header, sizeof header, name, index, bytes);
    f = fopen(path, "wb");
    ok = f != NULL && fputs(header, f) >= 0 && fwrite(host, 1, bytes, f) == bytes;
    if (f != NULL && fclose(f) != 0) ok = 0;
    if (!ok) fprintf(stderr, "--dump: cannot write %s: %s\n", path, strerror(errno));
    free(host);
    return ok;
}

/* Read exactly @p len bytes from @p fd. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        const ssize_t got = read(fd, p, len);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return 0;
        p += got;
        len -= (size_t)got;
    }
    return 1;
}

int dump_load(const char *dir, const char *name, int index, void *dev, size_t bytes, char *why, size_t whylen)
{
    char path[4096], want[256], got[256];
    const size_t hlen = (header_of(want, sizeof want, name, index, bytes), strlen(want));
    struct stat st;
    void *host;
    int fd, ok;
    path_of(path, sizeof path, dir, name, index);
    /* A link, a pipe or a device is refused before anything is read from it. */
    fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        snprintf(why, whylen, "no dump %s (%s)", path, strerror(errno));
        return 0;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != hlen + bytes) {
        snprintf(why, whylen, "%s is not a regular file of %zu bytes", path, hlen + bytes);
        close(fd);
        return 0;
    }
    host = xmalloc(bytes > 0 ? bytes : 1);
    ok = read_all(fd, got, hlen) && memcmp(got, want, hlen) == 0 && read_all(fd, host, bytes);
    close(fd);
    if (ok) CUDA_CHECK(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
    else snprintf(why, whylen, "%s: not the dump of '%s' output %d (%zu bytes)", path, name, index, bytes);
    free(host);
    return ok;
}
