package air

/*
#include <stdlib.h>
#include <air/air.h>
*/
import "C"

import "runtime"

// BundleOptions tune WriteBundle; zero values are the defaults.
type BundleOptions struct {
	// BaseDir is the directory relative code_source.root_path values
	// resolve against (default: the config's).
	BaseDir string
	// DefaultRuntime is the environment channel used when the YAML names no
	// environment.version ("CLIENT-GPU-6", "5", "databricks_ai_v6");
	// default: $DATABRICKS_DL_RUNTIME_IMAGE, else "6", as a submission.
	DefaultRuntime string
	// Force overwrites an existing databricks.yml and generated artifacts,
	// and removes sidecars the workload no longer has; without it an
	// existing file fails the call (ECONFLICT) before anything is written.
	Force bool
	// IgnoreEnvironment: do not read $DATABRICKS_DL_RUNTIME_IMAGE.
	IgnoreEnvironment bool
}

// Bundle is what WriteBundle wrote.
type Bundle struct {
	Dir     string   // the output directory, absolute
	JobKey  string   // the job's resource key: `databricks bundle run <JobKey>`
	Files   []string // files written, relative to Dir, in the order written
	Removed []string // stale generated artifacts removed (Force only), relative to Dir
}

// WriteBundle writes the validated workload as a Declarative Automation
// Bundle into outputDir ("" = the config's base directory; created when
// missing): databricks.yml, with one job whose task is the workload as a
// submission would send it, and generated_artifacts/ (training_config.yaml,
// command.sh and the sidecars). `databricks bundle deploy` and `bundle run`
// then run it as a persistent job. The workspace is not contacted; opts
// may be nil.
//
// Every check is made before the first file is written. Errors: ECONFIG
// (the config is not validated); EUNSUPPORTED (a field a bundle cannot
// express, named by Error.Field); ESNAPSHOT (the code source's root does
// not exist); EINVAL (that root lies outside outputDir: bundle deploy
// uploads only files under the bundle root); ECONFLICT (a file exists and
// Force is false; the message names it); EIO.
func (c *Config) WriteBundle(outputDir string, opts *BundleOptions) (*Bundle, error) {
	if c.h == nil {
		return nil, closedError("Config")
	}
	var o *C.air_bundle_options
	if err := check(C.air_bundle_options_new(&o), nil); err != nil {
		return nil, err
	}
	defer C.air_bundle_options_free(o)
	if opts != nil {
		if err := setBundleOptions(o, opts); err != nil {
			return nil, err
		}
	}
	dir := cstrOpt(outputDir)
	defer free(dir)
	var b *C.air_bundle
	var e *C.air_error
	rc := C.air_config_write_bundle(c.h, dir, o, &b, &e)
	runtime.KeepAlive(c)
	if err := check(rc, e); err != nil {
		return nil, err
	}
	defer C.air_bundle_free(b)
	out := &Bundle{Dir: gostr(C.air_bundle_dir(b)), JobKey: gostr(C.air_bundle_job_key(b))}
	for i, n := C.size_t(0), C.air_bundle_file_count(b); i < n; i++ {
		out.Files = append(out.Files, gostr(C.air_bundle_file(b, i)))
	}
	for i, n := C.size_t(0), C.air_bundle_removed_count(b); i < n; i++ {
		out.Removed = append(out.Removed, gostr(C.air_bundle_removed(b, i)))
	}
	return out, nil
}

func setBundleOptions(o *C.air_bundle_options, opts *BundleOptions) error {
	err := setStrOptions(func(opt C.int32_t, v *C.char) C.int {
		return C.air_bundle_options_set_str(o, opt, v)
	}, strOption{bundleBaseDir, opts.BaseDir, "BundleOptions.BaseDir"},
		strOption{bundleDefaultRuntime, opts.DefaultRuntime, "BundleOptions.DefaultRuntime"})
	if err != nil {
		return err
	}
	if opts.Force {
		if err := check(C.air_bundle_options_set_int(o, bundleForce, 1), nil); err != nil {
			return err
		}
	}
	if opts.IgnoreEnvironment {
		return check(C.air_bundle_options_set_int(o, bundleUseEnvironment, 0), nil)
	}
	return nil
}
