/*
 * buf.h - a growable byte buffer.
 */
#ifndef REFD_BUF_H
#define REFD_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void buf_init(struct buf *b);
void buf_release(struct buf *b);
/* 0 or -1 when out of memory. */
int buf_reserve(struct buf *b, size_t extra);
int buf_add(struct buf *b, const void *p, size_t n);
int buf_addstr(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Take ownership of the bytes; the buffer is empty afterwards. */
uint8_t *buf_detach(struct buf *b, size_t *len);
void buf_reset(struct buf *b);

void hex_encode(const uint8_t *in, size_t n, char *out);
int hex_decode(const char *in, uint8_t *out, size_t n);

#endif
