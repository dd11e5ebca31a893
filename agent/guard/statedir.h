/* SPDX-License-Identifier: MIT */
/*
 * The agent's state folder and the files rackbench created in it.
 *
 * Design note. A file is rackbench's only if rackbench created it: a path is not
 * proof (a hard link in the folder names an outside inode, a symlink points anywhere,
 * either can be swapped in after a check). So rackbench creates its files with
 * O_CREAT|O_EXCL relative to a descriptor of the folder, never following a symlink
 * (openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), and records each one's device
 * and inode in the folder's index (STATE/created, one "DEV INO BTIME GEN NAME" line a
 * file: a freed inode number soon names a new file, so its birth time and generation
 * are kept too, where the filesystem has them).
 * Later opens go the same way, and the opened descriptor is what is judged: it is
 * rackbench's when its device and inode are in the index and it has one link. The
 * folder itself must be fit to hold such files: a real folder, owned by the user the
 * agent runs as, not writable by others, and not / or a system folder.
 */
#ifndef RB_STATEDIR_H
#define RB_STATEDIR_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/*
 * The state folder used when none is given: $RB_STATE_DIR, else /var/lib/rackbench as root,
 * else ~/.local/state/rackbench.
 */
const char *rb_default_state_dir(void);

/* The index of the files rackbench created, inside the state folder. */
#define RB_STATE_INDEX "created"

/*
 * Checks that dir may be a state folder (see the design note). Adds one diagnostic
 * per failed check, naming the folder. A folder that does not exist yet passes (it is
 * made 0700 when first used). Returns 0 or -EPERM.
 */
int rb_state_dir_check(const char *dir, struct rb_diags *d);
/*
 * Whether path names a place inside dir: its folder resolved, its last component as
 * given (a symlink there is not followed). On true, ret_rel (len bytes) holds the path
 * relative to dir.
 */
bool rb_state_rel(const char *dir, const char *path, char *ret_rel, size_t len);
/*
 * Opens rel beneath dir with flags, following no symlink on the way and never leaving
 * the folder. With create, a missing file is made with O_CREAT|O_EXCL (mode 0600) and
 * recorded in the index. Returns a descriptor, or negative errno (-ELOOP: a symlink on
 * the way, -EXDEV: the path leaves the folder).
 */
int rb_state_open(const char *dir, const char *rel, int flags, bool create);
/* Whether the file open at fd is one rackbench created in dir (index and one link). */
bool rb_state_owns(const char *dir, int fd);

#endif
