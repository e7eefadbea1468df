/*
 * bundle.h: the pieces of air_config_write_bundle() (bundle.c): the job
 * model written as YAML by libfyaml (bundle_yaml.c) and the files put in
 * place (bundle_write.c).
 */
#ifndef AIR_SUBMIT_BUNDLE_H
#define AIR_SUBMIT_BUNDLE_H

#include "submit/submit.h"

#include <sys/types.h>

#define ARTIFACTS_DIR "generated_artifacts"
#define BUNDLE_FILE "databricks.yml"

/* One file of a bundle. */
typedef struct air__bundle_file {
	char *rel;        /* BUNDLE_FILE, or ARTIFACTS_DIR "/<artifact name>" */
	const char *data;
	size_t len;
	mode_t mode;
} air__bundle_file;

/*
 * Replace the bundle in @dir (absolute, symlinks resolved, created when
 * missing) with @files (bundle_write.c): databricks.yml and
 * generated_artifacts/ become the new ones together, or stay the old ones
 * (a failure, an interrupt of @ctx). The user's entries of the old
 * generated_artifacts/ are kept; generated artifacts the new bundle lacks
 * are removed: bit i of *@removed for air__artifact_names[i].
 * Without @force an existing databricks.yml or generated artifact is
 * AIR_ECONFLICT naming it. databricks.yml or generated_artifacts as a
 * symbolic link is followed only when it resolves inside @dir: AIR_EINVAL
 * naming the link otherwise. All checks come before any change; AIR_EIO.
 */
int air__bundle_put(const char *dir, const air__bundle_file *files, size_t n, bool force,
                    const air__ctx *ctx, unsigned *removed, air_error **err);

/* @model (objects, arrays, strings, integers, booleans) as block YAML, 2-space
 * indent, checked to read back as @model. *out: air__free(). AIR_EINVAL when
 * a string cannot be written (not UTF-8), AIR_EINTERNAL when the text would
 * not read back as the model. */
int air__bundle_yaml(const json_t *model, char **out, air_error **err);

#endif /* AIR_SUBMIT_BUNDLE_H */
