/*
 * trusted_dir.h - a directory root may read from on an administrator's
 * word: named by plugstack.conf, and only root can have put or changed
 * anything on the way to it.
 */
#ifndef NPS_TRUSTED_DIR_H
#define NPS_TRUSTED_DIR_H

#include "numaplan.h"

/*
 * Open the absolute directory path component by component, never
 * following a symbolic link, and check every directory on the way: owned
 * by root, and writable by group or others only when it is a sticky
 * directory (like /tmp, where nobody else can rename root's entries).  The
 * last component must not be writable by group or others at all.  *fd is
 * then the checked directory (O_RDONLY | O_DIRECTORY, close-on-exec).
 * Errors name the component at fault.
 */
int nps_trusted_dir_open(const char *path, int *fd, np_error_t *err);

#endif /* NPS_TRUSTED_DIR_H */
