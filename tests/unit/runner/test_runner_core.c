/* SPDX-License-Identifier: MIT */
#include "tests/unit/harness.h"
#include "runner/out/iolog.h"
#include "runner/io/rand.h"
#include "runner/io/steady.h"
#include "runner/io/verify.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int test_perm_is_bijection(void)
{
	static const uint64_t sizes[] = {1, 2, 3, 7, 64, 100, 1000, 4097, 65536, 100003};
	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		uint64_t n = sizes[s];
		unsigned char *seen = calloc(n, 1);
		struct sb_perm p;
		CHECK(seen != NULL);
		sb_perm_init(&p, n, 42 + s);
		uint64_t in_order = 0;
		for (uint64_t i = 0; i < n; i++) {
			uint64_t v = sb_perm_at(&p, i);
			CHECK(v < n);
			CHECK(!seen[v]);
			seen[v] = 1;
			in_order += v == i;
		}
		free(seen);
		/* a permutation that is mostly the identity would not be random */
		if (n >= 1000)
			CHECK(in_order < n / 100);
	}
	return T_PASS;
}

static int test_perm_keys_differ(void)
{
	struct sb_perm a, b;
	sb_perm_init(&a, 10000, 1);
	sb_perm_init(&b, 10000, 2);
	unsigned same = 0;
	for (uint64_t i = 0; i < 10000; i++)
		same += sb_perm_at(&a, i) == sb_perm_at(&b, i);
	CHECK(same < 100);
	return T_PASS;
}

static int test_rand_below_uniform(void)
{
	struct sb_rand r;
	unsigned counts[10] = {0};
	sb_rand_seed(&r, 7);
	for (int i = 0; i < 100000; i++)
		counts[sb_rand_below(&r, 10)]++;
	for (int i = 0; i < 10; i++)
		CHECK(counts[i] > 9500 && counts[i] < 10500);
	/* same seed, same sequence (randrepeat) */
	struct sb_rand a, b;
	sb_rand_seed(&a, 99);
	sb_rand_seed(&b, 99);
	for (int i = 0; i < 100; i++)
		CHECK(sb_rand_next(&a) == sb_rand_next(&b));
	return T_PASS;
}

/*
 * rate_process=poisson's gaps: exponential with the asked mean. With a fixed
 * seed (no clock): the mean within 1%, the coefficient of variation of the
 * gaps within 2% of 1 (a fixed gap has 0), the share below the mean near
 * 1 - 1/e, and the same seed gives the same gaps (randseed).
 */
static int test_rand_exp_poisson_gaps(void)
{
	struct sb_rand r;
	const double mean = 20e6; /* ns: 50 IOPS */
	const int n = 200000;
	double sum = 0, sum2 = 0;
	int below = 0;
	sb_rand_seed(&r, 40);
	for (int i = 0; i < n; i++) {
		double g = sb_rand_exp(&r, mean);
		CHECK(g >= 0 && g < 50 * mean);
		sum += g;
		sum2 += g * g;
		below += g < mean;
	}
	double m = sum / n, var = sum2 / n - m * m, cv = sqrt(var) / m;
	CHECK_NEAR(m, mean, 0.01 * mean);
	CHECK_NEAR(cv, 1.0, 0.02);
	CHECK_NEAR((double)below / n, 1.0 - exp(-1.0), 0.005);
	struct sb_rand a, b;
	sb_rand_seed(&a, 7);
	sb_rand_seed(&b, 7);
	for (int i = 0; i < 100; i++)
		CHECK(sb_rand_exp(&a, mean) == sb_rand_exp(&b, mean));
	return T_PASS;
}

static int test_verify_roundtrip_and_corruption(void)
{
	static const enum sb_verify types[] = {SB_VERIFY_CRC32C, SB_VERIFY_MD5, SB_VERIFY_SHA256};
	unsigned char *buf = malloc(4096);
	struct sb_rand r;
	char why[160];

	CHECK(buf != NULL);
	sb_rand_seed(&r, 1);
	for (size_t t = 0; t < 3; t++) {
		sb_rand_fill(&r, buf, 4096);
		CHECK_INT(sb_verify_stamp(buf, 4096, 8192, types[t]), 0);
		CHECK_INT(sb_verify_check(buf, 4096, 8192, types[t], why, sizeof(why)), 0);
		/* read back from the wrong place */
		CHECK_INT(sb_verify_check(buf, 4096, 4096, types[t], why, sizeof(why)), -EILSEQ);
		CHECK(strstr(why, "offset 8192") != NULL);
		/* one flipped bit in the payload */
		buf[3000] ^= 0x10;
		CHECK_INT(sb_verify_check(buf, 4096, 8192, types[t], why, sizeof(why)), -EILSEQ);
		CHECK(strstr(why, "checksum mismatch") != NULL);
		buf[3000] ^= 0x10;
		/* a zeroed block (never written) */
		memset(buf, 0, 64);
		CHECK_INT(sb_verify_check(buf, 4096, 8192, types[t], why, sizeof(why)), -EILSEQ);
		CHECK(strstr(why, "magic") != NULL);
	}
	free(buf);
	return T_PASS;
}

