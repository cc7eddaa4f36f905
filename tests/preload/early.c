/* SPDX-License-Identifier: MIT */
/* Copies before any constructor has run: a .preinit_array function runs
 * before the shared libraries' constructors (the shim's included), so its
 * memcpy is the shim's first call and must initialise lazily. It writes
 * "preinit start" before copying: early.sh checks that this comes before
 * the shim's CACHEWISE_VERBOSE line, i.e. that the lazy path was taken. */
#include <string.h>
#include <unistd.h>

typedef void *(*copy_fn)(void *, const void *, size_t);
static copy_fn volatile p_memcpy = memcpy;
static copy_fn volatile p_memmove = memmove;

static void say(const char *s)
{
    (void)!write(2, s, strlen(s));
}

static int copies(void)
{
    static unsigned char a[70000], b[70001];
    for (size_t i = 0; i < sizeof a; i++)
        a[i] = (unsigned char)(i * 13 + 1);
    for (size_t n = 0; n < sizeof a; n = n * 3 + 1) {
        p_memcpy(b, a, n);
        p_memmove(b + 1, b, n);
        for (size_t i = 0; i < n; i++)
            if (b[i + 1] != a[i])
                return 1;
    }
    return 0;
}

static int preinit_failed = -1;

static void preinit(int argc, char **argv, char **envp)
{
    (void)argc, (void)argv, (void)envp;
    say("preinit start\n");
    preinit_failed = copies();
}
__attribute__((section(".preinit_array"), used)) static void (*const preinit_fn)(int, char **,
                                                                                  char **) =
    preinit;

int main(void)
{
    if (preinit_failed != 0) {
        say(preinit_failed < 0 ? "preinit did not run\n" : "preinit: BAD COPY\n");
        return 1;
    }
    if (copies()) {
        say("main: BAD COPY\n");
        return 1;
    }
    say("copies ok\n");
    return 0;
}
