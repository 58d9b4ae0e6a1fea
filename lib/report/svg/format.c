/* SPDX-License-Identifier: MIT */
/*
 * Numbers as lib/report_svg prints them: the unit kind of a metric, SI or
 * binary prefixes, "844k ± 12k", "6.35 ± 0.5 GiB/s", "45.8 µs".
 */
#include "report/svg/internal.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *const count_pfx[] = {"", "k", "M", "G", "T", "P"};
const char *const svg_rate_unit[] = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"};
static const char *const ns_unit[] = {"ns", "\xc2\xb5s", "ms", "s"};

enum ukind svg_kind_of(const char *metric)
{
	if (svg_has_suffix(metric, "-bw"))
		return U_BYTES;
	if (strstr(metric, "-lat"))
		return U_NS;
	return U_COUNT;
}

/* The scale for v: divisor and unit index (1000s, 1024s for bytes, ns..s). */
double svg_scale_of(double v, enum ukind u, size_t *k)
{
	double base = u == U_BYTES ? 1024.0 : 1000.0, div = 1;
	size_t max = u == U_NS ? 3 : 5;
	double a = fabs(v);

	*k = 0;
	while (*k < max && a / div >= base - 0.5) {
		div *= base;
		(*k)++;
	}
	return div;
}

const char *svg_unit_name(enum ukind u, size_t k)
{
	return u == U_BYTES ? svg_rate_unit[k] : u == U_NS ? ns_unit[k] : count_pfx[k];
}

/* "%.*f" without trailing zeros. */
void svg_fmt_trim(double v, int dec, char *buf, size_t len)
{
	snprintf(buf, len, "%.*f", dec < 0 ? 0 : dec, v);
	if (strchr(buf, '.')) {
		char *e = buf + strlen(buf) - 1;
		while (*e == '0')
			*e-- = '\0';
		if (*e == '.')
			*e = '\0';
	}
	if (!strcmp(buf, "-0"))
		snprintf(buf, len, "0");
}

/* Decimals that show 3 significant digits of v. */
static int dec3(double v)
{
	double a = fabs(v);
	return a >= 99.95 ? 0 : a >= 9.995 ? 1 : 2;
}

/* Decimals that show 2 significant digits of v (at most 3). */
static int dec2(double v)
{
	double a = fabs(v);
	if (a == 0 || a >= 9.95)
		return 0;
	if (a >= 0.995)
		return 1;
	int d = (int)ceil(-log10(a)) + 1;
	return d > 3 ? 3 : d;
}

/*
 * "844k ± 12k", "6.35 ± 0.5 GiB/s", "45.8 µs": the mean with 3 significant
 * digits, the deviation in the same unit with 2.
 */
void svg_fmt_val(double mean, double sd, bool with_sd, enum ukind u, char *buf, size_t len)
{
	size_t k;
	double div = svg_scale_of(mean, u, &k);
	char a[32], b[32];
	const char *un = svg_unit_name(u, k);

	svg_fmt_trim(mean / div, dec3(mean / div), a, sizeof(a));
	if (!with_sd) {
		snprintf(buf, len, "%s%s%s", a, u == U_COUNT ? "" : " ", un);
		return;
	}
	if (u == U_COUNT) {
		/* counts: each with its own prefix, "1.5k ± 12" */
		size_t ks;
		double sdiv = svg_scale_of(sd, u, &ks);
		svg_fmt_trim(sd / sdiv, dec2(sd / sdiv), b, sizeof(b));
		snprintf(buf, len, "%s%s \xc2\xb1 %s%s", a, un, b, count_pfx[ks]);
		return;
	}
	svg_fmt_trim(sd / div, dec2(sd / div), b, sizeof(b));
	snprintf(buf, len, "%s \xc2\xb1 %s %s", a, b, un);
}