/* Draws `draws` slots of d into a calloc'ed histogram; caller frees. */
static uint64_t *draw(const struct sb_dist *d, uint64_t draws, uint64_t seed)
{
	uint64_t *h = calloc(d->n, sizeof(*h));
	struct sb_rand r;
	sb_rand_seed(&r, seed);
	for (uint64_t i = 0; h && i < draws; i++) {
		uint64_t v = sb_dist_next(d, &r);
		if (v >= d->n) {
			free(h);
			return NULL;
		}
		h[v]++;
	}
	return h;
}

static int cmp_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? 1 : x > y ? -1 : 0;
}

static int test_zipf_frequencies(void)
{
	/* zipf:1.2 over 1000 slots: the two hottest slots are exactly Zipf's */
	struct sb_dist_opts o = {.type = SB_DIST_ZIPF, .param = 1.2, .center = -1};
	struct sb_dist d;
	const uint64_t n = 1000, draws = 200000;
	CHECK_INT(sb_dist_init(&d, &o, n, 4096, 7), 0);
	uint64_t *h = draw(&d, draws, 11);
	CHECK(h != NULL);
	double zeta = 0;
	for (uint64_t k = 1; k <= n; k++)
		zeta += pow((double)k, -1.2);
	CHECK_NEAR(sb_zeta(n, 1.2), zeta, 1e-9);
	qsort(h, n, sizeof(*h), cmp_desc);
	for (int k = 1; k <= 2; k++) {
		double expect = (double)draws * pow(k, -1.2) / zeta;
		CHECK(fabs((double)h[k - 1] - expect) < 5 * sqrt(expect));
	}
	free(h);
	/* beyond 10^7 terms zeta is an integral: still within 1e-6 relative */
	double big = sb_zeta(20000000ull, 1.2), exact_part = sb_zeta(10000000ull, 1.2);
	CHECK(big > exact_part && big < exact_part + 0.1);
	return T_PASS;
}

static int test_center_places_the_hottest_slot(void)
{
	struct sb_dist_opts o = {.type = SB_DIST_ZIPF, .param = 1.2, .center = 0.25};
	struct sb_dist d;
	CHECK_INT(sb_dist_init(&d, &o, 1024, 4096, 3), 0);
	uint64_t *h = draw(&d, 50000, 5);
	CHECK(h != NULL);
	uint64_t best = 0;
	for (uint64_t i = 1; i < 1024; i++)
		if (h[i] > h[best])
			best = i;
	free(h);
	CHECK_INT(best, 256);
	return T_PASS;
}

static int test_pareto_and_normal_shapes(void)
{
	/* pareto:0.2 puts about 80% of accesses on 20% of the ranks */
	struct sb_dist_opts p = {.type = SB_DIST_PARETO, .param = 0.2, .center = -1};
	struct sb_dist d;
	struct sb_rand r;
	const uint64_t n = 10000, draws = 100000;
	uint64_t low = 0;
	CHECK_INT(sb_dist_init(&d, &p, n, 4096, 9), 0);
	sb_rand_seed(&r, 1);
	for (uint64_t i = 0; i < draws; i++)
		low += sb_dist_rank(&d, &r) < n / 5;
	CHECK_NEAR((double)low / draws, 0.8, 0.02);
	/* normal: mean n/2; 12 uniform draws and a 10% wide deviation: sd^2 = n^2/144 + (n/10)^2/12 */
	struct sb_dist_opts g = {.type = SB_DIST_NORMAL, .param = 10, .center = -1};
	CHECK_INT(sb_dist_init(&d, &g, n, 4096, 9), 0);
	double sum = 0, sq = 0;
	for (uint64_t i = 0; i < draws; i++) {
		double v = (double)sb_dist_rank(&d, &r);
		sum += v;
		sq += v * v;
	}
	double mean = sum / draws, sd = sqrt(sq / draws - mean * mean);
	CHECK_NEAR(mean, n / 2.0, n * 0.005);
	CHECK_NEAR(sd, sqrt((double)n * n / 144.0 + (double)n * n / 1200.0), n * 0.005);
	return T_PASS;
}

