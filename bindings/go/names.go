package air

/*
#include <air/air.h>
*/
import "C"

import (
	"fmt"
	"strings"
)

// The names of the enums: libair names states and phases, a grant is named
// by its key in the workload YAML, and the String methods of the other
// enums (constants.go, generated from the headers) use enumName and
// flagNames.

// String is the state as libair names it ("RUNNING", "SUCCESS", "OTHER").
func (s State) String() string {
	if p := C.air_state_name(C.int32_t(s)); p != nil {
		return C.GoString(p)
	}
	return fmt.Sprintf("State(%d)", int32(s))
}

// IsTerminal reports whether a run in this state has finished (TERMINATED
// and every result; StateOther excluded).
func (s State) IsTerminal() bool { return C.air_state_is_terminal(C.int32_t(s)) != 0 }

// String is the phase as libair names it ("PREFLIGHT").
func (p Phase) String() string {
	if n := C.air_phase_name(C.int32_t(p)); n != nil {
		return C.GoString(n)
	}
	return fmt.Sprintf("Phase(%d)", int32(p))
}

// String is the key of the grant in the workload YAML ("user_name").
func (p Principal) String() string {
	switch p {
	case PrincipalUser:
		return "user_name"
	case PrincipalGroup:
		return "group_name"
	case PrincipalServicePrincipal:
		return "service_principal_name"
	}
	return fmt.Sprintf("Principal(%d)", int32(p))
}

// enumName is the C name of value v of the enum whose values' names start
// with prefix, without it ("HOST"), or "typ(v)" for a value this package
// does not know (a newer library). The String methods of constants.go use it.
func enumName(v int64, typ, prefix string) string {
	for _, c := range constants {
		if c.value == v && strings.HasPrefix(c.name, prefix) {
			return c.name[len(prefix):]
		}
	}
	return fmt.Sprintf("%s(%d)", typ, v)
}

// flagNames lists the bits set in v by their C names without prefix
// ("HTTPS|OAUTH"), unknown bits in hex; "" for none.
func flagNames(v uint64, prefix string) string {
	var parts []string
	for _, c := range constants {
		if bit := uint64(c.value); strings.HasPrefix(c.name, prefix) && v&bit != 0 {
			parts = append(parts, c.name[len(prefix):])
			v &^= bit
		}
	}
	if v != 0 {
		parts = append(parts, fmt.Sprintf("%#x", v))
	}
	return strings.Join(parts, "|")
}
