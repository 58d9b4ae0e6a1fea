/* SPDX-License-Identifier: MIT */
/* Small helpers of lib/kube: base64 (OpenSSL EVP), whole-file reads,
 * randomness for jitter, secrets' clearing. */
#include "kube/util.h"
#include "kube/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int kube_base64_decode(const char *in, size_t in_len, char **out, size_t *out_len)
{
	*out = NULL;
	*out_len = 0;
	if (in_len > INT_MAX / 2)
		return -EINVAL;
	/* 3 bytes per 4 characters, plus what EVP_DecodeFinal may add. */
	size_t cap = in_len / 4 * 3 + 4;
	unsigned char *buf = malloc(cap);
	EVP_ENCODE_CTX *ctx = EVP_ENCODE_CTX_new();
	int ret = -ENOMEM, n = 0, fin = 0;

	if (!buf || !ctx)
		goto out;
	EVP_DecodeInit(ctx);
	ret = -EINVAL;
	if (EVP_DecodeUpdate(ctx, buf, &n, (const unsigned char *)in, (int)in_len) < 0)
		goto out;
	if (EVP_DecodeFinal(ctx, buf + n, &fin) < 0)
		goto out;
	n += fin;
	if (n == 0 && in_len > 0)
		goto out; /* nothing but garbage or whitespace */
	buf[n] = '\0';
	*out = (char *)buf;
	*out_len = (size_t)n;
	buf = NULL;
	ret = 0;
out:
	EVP_ENCODE_CTX_free(ctx);
	free(buf);
	return ret;
}

int kube_read_file(const char *path, char **out, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;

	*out = NULL;
	if (len)
		*len = 0;
	if (fd < 0)
		return -errno;
	for (;;) {
		if (cap - n < 4096) {
			if (cap > (size_t)64 << 20) {
				ret = -EFBIG;
				goto out;
			}
			size_t ncap = cap ? cap * 2 : 4096;
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				ret = -ENOMEM;
				goto out;
			}
			buf = nb;
			cap = ncap;
		}
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			goto out;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	if (!buf) {
		buf = malloc(1);
		if (!buf) {
			ret = -ENOMEM;
			goto out;
		}
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	buf = NULL;
out:
	free(buf);
	close(fd);
	return ret;
}

static _Thread_local uint64_t rnd_state;

double kube_random(void)
{
	if (rnd_state == 0) {
		uint64_t seed = 0;
		if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) != (ssize_t)sizeof(seed))
			seed = (uint64_t)kube_now_ms() ^ (uint64_t)(uintptr_t)&seed;
		rnd_state = seed | 1;
	}
	/* xorshift64* */
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	uint64_t v = rnd_state * 2685821657736338717ULL;
	return (double)(v >> 11) / (double)(1ULL << 53);
}

void kube_free_secret(char *s)
{
	if (!s)
		return;
	explicit_bzero(s, strlen(s));
	free(s);
}
