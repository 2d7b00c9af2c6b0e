/* C tests of spool.h: stream and reassembler basics, error codes for null
 * and bad arguments, ownership rules of the reassembler's view, the
 * published state and assignment. */
#include <stdio.h>
#include <string.h>

#include "spool.h"

static int passed = 0, failed = 0;

#define CHECK(cond)                                                          \
    do {                                                                     \
        if (cond) {                                                          \
            passed++;                                                        \
        } else {                                                             \
            failed++;                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, \
                    #cond);                                                  \
        }                                                                    \
    } while (0)

static uint64_t u64(int (*f)(const spool_stream *, uint64_t *), const spool_stream *s) {
    uint64_t v = 0;
    CHECK(f(s, &v) == SPOOL_OK);
    return v;
}

static int front_equals(const spool_stream *s, const char *expected) {
    const uint8_t *p = NULL;
    size_t n = 0;
    if (spool_stream_peek(s, &p, &n) != SPOOL_OK) return 0;
    return n == strlen(expected) && memcmp(p, expected, n) == 0;
}

static void stream_basics(void) {
    spool_stream *s = spool_stream_new(4);
    CHECK(s != NULL);
    size_t accepted = 0;
    CHECK(spool_stream_push(s, (const uint8_t *)"abcdef", 6, &accepted) == SPOOL_OK);
    CHECK(accepted == 4);
    CHECK(u64(spool_stream_available_capacity, s) == 0);
    CHECK(front_equals(s, "abcd"));
    CHECK(spool_stream_pop(s, 3) == SPOOL_OK);
    CHECK(spool_stream_push(s, (const uint8_t *)"xyz", 3, NULL) == SPOOL_OK);
    CHECK(front_equals(s, "d"));  /* wraps: "d" then "xyz" */
    CHECK(u64(spool_stream_bytes_buffered, s) == 4);

    spool_stream *copy = spool_stream_clone(s);
    CHECK(copy != NULL);
    CHECK(spool_stream_pop(copy, 1) == SPOOL_OK);
    CHECK(front_equals(copy, "xyz"));
    CHECK(front_equals(s, "d"));

    bool b = true;
    CHECK(spool_stream_close(s) == SPOOL_OK);
    CHECK(spool_stream_is_finished(s, &b) == SPOOL_OK && !b);
    CHECK(spool_stream_pop(s, 100) == SPOOL_OK);
    CHECK(spool_stream_is_finished(s, &b) == SPOOL_OK && b);
    CHECK(u64(spool_stream_bytes_popped, s) == 7);
    CHECK(u64(spool_stream_bytes_pushed, s) == 7);
    CHECK(spool_stream_set_error(s) == SPOOL_OK);
    CHECK(spool_stream_has_error(s, &b) == SPOOL_OK && b);
    CHECK(spool_stream_free(s) == SPOOL_OK);
    CHECK(spool_stream_free(copy) == SPOOL_OK);
}

static void null_and_bad_arguments(void) {
    uint64_t v;
    bool b;
    const uint8_t *p;
    size_t n;
    CHECK(spool_stream_push(NULL, (const uint8_t *)"a", 1, NULL) == SPOOL_E_NULL);
    CHECK(spool_stream_bytes_pushed(NULL, &v) == SPOOL_E_NULL);
    CHECK(spool_stream_is_closed(NULL, &b) == SPOOL_E_NULL);
    CHECK(spool_stream_peek(NULL, &p, &n) == SPOOL_E_NULL);
    CHECK(spool_stream_pop(NULL, 1) == SPOOL_E_NULL);
    CHECK(spool_stream_free(NULL) == SPOOL_OK);
    CHECK(spool_stream_clone(NULL) == NULL);
    CHECK(spool_reassembler_new(NULL) == NULL);
    CHECK(spool_reassembler_insert(NULL, 0, NULL, 0, false) == SPOOL_E_NULL);
    CHECK(spool_reassembler_free(NULL) == SPOOL_OK);

    spool_stream *s = spool_stream_new(8);
    CHECK(spool_stream_push(s, NULL, 3, NULL) == SPOOL_E_NULL);
    CHECK(spool_stream_push(s, NULL, 0, NULL) == SPOOL_OK);
    CHECK(spool_stream_bytes_pushed(s, NULL) == SPOOL_E_NULL);
    CHECK(spool_stream_peek(s, NULL, &n) == SPOOL_E_NULL);
    spool_stream_free(s);

    CHECK(spool_stream_new(UINT64_MAX) == NULL);
    CHECK(spool_capacity_ok(UINT64_MAX) == SPOOL_E_RANGE);
    CHECK(strcmp(spool_status_message(SPOOL_E_NULL), "a required pointer argument was null") == 0);
}

