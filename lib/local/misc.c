/*
 * misc.c: what a local workspace says about the platform features it does
 * not have: usage policies (any name is accepted, and means nothing here),
 * GPU pools (there are none), the accelerator types (every built-in one:
 * the workload runs on this machine whatever it asks for), and legacy
 * registered images (reported available: commands run in the local
 * environment, not in an image).
 */
#include "local/endpoints.h"

#include <string.h>

int air__lmisc_policies(air__lcall *c)
{
	char *name = air__lquery(c, "filter_by.policy_name");
	json_t *list = json_array();
	int rc;

	if (name && *name)
		json_array_append_new(list, json_pack("{s:s, s:s}", "policy_id", "local",
		                                      "policy_name", name));
	rc = air__lreply_json(c, 200, json_pack("{s:o}", "policies", list));
	air__free(name);
	return rc;
}

int air__lmisc_pools(air__lcall *c, const char *id)
{
	if (id)
		return air__lreply_not_found(c, "GPU pool %s does not exist: a local workspace has no "
		                             "GPU pools", id);
	return air__lreply_json(c, 200, json_pack("{s:[]}", "provisioned_capacities"));
}

int air__lmisc_compute_options(air__lcall *c)
{
	const char *list = air__accelerator_list();
	json_t *opts = json_array();

	for (const char *p = list; opts && p && *p;) {
		const char *end = strchr(p, ',');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		json_t *s = json_stringn(p, n);

		json_array_append_new(opts, json_pack("{s:o}", "hardware_accelerator", s));
		p = end ? end + 2 : NULL;
	}
	return air__lreply_json(c, 200, json_pack("{s:o}", "compute_options", opts));
}

int air__lmisc_image(air__lcall *c, bool create)
{
	char *url = NULL;
	json_t *body = NULL, *img;
	int rc = AIR_OK;

	if (create && !(body = air__lbody_json(c, &rc)))
		return rc;
	if (!create)
		url = air__lquery(c, "docker_image_url");
	img = json_pack("{s:s, s:s, s:s, s:s, s:b}", "docker_image_url",
	                create ? (air__json_str(body, "docker_image_url") ? air__json_str(body, "docker_image_url") : "")
	                       : (url ? url : ""),
	                "state", "AVAILABLE", "status_message",
	                "a local workspace runs commands on this machine; the image is not used",
	                "manifest_sha256", "", "publicly_accessible", 1);
	rc = air__lreply_json(c, 200, create && img ? json_pack("{s:o}", "image", img) : img);
	json_decref(body);
	air__free(url);
	return rc;
}
