/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "core/log.h"

#include <errno.h>
#include <unistd.h>

/* Captures what sb_log writes through a pipe. */
static int capture(bool json, enum sb_log_level lvl, char *out, size_t cap)
{
	int fds[2];
	if (pipe(fds) != 0)
		return -1;
	sb_log_set_fd(fds[1]);
	sb_log_set_json(json);
	sb_log(lvl, "Created PVC", "ns=%s name=%s msg=%s", "default", "run-fast", "a b=c");
	sb_log_set_fd(2);
	sb_log_set_json(false);
	close(fds[1]);
	ssize_t n = read(fds[0], out, cap - 1);
	close(fds[0]);
	out[n > 0 ? n : 0] = '\0';
	return (int)n;
}

static int test_text_line(void)
{
	char buf[1024];
	CHECK(capture(false, SB_LOG_INFO, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, " info Created PVC ns=default name=run-fast msg=a b=c\n") != NULL);
	CHECK(buf[4] == '-' && buf[10] == 'T');
	return T_PASS;
}

static int test_json_line(void)
{
	char buf[1024];
	CHECK(capture(true, SB_LOG_WARN, buf, sizeof(buf)) > 0);
	CHECK(strstr(buf, "\"level\":\"warn\"") != NULL);
	CHECK(strstr(buf, "\"msg\":\"Created PVC\"") != NULL);
	CHECK(strstr(buf, "\"ns\":\"default\"") != NULL);
	CHECK(strstr(buf, "\"name\":\"run-fast\"") != NULL);
	return T_PASS;
}

static int test_level_filter(void)
{
	char buf[256];
	enum sb_log_level l;
	sb_log_set_level(SB_LOG_WARN);
	int n = capture(false, SB_LOG_INFO, buf, sizeof(buf));
	sb_log_set_level(SB_LOG_INFO);
	CHECK_INT(n, 0);
	CHECK_INT(sb_log_parse_level("DEBUG", &l), 0);
	CHECK_INT(l, SB_LOG_DEBUG);
	CHECK_INT(sb_log_parse_level("loud", &l), -EINVAL);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"log/text-line", test_text_line},
	{"log/json-line", test_json_line},
	{"log/level-filter", test_level_filter},
};
TEST_MAIN(cases)
