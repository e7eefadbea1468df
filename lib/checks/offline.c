/*
 * offline.c: the checks that need no request. Reproducibility: a pinned
 * environment, pinned dependencies, a custom image used alone. Resource
 * sanity: the accelerator count against the type's GPUs per node, and a
 * multi-node command that uses the rendezvous variables. Each says only
 * what the configuration says; where the workload's environment section is
 * not used (a local workspace), environment_pinned is skipped with the
 * reason and the section's other checks are left out.
 */
#include "checks/checks.h"

#include <ctype.h>
#include <string.h>

#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* The tag of an image reference ("latest" when it has none), or NULL when a
 * digest pins it. */
static const char *image_tag(const char *ref)
{
	const char *slash = strrchr(ref, '/'), *colon;

	if (strchr(ref, '@'))
		return NULL;
	colon = strrchr(slash ? slash : ref, ':');
	return colon ? colon + 1 : "latest";
}

int air__check_environment(air__checker *k)
{
	const air__workload *w = &k->w;
	const char *runtime, *tag, *unused = air__client_runs_environment(k->c);

	if (unused)
		return air__check_add(k, "environment_pinned", AIR_CHECK_SKIPPED, "environment", "%s",
		                      unused);
	if (w->uc_image) {
		tag = image_tag(w->uc_image);
		if (tag && !strcmp(tag, "latest"))
			return air__check_add(k, "environment_pinned", AIR_CHECK_WARN,
			                      "environment.unity_catalog_image", "image %s: the tag latest "
			                      "follows every push; a tag of its own pins the environment",
			                      w->uc_image);
		return air__check_add(k, "environment_pinned", AIR_CHECK_PASS,
		                      "environment.unity_catalog_image",
		                      "the environment is the image %s", w->uc_image);
	}
	if (w->docker_image_url) {
		char *url = air__docker_image_normalize(w->docker_image_url);
		int rc;

		if (!url)
			return air__oom(k->err);
		tag = image_tag(url);
		if (w->docker_tag_policy && !strcmp(w->docker_tag_policy, "latest"))
			rc = air__check_add(k, "environment_pinned", AIR_CHECK_WARN,
			                    "environment.docker_image.tag_policy", "tag_policy latest "
			                    "registers %s again at every submission: the environment is "
			                    "whatever the tag holds then", url);
		else if (tag && !strcmp(tag, "latest"))
			rc = air__check_add(k, "environment_pinned", AIR_CHECK_WARN,
			                    "environment.docker_image.url", "image %s: the tag latest "
			                    "follows every push; a tag of its own or a digest pins the "
			                    "environment", url);
		else
			rc = air__check_add(k, "environment_pinned", AIR_CHECK_PASS,
			                    "environment.docker_image.url",
			                    "the environment is the image %s", url);
		air__free(url);
		return rc;
	}
	if (w->environment_version)
		return air__check_add(k, "environment_pinned", AIR_CHECK_PASS, "environment.version",
		                      "pinned to environment version %s", w->environment_version);
	runtime = air__client_default_runtime(k->c);
	return air__check_add(k, "environment_pinned", AIR_CHECK_WARN, "environment.version",
	                      "environment.version is not set: the run gets the default "
	                      "environment (%s now), which a newer release or "
	                      "DATABRICKS_DL_RUNTIME_IMAGE changes; set it to pin the environment",
	                      runtime ? runtime : AIR__DEFAULT_RUNTIME);
}

/* The requirement @s with leading white space skipped, its -e/--editable
 * option removed; NULL for the other pip options (not packages). */
static const char *requirement_text(const char *s)
{
	s += strspn(s, " \t");
	if (*s != '-')
		return s;
	if (!strncmp(s, "-e", 2) || !strncmp(s, "--editable", 10)) {
		s += s[1] == 'e' ? 2 : 10;
		return s + strspn(s, " \t=");
	}
	return NULL;
}

/* A 40-hex commit after an '@' of a VCS reference. */
static bool has_commit(const char *ref)
{
	for (const char *at = strchr(ref, '@'); at; at = strchr(at + 1, '@')) {
		size_t n = strspn(at + 1, "0123456789abcdef");
		if (n == 40 && !isalnum((unsigned char)at[41]))
			return true;
	}
	return false;
}

bool air__requirement_pinned(const char *req, char **name)
{
	const char *s = requirement_text(req), *spec, *marker;
	bool direct;
	size_t n, name_len;

	if (name)
		*name = NULL;
	if (!s || !*s)
		return false;
	marker = strchr(s, ';'); /* environment markers are not part of the version */
	n = marker ? (size_t)(marker - s) : strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	/* A direct reference ("name @ url"), or a URL or a path alone. */
	direct = strstr(s, "://") || strstr(s, " @ ") || *s == '/' || *s == '.';
	name_len = strspn(s, NAME_CHARS);
	if (name && !(*name = air__strndup(s, direct && !strstr(s, " @ ") ? n : name_len)))
		return false;
	if (strstr(s, "--hash="))
		return true;
	if (direct)
		return strstr(s, "#sha256=") || has_commit(s) || (n >= 4 && !strncmp(s + n - 4, ".whl", 4));
	spec = s + name_len;
	if (*spec == '[') /* extras */
		spec += strcspn(spec, "]") + (spec[strcspn(spec, "]")] == ']');
	spec += strspn(spec, " \t");
	if ((size_t)(spec - s) >= n || strncmp(spec, "==", 2) != 0)
		return false;
	/* One exact version: no wildcard, no second clause. */
	n -= (size_t)(spec - s);
	return !memchr(spec, '*', n) && !memchr(spec, ',', n);
}

