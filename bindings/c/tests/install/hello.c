/* A program built against an installed spool, as a user would build it:
 *   cc hello.c $(pkg-config --cflags --libs spool)
 * Reassembles "hello, world" from out-of-order pieces and prints it. */
#include <spool.h>

#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                          \
    do {                                                                     \
        int status_ = (call);                                                \
        if (status_ != SPOOL_OK) {                                           \
            fprintf(stderr, "%s: %s\n", #call, spool_status_message(status_)); \
            return 1;                                                        \
        }                                                                    \
    } while (0)

int main(void) {
    spool_stream *stream = spool_stream_new(64);
    spool_reassembler *r = spool_reassembler_new(stream);
    if (r == NULL) {
        fprintf(stderr, "spool_reassembler_new failed\n");
        return 1;
    }
    CHECK(spool_reassembler_insert(r, 7, (const uint8_t *)"world", 5, true));
    CHECK(spool_reassembler_insert(r, 0, (const uint8_t *)"hello, ", 7, false));
    spool_stream *out = spool_reassembler_stream(r);
    const uint8_t *data;
    size_t len;
    CHECK(spool_stream_peek(out, &data, &len));
    if (len != 12 || memcmp(data, "hello, world", 12) != 0) {
        fprintf(stderr, "reassembled %zu wrong bytes\n", len);
        return 1;
    }
    printf("%.*s\n", (int)len, (const char *)data);
    CHECK(spool_stream_pop(out, len));
    bool finished = false;
    CHECK(spool_stream_is_finished(out, &finished));
    CHECK(spool_reassembler_free(r));
    return finished ? 0 : 1;
}
