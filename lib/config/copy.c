/* copy.c: an independent copy of a config's effective document, to which a
 * sweep applies each variant's point. What came from the file keeps its
 * position, so that an error still points at the file's line. */
#include "config/config.h"

#include <stdint.h>
#include <string.h>

int air__config_copy(const air_config *src, air_config **out, air_error **err)
{
	air_config *cfg = air__calloc(1, sizeof(*cfg));
	size_t budget = SIZE_MAX;

	*out = NULL;
	if (!cfg || !(cfg->name = air__strdup(src->name)) ||
	    !(cfg->base_dir = air__strdup(src->base_dir)) ||
	    !(cfg->bytes = air__malloc(src->len + 1)) ||
	    (src->root && !(cfg->root = air__ynode_copy(&cfg->doc, src->root, &budget)))) {
		air_config_free(cfg);
		return air__oom(err);
	}
	if (src->len)
		memcpy(cfg->bytes, src->bytes, src->len);
	cfg->bytes[src->len] = '\0';
	cfg->len = src->len;
	*out = cfg;
	return AIR_OK;
}
