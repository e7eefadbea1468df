package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import (
	"context"
	"strings"
)

// Pool is a provisioned GPU pool (a value for compute.pool_id).
type Pool struct {
	ID                   string // the bare pool id
	AcceleratorType      string
	ReservedAccelerators int64
	UsedAccelerators     int64 // -1 when the workspace does not report usage
	IdleAccelerators     int64 // -1 when the workspace does not report usage
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

// ListPools lists the workspace's GPU pools (EDISABLED when the workspace
// has not enabled them).
func (c *Client) ListPools(ctx context.Context) ([]Pool, error) {
	return withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) ([]Pool, error) {
		var l *C.air_pool_list
		var e *C.air_error
		if err := k.result(C.air_client_list_pools(k.h, o, &l, &e), e); err != nil {
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
	})
}

// GetPool reads one pool; poolID is the bare id or "provisioned-capacities/<id>".
func (c *Client) GetPool(ctx context.Context, poolID string) (*Pool, error) {
	return withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) (*Pool, error) {
		id := cstr(poolID)
		defer free(id)
		var p *C.air_pool
		var e *C.air_error
		if err := k.result(C.air_client_get_pool(k.h, id, o, &p, &e), e); err != nil {
			return nil, err
		}
		defer C.air_pool_free(p)
		pool := poolFromC(p)
		return &pool, nil
	})
}

// AcceleratorTypes lists the accelerator types the workspace offers (its
// compute options), in the workspace's order, types libair does not know
// included (EDISABLED when the workspace has not enabled the list,
// ENOTFOUND when it has none). Since libair 1.2.
func (c *Client) AcceleratorTypes(ctx context.Context) ([]string, error) {
	return withCall(c, ctx, callOpts, nil, func(k *call, o *C.air_call_options) ([]string, error) {
		var list *C.char
		var e *C.air_error
		if err := k.result(C.air_client_list_accelerator_types(k.h, o, &list, &e), e); err != nil {
			return nil, err
		}
		s := takeStr(list)
		if s == "" {
			return []string{}, nil
		}
		return strings.Split(s, ","), nil
	})
}
