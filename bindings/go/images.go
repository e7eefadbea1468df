package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

// ImagePushOptions describe an image push (`air images push`).
type ImagePushOptions struct {
	Source        string // local NAME[:TAG] or NAME@DIGEST (required)
	Catalog       string // required
	Schema        string // required
	Artifact      string // ARTIFACT[:TAG]; default from Source
	Profile       string
	RegistryHost  string
	Docker        string // docker program
	DatabricksCLI string // databricks program
	Pull          bool
}

// ImagePushResult names the pushed image.
type ImagePushResult struct {
	UCImage       string // "<catalog>.<schema>.<artifact>:<tag>"
	RegistryImage string // "<host>/<catalog>.<schema>.<artifact>:<tag>"
}

// PushImage validates the names, then tags and pushes the image with the docker CLI.
func PushImage(opts ImagePushOptions) (*ImagePushResult, error) {
	var o *C.air_image_push_options
	if err := check(C.air_image_push_options_new(&o), nil); err != nil {
		return nil, err
	}
	defer C.air_image_push_options_free(o)
	for _, kv := range []struct {
		opt int32
		v   string
	}{{ImageSource, opts.Source}, {ImageCatalog, opts.Catalog}, {ImageSchema, opts.Schema},
		{ImageArtifact, opts.Artifact}, {ImageProfile, opts.Profile},
		{ImageRegistryHost, opts.RegistryHost}, {ImageDocker, opts.Docker},
		{ImageDatabricksCLI, opts.DatabricksCLI}} {
		if kv.v == "" {
			continue
		}
		p := cstr(kv.v)
		err := check(C.air_image_push_options_set_str(o, C.int32_t(kv.opt), p), nil)
		free(p)
		if err != nil {
			return nil, err
		}
	}
	if opts.Pull {
		if err := check(C.air_image_push_options_set_int(o, C.int32_t(ImagePull), 1), nil); err != nil {
			return nil, err
		}
	}
	var uc, reg *C.char
	var e *C.air_error
	rc := C.air_image_push(o, &uc, &reg, &e)
	res := &ImagePushResult{UCImage: takeStr(uc), RegistryImage: takeStr(reg)}
	if err := check(rc, e); err != nil {
		return nil, err
	}
	return res, nil
}
