/* SPDX-License-Identifier: MIT */
/* The kubectl plugin's tables: kubectl layout, AGE, timestamps, the list. */
#include "tests/unit/harness.h"
#include "time/rfc3339.h"
#include "plugin/table.h"

#include <errno.h>

static int test_age_like_kubectl(void)
{
	/* duration.HumanDuration of k8s.io/apimachinery */
	static const struct {
		long long s;
		const char *want;
	} cases[] = {
		{-5, "<invalid>"},
		{-1, "0s"},
		{0, "0s"},
		{59, "59s"},
		{119, "119s"},
		{120, "2m"},
		{187, "3m7s"},
		{599, "9m59s"},
		{600, "10m"},
		{3599, "59m"},
		{10799, "179m"},
		{10800, "3h"},
		{5 * 3600 + 3 * 60 + 9, "5h3m"},
		{8 * 3600, "8h"},
		{47 * 3600 + 3599, "47h"},
		{48 * 3600, "2d"},
		{2 * 86400 + 4 * 3600, "2d4h"},
		{8 * 86400, "8d"},
		{729 * 86400, "729d"},
		{730 * 86400, "2y"},
		{(730 + 14) * 86400, "2y14d"},
		{8LL * 365 * 86400, "8y"},
		{20LL * 365 * 86400 + 100 * 86400, "20y"},
	};
	char buf[32];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_STR(sbp_age(cases[i].s, buf, sizeof(buf)), cases[i].want);
	return T_PASS;
}

static int test_table_layout(void)
{
	struct sbp_table t;
	const char *h[] = {"NAME", "X", "LONGER-HEADER"};
	const char *r1[] = {"b", "", "v"};
	const char *r2[] = {"a-much-longer-name", "yy", ""};
	sbp_table_init(&t, 3);
	CHECK_INT(sbp_table_add(&t, h), 0);
	CHECK_INT(sbp_table_add(&t, r1), 0);
	CHECK_INT(sbp_table_add(&t, r2), 0);
	const size_t key = 0;
	sbp_table_sort(&t, 1, &key, 1);
	char *s = sbp_table_render(&t);
	sbp_table_release(&t);
	CHECK(s != NULL);
	/* columns are the longest cell + 3 wide, at least 6; the last is not
	 * padded, and an empty last cell leaves no trailing spaces */
	const char *want = "NAME                 X     LONGER-HEADER\n"
			   "a-much-longer-name   yy\n"
			   "b                          v\n";
	int ok = strcmp(s, want) == 0;
	if (!ok)
		fprintf(stderr, "    got:\n%s", s);
	free(s);
	CHECK(ok);
	return T_PASS;
}

static int test_table_sort_is_stable(void)
{
	struct sbp_table t;
	const char *h[] = {"K", "V"};
	sbp_table_init(&t, 2);
	CHECK_INT(sbp_table_add(&t, h), 0);
	for (int i = 0; i < 40; i++) {
		char k[8], v[8];
		snprintf(k, sizeof(k), "%c", 'a' + i % 3);
		snprintf(v, sizeof(v), "%02d", i);
		const char *row[] = {k, v};
		CHECK_INT(sbp_table_add(&t, row), 0);
	}
	const size_t key = 0;
	sbp_table_sort(&t, 1, &key, 1);
	CHECK_STR(t.cells[0], "K");
	for (size_t r = 2; r < t.nrows; r++) {
		int c = strcmp(t.cells[(r - 1) * 2], t.cells[r * 2]);
		CHECK(c <= 0);
		if (c == 0)
			CHECK(strcmp(t.cells[(r - 1) * 2 + 1], t.cells[r * 2 + 1]) < 0);
	}
	sbp_table_release(&t);
	return T_PASS;
}

