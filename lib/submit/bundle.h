/*
 * bundle.h: the pieces of air_config_write_bundle() (bundle.c) that
 * bundle_yaml.c provides: the job model written as YAML by libfyaml.
 */
#ifndef AIR_SUBMIT_BUNDLE_H
#define AIR_SUBMIT_BUNDLE_H

#include "submit/submit.h"

/* @model (objects, arrays, strings, integers, booleans) as block YAML, 2-space
 * indent, checked to read back as @model. *out: air__free(). AIR_EINVAL when
 * a string cannot be written (not UTF-8), AIR_EINTERNAL when the text would
 * not read back as the model. */
int air__bundle_yaml(const json_t *model, char **out, air_error **err);

#endif /* AIR_SUBMIT_BUNDLE_H */
