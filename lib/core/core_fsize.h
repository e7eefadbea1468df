/* core_fsize.h: writes past the file size limit fail with EFBIG (fsize.c).
 * Never installed. */
#ifndef AIR_CORE_CORE_FSIZE_H
#define AIR_CORE_CORE_FSIZE_H

#include <signal.h>
#include <stdbool.h>

/* Between air__fsize_guard() and air__fsize_unguard(), on the calling
 * thread, a write past RLIMIT_FSIZE fails with EFBIG instead of raising
 * SIGXFSZ (whose default action ends the process). Keep the span to
 * libair's own writes: a child spawned within it would inherit the blocked
 * signal, and a callback run within it (a debug callback during a local
 * workspace's request) gets EFBIG too, its signal taken. */
typedef struct air__fsize_guard_t {
	sigset_t old;
	bool active;
} air__fsize_guard_t;

void air__fsize_guard(air__fsize_guard_t *g);
void air__fsize_unguard(air__fsize_guard_t *g);

#endif /* AIR_CORE_CORE_FSIZE_H */
