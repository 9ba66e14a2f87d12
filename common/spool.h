/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spool.h - output held in memory until it is complete: a stream whose
 * text is kept in chunks, then written out at once or dropped.  For a
 * command that must print all of a document or nothing, and whose
 * document may be hundreds of megabytes (a plan of a million ranks):
 * open_memstream copies its whole buffer at each doubling, a spool never
 * copies what it holds.
 */
#ifndef NP_COMMON_SPOOL_H
#define NP_COMMON_SPOOL_H

#include <stddef.h>
#include <stdio.h>

typedef struct np_spool np_spool_t;

/* A spool and the stream that fills it (*f); NULL on ENOMEM.  A chunk
 * that cannot be allocated is a write error of the stream (ferror). */
np_spool_t *np_spool_open(FILE **f);
/* Close the stream; 0, or -ENOMEM when some of its text was lost. */
int np_spool_close(np_spool_t *s, FILE *f);
/* Bytes held. */
size_t np_spool_size(const np_spool_t *s);
/* Write everything held to out (fwrite; the caller checks out). */
void np_spool_copy(const np_spool_t *s, FILE *out);
void np_spool_free(np_spool_t *s);

#endif /* NP_COMMON_SPOOL_H */
