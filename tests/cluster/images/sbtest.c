/*
 * sbtest: the tiny static program of the test cluster's test image
 * (localhost/storagebench-test:1, entrypoint /sbtest). One binary, a few
 * commands, so that pod tests depend on nothing but this file:
 *
 *   sbtest exit N            exit with status N
 *   sbtest echo WORD...      print the words
 *   sbtest cat FILE...       print files
 *   sbtest sleep SECONDS     sleep (fractions allowed; SIGTERM ends it, status 143)
 *   sbtest id                print uid and gid
 *   sbtest stat PATH         print "block SIZE", "dir", "file SIZE", "char" or "other"
 *   sbtest write FILE TEXT   write TEXT to FILE, read it back, print it
 *   sbtest blkrw DEV         write 4 KiB at offset 0 with O_DIRECT, read back, compare
 *   sbtest iouring           try io_uring_setup; print "io_uring: allowed" or
 *                            "io_uring: errno N (text)", then the Seccomp line
 *   sbtest serve PORT        TCP server on every IPv4 address: to each client
 *                            "hello from HOSTNAME\n", then close; forever
 *   sbtest get IPV4 PORT [PATH]  connect (5 s timeout), with PATH send
 *                            "GET PATH HTTP/1.0"; print what the server
 *                            sends; on failure "connect: errno N (text)"
 *
 * Exit status 0 on success, 1 on a failed command, 2 on a usage error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <linux/fs.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int cmd_cat(int argc, char **argv)
{
	char buf[4096];
	int i;

	for (i = 0; i < argc; i++) {
		FILE *f = fopen(argv[i], "r");
		size_t n;

		if (!f) {
			fprintf(stderr, "sbtest: cannot open '%s': %s\n", argv[i], strerror(errno));
			return 1;
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, stdout);
		fclose(f);
	}
	return 0;
}

static int cmd_stat(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "sbtest: cannot stat '%s': %s\n", path, strerror(errno));
		return 1;
	}
	if (S_ISBLK(st.st_mode)) {
		uint64_t size = 0;
		int fd = open(path, O_RDONLY);

		if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) < 0) {
			fprintf(stderr, "sbtest: cannot size '%s': %s\n", path, strerror(errno));
			if (fd >= 0)
				close(fd);
			return 1;
		}
		close(fd);
		printf("block %llu\n", (unsigned long long)size);
	} else if (S_ISDIR(st.st_mode)) {
		printf("dir\n");
	} else if (S_ISREG(st.st_mode)) {
		printf("file %lld\n", (long long)st.st_size);
	} else if (S_ISCHR(st.st_mode)) {
		printf("char\n");
	} else {
		printf("other\n");
	}
	return 0;
}

static int cmd_write(const char *path, const char *text)
{
	char back[4096];
	FILE *f = fopen(path, "w");
	size_t n;

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "sbtest: cannot write '%s': %s\n", path, strerror(errno));
		return 1;
	}
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "sbtest: cannot reopen '%s': %s\n", path, strerror(errno));
		return 1;
	}
	n = fread(back, 1, sizeof(back) - 1, f);
	fclose(f);
	back[n] = '\0';
	printf("%s\n", back);
	return strcmp(back, text) == 0 ? 0 : 1;
}

static int cmd_blkrw(const char *dev)
{
	void *w = NULL, *r = NULL;
	int fd, ret = 1;

	if (posix_memalign(&w, 4096, 4096) || posix_memalign(&r, 4096, 4096)) {
		fprintf(stderr, "sbtest: out of memory\n");
		goto out;
	}
	memset(w, 0x5b, 4096);
	memset(r, 0, 4096);
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0) {
		fprintf(stderr, "sbtest: cannot open '%s': %s\n", dev, strerror(errno));
		goto out;
	}
	if (pwrite(fd, w, 4096, 0) != 4096 || fsync(fd) < 0 || pread(fd, r, 4096, 0) != 4096) {
		fprintf(stderr, "sbtest: i/o on '%s' failed: %s\n", dev, strerror(errno));
		close(fd);
		goto out;
	}
	close(fd);
	ret = memcmp(w, r, 4096) == 0 ? 0 : 1;
	printf("blkrw %s\n", ret == 0 ? "ok" : "mismatch");
out:
	free(w);
	free(r);
	return ret;
}

static int cmd_iouring(void)
{
	struct io_uring_params p;
	char line[256];
	FILE *f;
	long fd;

	memset(&p, 0, sizeof(p));
	fd = syscall(__NR_io_uring_setup, 4, &p);
	if (fd < 0) {
		int e = errno;

		printf("io_uring: errno %d (%s)\n", e, strerror(e));
	} else {
		printf("io_uring: allowed\n");
		close((int)fd);
	}
	f = fopen("/proc/self/status", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "Seccomp:", 8) == 0)
			fputs(line, stdout);
	if (f)
		fclose(f);
	return 0;
}

/* As PID 1 of a container a signal without a handler is ignored: exit on
 * SIGTERM like a real program, so pods stop without the grace period. */
