/* SPDX-License-Identifier: MIT */
/* `cwbench compare` (compare.c). */
#ifndef CWB_COMPARE_H
#define CWB_COMPARE_H

/* `cwbench compare A.json B.json [--alpha X]` (compare.c); argv[0] is
 * "compare". Exit status: 0 done, 2 bad usage or unreadable file, 1 out of
 * memory. */
int cwb_cmd_compare(int argc, char **argv);

#endif /* CWB_COMPARE_H */
