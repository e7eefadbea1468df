/* support.c: helpers shared by the transport tests. */
#include "support.h"
#include "transport/auth.h"

#include <stdlib.h>

static char home[1024];

air_client *tc_client(const char *const *env)
{
	const char *list[64];
	char home_var[1100];
	size_t n = 0;
	bool has_home = false;
	air_client *c = NULL;
	air_error *err = NULL;

	snprintf(home, sizeof(home), "%s", air_test_tmpdir());
	for (const char *const *p = env; p && *p && n < 60; p++) {
		has_home = has_home || strncmp(*p, "HOME=", 5) == 0;
		list[n++] = *p;
	}
	if (!has_home) {
		snprintf(home_var, sizeof(home_var), "HOME=%s", home);
		list[n++] = home_var;
	}
	list[n] = NULL;
	ASSERT_OK(air_client_new(NULL, &c, &err), err);
	ASSERT_EQ_INT(air__client_options_set_environment(&c->o, list), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RETRY_BACKOFF_MS, 10), AIR_OK);
	return c;
}

/* White-box: forget a resolution so that changed options apply, as a new
 * client made from them would resolve. */
static void unresolve(air_client *c)
{
	if (!atomic_load(&c->resolved))
		return;
	air__auth_free(c->auth);
	c->auth = NULL;
	air__backend_free(c->backend);
	c->backend = NULL;
	air__cfg_clear(&c->cfg);
	air_error_free(c->resolve_err);
	c->resolve_err = NULL;
	c->resolve_rc = AIR_OK;
	air__free(c->user_agent);
	c->user_agent = NULL;
	air__free(c->user_name);
	c->user_name = NULL;
	c->ws_probed = false;
	memset(&c->http.set, 0, sizeof(c->http.set));
	c->http.auth = NULL;
	atomic_store(&c->resolved, false);
}

/* The options of a client may still change here (white-box): what
 * air_client_new() derives from them is kept in step. */
static void sync_options(air_client *c)
{
	c->http.client_intr = c->o.intr;
	c->http.debug = c->o.debug_cb;
	c->http.debug_ud = c->o.debug_ud;
}

int tc_set_str(air_client *c, int32_t opt, const char *value)
{
	int rc = air_client_options_set_str(&c->o, opt, value);

	if (rc == AIR_OK)
		unresolve(c);
	if (rc == AIR_OK && (opt == AIR_OPT_TOKEN || opt == AIR_OPT_PASSWORD ||
	                     opt == AIR_OPT_CLIENT_SECRET))
		air__secrets_add(c->secrets, value);
	return rc;
}

int tc_set_int(air_client *c, int32_t opt, int64_t value)
{
	int rc = air_client_options_set_int(&c->o, opt, value);

	if (rc == AIR_OK)
		unresolve(c);
	return rc;
}

int tc_set_interrupt(air_client *c, air_interrupt *intr)
{
	int rc = air_client_options_set_interrupt(&c->o, intr);

	sync_options(c);
	return rc;
}

int tc_set_environment(air_client *c, const char *const *envp)
{
	int rc = air__client_options_set_environment(&c->o, envp);

	unresolve(c);
	return rc;
}

const char *tc_home(void) { return home; }

const char *tc_write(const char *dir, const char *name, const char *text)
{
	static char path[1200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	air_test_write_file(path, text, strlen(text));
	return path;
}

int tc_resolve(air_client *c, air_error **err)
{
	*err = NULL;
	return air__client_ensure_resolved(c, NULL, err);
}

const char *tc_attr(const air_client *c, air__attr a) { return c->cfg.attr[a]; }

static int on_debug(int32_t type, const char *text, size_t len, void *ud)
{
	tc_trace *t = ud;

	pthread_mutex_lock(&t->lock);
	air__buf_put(&t->text, text, len);
	air__buf_puts(&t->text, "\n--\n");
	if (type >= 0 && type < 5)
		t->count[type]++;
	pthread_mutex_unlock(&t->lock);
	return 0;
}

void tc_trace_init(tc_trace *t)
{
	memset(t, 0, sizeof(*t));
	pthread_mutex_init(&t->lock, NULL);
	air__buf_init(&t->text);
}

void tc_trace_attach(air_client *c, tc_trace *t)
{
	ASSERT_EQ_INT(air_client_options_set_debug_cb(&c->o, on_debug, t), AIR_OK);
	sync_options(c);
}

void tc_trace_free(tc_trace *t)
{
	air__buf_dispose(&t->text);
	pthread_mutex_destroy(&t->lock);
}

json_t *tc_request(json_t *reqs, size_t i) { return json_array_get(reqs, i); }

const char *tc_header(json_t *req, const char *name)
{
	return json_string_value(json_object_get(json_object_get(req, "headers"), name));
}

static fakews *shared_fw;

static void stop_shared(void)
{
	fakews_stop(shared_fw);
	shared_fw = NULL;
}

fakews *tc_fakews(void)
{
	if (!shared_fw) {
		shared_fw = fakews_start();
		atexit(stop_shared);
	}
	fakews_reset(shared_fw);
	return shared_fw;
}

air_client *tc_fakews_client(fakews *fw)
{
	air_client *c = tc_client(NULL);

	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_HOST, fakews_url(fw)), AIR_OK);
	ASSERT_EQ_INT(tc_set_str(c, AIR_OPT_TOKEN, "dapi-test"), AIR_OK);
	ASSERT_EQ_INT(tc_set_int(c, AIR_OPT_RATE_LIMIT, 0), AIR_OK);
	return c;
}
