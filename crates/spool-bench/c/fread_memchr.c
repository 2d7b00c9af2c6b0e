/* Reading floor for the partition benchmark: fread 1 MiB at a time, find
 * lines with memchr, take field 2 with memchr; prints lines and the bytes
 * of field 2 so the answer can be checked against spool's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2) { fprintf(stderr, "usage: fread_memchr FILE\n"); return 2; }
    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    size_t cap = 1 << 20, len = 0;
    char *buf = malloc(cap);
    unsigned long long lines = 0, bytes = 0;
    for (;;) {
        size_t n = fread(buf + len, 1, cap - len, f);
        size_t end = len + n;
        char *p = buf, *stop = buf + end;
        for (;;) {
            char *nl = memchr(p, '\n', stop - p);
            if (!nl) break;
            char *t1 = memchr(p, '\t', nl - p);
            if (t1) {
                char *t2 = memchr(t1 + 1, '\t', nl - t1 - 1);
                bytes += (t2 ? t2 : nl) - t1 - 1;
            }
            lines++;
            p = nl + 1;
        }
        len = stop - p;
        memmove(buf, p, len);
        if (n == 0) break;
    }
    if (len) lines++; /* a last line without newline (field not counted) */
    printf("%llu lines, %llu bytes in field 2\n", lines, bytes);
    return 0;
}
