/* SPDX-License-Identifier: MIT */
/* The table of `kubectl storagebench list` (see table.h). */
#include "plugin/table.h"
#include "time/rfc3339.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE "<none>"

static const char *str_at(const json_t *obj, const char *a, const char *b)
{
	const json_t *v = json_object_get(json_object_get(obj, a), b);
	return json_is_string(v) && json_string_value(v)[0] ? json_string_value(v) : NULL;
}

/* spec.storageClasses joined with ',' (before the controller wrote classList). */
static void spec_classes(const json_t *run, char *buf, size_t len)
{
	const json_t *arr = json_object_get(json_object_get(run, "spec"), "storageClasses");
	size_t i, used = 0;
	const json_t *c;
	buf[0] = '\0';
	json_array_foreach(arr, i, c)
	{
		if (!json_is_string(c))
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? "," : "",
				 json_string_value(c));
		if (n < 0 || (size_t)n >= len - used) {
			buf[used] = '\0';
			return;
		}
		used += (size_t)n;
	}
}

char *sbp_list_format(const json_t *list, bool all_ns, time_t now, size_t *nitems)
{
	static const char *const head[] = {"NAMESPACE", "NAME",	  "PHASE", "PROGRESS",
					   "CLASSES",	"REPORT", "AGE"};
	const json_t *items = json_is_array(list) ? list : json_object_get(list, "items");
	struct sbp_table t;
	size_t i, off = all_ns ? 0 : 1, n = 0;
	const json_t *run;
	char *out = NULL;

	sbp_table_init(&t, 7 - off);
	if (sbp_table_add(&t, head + off))
		goto out;
	json_array_foreach(items, i, run)
	{
		char classes[1024], age[32];
		const char *cl = str_at(run, "status", "classList");
		if (!cl) {
			spec_classes(run, classes, sizeof(classes));
			cl = classes[0] ? classes : NONE;
		}
		time_t created;
		if (sb_rfc3339_parse(str_at(run, "metadata", "creationTimestamp"), &created, NULL,
				     0))
			snprintf(age, sizeof(age), "<unknown>");
		else
			sbp_age((long long)(now - created), age, sizeof(age));
		const char *row[7] = {
			str_at(run, "metadata", "namespace"),
			str_at(run, "metadata", "name"),
			str_at(run, "status", "phase"),
			str_at(run, "status", "progress"),
			cl,
			str_at(run, "status", "report"),
			age,
		};
		for (size_t k = 0; k < 7; k++)
			if (!row[k])
				row[k] = NONE;
		if (sbp_table_add(&t, row + off))
			goto out;
		n++;
	}
	/* by NAMESPACE then NAME with -A, else by NAME (column 0 then) */
	const size_t keys[] = {0, 1};
	sbp_table_sort(&t, 1, keys, all_ns ? 2 : 1);
	out = sbp_table_render(&t);
out:
	sbp_table_release(&t);
	if (nitems)
		*nitems = n;
	return out;
}
