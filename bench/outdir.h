/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * outdir.h - a run's output directory and the files numaplan writes in
 * it, safe when someone else could have prepared the place: the directory
 * must be this user's and writable by nobody else (unless sticky), and
 * every file is created through the directory's descriptor, never through
 * a symbolic link, never onto a file that was already there.
 */
#ifndef NP_OUTDIR_H
#define NP_OUTDIR_H

#include <stdbool.h>
#include <jansson.h>

#include <numaplan/error.h>
#include "common/text.h"

/* Open the directory path, making it (and its missing parents) when it
 * does not exist; *made says whether it was made here.  Refused: a
 * symbolic link, not a directory, owned by another user, writable by
 * group or others without the sticky bit.  A descriptor (O_DIRECTORY,
 * close-on-exec) or -errno with err set. */
int np_outdir_open(const char *path, bool create, bool *made, np_error_t *err);

/* Make a new directory named prefix-XXXXXX (six random characters;
 * mkdtemp: nobody can have made it before) with mode 0755 less the
 * umask; its name in *path_ret (malloc'ed), its descriptor returned. */
int np_outdir_make_unique(const char *prefix, char **path_ret, np_error_t *err);

/* Make the directories of rel (a relative path, no "..") below dfd, each
 * one checked as np_outdir_open checks; 0 or -errno. */
int np_outdir_mkdirs(int dfd, const char *rel, np_error_t *err);

/* Whether rel below dfd exists in any form (a dangling link included). */
bool np_outdir_has(int dfd, const char *rel);

/* Write the file rel below dfd (its directories must exist, each one
 * checked on the way): mode 0644, or 0755 when exec.  The text goes to a
 * new file (O_EXCL|O_NOFOLLOW, a random name) renamed over rel, so a
 * link or a file already there is replaced, never written through, and
 * readers never see half a file.  Messages name the file as
 * DIR/rel, DIR being shown. */
int np_outdir_write(int dfd, const char *shown, const char *rel, const char *text, bool exec, np_error_t *err);
/* The same for the text built in b, then b freed (-ENOMEM when building
 * it ran out of memory), and for a JSON document (json_dumps flags). */
int np_outdir_write_sb(int dfd, const char *shown, const char *rel, np_sb_t *b, bool exec, np_error_t *err);
int np_outdir_write_json(int dfd, const char *shown, const char *rel, json_t *j, size_t flags, np_error_t *err);

#endif /* NP_OUTDIR_H */
