package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import "context"

// Pool is a provisioned GPU pool; Used/Idle are -1 when not reported.
type Pool struct {
	ID                   string
	AcceleratorType      string
	ReservedAccelerators int64
	UsedAccelerators     int64
	IdleAccelerators     int64
}

func poolFromC(p *C.air_pool) Pool {
	return Pool{
		ID:                   gostr(C.air_pool_id(p)),
		AcceleratorType:      gostr(C.air_pool_accelerator_type(p)),
		ReservedAccelerators: int64(C.air_pool_reserved_accelerators(p)),
		UsedAccelerators:     int64(C.air_pool_used_accelerators(p)),
		IdleAccelerators:     int64(C.air_pool_idle_accelerators(p)),
	}
}

// ListPools lists the workspace's GPU pools.
func (c *Client) ListPools(ctx context.Context) ([]Pool, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	var l *C.air_pool_list
	var e *C.air_error
	if err := check(C.air_client_list_pools(h, &l, &e), e); err != nil {
		C.air_pool_list_free(l)
		return nil, err
	}
	defer C.air_pool_list_free(l)
	n := C.air_pool_list_count(l)
	out := make([]Pool, 0, int(n))
	for i := C.size_t(0); i < n; i++ {
		if p := C.air_pool_list_get(l, i); p != nil {
			out = append(out, poolFromC(p))
		}
	}
	return out, nil
}

// GetPool reads one pool (bare id or "provisioned-capacities/<id>").
func (c *Client) GetPool(ctx context.Context, poolID string) (*Pool, error) {
	h, err := c.enter(ctx)
	if err != nil {
		return nil, err
	}
	defer c.mu.RUnlock()
	id := cstr(poolID)
	defer free(id)
	var p *C.air_pool
	var e *C.air_error
	if err := check(C.air_client_get_pool(h, id, &p, &e), e); err != nil {
		C.air_pool_free(p)
		return nil, err
	}
	defer C.air_pool_free(p)
	pool := poolFromC(p)
	return &pool, nil
}