int air__check_dependencies(air__checker *k)
{
	const air__workload *w = &k->w;
	const char *unused = air__client_runs_environment(k->c);
	size_t pinned = 0, packages = 0;
	int rc = AIR_OK;

	if (unused) /* environment_pinned says why */
		return AIR_OK;
	for (size_t i = 0; rc == AIR_OK && i < w->n_dependencies; i++) {
		const char *text = requirement_text(w->dependencies[i]);
		char *name = NULL, field[64];

		if (!text || !*text)
			continue; /* a pip option (an index URL, a -r file), not a package */
		packages++;
		if (air__requirement_pinned(w->dependencies[i], &name)) {
			pinned++;
		} else if (!name) {
			rc = air__oom(k->err);
		} else {
			snprintf(field, sizeof(field), "environment.dependencies[%zu]", i);
			rc = air__check_add(k, "dependencies_pinned", AIR_CHECK_WARN, field,
			                    "%s is not pinned: \"%s\" installs whatever version is newest "
			                    "then; pin it with == or a pip --hash", name, w->dependencies[i]);
		}
		air__free(name);
	}
	if (rc == AIR_OK && packages && pinned == packages)
		rc = air__check_add(k, "dependencies_pinned", AIR_CHECK_PASS, "environment.dependencies",
		                    "every dependency is pinned (%zu)", packages);
	return rc;
}

int air__check_image_exclusive(air__checker *k)
{
	const char *image = k->w.uc_image ? k->w.uc_image : k->w.docker_image_url;
	const char *unused = air__client_runs_environment(k->c);

	/* The configuration's own rules refuse the mix; a custom image is
	 * reported as used alone. */
	if (!image || unused) /* without an image, or where images are not used */
		return AIR_OK;
	return air__check_add(k, "image_exclusive", AIR_CHECK_PASS, "environment",
	                      "the image %s is used alone: no environment.version, no dependencies",
	                      image);
}

int air__check_num_accelerators(air__checker *k)
{
	const air__workload *w = &k->w;
	int32_t per_node = air_accelerator_gpus_per_node(w->accelerator_type);

	/* Validation enforces the multiple: reported here for the whole picture. */
	if (per_node <= 0 || w->num_accelerators % per_node != 0)
		return air__check_add(k, "num_accelerators", AIR_CHECK_FAIL, "compute.num_accelerators",
		                      "%lld is not a multiple of the %d GPUs per node of %s",
		                      (long long)w->num_accelerators, (int)per_node, w->accelerator_type);
	return air__check_add(k, "num_accelerators", AIR_CHECK_PASS, "compute.num_accelerators",
	                      "%lld GPU%s: %lld node%s of %s (%d GPU%s per node)",
	                      (long long)w->num_accelerators, w->num_accelerators == 1 ? "" : "s",
	                      (long long)(w->num_accelerators / per_node),
	                      w->num_accelerators / per_node == 1 ? "" : "s", w->accelerator_type,
	                      (int)per_node, per_node == 1 ? "" : "s");
}

bool air__command_rendezvous(const char *command, const char **found)
{
	static const char *const words[] = {
		"MASTER_ADDR", "MASTER_PORT", "NODE_RANK", "NUM_NODES", "--nnodes", "--num_nodes",
		"--num-nodes", "--num_machines", "--num-machines", "--machine_rank", "--node_rank",
	};

	for (size_t i = 0; command && i < AIR__ARRAY_SIZE(words); i++)
		if (strstr(command, words[i])) {
			if (found)
				*found = words[i];
			return true;
		}
	return false;
}

int air__check_rendezvous(air__checker *k)
{
	int64_t nodes = air_config_num_nodes(k->cfg);
	const char *found = NULL;

	if (nodes <= 1)
		return AIR_OK;
	if (air__command_rendezvous(k->w.command, &found))
		return air__check_add(k, "rendezvous", AIR_CHECK_PASS, "command",
		                      "the command of this %lld-node workload uses %s",
		                      (long long)nodes, found);
	return air__check_add(k, "rendezvous", AIR_CHECK_WARN, "command",
	                      "the workload runs on %lld nodes, but its command uses none of the "
	                      "rendezvous variables (MASTER_ADDR, MASTER_PORT, NODE_RANK, NUM_NODES) "
	                      "nor a launcher's node count (the nnodes of torchrun): each node "
	                      "would train on its own", (long long)nodes);
}
