/* config.c: life cycle of an air_config: read, parse, validate, serialise. */
#include "config/config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int too_big(const char *name, size_t len, air_error **err)
{
	return air__cfg_fail(err, name, NULL, NULL,
	                     "the config is %s%zu bytes; the limit is %d bytes (1 MiB)",
	                     len > AIR_CONFIG_MAX_BYTES ? "at least " : "", len,
	                     AIR_CONFIG_MAX_BYTES);
}

/* Read at most AIR_CONFIG_MAX_BYTES + 1 bytes: a bigger file is refused
 * before parsing, even when it is a pipe whose size is unknown. */
static int read_file(const char *path, char **data, size_t *len, air_error **err)
{
	struct stat st;
	size_t cap = AIR_CONFIG_MAX_BYTES + 1, n = 0;
	char *buf = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = AIR_OK;

	if (fd < 0)
		return air__failf(err, AIR_EIO, 0, "cannot read %s: %s", path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		rc = air__failf(err, AIR_EIO, 0, "cannot read %s: it is a directory", path);
		goto out;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > AIR_CONFIG_MAX_BYTES) {
		rc = too_big(path, (size_t)st.st_size, err);
		goto out;
	}
	if (!(buf = air__malloc(cap + 1))) {
		rc = air__failf(err, AIR_ENOMEM, 0, "out of memory reading %s", path);
		goto out;
	}
	while (n < cap) {
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = air__failf(err, AIR_EIO, 0, "cannot read %s: %s", path, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (n > AIR_CONFIG_MAX_BYTES) {
		rc = too_big(path, n, err);
		goto out;
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	buf = NULL;
out:
	air__free(buf);
	close(fd);
	return rc;
}

/* Lexical directory part: "a/b.yaml" -> "a", "b.yaml" -> ".", "/b.yaml" -> "/". */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return air__strdup(".");
	while (slash > path && slash[-1] == '/')
		slash--;
	return slash == path ? air__strdup("/") : air__strndup(path, (size_t)(slash - path));
}

static int parse(air_config *cfg, air_error **err)
{
	air__ynode *root = NULL;
	char what[48];
	int rc;

	if (cfg->len > AIR_CONFIG_MAX_BYTES)
		return too_big(cfg->name, cfg->len, err);
	if ((rc = air__yaml_parse(&cfg->doc, cfg->bytes, cfg->len, cfg->name, true, &root, err)))
		return rc;
	if (root && root->kind != AIR__Y_MAP && !air__ynode_is_null(root)) {
		air__ynode_describe(root, what, sizeof(what));
		return air__cfg_fail(err, cfg->name, root, NULL,
		                     "the top level must be a mapping of fields (key: value), got %s",
		                     what);
	}
	cfg->root = root && root->kind == AIR__Y_MAP ? root : NULL; /* a null document is empty */
	return AIR_OK;
}

/* Takes ownership of @data. */
static int make(char *data, size_t len, const char *name, char *base_dir, air_config **out,
                air_error **err)
{
	air_config *cfg = air__calloc(1, sizeof(*cfg));
	int rc;

	if (!cfg || !(cfg->name = air__strdup(name))) {
		air__free(cfg);
		air__free(data);
		air__free(base_dir);
		return air__oom(err);
	}
	cfg->bytes = data;
	cfg->len = len;
	cfg->base_dir = base_dir;
	if (!base_dir) {
		air_config_free(cfg);
		return air__oom(err);
	}
	if ((rc = parse(cfg, err)) != AIR_OK) {
		air_config_free(cfg);
		return rc;
	}
	*out = cfg;
	return AIR_OK;
}

int air_config_parse_file(const char *path, air_config **out, air_error **err)
{
	char *data = NULL;
	size_t len = 0;
	int rc;

	if (out)
		*out = NULL;
	if (!out || !path)
		return air__failf(err, AIR_EINVAL, 0, "air_config_parse_file: %s is NULL",
		                  out ? "path" : "out");
	if ((rc = read_file(path, &data, &len, err)) != AIR_OK)
		return rc;
	return make(data, len, path, dir_of(path), out, err);
}

int air_config_parse_buffer(const char *data, size_t len, const char *name,
                            const char *base_dir, air_config **out, air_error **err)
{
	char *copy;

	if (out)
		*out = NULL;
	if (!out || (!data && len))
		return air__failf(err, AIR_EINVAL, 0, "air_config_parse_buffer: %s is NULL",
		                  out ? "data" : "out");
	name = name ? name : "<memory>";
	if (len > AIR_CONFIG_MAX_BYTES)
		return too_big(name, len, err);
	if (!(copy = air__malloc(len + 1)))
		return air__oom(err);
	if (len)
		memcpy(copy, data, len);
	copy[len] = '\0';
	return make(copy, len, name, air__strdup(base_dir ? base_dir : "."), out, err);
}

static int load(int rc, air_config **out, air_error **err)
{
	if (rc == AIR_OK && (rc = air_config_validate(*out, err)) != AIR_OK) {
		air_config_free(*out);
		*out = NULL;
	}
	return rc;
}

int air_config_load_file(const char *path, air_config **out, air_error **err)
{
	return load(air_config_parse_file(path, out, err), out, err);
}

int air_config_load_buffer(const char *data, size_t len, const char *name,
                           const char *base_dir, air_config **out, air_error **err)
{
	return load(air_config_parse_buffer(data, len, name, base_dir, out, err), out, err);
}

int air_config_validate(air_config *cfg, air_error **err)
{
	air__cfg_model m;
	int rc;

	if (!cfg)
		return air__failf(err, AIR_EINVAL, 0, "air_config_validate: cfg is NULL");
	cfg->valid = false;
	air__arena_dispose(&cfg->vals);
	memset(&cfg->v, 0, sizeof(cfg->v));
	if (!cfg->root)
		return air__cfg_fail(err, cfg->name, NULL, NULL, "config is empty");
	if ((rc = air__cfg_decode(cfg, &m, err)) || (rc = air__cfg_rules(cfg, &m, err)))
		return rc;
	if ((rc = air__cfg_publish(cfg, &m)) != AIR_OK)
		return air__failf(err, rc, 0, "out of memory validating %s", cfg->name);
	cfg->valid = true;
	return AIR_OK;
}

int32_t air_config_is_valid(const air_config *cfg)
{
	return cfg && cfg->valid;
}

void air_config_free(air_config *cfg)
{
	if (!cfg)
		return;
	air__arena_dispose(&cfg->doc);
	air__arena_dispose(&cfg->vals);
	air__free(cfg->changes);
	air__free(cfg->name);
	air__free(cfg->base_dir);
	air__free(cfg->bytes);
	air__free(cfg);
}

/* ---- serialisation ---------------------------------------------------- */

static int emit(const air__ynode *n, bool yaml, bool sorted, char **out, air_error **err)
{
	air__buf b = AIR__BUF_INIT;

	if (!n)
		air__buf_puts(&b, yaml ? "{}\n" : "{}");
	else if (yaml)
		air__yemit_block(&b, n, sorted);
	else
		air__yemit_json(&b, n);
	if (air__buf_oom(&b) || !(*out = air__buf_detach(&b))) {
		air__buf_dispose(&b);
		return air__oom(err);
	}
	return AIR_OK;
}

static int check_out(const air_config *cfg, char **out, const char *fn, bool need_valid,
                     air_error **err)
{
	if (out)
		*out = NULL;
	if (!cfg || !out)
		return air__failf(err, AIR_EINVAL, 0, "%s: %s is NULL", fn, cfg ? "out" : "cfg");
	if (need_valid && !cfg->valid)
		return air__failf(err, AIR_EINVAL, 0,
		                  "%s: the config has not been validated since its last change", fn);
	return AIR_OK;
}

int air_config_to_yaml(const air_config *cfg, char **out, air_error **err)
{
	int rc = check_out(cfg, out, "air_config_to_yaml", false, err);

	return rc ? rc : emit(cfg->root, true, false, out, err);
}

int air_config_to_json(const air_config *cfg, char **out, air_error **err)
{
	int rc = check_out(cfg, out, "air_config_to_json", false, err);

	return rc ? rc : emit(cfg->root, false, false, out, err);
}

int air_config_parameters_yaml(const air_config *cfg, char **out, air_error **err)
{
	int rc = check_out(cfg, out, "air_config_parameters_yaml", true, err);

	return rc ? rc : emit(cfg->v.parameters, true, true, out, err);
}

int air_config_parameters_json(const air_config *cfg, char **out, air_error **err)
{
	int rc = check_out(cfg, out, "air_config_parameters_json", true, err);

	return rc ? rc : emit(cfg->v.parameters, false, false, out, err);
}

const char *air_config_source_name(const air_config *cfg)
{
	return cfg ? cfg->name : NULL;
}

const char *air_config_base_dir(const air_config *cfg)
{
	return cfg ? cfg->base_dir : NULL;
}

const char *air_config_source_bytes(const air_config *cfg, size_t *len_out)
{
	if (len_out)
		*len_out = cfg ? cfg->len : 0;
	return cfg ? cfg->bytes : NULL;
}
