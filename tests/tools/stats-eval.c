/* SPDX-License-Identifier: MIT */
/*
 * stats-eval: evaluates lib/stats/stats.c's special functions for the reference
 * check tests/reports/test_stats_reference.py (which compares them with
 * scipy). Reads one query per line on stdin and prints one value per line
 * (%.17g, which reads back as the same double):
 *
 *	betainc A B X	-> sb_betainc(A, B, X)
 *	t2 T DF		-> sb_student_t_p2(T, DF)
 *
 * Numbers are anything strtod reads (Python's repr() of a float gives the
 * exact double). Exit status 0, or 2 with a message naming the line on
 * bad input.
 */
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads n numbers from s into v. Returns 0, or -EINVAL (not a number, too few, trailing text). */
static int numbers(const char *s, double *v, int n)
{
	for (int i = 0; i < n; i++) {
		char *end;
		v[i] = strtod(s, &end);
		if (end == s)
			return -EINVAL;
		s = end;
	}
	s += strspn(s, " \t\r\n");
	return *s ? -EINVAL : 0;
}

int main(void)
{
	char line[512];
	unsigned long no = 0;

	while (fgets(line, sizeof(line), stdin)) {
		double v[3];
		no++;
		if (!strchr(line, '\n') && !feof(stdin)) {
			fprintf(stderr, "stats-eval: line %lu: longer than %zu bytes\n", no,
				sizeof(line) - 2);
			return 2;
		}
		if (!strncmp(line, "betainc ", 8) && !numbers(line + 8, v, 3)) {
			printf("%.17g\n", sb_betainc(v[0], v[1], v[2]));
		} else if (!strncmp(line, "t2 ", 3) && !numbers(line + 3, v, 2)) {
			printf("%.17g\n", sb_student_t_p2(v[0], v[1]));
		} else {
			fprintf(stderr,
				"stats-eval: line %lu: expected 'betainc A B X' or 't2 T DF', got "
				"'%.*s'\n",
				no, (int)strcspn(line, "\r\n"), line);
			return 2;
		}
	}
	if (ferror(stdin) || fflush(stdout) != 0) {
		perror("stats-eval");
		return 2;
	}
	return 0;
}
