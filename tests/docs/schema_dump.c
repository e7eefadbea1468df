/* schema_dump.c: every field of the workload schema, depth first in
 * documentation order, one tab-separated line each:
 *   path  kind  type  required_when  default  description
 * (path without the "config." prefix; default "-" when there is none). The
 * documentation checks compare docs/workload-yaml.md and the shell completion
 * against this output, so both follow the library's own field help. */
#include <stdio.h>

#include <air/air.h>

static void dump(const air_field *f, const char *prefix)
{
	for (size_t i = 0; i < air_field_child_count(f); i++) {
		const air_field *c = air_field_child(f, i);
		const char *def = air_field_default(c);
		char path[512];

		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", air_field_name(c));
		printf("%s\t%d\t%s\t%s\t%s\t%s\n", path, (int)air_field_kind(c), air_field_type(c),
		       air_field_required_when(c), def ? def : "-", air_field_description(c));
		dump(c, path);
	}
}

int main(void)
{
	dump(air_schema_root(), "");
	return fflush(stdout) == 0 ? 0 : 1;
}
