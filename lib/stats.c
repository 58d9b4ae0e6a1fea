/* SPDX-License-Identifier: MIT */
#include "stats.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void sb_stat_add(struct sb_stat *s, double v)
{
	if (s->n == 0) {
		s->min = s->max = v;
	} else {
		if (v < s->min)
			s->min = v;
		if (v > s->max)
			s->max = v;
	}
	s->n++;
	double d = v - s->mean;
	s->mean += d / (double)s->n;
	s->m2 += d * (v - s->mean);
}

void sb_stat_merge(struct sb_stat *dst, const struct sb_stat *src)
{
	if (src->n == 0)
		return;
	if (dst->n == 0) {
		*dst = *src;
		return;
	}
	double na = (double)dst->n, nb = (double)src->n, n = na + nb;
	double d = src->mean - dst->mean;
	dst->mean += d * nb / n;
	dst->m2 += src->m2 + d * d * na * nb / n;
	dst->n += src->n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double sb_stat_variance(const struct sb_stat *s)
{
	return s->n > 1 ? s->m2 / (double)(s->n - 1) : 0.0;
}

double sb_stat_stddev(const struct sb_stat *s)
{
	return sqrt(sb_stat_variance(s));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double sb_median(const double *v, size_t n)
{
	if (n == 0)
		return 0.0;
	double *c = malloc(n * sizeof(*c));
	if (!c)
		return NAN;
	memcpy(c, v, n * sizeof(*c));
	qsort(c, n, sizeof(*c), cmp_double);
	/* halves first: the same value, and no overflow for two huge finite values */
	double m = n % 2 ? c[n / 2] : c[n / 2 - 1] / 2.0 + c[n / 2] / 2.0;
	free(c);
	return m;
}

int sb_summary_compute(const double *v, size_t n, struct sb_summary *s)
{
	struct sb_stat st = SB_STAT_INIT;

	memset(s, 0, sizeof(*s));
	if (n == 0)
		return -ENODATA;
	for (size_t i = 0; i < n; i++)
		sb_stat_add(&st, v[i]);
	s->median = sb_median(v, n);
	if (isnan(s->median))
		return -ENOMEM;
	s->n = n;
	s->mean = st.mean;
	s->stddev = sb_stat_stddev(&st);
	s->min = st.min;
	s->max = st.max;
	s->cv = st.mean != 0.0 ? s->stddev / fabs(st.mean) : 0.0;
	return 0;
}

/*
 * Continued fraction for the incomplete beta function, evaluated with the
 * modified Lentz method (Press et al., Numerical Recipes, 6.4).
 */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double h = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1.0 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1.0 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

double sb_betainc(double a, double b, double x)
{
	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	double lbeta = lgamma(a + b) - lgamma(a) - lgamma(b);
	double front = exp(lbeta + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * betacf(a, b, x) / a;
	return 1.0 - front * betacf(b, a, 1.0 - x) / b;
}

double sb_student_t_p2(double t, double df)
{
	if (isinf(t))
		return 0.0;
	double x = df / (df + t * t);
	return sb_betainc(df / 2.0, 0.5, x);
}

int sb_welch_t(const double *a, size_t na, const double *b, size_t nb, double *t, double *df,
	       double *p)
{
	struct sb_stat sa = SB_STAT_INIT, sb = SB_STAT_INIT;

	if (na < 2 || nb < 2)
		return -EINVAL;
	for (size_t i = 0; i < na; i++)
		sb_stat_add(&sa, a[i]);
	for (size_t i = 0; i < nb; i++)
		sb_stat_add(&sb, b[i]);
	double va = sb_stat_variance(&sa) / (double)na;
	double vb = sb_stat_variance(&sb) / (double)nb;
	double se2 = va + vb;
	if (se2 <= 0.0) {
		*df = (double)(na + nb - 2);
		if (sa.mean == sb.mean) {
			*t = 0.0;
			*p = 1.0;
		} else {
			*t = sa.mean > sb.mean ? INFINITY : -INFINITY;
			*p = 0.0;
		}
		return -EDOM;
	}
	*t = (sa.mean - sb.mean) / sqrt(se2);
	*df = se2 * se2 / (va * va / (double)(na - 1) + vb * vb / (double)(nb - 1));
	*p = sb_student_t_p2(*t, *df);
	return 0;
}
