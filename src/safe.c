/* STUB: replaced by the fault-tolerant copy. */
#include "internal.h"