static void reassembler_basics(void) {
    spool_reassembler *r = spool_reassembler_new(spool_stream_new(16));
    CHECK(r != NULL);
    CHECK(spool_reassembler_insert(r, 6, (const uint8_t *)"world", 5, true) == SPOOL_OK);
    uint64_t pending = 0;
    CHECK(spool_reassembler_bytes_pending(r, &pending) == SPOOL_OK && pending == 5);
    CHECK(spool_reassembler_insert(r, 0, (const uint8_t *)"hello ", 6, false) == SPOOL_OK);
    CHECK(spool_reassembler_bytes_pending(r, &pending) == SPOOL_OK && pending == 0);

    spool_stream *out = spool_reassembler_stream(r);
    CHECK(front_equals(out, "hello world"));
    CHECK(spool_stream_push(out, (const uint8_t *)"x", 1, NULL) == SPOOL_E_READONLY);
    CHECK(spool_stream_close(out) == SPOOL_E_READONLY);
    CHECK(spool_stream_free(out) == SPOOL_E_BORROWED);

    spool_reassembler *copy = spool_reassembler_clone(r);
    CHECK(spool_stream_pop(out, 11) == SPOOL_OK);
    bool finished = false;
    CHECK(spool_stream_is_finished(out, &finished) == SPOOL_OK && finished);
    CHECK(front_equals(spool_reassembler_stream(copy), "hello world"));

    /* A view cannot become another reassembler's output. */
    CHECK(spool_reassembler_new(out) == NULL);
    spool_reassembler_free(copy);
    spool_reassembler_free(r);
}

static void published_state(void) {
    spool_stream *s = spool_stream_new(8);
    const spool_stream_state *st = spool_stream_state_of(s);
    CHECK(st != NULL && st->bytes_buffered == 0 && st->front_len == 0);
    CHECK(st->available_capacity == 8 && !st->closed && !st->finished);
    CHECK(spool_stream_push(s, (const uint8_t *)"abc", 3, NULL) == SPOOL_OK);
    CHECK(st->bytes_buffered == 3 && st->bytes_pushed == 3 && st->front_len == 3);
    CHECK(memcmp(st->front, "abc", 3) == 0);
    CHECK(spool_stream_pop(s, 3) == SPOOL_OK && spool_stream_close(s) == SPOOL_OK);
    CHECK(st->bytes_popped == 3 && st->closed && st->finished);
    CHECK(spool_stream_state_of(NULL) == NULL);

    /* Assigning to a reassembler's view: it keeps writing into the copy. */
    spool_reassembler *r = spool_reassembler_new(spool_stream_new(16));
    spool_stream *view = spool_reassembler_stream(r);
    const spool_stream_state *vs = spool_stream_state_of(view);
    CHECK(spool_reassembler_insert(r, 0, (const uint8_t *)"ab", 2, false) == SPOOL_OK);
    CHECK(vs->bytes_pushed == 2 && vs->front_len == 2);
    spool_stream *saved = spool_stream_clone(view);
    CHECK(spool_stream_pop(view, 2) == SPOOL_OK && vs->bytes_buffered == 0);
    CHECK(spool_stream_assign(view, saved) == SPOOL_OK);
    CHECK(spool_reassembler_insert(r, 2, (const uint8_t *)"cd", 2, false) == SPOOL_OK);
    CHECK(vs->bytes_pushed == 4 && vs->front_len == 4 && memcmp(vs->front, "abcd", 4) == 0);
    CHECK(spool_stream_assign(view, view) == SPOOL_OK && vs->bytes_buffered == 4);
    CHECK(spool_stream_assign(NULL, saved) == SPOOL_E_NULL);
    CHECK(spool_stream_assign(saved, NULL) == SPOOL_E_NULL);
    spool_stream_free(saved);
    spool_reassembler_free(r);
    spool_stream_free(s);
}

int main(void) {
    stream_basics();
    published_state();
    null_and_bad_arguments();
    reassembler_basics();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