static int test_zoned_shares(void)
{
	struct sb_dist_opts o = {.type = SB_DIST_ZONED, .center = -1, .nzones = 3};
	o.zones[0] = (struct sb_zone){60, 10};
	o.zones[1] = (struct sb_zone){30, 20};
	o.zones[2] = (struct sb_zone){10, 70};
	struct sb_dist d;
	const uint64_t n = 1000, draws = 100000;
	CHECK_INT(sb_dist_init(&d, &o, n, 4096, 1), 0);
	uint64_t *h = draw(&d, draws, 2);
	CHECK(h != NULL);
	uint64_t z[3] = {0};
	for (uint64_t i = 0; i < n; i++)
		z[i < 100 ? 0 : i < 300 ? 1 : 2] += h[i];
	free(h);
	CHECK_NEAR((double)z[0] / draws, 0.6, 0.01);
	CHECK_NEAR((double)z[1] / draws, 0.3, 0.01);
	CHECK_NEAR((double)z[2] / draws, 0.1, 0.01);
	/* zoned_abs: sizes in bytes, 1 MiB of 4 KiB slots = 256 slots */
	o.type = SB_DIST_ZONED_ABS;
	o.nzones = 2;
	o.zones[0] = (struct sb_zone){90, 1 << 20};
	o.zones[1] = (struct sb_zone){10, 3 << 20};
	CHECK_INT(sb_dist_init(&d, &o, 1024, 4096, 1), 0);
	CHECK_INT(d.zstart[1], 256);
	CHECK_INT(d.zlen[1], 768);
	return T_PASS;
}

static int test_steady_state_criteria(void)
{
	double crit, dev, slope;
	const uint64_t flat[] = {1000, 1001, 999, 1000};
	const uint64_t rising[] = {100, 200, 300, 400};
	/* iops:1%: every sample within 1% of the mean */
	CHECK(sb_ss_check(SB_SS_IOPS | SB_SS_PCT, 1.0, flat, 4, &crit, &dev, &slope));
	CHECK_NEAR(dev, 1.0, 1e-9);
	CHECK_NEAR(crit, 0.1, 1e-9);
	CHECK(!sb_ss_check(SB_SS_IOPS, 0.5, flat, 4, &crit, &dev, &slope));
	/* slope: 100 per second, 40% of the mean (250) */
	CHECK(!sb_ss_check(SB_SS_IOPS | SB_SS_SLOPE | SB_SS_PCT, 10, rising, 4, &crit, &dev,
			   &slope));
	CHECK_NEAR(slope, 100.0, 1e-9);
	CHECK_NEAR(crit, 40.0, 1e-9);
	CHECK(sb_ss_check(SB_SS_BW | SB_SS_SLOPE, 101, rising, 4, &crit, &dev, &slope));
	/* the tracker: a steady 500 I/Os a second for a 3 s window after a 1 s ramp */
	struct sb_ss *ss = sb_ss_new(SB_SS_IOPS | SB_SS_PCT, 5, 3000000, 1000000000ull, 0);
	CHECK(ss != NULL);
	uint64_t ios = 0, t;
	bool got = false;
	for (t = 0; t <= 10 && !got; t++) {
		ios = t * 500 + (t == 0 ? 0 : 7 * (t % 2)); /* noise under 5% */
		got = sb_ss_tick(ss, t * 1000000000ull, ios, ios * 4096);
	}
	CHECK(got);
	CHECK_INT(t - 1, 4); /* ramp to 1 s, samples at 2, 3, 4 s */
	struct sb_ss_result res;
	memset(&res, 0, sizeof(res));
	sb_ss_result_fill(ss, 3000000, &res);
	CHECK_INT(res.n, 3);
	CHECK(res.attained);
	CHECK_INT(res.dur_s, 3);
	sb_ss_free(ss);
	return T_PASS;
}