/* BenchmarkRuns as the API server returns them; now is 2024-05-01T12:00:00Z. */
static const char list_json[] =
	"{\"kind\":\"BenchmarkRunList\",\"apiVersion\":\"storagebench.io/v1alpha1\","
	"\"items\":["
	/* finished, with a report */
	"{\"metadata\":{\"name\":\"nightly\",\"namespace\":\"team-b\","
	"\"creationTimestamp\":\"2024-04-29T08:00:00Z\"},"
	"\"spec\":{\"storageClasses\":[\"fast\",\"disk\"]},"
	"\"status\":{\"phase\":\"Succeeded\",\"progress\":\"20/20\",\"classList\":\"fast,disk\","
	"\"report\":\"nightly-report\"}},"
	/* running */
	"{\"metadata\":{\"name\":\"adhoc\",\"namespace\":\"team-b\","
	"\"creationTimestamp\":\"2024-05-01T11:56:53Z\"},"
	"\"spec\":{\"storageClasses\":[\"fast\"]},"
	"\"status\":{\"phase\":\"Running\",\"progress\":\"3/10\",\"classList\":\"fast\"}},"
	/* not yet seen by the controller: classes from the spec */
	"{\"metadata\":{\"name\":\"new\",\"namespace\":\"team-a\","
	"\"creationTimestamp\":\"2024-05-01T11:59:58Z\"},"
	"\"spec\":{\"storageClasses\":[\"a\",\"b\",\"c\"]}}"
	"]}";

static int check_table(const char *got, const char *want)
{
	if (got && !strcmp(got, want))
		return T_PASS;
	fprintf(stderr, "    got:\n%s    want:\n%s", got ? got : "(null)\n", want);
	return T_FAIL;
}

static int test_list_table(void)
{
	json_error_t je;
	json_t *list = json_loads(list_json, 0, &je);
	CHECK(list != NULL);
	time_t now;
	CHECK_INT(sb_rfc3339_parse("2024-05-01T12:00:00Z", &now, NULL, 0), 0);
	size_t n = 0;
	char *s = sbp_list_format(list, false, now, &n);
	CHECK_INT(n, 3);
	int r = check_table(s,
			    "NAME      PHASE       PROGRESS   CLASSES     REPORT           AGE\n"
			    "adhoc     Running     3/10       fast        <none>           3m7s\n"
			    "new       <none>      <none>     a,b,c       <none>           2s\n"
			    "nightly   Succeeded   20/20      fast,disk   nightly-report   2d4h\n");
	free(s);
	if (r) {
		json_decref(list);
		return r;
	}
	s = sbp_list_format(list, true, now, &n);
	r = check_table(
		s,
		"NAMESPACE   NAME      PHASE       PROGRESS   CLASSES     REPORT           AGE\n"
		"team-a      new       <none>      <none>     a,b,c       <none>           2s\n"
		"team-b      adhoc     Running     3/10       fast        <none>           3m7s\n"
		"team-b      nightly   Succeeded   20/20      fast,disk   nightly-report   "
		"2d4h\n");
	free(s);
	json_decref(list);
	return r;
}

static int test_list_empty_and_odd(void)
{
	size_t n = 7;
	json_t *empty = json_pack("{s:[]}", "items");
	char *s = sbp_list_format(empty, false, 0, &n);
	json_decref(empty);
	CHECK_INT(n, 0);
	int r = check_table(s, "NAME   PHASE   PROGRESS   CLASSES   REPORT   AGE\n");
	free(s);
	if (r)
		return r;
	/* no items at all, wrong types, a bad timestamp: no crash, <unknown> */
	json_t *odd = json_loads("{\"items\":[{\"metadata\":{\"name\":\"x\",\"creationTimestamp\":"
				 "\"soon\"},\"status\":{\"phase\":7}}]}",
				 0, NULL);
	CHECK(odd != NULL);
	s = sbp_list_format(odd, false, 0, &n);
	json_decref(odd);
	CHECK_INT(n, 1);
	r = check_table(s, "NAME   PHASE    PROGRESS   CLASSES   REPORT   AGE\n"
			   "x      <none>   <none>     <none>    <none>   <unknown>\n");
	free(s);
	if (r)
		return r;
	json_t *none = json_object();
	s = sbp_list_format(none, true, 0, &n);
	json_decref(none);
	CHECK_INT(n, 0);
	CHECK(s != NULL && !strncmp(s, "NAMESPACE", 9));
	free(s);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"plugin-table/AGE as kubectl prints it", test_age_like_kubectl},
	{"plugin-table/kubectl column layout", test_table_layout},
	{"plugin-table/sort is stable", test_table_sort_is_stable},
	{"plugin-table/list from fixture JSON, with and without -A", test_list_table},
	{"plugin-table/list empty and malformed", test_list_empty_and_odd},
};

TEST_MAIN(cases)
