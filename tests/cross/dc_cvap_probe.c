/* SPDX-License-Identifier: MIT */
/* Configure-time probe of a cross build's emulator (tests/CMakeLists.txt,
 * aarch64 only): does it execute DC CVAP where it reports HWCAP_DCPOP?
 * Prints "dcpop N", then, with DCPOP, executes DC CVAP once (by its SYS
 * encoding, as src/aarch64/flush.c emits it) and prints "dc cvap ok".
 * qemu-user 7.2 (Debian 12) dies of SIGILL between the two lines: it reports
 * DCPOP for "-cpu max" and the FEAT_DPB cores but registers the instruction
 * for system emulation only. */
#include <stdio.h>
#include <sys/auxv.h>

int main(void)
{
    static unsigned char line[64];
    int dcpop = (int)((getauxval(AT_HWCAP) >> 16) & 1); /* HWCAP_DCPOP */
    printf("dcpop %d\n", dcpop);
    fflush(stdout);
    if (dcpop) {
        __asm__ volatile("sys #3, c7, c12, #1, %0" : : "r"(line) : "memory");
        printf("dc cvap ok\n");
    }
    return 0;
}
