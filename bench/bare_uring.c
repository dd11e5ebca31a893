// SPDX-License-Identifier: MIT
/*
 * The floor for any io_uring engine: the smallest loop liburing allows -- one ring,
 * random 4 KiB O_DIRECT reads at a queue depth, submit, wait, reap, resubmit; no
 * statistics, no histogram, no rate logic. bench/engine_vs_fio.py runs it beside
 * rackbench and fio, so a gap to fio that this loop shares is not the engine's cost.
 *
 *   bare_uring DEVICE QD SECONDS    prints "IOS IOPS"
 */
#include <fcntl.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <time.h>
#include <unistd.h>

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	struct io_uring_params p = { .flags = IORING_SETUP_SINGLE_ISSUER |
					      IORING_SETUP_DEFER_TASKRUN |
					      IORING_SETUP_COOP_TASKRUN };
	uint64_t size = 0, x = 88172645463325252ULL, ios = 0;
	unsigned qd;
	int fd;
	char *bufs;

	if (argc != 4) {
		fprintf(stderr, "usage: bare_uring DEVICE QD SECONDS\n");
		return 2;
	}
	qd = (unsigned)atoi(argv[2]);
	fd = open(argv[1], O_RDONLY | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < 4096 || !qd || qd > 4096) {
		perror(argv[1]);
		return 1;
	}
	if (io_uring_queue_init_params(qd, &ring, &p) ||
	    posix_memalign((void **)&bufs, 4096, (size_t)qd * 4096))
		return 1;
	int64_t end = now_ns() + (int64_t)atoi(argv[3]) * 1000000000LL, start = now_ns();
	unsigned inflight = 0;

	for (;;) {
		bool go = now_ns() < end;

		while (go && inflight < qd) {
			struct io_uring_sqe *s = io_uring_get_sqe(&ring);

			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			io_uring_prep_read(s, fd, bufs + (size_t)inflight * 4096, 4096,
					   (x % (size / 4096)) * 4096);
			inflight++;
		}
		if (!inflight)
			break;
		struct io_uring_cqe *c;
		unsigned head, n = 0;

		io_uring_submit_and_wait(&ring, 1);
		io_uring_for_each_cqe(&ring, head, c)
		{
			if (c->res != 4096)
				return 1;
			n++;
		}
		io_uring_cq_advance(&ring, n);
		inflight -= n;
		if (go)
			ios += n;
	}
	printf("%llu %.1f\n", (unsigned long long)ios, (double)ios / ((double)(end - start) / 1e9));
	return 0;
}
