/* fsize.c: file writes past the file size limit fail, they do not kill the
 * program that loaded libair.
 *
 * A write beyond RLIMIT_FSIZE raises SIGXFSZ on the writing thread, and its
 * default action ends the process. Between air__fsize_guard() and
 * air__fsize_unguard() the signal is blocked on the calling thread, so the
 * write fails with EFBIG instead (an error that names the file); one that
 * was raised meanwhile is taken before the thread's mask is put back. A
 * thread that had it blocked already is left as it was. */
#include "core/core_fsize.h"

#include <pthread.h>
#include <time.h>

void air__fsize_guard(air__fsize_guard_t *g)
{
	sigset_t xfsz;

	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	g->active = pthread_sigmask(SIG_BLOCK, &xfsz, &g->old) == 0 &&
	            !sigismember(&g->old, SIGXFSZ);
}

void air__fsize_unguard(air__fsize_guard_t *g)
{
	sigset_t xfsz, pending;
	const struct timespec now = {0, 0};

	if (!g->active)
		return;
	sigemptyset(&xfsz);
	sigaddset(&xfsz, SIGXFSZ);
	while (sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ) &&
	       sigtimedwait(&xfsz, NULL, &now) == SIGXFSZ)
		;
	pthread_sigmask(SIG_SETMASK, &g->old, NULL);
	g->active = false;
}
