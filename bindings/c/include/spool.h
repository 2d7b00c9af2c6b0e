/*
 * spool.h — C interface to spool's ByteStream and Reassembler.
 *
 * A ByteStream is a bounded, in-order byte pipe over one ring buffer; a
 * Reassembler takes out-of-order, overlapping substrings of a stream by
 * index and writes each byte into its ByteStream as soon as every earlier
 * byte is known (semantics of the classic CS144 lab).
 *
 * Conventions
 *   - Every function returns an int status: SPOOL_OK (0) or a negative
 *     SPOOL_E_* code; values come back through out-pointers. A null or bad
 *     argument is an error code, never undefined behaviour inside spool.
 *     spool_status_message() describes a code.
 *   - Constructors return NULL on failure.
 *   - Handles are not thread-safe: use one handle from one thread at a time.
 *   - Link with libspool_c.a (plus -lpthread -ldl -lm) or libspool_c.so.
 *
 * Example
 *   spool_stream *s = spool_stream_new(1500);
 *   spool_reassembler *r = spool_reassembler_new(s);   // takes over s
 *   spool_reassembler_insert(r, 5, (const uint8_t *)"world", 5, true);
 *   spool_reassembler_insert(r, 0, (const uint8_t *)"hello", 5, false);
 *   spool_stream *out = spool_reassembler_stream(r);   // borrowed view
 *   const uint8_t *p; size_t n;
 *   spool_stream_peek(out, &p, &n);                     // "helloworld"
 *   spool_stream_pop(out, n);
 *   spool_reassembler_free(r);                          // frees out too
 */
#ifndef SPOOL_H
#define SPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SPOOL_OK 0
#define SPOOL_E_NULL (-1)      /* a required pointer argument was null */
#define SPOOL_E_READONLY (-2)  /* push/close on a reassembler's output view */
#define SPOOL_E_BORROWED (-3)  /* free of a reassembler's output view */
#define SPOOL_E_PANIC (-4)     /* internal error caught at the boundary */
#define SPOOL_E_RANGE (-5)     /* argument out of range */

typedef struct SpoolStream spool_stream;
typedef struct SpoolReassembler spool_reassembler;

/* What a stream's query functions answer, published by the library so a
 * caller can read it without a call per query. Every call that changes the
 * stream (push, pop, close, set_error, assign, sync_push, and a
 * reassembler's insert for its output) rewrites it before returning; read
 * it between calls, from the thread using the handle, and never write it.
 * front/front_len are what peek answers (front means nothing while
 * front_len is 0). For an owned, open stream spare/spare_len is the
 * contiguous free space after the buffered bytes: the caller may copy bytes
 * there and report them with spool_stream_sync_push. Both regions are
 * valid until the next call on the handle. */
typedef struct spool_stream_state {
    const uint8_t *front;        /* contiguous front of the buffered bytes */
    size_t front_len;            /* non-zero whenever bytes_buffered is */
    uint64_t bytes_buffered;
    uint64_t bytes_pushed;
    uint64_t bytes_popped;
    uint64_t available_capacity;
    bool closed;
    bool finished;               /* closed and every byte popped */
    bool error;
    uint8_t *spare;              /* free space a caller may fill (or NULL) */
    size_t spare_len;            /* 0 for a view or a closed stream */
} spool_stream_state;

/* A static description of a status code. */
const char *spool_status_message(int status);
/* SPOOL_OK if a stream of this capacity is addressable here, else SPOOL_E_RANGE. */
int spool_capacity_ok(uint64_t capacity);

/* ---- ByteStream ------------------------------------------------------- */

/* A stream buffering at most `capacity` bytes; NULL if it cannot be allocated. */
spool_stream *spool_stream_new(uint64_t capacity);
/* A deep copy (an owned stream, also when `s` is a reassembler's view). */
spool_stream *spool_stream_clone(const spool_stream *s);
/* Frees an owned stream; NULL is a no-op; a view answers SPOOL_E_BORROWED. */
int spool_stream_free(spool_stream *s);
/* Replaces dst's contents with a copy of src (C++ assignment). When dst is a
 * reassembler's view, the reassembler goes on writing into the copy: its
 * pending bytes move into the copy's window. dst and src may be the same. */
