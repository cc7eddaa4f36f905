/* SPDX-License-Identifier: MIT */
/* `cwbench info`: what the library has in force on this machine: the CPU
 * it detected, the tuning and profile chosen, and every setting of the copy
 * policy with its value, the built-in profile's value, where the value came
 * from and the variable that overrides it; then the recorded configuration
 * errors. Like `ld.so --list-tunables` for glibc. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/common.h"
#include "cachewise.h"

int cwb_cmd_info(int argc, char **argv)
{
    if (argc > 1) {
        if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
            puts("usage: cwbench info    (no options; CACHEWISE_* variables apply as ever)");
            return 0;
        }
        return cwb_usage_error("info takes no arguments ('%s')", argv[1]);
    }
    const struct cw_info *in = cw_get_info();
    printf("cachewise %s\n", cw_version());
    printf("cpu: %s (%s family %u model %u stepping %u)\n", in->cpu_model, in->cpu_vendor,
           in->cpu_family, in->cpu_model_number, in->cpu_stepping);
    printf("caches: L1d %zu, L2 %zu, L3 %zu bytes, line %zu\n", in->l1d_size, in->l2_size,
           in->l3_size, in->cache_line);
    printf("L3 the policy uses: %zu bytes (%s)\n", in->l3_policy_size, in->l3_policy_note);
    printf("signature (a tuning file's \"cpu\" line): %s\n", in->cpu_signature);
    printf("implementation: %s (%s), memcpy entry %s, flush %s\n", in->impl, in->impl_source,
           in->memcpy_entry, in->flush_insn);
    printf("tuning: %s (%s), profile %s\n\n", in->tuning, in->tuning_source, in->profile);
    printf("%-26s %-13s %-13s %-7s %s\n", "setting", "value", "profile", "source",
           "environment");
    for (int i = 0; i < in->n_settings; i++) {
        const struct cw_setting *s = &in->settings[i];
        printf("%-26s %-13s %-13s %-7s %s\n", s->name, s->value, s->table_value, s->source,
               s->env);
    }
    int ne = in->n_errors < CW_INFO_MAX_ERRORS ? in->n_errors : CW_INFO_MAX_ERRORS;
    printf("\nconfiguration errors (ignored): %d\n", in->n_errors);
    for (int i = 0; i < ne; i++)
        printf("  %s\n", in->errors[i]);
    return 0;
}
