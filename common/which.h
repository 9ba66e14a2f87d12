/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * which.h - finding a program in PATH.
 */
#ifndef NP_WHICH_H
#define NP_WHICH_H

/* The path of an executable name in PATH (/usr/bin:/bin when PATH is
 * unset; an empty entry is the current directory), or name itself when it
 * has a slash and is executable: malloc'ed, or NULL when there is none. */
char *np_which(const char *name);

#endif /* NP_WHICH_H */
