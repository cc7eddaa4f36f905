/* SPDX-License-Identifier: MIT */
/* What many programs do before they exit (coreutils' close_stdout, xz,
 * sort): close fd 2. Makes a copy through the shim first (a volatile
 * function pointer: the compiler cannot inline it), then closes fd 2; with
 * FILE, opens FILE, which takes fd 2, and writes "data\n" into it. Then
 * exits normally, and the shim writes its profile after that. stderr.sh
 * runs it with a profile that cannot be written.
 * usage: closes_stderr [FILE] */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    static char src[4096], dst[4096];
    void *(*volatile copy)(void *, const void *, size_t) = memcpy;
    src[100] = 1;
    copy(dst, src, sizeof src);
    if (dst[100] != 1)
        return 2;
    printf("copied\n");
    fflush(stdout);
    close(2);
    if (argc > 1) {
        int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd != 2)
            return 3;
        if (write(fd, "data\n", 5) != 5)
            return 4;
    }
    return 0;
}
