/* SPDX-License-Identifier: MIT */
/*
 * S3's XML answers as the runner reads them (runner/s3/client.c): a
 * listing's keys, truncation and continuation token, an upload id, an
 * error's code, a multi-object delete's errors; references decoded. The
 * first input byte picks the output buffer's size (1..256), so text that
 * does not fit is met too. Checks: a found text is NUL-terminated within
 * the buffer, the position only moves forward within the body, a refusal
 * says why.
 */
#include "fuzz/fuzz.h"
#include "runner/s3/s3.h"

#include <errno.h>

static void read_all(const char *body, size_t len, const char *tag, size_t outlen)
{
	char out[256], err[256];
	size_t pos = 0;
	for (int guard = 0; guard < 4096; guard++) {
		size_t before = pos;
		err[0] = '\0';
		int r = sb_s3_xml_text(body, tag, &pos, out, outlen, err, sizeof(err));
		if (r == 1) {
			if (pos <= before || pos > len || strlen(out) >= outlen)
				__builtin_trap();
			continue;
		}
		if (pos != before || (r < 0 && !err[0]) || (r != 0 && r != -EINVAL && r != -ENOSPC))
			__builtin_trap();
		return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t outlen = 1 + data[0];
	char *body = fuzz_cstr(data + 1, size - 1);
	if (!body)
		return 0;
	size_t len = strlen(body);
	static const char *const tags[] = {"Key",      "IsTruncated", "NextContinuationToken",
					   "UploadId", "Code",	      "Message"};
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		read_all(body, len, tags[i], outlen);
	if (sb_s3_xml_count(body, "Error") > len)
		__builtin_trap();
	free(body);
	return 0;
}