int spool_stream_assign(spool_stream *dst, const spool_stream *src);
/* The stream's published state (see spool_stream_state above); valid as
 * long as the handle, for a view as long as its reassembler. NULL on NULL. */
const spool_stream_state *spool_stream_state_of(const spool_stream *s);

/* Writer side. push copies what fits of data[0..len) and stores the count
 * taken in *accepted (may be NULL); data may be NULL only when len == 0. */
int spool_stream_push(spool_stream *s, const uint8_t *data, size_t len, size_t *accepted);
/* Reports what the caller did in the published state's regions since its
 * last call on `s` — `written` bytes copied into `spare` (committed), then
 * `consumed` bytes read from the front (popped; they may include the
 * written ones) — then pushes as spool_stream_push does (len 0 pushes
 * nothing). One call carries a reader's and a writer's deferred work.
 * `written` beyond the published spare_len answers SPOOL_E_RANGE and
 * changes nothing; on a view, written > 0 or len > 0 answers
 * SPOOL_E_READONLY (the pop happens when written is 0). */
int spool_stream_sync_push(spool_stream *s, size_t written, uint64_t consumed,
                           const uint8_t *data, size_t len, size_t *accepted);
int spool_stream_close(spool_stream *s);
int spool_stream_is_closed(const spool_stream *s, bool *out);
int spool_stream_available_capacity(const spool_stream *s, uint64_t *out);
int spool_stream_bytes_pushed(const spool_stream *s, uint64_t *out);

/* Reader side. peek points *data and *len at the contiguous front of the
 * buffered bytes, valid until the next call that changes the stream; it is
 * non-empty whenever anything is buffered. pop removes up to n bytes. */
int spool_stream_peek(const spool_stream *s, const uint8_t **data, size_t *len);
int spool_stream_pop(spool_stream *s, uint64_t n);
int spool_stream_is_finished(const spool_stream *s, bool *out);
int spool_stream_bytes_buffered(const spool_stream *s, uint64_t *out);
int spool_stream_bytes_popped(const spool_stream *s, uint64_t *out);

/* Either side. */
int spool_stream_set_error(spool_stream *s);
int spool_stream_has_error(const spool_stream *s, bool *out);

/* ---- Reassembler ------------------------------------------------------ */

/* Takes over `output` (freed by this call; do not use it again). NULL if
 * `output` is NULL or is itself a reassembler's view. */
spool_reassembler *spool_reassembler_new(spool_stream *output);
/* A deep copy: output contents, pending bytes and known end. */
spool_reassembler *spool_reassembler_clone(const spool_reassembler *r);
/* Frees the reassembler and its output; NULL is a no-op. */
int spool_reassembler_free(spool_reassembler *r);
/* Inserts data[0..len), whose first byte has stream index first_index. */
int spool_reassembler_insert(spool_reassembler *r, uint64_t first_index,
                             const uint8_t *data, size_t len, bool is_last);
/* Pops up to `pop` bytes from the output, then inserts as above: a reader
 * that deferred its last pop and the next insert share one call. */
int spool_reassembler_pop_insert(spool_reassembler *r, uint64_t pop, uint64_t first_index,
                                 const uint8_t *data, size_t len, bool is_last);
/* Bytes stored but not yet written to the output. */
int spool_reassembler_bytes_pending(const spool_reassembler *r, uint64_t *out);
/* The output stream, lent while `r` lives: reads, pop, set_error and assign
 * work; push and close answer SPOOL_E_READONLY; free answers
 * SPOOL_E_BORROWED. */
spool_stream *spool_reassembler_stream(spool_reassembler *r);

#ifdef __cplusplus
}
#endif

#endif /* SPOOL_H */
