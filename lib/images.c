/* images.c: placeholder implementation of images.h; every call reports AIR_EUNSUPPORTED. */
#include "internal.h"

int air_image_push_options_new(air_image_push_options **out)
{
	return AIR_EUNSUPPORTED;
}

void air_image_push_options_free(air_image_push_options *opts)
{
}

int air_image_push_options_set_str(air_image_push_options *opts, int32_t opt, const char *value)
{
	return AIR_EUNSUPPORTED;
}

int air_image_push_options_set_int(air_image_push_options *opts, int32_t opt, int64_t value)
{
	return AIR_EUNSUPPORTED;
}

int air_image_push(const air_image_push_options *opts, char **uc_image, char **registry_image, air_error **err)
{
	return AIR_EUNSUPPORTED;
}
