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
	return withCall(c, ctx, imagePushOpts, func(o *C.air_image_push_options) error {
		return setImagePushOptions(o, opts)
	}, func(k *call, o *C.air_image_push_options) (*ImagePushResult, error) {
		var uc, reg *C.char
		var e *C.air_error
		rc := C.air_client_push_image(k.h, o, &uc, &reg, &e)
		res := &ImagePushResult{UCImage: takeStr(uc), RegistryImage: takeStr(reg)}
		if err := k.result(rc, e); err != nil {
			return nil, err
		}
		return res, nil
	})
}

func setImagePushOptions(o *C.air_image_push_options, opts *ImagePushOptions) error {
	err := setStrOptions(func(opt C.int32_t, v *C.char) C.int {
		return C.air_image_push_options_set_str(o, opt, v)
	}, strOption{imageSource, opts.Source, ""}, strOption{imageCatalog, opts.Catalog, ""},
		strOption{imageSchema, opts.Schema, ""}, strOption{imageArtifact, opts.Artifact, ""},
		strOption{imageRegistryHost, opts.RegistryHost, ""}, strOption{imageDocker, opts.Docker, ""},
		strOption{imageDatabricksCLI, opts.DatabricksCLI, ""})
	if err != nil {
		return err
	}
	if opts.Pull {
		return check(C.air_image_push_options_set_int(o, imagePull, 1), nil)
	}
	return nil
}
