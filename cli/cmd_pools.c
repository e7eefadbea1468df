/* cmd_pools.c: `air list pools` and `air get pool POOL_ID` (docs/cli.md#gpu-pools). */
#include <inttypes.h>
#include <string.h>

#include "runs_cli.h"

static const char list_usage[] = "air list pools";
static const char get_usage[] = "air get pool POOL_ID";
static const cli_flag no_flags[] = {{NULL, 0, CLI_BOOL, NULL, NULL, NULL, NULL, false}};

/* A pool failure: FEATURE_DISABLED, NOT_FOUND, INVALID_ARGS, UNAUTHENTICATED (401/403), else INTERNAL_ERROR. */
static int fail(const cli_globals *g, int rc, const air_error *err)
{
	int32_t status = err ? air_error_http_status(err) : 0;

	if (rc != AIR_EDISABLED && (rc == AIR_EAUTH || status == 401 || status == 403))
		return cli_runs_fail(g, CLI_STAGE_PROBE, rc, err);
	return cli_runs_fail(g, CLI_STAGE_CALL, rc, err);
}

static json_t *count_or_null(int64_t v) { return v >= 0 ? json_integer(v) : json_null(); }

/* Positional arguments after the command word ("pools" / "pool"). */
static bool parse(int argc, char **argv, cli_globals *g, const char *usage, cli_strlist *pos)
{
	if (!cli_parse(argc, argv, no_flags, g, pos, usage)) {
		cli_strlist_free(pos);
		return false;
	}
	if (pos->count > 0) {
		memmove(pos->items, pos->items + 1, (size_t)(pos->count - 1) * sizeof(*pos->items));
		pos->count--;
	}
	return true;
}

int cmd_list_pools(int argc, char **argv, cli_globals *g)
{
	cli_strlist pos = {NULL, 0};
	air_client *c = NULL;
	air_pool_list *list = NULL;
	air_error *err = NULL;
	int rc;

	if (cli_wants_help(argc, argv)) {
		cli_print_usage(stdout, list_usage, no_flags);
		return 0;
	}
	if (!parse(argc, argv, g, list_usage, &pos))
		return 1;
	if (pos.count) {
		cli_error("accepts no arguments, received %d", pos.count);
		cli_print_usage(stderr, list_usage, no_flags);
		cli_strlist_free(&pos);
		return 1;
	}
	cli_strlist_free(&pos);
	if (cli_runs_open(g, CLI_OPEN_NO_PROBE, &c, NULL) != 0)
		return 1;
	rc = air_client_list_pools(c, cli_call_options(), &list, &err);
	if (rc != AIR_OK) {
		rc = fail(g, rc, err);
	} else if (g->json) {
		json_t *pools = json_array(), *data = json_object();
		for (size_t i = 0; i < air_pool_list_count(list); i++) {
			const air_pool *p = air_pool_list_get(list, i);
			json_t *o = json_object();
			json_object_set_new(o, "pool_id", json_string(air_pool_id(p)));
			json_object_set_new(o, "accelerator_type", air_pool_accelerator_type(p)
			                                                   ? json_string(air_pool_accelerator_type(p))
			                                                   : json_null());
			json_object_set_new(o, "reserved_accelerators",
			                    json_integer(air_pool_reserved_accelerators(p)));
			json_array_append_new(pools, o);
		}
		json_object_set_new(data, "pools", pools);
		rc = cli_print_data(data);
	} else if (air_pool_list_count(list) == 0) {
		puts("No GPU pools found in this workspace.");
		rc = 0;
	} else {
		size_t w = strlen("ID");
		for (size_t i = 0; i < air_pool_list_count(list); i++)
			if (strlen(cli_clean(air_pool_id(air_pool_list_get(list, i)))) > w)
				w = strlen(cli_clean(air_pool_id(air_pool_list_get(list, i))));
		printf("%-*s  %-14s  %s\n", (int)w, "ID", "ACCELERATOR", "RESERVED");
		for (size_t i = 0; i < air_pool_list_count(list); i++) {
			const air_pool *p = air_pool_list_get(list, i);
			printf("%-*s  %-14s  %" PRId64 "\n", (int)w, cli_clean(air_pool_id(p)),
			       air_pool_accelerator_type(p) ? cli_clean(air_pool_accelerator_type(p)) : "-",
			       air_pool_reserved_accelerators(p));
		}
		rc = 0;
	}
	fflush(stdout);
	air_error_free(err);
	air_pool_list_free(list);
	cli_client_free(c);
	return rc;
}

/* Blank, or only the "provisioned-capacities/" prefix: no pool is named. */
static bool blank_pool_id(const char *id)
{
	static const char prefix[] = "provisioned-capacities/";

	id += strspn(id, " \t\r\n");
	if (!strncmp(id, prefix, sizeof(prefix) - 1))
		id += sizeof(prefix) - 1;
	return strspn(id, " \t\r\n") == strlen(id);
}

int cmd_get_pool(int argc, char **argv, cli_globals *g)
{
	cli_strlist pos = {NULL, 0};
	air_client *c = NULL;
	air_pool *pool = NULL;
	air_error *err = NULL;
	int rc;

	if (cli_wants_help(argc, argv)) {
		cli_print_usage(stdout, get_usage, no_flags);
		return 0;
	}
	if (!parse(argc, argv, g, get_usage, &pos))
		return 1;
	if (pos.count != 1) {
		cli_error("accepts 1 arg(s), received %d", pos.count);
		cli_print_usage(stderr, get_usage, no_flags);
		cli_strlist_free(&pos);
		return 1;
	}
	if (blank_pool_id(pos.items[0])) {
		cli_strlist_free(&pos);
		return cli_runs_invalid(g, "the pool ID is empty: give a pool ID or "
		                           "\"provisioned-capacities/<id>\"");
	}
	if (cli_runs_open(g, CLI_OPEN_NO_PROBE, &c, NULL) != 0) {
		cli_strlist_free(&pos);
		return 1;
	}
	rc = air_client_get_pool(c, pos.items[0], cli_call_options(), &pool, &err);
	cli_strlist_free(&pos);
	if (rc != AIR_OK) {
		rc = fail(g, rc, err);
	} else if (g->json) {
		json_t *d = json_object();
		json_object_set_new(d, "pool_id", json_string(air_pool_id(pool)));
		json_object_set_new(d, "accelerator_type", air_pool_accelerator_type(pool)
		                                                   ? json_string(air_pool_accelerator_type(pool))
		                                                   : json_null());
		json_object_set_new(d, "reserved_accelerators",
		                    json_integer(air_pool_reserved_accelerators(pool)));
		json_object_set_new(d, "used_accelerators", count_or_null(air_pool_used_accelerators(pool)));
		json_object_set_new(d, "idle_accelerators", count_or_null(air_pool_idle_accelerators(pool)));
		rc = cli_print_data(d);
	} else {
		printf("Pool ID:      %s\n", cli_clean(air_pool_id(pool)));
		printf("Accelerator:  %s\n",
		       air_pool_accelerator_type(pool) ? cli_clean(air_pool_accelerator_type(pool)) : "N/A");
		printf("Reserved:     %" PRId64 "\n", air_pool_reserved_accelerators(pool));
		if (air_pool_used_accelerators(pool) >= 0)
			printf("In use:       %" PRId64 "\nIdle:         %" PRId64 "\n",
			       air_pool_used_accelerators(pool), air_pool_idle_accelerators(pool));
		else
			printf("Usage:        not reported\n");
		rc = 0;
	}
	fflush(stdout);
	air_error_free(err);
	air_pool_free(pool);
	cli_client_free(c);
	return rc;
}
