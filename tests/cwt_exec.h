/* SPDX-License-Identifier: MIT */
/* Tests that exec a target program themselves (a child with its own
 * environment, an exec of /proc/self/exe) go through cwt_execve(), which
 * in a cross build runs the program under the emulator CTest runs the
 * tests under. tests/CMakeLists.txt gives every test CW_EMULATOR there: the
 * words of CMAKE_CROSSCOMPILING_EMULATOR joined by spaces (no word may hold
 * a space). Native builds have no CW_EMULATOR and cwt_execve() is
 * execve(). Header-only. */
#ifndef CW_TESTS_CWT_EXEC_H
#define CW_TESTS_CWT_EXEC_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* execve(path, argv, envp), or, under CW_EMULATOR, execve of the emulator
 * with path and argv[1..] as its program and arguments. qemu-user's execve
 * runs a host program (the emulator) natively, where a target program
 * would need binfmt_misc. /proc/self/exe is resolved first: the emulator
 * reports the target program there, but would open its own binary. For a
 * qemu-* emulator, LD_PRELOAD and LD_LIBRARY_PATH in envp are the target
 * loader's: they are given to the target with -E and kept from the host
 * loader that starts qemu. Returns -1 (errno set) only on failure. */
__attribute__((unused)) static int cwt_execve(const char *path, char *const argv[],
                                              char *const envp[])
{
    const char *emu = getenv("CW_EMULATOR");
    if (emu == NULL || *emu == '\0')
        return execve(path, argv, envp);

    static char words[4096], self[4096], prog[4096];
    static char *args[512], *env[1024];
    size_t n = 0, k = 0;
    if (strlen(emu) >= sizeof words) {
        errno = E2BIG;
        return -1;
    }
    strcpy(words, emu);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w != NULL && n < 64;
         w = strtok_r(NULL, " ", &save))
        args[n++] = w;
    if (n == 0)
        return execve(path, argv, envp);
    const char *base = strrchr(args[0], '/');
    base = base != NULL ? base + 1 : args[0];
    int qemu = strncmp(base, "qemu-", 5) == 0;
    for (size_t i = 0; envp[i] != NULL && k + 1 < sizeof env / sizeof env[0]; i++) {
        if (qemu && n + 2 < 200 &&
            (strncmp(envp[i], "LD_PRELOAD=", 11) == 0 ||
             strncmp(envp[i], "LD_LIBRARY_PATH=", 16) == 0)) {
            args[n++] = (char *)"-E";
            args[n++] = envp[i];
        } else {
            env[k++] = envp[i];
        }
    }
    env[k] = NULL;
    if (strcmp(path, "/proc/self/exe") == 0) {
        ssize_t len = readlink(path, self, sizeof self - 1);
        if (len <= 0)
            return -1;
        self[len] = '\0';
        path = self;
    }
    args[n++] = (char *)path;
    for (size_t i = 1; argv[0] != NULL && argv[i] != NULL && n + 1 < sizeof args / sizeof args[0];
         i++)
        args[n++] = argv[i];
    args[n] = NULL;
    if (strchr(args[0], '/') != NULL)
        return execve(args[0], args, env);
    /* a bare name: the first match on PATH */
    const char *p = getenv("PATH");
    for (p = p != NULL ? p : "/usr/bin:/bin"; *p != '\0';) {
        size_t len = strcspn(p, ":");
        if (len > 0 && len + strlen(args[0]) + 2 <= sizeof prog) {
            memcpy(prog, p, len);
            prog[len] = '/';
            strcpy(prog + len + 1, args[0]);
            execve(prog, args, env);
        }
        p += len + (p[len] == ':');
    }
    errno = ENOENT;
    return -1;
}

#endif /* CW_TESTS_CWT_EXEC_H */