static void on_term(int sig)
{
	_exit(128 + sig);
}

static int usage(void)
{
	fprintf(stderr, "usage: sbtest exit N | echo WORD... | cat FILE... | sleep SECONDS | id |\n"
			"       stat PATH | write FILE TEXT | blkrw DEV | iouring | serve PORT |\n"
			"       get IPV4 PORT [PATH]\n");
	return 2;
}

static int cmd_serve(const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)strtol(port, NULL, 10))};
	char host[256] = "?", msg[300];
	int one = 1, s = socket(AF_INET, SOCK_STREAM, 0);

	if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(s, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(s, 16) < 0) {
		printf("serve: errno %d (%s)\n", errno, strerror(errno));
		return 1;
	}
	(void)gethostname(host, sizeof(host) - 1);
	int n = snprintf(msg, sizeof(msg), "hello from %s\n", host);
	printf("serving on port %s\n", port);
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0)
			continue;
		if (write(c, msg, (size_t)n) != n)
			printf("serve: short write\n");
		close(c);
	}
}

static int cmd_get(const char *ip, const char *port, const char *path)
{
	struct sockaddr_in a = {.sin_family = AF_INET,
				.sin_port = htons((uint16_t)strtol(port, NULL, 10))};
	char buf[512];
	int s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0), err = 0;
	socklen_t len = sizeof(err);
	ssize_t r;

	if (s < 0 || inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		printf("get: bad address %s\n", ip);
		return 2;
	}
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		struct pollfd p = {.fd = s, .events = POLLOUT};
		if (errno != EINPROGRESS) {
			err = errno;
		} else if (poll(&p, 1, 5000) != 1) {
			err = ETIMEDOUT;
		} else if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) < 0) {
			err = errno;
		}
	}
	if (err) {
		printf("connect: errno %d (%s)\n", err, strerror(err));
		return 1;
	}
	fcntl(s, F_SETFL, 0);
	if (path) {
		int n = snprintf(buf, sizeof(buf), "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n", path, ip);
		if (n < 0 || (size_t)n >= sizeof(buf) || write(s, buf, (size_t)n) != n) {
			printf("get: cannot send the request\n");
			close(s);
			return 1;
		}
	}
	while ((r = read(s, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)r, stdout);
	close(s);
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	if (strcmp(cmd, "exit") == 0 && argc == 3)
		return (int)strtol(argv[2], NULL, 10);
	if (strcmp(cmd, "echo") == 0) {
		for (i = 2; i < argc; i++)
			printf("%s%s", argv[i], i + 1 < argc ? " " : "");
		printf("\n");
		return 0;
	}
	if (strcmp(cmd, "cat") == 0)
		return cmd_cat(argc - 2, argv + 2);
	if (strcmp(cmd, "sleep") == 0 && argc == 3) {
		double s = strtod(argv[2], NULL);
		struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		return 0;
	}
	if (strcmp(cmd, "id") == 0) {
		printf("uid=%u gid=%u\n", (unsigned)getuid(), (unsigned)getgid());
		return 0;
	}
	if (strcmp(cmd, "stat") == 0 && argc == 3)
		return cmd_stat(argv[2]);
	if (strcmp(cmd, "write") == 0 && argc == 4)
		return cmd_write(argv[2], argv[3]);
	if (strcmp(cmd, "blkrw") == 0 && argc == 3)
		return cmd_blkrw(argv[2]);
	if (strcmp(cmd, "iouring") == 0)
		return cmd_iouring();
	if (strcmp(cmd, "serve") == 0 && argc == 3)
		return cmd_serve(argv[2]);
	if (strcmp(cmd, "get") == 0 && (argc == 4 || argc == 5))
		return cmd_get(argv[2], argv[3], argc == 5 ? argv[4] : NULL);
	return usage();
}
