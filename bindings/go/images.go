package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import "context"

// ImagePushOptions describe an image push. Source, Catalog and Schema are required.
type ImagePushOptions struct {
	Source        string // local image NAME[:TAG] or NAME@DIGEST
	Catalog       string // destination catalog
	Schema        string // destination schema
	Artifact      string // ARTIFACT[:TAG]; default: the source's last component and tag
	RegistryHost  string // registry host; skips `databricks auth docker configure`
	Docker        string // docker program; default "docker" on PATH
	DatabricksCLI string // databricks program; default "databricks" on PATH
	Pull          bool   // pull linux/amd64 even when the image exists locally
}

// ImagePushResult names the pushed image.
type ImagePushResult struct {
	UCImage       string // "<catalog>.<schema>.<artifact>:<tag>", for environment.unity_catalog_image
	RegistryImage string // "<host>/<catalog>.<schema>.<artifact>:<tag>"
}

// PushImage validates the names, then tags and pushes a local container
// image to the workspace's artifact registry with the docker command. The
// client's configuration must come from a profile with an OAuth login
// unless RegistryHost is given. When the context ends, the running docker
// command is killed.
func (c *Client) PushImage(ctx context.Context, opts *ImagePushOptions) (*ImagePushResult, error) {
	if opts == nil {
		return nil, invalid("PushImage: options are required")
	}
	k, err := c.begin(ctx)
	if err != nil {
		return nil, err
	}
	defer k.end()
	var o *C.air_image_push_options
	if err := check(C.air_image_push_options_new(&o), nil); err != nil {
		return nil, err
	}
	defer C.air_image_push_options_free(o)
	if err := k.apply(
		func(i *C.air_interrupt) C.int { return C.air_image_push_options_set_interrupt(o, i) },
		func(ms C.int64_t) C.int { return C.air_image_push_options_set_deadline_ms(o, ms) }); err != nil {
		return nil, err
	}
	for _, s := range []struct {
		opt C.int32_t
		v   string
	}{{imageSource, opts.Source}, {imageCatalog, opts.Catalog}, {imageSchema, opts.Schema},
		{imageArtifact, opts.Artifact}, {imageRegistryHost, opts.RegistryHost},
		{imageDocker, opts.Docker}, {imageDatabricksCLI, opts.DatabricksCLI}} {
		if s.v == "" {
			continue
		}
		p := cstr(s.v)
		err := check(C.air_image_push_options_set_str(o, s.opt, p), nil)
		free(p)
		if err != nil {
			return nil, err
		}
	}
	if opts.Pull {
		if err := check(C.air_image_push_options_set_int(o, imagePull, 1), nil); err != nil {
			return nil, err
		}
	}
	var uc, reg *C.char
	var e *C.air_error
	rc := C.air_client_push_image(k.h, o, &uc, &reg, &e)
	res := &ImagePushResult{UCImage: takeStr(uc), RegistryImage: takeStr(reg)}
	if err := k.result(rc, e); err != nil {
		return nil, err
	}
	return res, nil
}
