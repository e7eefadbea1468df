/* interrupt.c: a flag raised from any thread that wakes interruptible sleeps. */
#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "interrupt_internal.h"

int air_interrupt_new(air_interrupt **out)
{
	air_interrupt *intr;

	if (!out)
		return AIR_EINVAL;
	*out = NULL;
	intr = air__calloc(1, sizeof(*intr));
	if (!intr)
		return AIR_ENOMEM;
	atomic_init(&intr->raised, 0);
	pthread_mutex_init(&intr->lock, NULL);
	{
		pthread_condattr_t attr;
		pthread_condattr_init(&attr);
		pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
		pthread_cond_init(&intr->cond, &attr);
		pthread_condattr_destroy(&attr);
	}
	*out = intr;
	return AIR_OK;
}

void air_interrupt_trigger(air_interrupt *intr)
{
	if (!intr)
		return;
	pthread_mutex_lock(&intr->lock);
	atomic_store(&intr->raised, 1);
	pthread_cond_broadcast(&intr->cond);
	pthread_mutex_unlock(&intr->lock);
}

void air_interrupt_reset(air_interrupt *intr)
{
	if (intr)
		atomic_store(&intr->raised, 0);
}

int32_t air_interrupt_is_triggered(const air_interrupt *intr)
{
	return intr && atomic_load(&((air_interrupt *)intr)->raised) ? 1 : 0;
}

bool air__interrupted(const air_interrupt *intr) { return air_interrupt_is_triggered(intr) != 0; }

void air_interrupt_free(air_interrupt *intr)
{
	if (!intr)
		return;
	pthread_cond_destroy(&intr->cond);
	pthread_mutex_destroy(&intr->lock);
	air__free(intr);
}

int air__sleep_ms(air_interrupt *intr, int64_t ms)
{
	struct timespec ts;

	if (ms <= 0)
		return air__interrupted(intr) ? AIR_EINTERRUPTED : AIR_OK;
	if (!intr) {
		ts.tv_sec = (time_t)(ms / 1000);
		ts.tv_nsec = (long)(ms % 1000) * 1000000L;
		while (nanosleep(&ts, &ts) != 0)
			;
		return AIR_OK;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&intr->lock);
	while (!atomic_load(&intr->raised)) {
		if (pthread_cond_timedwait(&intr->cond, &intr->lock, &ts) != 0)
			break; /* ETIMEDOUT */
	}
	pthread_mutex_unlock(&intr->lock);
	return atomic_load(&intr->raised) ? AIR_EINTERRUPTED : AIR_OK;
}
