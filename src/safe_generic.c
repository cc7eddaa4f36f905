/* SPDX-License-Identifier: MIT */
/* The generic copy compiled again as cw_copy_safe's safe instance
 * (src/CMakeLists.txt: section cw_safe_text, rbx/rbp/r8-r15 reserved). */
#define CWL_SAFE_INSTANCE 1
#include "generic.c"
