/* SPDX-License-Identifier: MIT */
/*
 * kubeconfig files (lib/kube/config.c): the input is the file, handed over
 * as a memfd (/proc/self/fd/N) so nothing is written to disk. Relative
 * certificate paths resolve against /proc/self/fd: they name no real file.
 */
#include "fuzz/fuzz.h"
#include "kube/internal.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("kubeconfig", 0);
	if (fd < 0)
		return 0;
	size_t off = 0;
	while (off < size) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct kube_config cfg;
	struct kube_error err;
	if (off == size && kube_config_load_file(&cfg, path, &err) == 0)
		kube_config_release(&cfg);
	close(fd);
	return 0;
}
