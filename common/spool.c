/* SPDX-License-Identifier: BSD-3-Clause */
/* spool.c - output held in memory in chunks until it is complete (spool.h) */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "common/spool.h"

/* Big enough that a million-rank plan is a few hundred chunks, small
 * enough that a one-line plan costs little. */
#define CHUNK (1u << 20)

struct chunk {
	struct chunk *next;
	size_t len;
	char data[CHUNK];
};

struct np_spool {
	struct chunk *head, *tail;
	size_t size;
	bool lost;
};

static ssize_t spool_write(void *cookie, const char *buf, size_t n)
{
	np_spool_t *s = cookie;
	size_t done = 0;

	while (done < n) {
		struct chunk *c = s->tail;
		size_t k;

		if (!c || c->len == CHUNK) {
			if (!(c = malloc(sizeof(*c)))) {
				/* what fitted stays, the stream's error flag is
				 * set, and close says the text is not whole */
				s->lost = true;
				s->size += done;
				errno = ENOMEM;
				return -1;
			}
			c->next = NULL;
			c->len = 0;
			if (s->tail)
				s->tail->next = c;
			else
				s->head = c;
			s->tail = c;
		}
		k = CHUNK - c->len < n - done ? CHUNK - c->len : n - done;
		memcpy(c->data + c->len, buf + done, k);
		c->len += k;
		done += k;
	}
	s->size += n;
	return (ssize_t)n;
}

np_spool_t *np_spool_open(FILE **f)
{
	static const cookie_io_functions_t io = { .write = spool_write };
	np_spool_t *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	if (!(*f = fopencookie(s, "w", io))) {
		free(s);
		return NULL;
	}
	return s;
}

int np_spool_close(np_spool_t *s, FILE *f)
{
	int bad = ferror(f);

	if (fclose(f) != 0 || bad || s->lost)
		return -ENOMEM;
	return 0;
}

size_t np_spool_size(const np_spool_t *s)
{
	return s->size;
}

void np_spool_copy(const np_spool_t *s, FILE *out)
{
	for (const struct chunk *c = s->head; c; c = c->next)
		fwrite(c->data, 1, c->len, out);
}

void np_spool_free(np_spool_t *s)
{
	struct chunk *c, *next;

	if (!s)
		return;
	for (c = s->head; c; c = next) {
		next = c->next;
		free(c);
	}
	free(s);
}
