package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import (
	"context"
	"time"
)

// RegisterImageOptions tune RegisterImage; zero values are the defaults.
type RegisterImageOptions struct {
	// TagPolicy is "" or "latest"; both register the tag as it is now
	// (accepted for compatibility). Any other value is EINVAL.
	TagPolicy string
	// DockerConfigDir is the directory of config.json; default $DOCKER_CONFIG
	// (when the client reads the environment), else <home>/.docker.
	DockerConfigDir string
	// CredentialsScope and CredentialsKey (both or neither) name credentials
	// already stored in a secret scope, base64("user:password"), used
	// instead of the local Docker configuration.
	CredentialsScope string
	CredentialsKey   string
	Timeout          time.Duration // how long to wait for AVAILABLE; default 60 min
	PollInterval     time.Duration // between reads of the registration; default 5 s
	HelperTimeout    time.Duration // per run of a docker-credential-* helper; default 10 s
	NoDiscover       bool          // register anonymously: do not look for local Docker credentials
}

// ImageRegistration is the outcome of RegisterImage.
type ImageRegistration struct {
	URL              string // the normalised URL ("docker.io/library/ubuntu:22.04")
	ManifestSHA256   string // the image's digest as the workspace reports it, or ""
	Status           string // "AVAILABLE"
	ImageUpdated     bool   // this call changed the image the workspace runs (first registration or new digest)
	Cached           bool   // the workspace already had this very image
	CredentialsScope string // secret scope of the credentials used, or "" (anonymous)
	CredentialsKey   string // secret key of the credentials used, or "" (anonymous)
}

// RegisterImage registers a legacy container image (environment.docker_image)
// with the workspace and waits until the workspace has it AVAILABLE; opts
// may be nil. The URL is normalised first (docker.io/library/ for a bare
// name, ":latest" when untagged). Credentials of a private registry come
// from opts (a stored scope/key), else from the local Docker configuration
// (credHelpers, credsStore, auths); found ones are stored in the caller's
// secret scope "docker-credentials-<user>" and never appear in errors or
// traces.
//
// Errors: ETIMEOUT (kind TRANSIENT) when the image is still not AVAILABLE
// after Timeout; EAPI (kind PERMANENT) when the import FAILED, with the
// workspace's message; EPERMISSION when the registry or the secret scope
// refused access. When the context ends, a running credential helper is
// killed and the wait ends at once; the workspace keeps importing an image
// it has accepted.
func (c *Client) RegisterImage(ctx context.Context, url string, opts *RegisterImageOptions) (*ImageRegistration, error) {
	return withCall(c, ctx, registerImageOpts, func(o *C.air_register_image_options) error {
		return setRegisterOptions(o, opts)
	}, func(k *call, o *C.air_register_image_options) (*ImageRegistration, error) {
		u := cstr(url)
		defer free(u)
		var r *C.air_image_registration
		var e *C.air_error
		if err := k.result(C.air_client_register_image(k.h, u, o, &r, &e), e); err != nil {
			return nil, err
		}
		defer C.air_image_registration_free(r)
		return &ImageRegistration{
			URL:              gostr(C.air_image_registration_url(r)),
			ManifestSHA256:   gostr(C.air_image_registration_manifest_sha256(r)),
			Status:           gostr(C.air_image_registration_status(r)),
			ImageUpdated:     C.air_image_registration_image_updated(r) != 0,
			Cached:           C.air_image_registration_cached(r) != 0,
			CredentialsScope: gostr(C.air_image_registration_credentials_scope(r)),
			CredentialsKey:   gostr(C.air_image_registration_credentials_key(r)),
		}, nil
	})
}

// setRegisterOptions fills o from opts (which may be nil).
func setRegisterOptions(o *C.air_register_image_options, opts *RegisterImageOptions) error {
	if opts == nil {
		return nil
	}
	err := setStrOptions(func(opt C.int32_t, v *C.char) C.int {
		return C.air_register_image_options_set_str(o, opt, v)
	}, strOption{registerTagPolicy, opts.TagPolicy, "RegisterImageOptions.TagPolicy"},
		strOption{registerDockerConfigDir, opts.DockerConfigDir, "RegisterImageOptions.DockerConfigDir"},
		strOption{registerCredentialsScope, opts.CredentialsScope, "RegisterImageOptions.CredentialsScope"},
		strOption{registerCredentialsKey, opts.CredentialsKey, "RegisterImageOptions.CredentialsKey"})
	if err != nil {
		return err
	}
	for _, d := range []struct {
		opt  C.int32_t
		v    time.Duration
		name string
	}{{registerTimeoutMs, opts.Timeout, "Timeout"}, {registerPollIntervalMs, opts.PollInterval, "PollInterval"},
		{registerHelperTimeoutMs, opts.HelperTimeout, "HelperTimeout"}} {
		if d.v == 0 {
			continue
		}
		if err := check(C.air_register_image_options_set_int(o, d.opt, C.int64_t(millis(d.v))), nil); err != nil {
			return badOption(err, "RegisterImageOptions."+d.name)
		}
	}
	if opts.NoDiscover {
		return check(C.air_register_image_options_set_int(o, registerDiscover, 0), nil)
	}
	return nil
}
