package air

/*
#include <air/air.h>
*/
import "C"

import "fmt"

// The names of the enums whose String is not their C name: libair names
// states and phases, and a grant is named by its key in the workload YAML.
// The other enums get theirs in constants.go, generated from the headers.

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
