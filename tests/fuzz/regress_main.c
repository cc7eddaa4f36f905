/* SPDX-License-Identifier: MIT */
/* Regression driver: runs LLVMFuzzerTestOneInput over every file given,
 * or every file in every directory given (the seed corpus and any crash
 * inputs saved there), without libFuzzer. A failing input aborts. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, n);
    return 0;
}

int main(int argc, char **argv)
{
    long files = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            if (run_file(argv[i]) != 0)
                return 1;
            files++;
            continue;
        }
        struct dirent **ents;
        int k = scandir(argv[i], &ents, NULL, alphasort);
        if (k < 0) {
            perror(argv[i]);
            return 1;
        }
        for (int j = 0; j < k; j++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], ents[j]->d_name);
            if (ents[j]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (run_file(path) != 0)
                    return 1;
                files++;
            }
            free(ents[j]);
        }
        free(ents);
    }
    if (files == 0) {
        fprintf(stderr, "fuzz regression: no inputs (usage: %s CORPUS_DIR|FILE...)\n", argv[0]);
        return 1;
    }
    printf("fuzz regression: %ld inputs passed\n", files);
    return 0;
}
