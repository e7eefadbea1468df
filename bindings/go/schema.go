package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

// Field describes one field of the workload YAML schema, for help texts
// (`air run -h config.compute`). It works offline.
type Field struct {
	Name         string    // "accelerator_type"; "config" for the root
	Kind         FieldKind // what the value is
	Type         string    // as the documentation shows it ("string", "list of string")
	Required     bool      // must always be set (see RequiredWhen)
	RequiredWhen string    // "yes", "no", or the condition under which it is required
	Default      string    // the value used when unset, as YAML text, or ""
	HasDefault   bool      // Default is meaningful (a default may be "")
	Description  string    // what the field means, in sentences
	Children     []*Field  // fixed children (objects and object lists), in documentation order
}

func fieldFromC(f *C.air_field) *Field {
	def := C.air_field_default(f)
	out := &Field{
		Name:         gostr(C.air_field_name(f)),
		Kind:         FieldKind(C.air_field_kind(f)),
		Type:         gostr(C.air_field_type(f)),
		Required:     C.air_field_required(f) != 0,
		RequiredWhen: gostr(C.air_field_required_when(f)),
		Default:      gostr(def),
		HasDefault:   def != nil,
		Description:  gostr(C.air_field_description(f)),
	}
	n := C.air_field_child_count(f)
	for i := C.size_t(0); i < n; i++ {
		if ch := C.air_field_child(f, i); ch != nil {
			out.Children = append(out.Children, fieldFromC(ch))
		}
	}
	return out
}

// SchemaRoot is the root field ("config"): the whole workload document.
func SchemaRoot() *Field { return fieldFromC(C.air_schema_root()) }

// LookupField is the schema field at path ("compute", "compute.pool_id"; a
// leading "config." is optional). An unknown path is an ECONFIG *Error
// whose Field is the path and whose Suggestion is the closest valid name.
func LookupField(path string) (*Field, error) {
	p := cstr(path)
	defer free(p)
	var f *C.air_field
	var e *C.air_error
	if err := check(C.air_schema_lookup(p, &f, &e), e); err != nil {
		return nil, err
	}
	return fieldFromC(f), nil
}
