/* interrupt_internal.h: layout of air_interrupt, for interrupt.c only. */
#ifndef AIR_INTERRUPT_INTERNAL_H
#define AIR_INTERRUPT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

struct air_interrupt {
	atomic_int raised;
	pthread_mutex_t lock;
	pthread_cond_t cond;
};

#endif
