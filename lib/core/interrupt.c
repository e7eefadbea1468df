/* interrupt.c: a flag raised from any thread or signal handler, with a pipe
 * whose read end every wait of libair polls, so raising it wakes them. */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <unistd.h>

struct air_interrupt {
	atomic_int raised;
	int rfd, wfd; /* non-blocking, close-on-exec */
};

int air_interrupt_new(air_interrupt **out)
{
	air_interrupt *intr;
	int fds[2];

	if (!out)
		return AIR_EINVAL;
	*out = NULL;
	if (!(intr = air__calloc(1, sizeof(*intr))))
		return AIR_ENOMEM;
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) != 0) {
		air__free(intr);
		return errno == ENOMEM ? AIR_ENOMEM : AIR_EIO;
	}
	atomic_init(&intr->raised, 0);
	intr->rfd = fds[0];
	intr->wfd = fds[1];
	*out = intr;
	return AIR_OK;
}

void air_interrupt_trigger(air_interrupt *intr)
{
	int saved = errno;
	ssize_t n;

	if (!intr)
		return;
	atomic_store(&intr->raised, 1);
	/* A full pipe already wakes every poll: nothing more to do. */
	do
		n = write(intr->wfd, "!", 1);
	while (n < 0 && errno == EINTR);
	errno = saved;
}

/* Bytes in the pipe that did not come from trigger (the wakeup descriptor). */
static bool pipe_readable(const air_interrupt *intr)
{
	struct pollfd p = {intr->rfd, POLLIN, 0};

	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

int32_t air_interrupt_is_triggered(const air_interrupt *intr)
{
	air_interrupt *m = (air_interrupt *)intr;

	if (!intr)
		return 0;
	if (atomic_load(&m->raised))
		return 1;
	if (!pipe_readable(intr))
		return 0;
	atomic_store(&m->raised, 1);
	return 1;
}

void air_interrupt_reset(air_interrupt *intr)
{
	char buf[64];

	if (!intr)
		return;
	while (read(intr->rfd, buf, sizeof(buf)) > 0)
		;
	atomic_store(&intr->raised, 0);
}

int air_interrupt_wakeup_fd(const air_interrupt *intr) { return intr ? intr->wfd : -1; }

void air_interrupt_free(air_interrupt *intr)
{
	if (!intr)
		return;
	close(intr->rfd);
	close(intr->wfd);
	air__free(intr);
}

bool air__interrupted(const air_interrupt *intr) { return air_interrupt_is_triggered(intr) != 0; }

int air__interrupt_fd(const air_interrupt *intr) { return intr ? intr->rfd : -1; }

int air__wait_interrupts(air_interrupt *const *intrs, size_t n, int64_t ms)
{
	struct pollfd p[4];
	size_t np = 0;
	int64_t end = air__mono_after(ms);

	for (size_t i = 0; i < n; i++) {
		if (!intrs[i])
			continue;
		if (air__interrupted(intrs[i]))
			return AIR_EINTERRUPTED;
		if (np < AIR__ARRAY_SIZE(p))
			p[np++] = (struct pollfd){intrs[i]->rfd, POLLIN, 0};
	}
	for (;;) {
		int64_t left = end - air__mono_ms();
		int r;

		if (left <= 0)
			return AIR_OK;
		r = poll(np ? p : NULL, np, left > INT32_MAX ? INT32_MAX : (int)left);
		if (r > 0) {
			for (size_t i = 0; i < n; i++)
				if (air__interrupted(intrs[i]))
					return AIR_EINTERRUPTED;
		}
	}
}

int air__sleep_ms(air_interrupt *intr, int64_t ms)
{
	return air__wait_interrupts(&intr, 1, ms);
}