static int test_iolog_averaging(void)
{
	char dir[] = "/tmp/sb-iolog-XXXXXX", path[128], line[128];
	CHECK(mkdtemp(dir) != NULL);
	sb_iolog_set_dir(dir);
	struct sb_job_opts o;
	sb_job_opts_init(&o);
	snprintf(o.iops_log, sizeof(o.iops_log), "t");
	snprintf(o.lat_log, sizeof(o.lat_log), "t");
	o.log_avg_msec = 100;
	int err;
	char why[256];
	struct sb_iolog *l = sb_iolog_open(&o, 3, false, &err, why, sizeof(why));
	CHECK(l != NULL);
	sb_iolog_start(l, 0);
	/* 20 reads in the first 100 ms, each 1000 ns; 10 writes in the second */
	for (int i = 0; i < 20; i++)
		sb_iolog_add(l, (uint64_t)i * 5000000, SB_READ, 4096, 0, 1000, 900, 0);
	for (int i = 0; i < 10; i++)
		sb_iolog_add(l, 100000000ull + (uint64_t)i * 9000000, SB_WRITE, 8192, 0, 3000, 2000,
			     0);
	CHECK_INT(sb_iolog_close(l, 200000000ull), 0);
	sb_iolog_free(l);
	snprintf(path, sizeof(path), "%s/t_iops.3.log", dir);
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	CHECK(fgets(line, sizeof(line), f) != NULL);
	CHECK_STR(line, "100, 200, 0, 0, 0\n");
	CHECK(fgets(line, sizeof(line), f) != NULL);
	CHECK_STR(line, "200, 100, 1, 0, 0\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/t_clat.3.log", dir);
	f = fopen(path, "r");
	CHECK(f != NULL);
	CHECK(fgets(line, sizeof(line), f) != NULL);
	CHECK_STR(line, "100, 900, 0, 0, 0\n");
	fclose(f);
	snprintf(path, sizeof(path), "%s/t_slat.3.log", dir);
	struct stat st;
	CHECK(stat(path, &st) == 0); /* as fio: a slat log, empty with a synchronous engine */
	CHECK_INT(st.st_size, 0);
	snprintf(path, sizeof(path), "%s/t_bw.3.log", dir);
	CHECK(access(path, F_OK) != 0); /* only the logs asked for */
	const char *kinds[] = {"iops", "lat", "clat", "slat"};
	for (int k = 0; k < 4; k++) {
		snprintf(path, sizeof(path), "%s/t_%s.3.log", dir, kinds[k]);
		unlink(path);
	}
	rmdir(dir);
	sb_iolog_set_dir(NULL);
	return T_PASS;
}

static int test_iolog_collect_caps(void)
{
	char dir[] = "/tmp/sb-collect-XXXXXX", path[128];
	CHECK(mkdtemp(dir) != NULL);
	const char *names[] = {"a_iops.1.log", "b_lat.1.log", "notes.txt"};
	const char *body[] = {"0, 1, 0, 4096, 0\n1, 1, 0, 4096, 0\n",
			      "5, 1000, 0, 4096, 0\n"
			      "6, 2000, 0, 4096, 0\n",
			      "not a log\n"};
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		FILE *f = fopen(path, "w");
		CHECK(f != NULL);
		fputs(body[i], f);
		fclose(f);
	}
	bool found;
	/* room for a's two lines (34 bytes) and one line of b */
	json_t *o = sb_iolog_collect(dir, 34 + 22, &found);
	CHECK(o != NULL && found);
	json_t *files = json_object_get(o, "files");
	CHECK_INT(json_object_size(files), 2);
	CHECK_STR(json_string_value(json_object_get(files, "a_iops.1.log")), body[0]);
	CHECK_STR(json_string_value(json_object_get(files, "b_lat.1.log")),
		  "5, 1000, 0, 4096, 0\n");
	CHECK_INT(json_array_size(json_object_get(o, "truncated")), 1);
	json_decref(o);
	snprintf(path, sizeof(path), "%s/a_iops.1.log", dir);
	CHECK(access(path, F_OK) != 0); /* taken into the result */
	snprintf(path, sizeof(path), "%s/notes.txt", dir);
	CHECK(access(path, F_OK) == 0); /* not a log: left alone */
	unlink(path);
	rmdir(dir);
	return T_PASS;
}

static const struct test_case cases[] = {
	{"rand/permutation-is-bijection", test_perm_is_bijection},
	{"rand/permutation-keys-differ", test_perm_keys_differ},
	{"rand/below-uniform-and-repeatable", test_rand_below_uniform},
	{"rand/exp-poisson-gaps", test_rand_exp_poisson_gaps},
	{"verify/roundtrip-and-corruption", test_verify_roundtrip_and_corruption},
	{"dist/zipf-frequencies", test_zipf_frequencies},
	{"dist/center-places-the-hottest-slot", test_center_places_the_hottest_slot},
	{"dist/pareto-and-normal-shapes", test_pareto_and_normal_shapes},
	{"dist/zoned-shares", test_zoned_shares},
	{"steady/criteria-and-window", test_steady_state_criteria},
	{"iolog/averaged-entries", test_iolog_averaging},
	{"iolog/collect-caps-and-takes", test_iolog_collect_caps},
};
TEST_MAIN(cases)
