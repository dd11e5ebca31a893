// SPDX-License-Identifier: MIT
/*
 * Presets: the procedures of published reviews (docs/presets.md says which review each
 * comes from and what was chosen where the review is silent or unclear), as campaign text
 * -- defaults and phases -- that a campaign pulls in with `preset: NAME` and shortens
 * or adjusts with `overrides:`.
 */
#include "presets.h"

#include <string.h>

/* CDN read: 128 KiB at 83.21%, then 124 sizes from 4 KiB in 512-byte steps with
 * geometrically falling weights (ratio 0.97) that sum to 16.79% (docs/presets.md). */
#define CDN_READ                                                                                   \
	"128k/83.21:4096/0.5155:4608/0.5000:5120/0.4850:5632/0.4705:6144/0.4564:6656/0.4427:7168/0.4294:7680/0.4165:8192/0.4040:8704/0.3919:9216/0.3801:9728/0.3687:10240/0.3577:10752/0.3469:11264/0.3365:11776/0.3264:12288/0.3166:12800/0.3071:13312/0.2979:13824/0.2890:14336/0.2803:14848/0.2719:15360/0.2638:15872/0.2558:16384/0.2482:16896/0.2407:17408/0.2335:17920/0.2265:18432/0.2197:18944/0.2131:19456/0.2067:19968/0.2005:20480/0.1945:20992/0.1887:21504/0.1830:22016/0.1775:22528/0.1722:23040/0.1670:23552/0.1620:24064/0.1572:24576/0.1524:25088/0.1479:25600/0.1434:26112/0.1391:26624/0.1350:27136/0.1309:27648/0.1270:28160/0.1232:28672/0.1195:29184/0.1159:29696/0.1124:30208/0.1090:30720/0.1058:31232/0.1026:31744/0.0995:32256/0.0965:32768/0.0936:33280/0.0908:33792/0.0881:34304/0.0855:34816/0.0829:35328/0.0804:35840/0.0780:36352/0.0757:36864/0.0734:37376/0.0712:37888/0.0691:38400/0.0670:38912/0.0650:39424/0.0630:39936/0.0611:40448/0.0593:40960/0.0575:41472/0.0558:41984/0.0541:42496/0.0525:43008/0.0509:43520/0.0494:44032/0.0479:44544/0.0465:45056/0.0451:45568/0.0437:46080/0.0424:46592/0.0411:47104/0.0399:47616/0.0387:48128/0.0375:48640/0.0364:49152/0.0353:49664/0.0343:50176/0.0332:50688/0.0322:51200/0.0313:51712/0.0303:52224/0.0294:52736/0.0285:53248/0.0277:53760/0.0269:54272/0.0261:54784/0.0253:55296/0.0245:55808/0.0238:56320/0.0231:56832/0.0224:57344/0.0217:57856/0.0211:58368/0.0204:58880/0.0198:59392/0.0192:59904/0.0186:60416/0.0181:60928/0.0175:61440/0.0170:61952/0.0165:62464/0.0160:62976/0.0155:63488/0.0151:64000/0.0146:64512/0.0142:65024/0.0137:65536/0.0133:66048/0.0129:66560/0.0125:67072/0.0122"
/* CDN write and the saturation stage: 128 KiB at 98.51%, a small-size tail of 1.49%. */
#define CDN_WRITE "128k/98.51:64k/0.50:32k/0.40:16k/0.35:8k/0.24"

static const struct rb_preset presets[] = {
	{ "storagereview-fio",
	  "StorageReview's FIO suite: 128K sequential, then 64K/16K/4K random "
	  "matrices, a fresh two-pass fill before each block size",
	  "the Kingston DC3000ME review (five Gen5 drives head to head), its FIO suite",
	  "defaults: {direct: true, runtime: 2m, interval: 1s}\n"
	  "phases:\n"
	  "  - name: precondition-128k\n"
	  "    workload: {rw: write, bs: 128k, iodepth: 256, numjobs: 1, passes: 2}\n"
	  "  - name: seq-write-128k\n"
	  "    workload: {rw: write, bs: 128k, iodepth: 16, numjobs: 1}\n"
	  "  - name: seq-read-128k\n"
	  "    workload: {rw: read, bs: 128k, iodepth: 64, numjobs: 1}\n"
	  "  - name: precondition-64k\n"
	  "    workload: {rw: write, bs: 64k, iodepth: 256, passes: 2}\n"
	  "  - name: random-64k\n"
	  "    workload: {bs: 64k}\n"
	  "    matrix: {rw: [randread, randwrite], iodepth: [1, 4, 16, 32], numjobs: [1, 4, 16]}\n"
	  "  - name: precondition-16k\n"
	  "    workload: {rw: write, bs: 16k, iodepth: 256, passes: 2}\n"
	  "  - name: random-16k\n"
	  "    workload: {bs: 16k}\n"
	  "    matrix: {rw: [randread, randwrite], iodepth: [1, 4, 16, 32], numjobs: [1, 4, 16]}\n"
	  "  - name: precondition-4k\n"
	  "    workload: {rw: write, bs: 4k, iodepth: 256, passes: 2}\n"
	  "  - name: random-4k\n"
	  "    workload: {bs: 4k}\n"
	  "    matrix: {rw: [randread, randwrite], iodepth: [1, 4, 16, 32], numjobs: [1, 4, 16]}\n" },
	{ "cdn",
	  "CDN: sequential fill, random-write saturation (128K at 98.51%), then CDN write "
	  "and CDN read (125 sizes) over numjobs {1,2,4} x QD {1..32}, 5 min per point, 1 min idle",
	  "the Kingston DC3000ME review (five Gen5 drives head to head), its CDN workload",
	  "defaults: {direct: true, interval: 1s}\n"
	  "phases:\n"
	  "  - name: precondition-fill\n"
	  "    workload: {rw: write, bs: 128k, iodepth: 128, numjobs: 1, passes: 1}\n"
	  "  - name: saturation\n"
	  "    workload: {rw: randwrite, bssplit: \"" CDN_WRITE "\", iodepth: 32, numjobs: 4, "
	  "runtime: 1h}\n"
	  "  - name: cdn-write\n"
	  "    workload: {rw: randwrite, bssplit: \"" CDN_WRITE "\", runtime: 5m}\n"
	  "    matrix: {numjobs: [1, 2, 4], iodepth: [1, 2, 4, 8, 16, 32]}\n"
	  "    idle: 1m\n"
	  "  - name: cdn-read\n"
	  "    workload: {rw: randread, bssplit: \"" CDN_READ "\", runtime: 5m}\n"
	  "    matrix: {numjobs: [1, 2, 4], iodepth: [1, 2, 4, 8, 16, 32]}\n"
	  "    idle: 1m\n" },
	{ "vdbench-4corners",
	  "VDBench four corners on a 25% section after a full fill: 4K random "
	  "read/write, 64K sequential read/write, each a curve to 120% of its maximum",
	  "the Kingston DC1000M and Silicon Power US70 reviews, their VDBench curves",
	  "defaults: {direct: true, runtime: 5m, interval: 1s}\n"
	  "phases:\n"
	  "  - name: fill\n"
	  "    workload: {rw: write, bs: 128k, iodepth: 32, passes: 1}\n"
	  "  - name: 4k-random-read\n"
	  "    workload: {rw: randread, bs: 4k, iodepth: 1, numjobs: 128, size_pct: 25}\n"
	  "    curve: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]\n"
	  "  - name: 4k-random-write\n"
	  "    workload: {rw: randwrite, bs: 4k, iodepth: 1, numjobs: 64, size_pct: 25}\n"
	  "    curve: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]\n"
	  "  - name: 64k-seq-read\n"
	  "    workload: {rw: read, bs: 64k, iodepth: 1, numjobs: 16, size_pct: 25}\n"
	  "    curve: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]\n"
	  "  - name: 64k-seq-write\n"
	  "    workload: {rw: write, bs: 64k, iodepth: 1, numjobs: 8, size_pct: 25}\n"
	  "    curve: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]\n" },
	{ "database",
	  "VDBench synthetic database profiles (SQL, SQL 90-10, SQL 80-20, Oracle, "
	  "Oracle 90-10, Oracle 80-20) as curves on a 25% section after a full fill",
	  "the Kingston DC1000M and Silicon Power US70 reviews, VDBench synthetic database",
	  "defaults: {direct: true, runtime: 5m, interval: 1s, size_pct: 25, iodepth: 1, "
	  "numjobs: 64}\n"
	  "phases:\n"
	  "  - name: fill\n"
	  "    workload: {rw: write, bs: 128k, iodepth: 32, numjobs: 1, passes: 1, size_pct: 0}\n"
	  "  - name: sql\n"
	  "    workload: {rw: randrw, bs: 8k, rwmixread: 70}\n"
	  "    matrix: {rwmixread: [70, 90, 80]}\n"
	  "    curve: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]\n"
	  "  - name: oracle\n"
	  "    workload: {rw: randrw, bssplit: \"8k/90:64k/10\"}\n"
	  "    matrix: {rwmixread: [70, 90, 80]}\n"
	  "    curve: [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120]\n" },
	{ "snia-pts-iops",
	  "SNIA PTS IOPS: workload-independent preconditioning (2x capacity, "
	  "128K sequential), then rounds of 8 block sizes x 7 read/write mixes until 4K random "
	  "write IOPS are steady (window 5, at most 25 rounds)",
	  "SNIA SSS PTS 2.0 (IOPS test); the Silicon Power US70 review (the drive's state decides the result)",
	  "defaults: {direct: true, iodepth: 32, numjobs: 4, runtime: 1m, interval: 1s}\n"
	  "phases:\n"
	  "  - name: wipc\n"
	  "    workload: {rw: write, bs: 128k, iodepth: 32, numjobs: 1, passes: 2}\n"
	  "  - name: iops\n"
	  "    workload: {rw: randrw}\n"
	  "    matrix:\n"
	  "      rwmixread: [100, 95, 65, 50, 35, 5, 0]\n"
	  "      bs: [1024k, 128k, 64k, 32k, 16k, 8k, 4k, 512]\n"
	  "    steady_state: {max_rounds: 25, window: 5, track: {rwmixread: 0, bs: 4k}, "
	  "metric: iops}\n" },
	{ "snia-pts-throughput",
	  "SNIA PTS throughput: 128K and 1024K sequential write, then "
	  "read, each in rounds until steady (window 5, at most 25 rounds)",
	  "SNIA SSS PTS 2.0 (throughput test)",
	  "defaults: {direct: true, iodepth: 32, numjobs: 1, runtime: 1m, interval: 1s}\n"
	  "phases:\n"
	  "  - name: wipc\n"
	  "    workload: {rw: write, bs: 128k, passes: 2}\n"
	  "  - name: throughput-write\n"
	  "    workload: {rw: write}\n"
	  "    matrix: {bs: [1024k, 128k]}\n"
	  "    steady_state: {max_rounds: 25, window: 5, track: {bs: 1024k}, metric: mbps}\n"
	  "  - name: throughput-read\n"
	  "    workload: {rw: read}\n"
	  "    matrix: {bs: [1024k, 128k]}\n"
	  "    steady_state: {max_rounds: 25, window: 5, track: {bs: 1024k}, metric: mbps}\n" },
	{ "snia-pts-latency",
	  "SNIA PTS latency: 3 block sizes x 3 read/write mixes at QD1, one "
	  "job, in rounds until the 4K random-write mean latency is steady",
	  "SNIA SSS PTS 2.0 (latency test)",
	  "defaults: {direct: true, iodepth: 1, numjobs: 1, runtime: 1m, interval: 1s}\n"
	  "phases:\n"
	  "  - name: wipc\n"
	  "    workload: {rw: write, bs: 128k, iodepth: 32, passes: 2}\n"
	  "  - name: latency\n"
	  "    workload: {rw: randrw}\n"
	  "    matrix:\n"
	  "      rwmixread: [100, 65, 0]\n"
	  "      bs: [8k, 4k, 512]\n"
	  "    steady_state: {max_rounds: 25, window: 5, track: {rwmixread: 0, bs: 4k}, "
	  "metric: mean_latency}\n" },
	{ "crystaldiskmark",
	  "CrystalDiskMark 8: its test file written, then four tests, read and write: "
	  "SEQ1M Q8T1, SEQ1M Q1T1, RND4K Q32T16, RND4K Q1T1",
	  "the Kingston DCP1000 lab report (CrystalDiskMark 5.0.3; here CrystalDiskMark 8's tests)",
	  "defaults: {direct: true, runtime: 5s, interval: 1s, size: 1g}\n"
	  "phases:\n"
	  "  - name: prepare\n"
	  "    workload: {rw: write, bs: 1m, iodepth: 8, numjobs: 1, passes: 1}\n"
	  "  - name: seq1m-q8t1\n"
	  "    workload: {bs: 1m, iodepth: 8, numjobs: 1}\n"
	  "    matrix: {rw: [read, write]}\n"
	  "  - name: seq1m-q1t1\n"
	  "    workload: {bs: 1m, iodepth: 1, numjobs: 1}\n"
	  "    matrix: {rw: [read, write]}\n"
	  "  - name: rnd4k-q32t16\n"
	  "    workload: {bs: 4k, iodepth: 32, numjobs: 16}\n"
	  "    matrix: {rw: [randread, randwrite]}\n"
	  "  - name: rnd4k-q1t1\n"
	  "    workload: {bs: 4k, iodepth: 1, numjobs: 1}\n"
	  "    matrix: {rw: [randread, randwrite]}\n" },
	{ "atto",
	  "ATTO Disk Benchmark: sequential read and write over block sizes from 512 B to "
	  "64 MiB, queue depth 4",
	  "the Kingston DCP1000 lab report, ATTO Disk Benchmark 3.05",
	  "defaults: {direct: true, iodepth: 4, numjobs: 1, runtime: 5s, interval: 1s, size: 256m}\n"
	  "phases:\n"
	  "  - name: atto\n"
	  "    workload: {}\n"
	  "    matrix:\n"
	  "      rw: [write, read]\n"
	  "      bs: [512, 1k, 2k, 4k, 8k, 16k, 32k, 64k, 128k, 256k, 512k, 1m, 2m, 4m, 8m, 16m, "
	  "32m, 64m]\n" },
	{ "burnin",
	  "Burn-in: two full-capacity write passes with verification headers, then a "
	  "verifying read pass, health sampled every minute",
	  "what every review cited here shares: the drive's state and health with every number",
	  "defaults: {direct: true, bs: 1m, iodepth: 32, numjobs: 1, interval: 10s, "
	  "health_interval: 1m, verify: true}\n"
	  "verdict: {critical_warning: true, max_media_errors: 0, max_unsafe_shutdowns: 0, "
	  "min_model_pct: 70}\n"
	  "phases:\n"
	  "  - name: write\n"
	  "    workload: {rw: write, passes: 2}\n"
	  "  - name: verify\n"
	  "    workload: {rw: read, passes: 1}\n" },
	{ "dlio-checkpoint",
	  "DLIO checkpoints of a LLaMA 3.1 405B job on a 4-GPU node: 1,636 GiB per "
	  "checkpoint by 4 writers, 12 in a row, 3 kept, restored, three passes",
	  "the Kingston DC3000ME review, its DLIO checkpoint benchmark",
	  "defaults: {rw: checkpoint, checkpoint_size: 1636g, numjobs: 4, checkpoints: 12, "
	  "checkpoint_keep: 3, checkpoint_restore: true, bs: 4m, iodepth: 4, direct: false, "
	  "interval: 1s}\n"
	  "phases:\n"
	  "  - name: checkpoint\n"
	  "    repeat: 3\n" },
	{ "gdsio",
	  "GPUDirect Storage, gdsio's shape: sequential read, then write, at 16K, 128K and 1M, "
	  "1 to 128 jobs, buffers in GPU memory",
	  "the Kingston DC3000ME review, its gdsio (NVIDIA GDS tools) runs",
	  "defaults: {memory: gpu, direct: true, iodepth: 1, runtime: 30s, interval: 1s}\n"
	  "phases:\n"
	  "  - name: gds-read\n"
	  "    workload: {rw: read}\n"
	  "    matrix: {bs: [16k, 128k, 1m], numjobs: [1, 2, 4, 8, 16, 32, 64, 128]}\n"
	  "  - name: gds-write\n"
	  "    workload: {rw: write}\n"
	  "    matrix: {bs: [16k, 128k, 1m], numjobs: [1, 2, 4, 8, 16, 32, 64, 128]}\n" },
	{ "sysbench-oltp",
	  "SysBench OLTP on MariaDB on each drive's filesystem: 100 tables x 10M rows, 32 "
	  "threads, a 2 h run then a measured 1 h on the same database",
	  "the Kingston DC1000M and Silicon Power US70 reviews, their SysBench OLTP workload",
	  "defaults: {interval: 10s, health_interval: 1m}\n"
	  "phases:\n"
	  "  - name: oltp-warmup\n"
	  "    exec: {command: sysbench-mariadb, params: {threads: 32, time: 7200, tables: 100, "
	  "rows: 10000000, fresh: \"yes\"}}\n"
	  "  - name: oltp\n"
	  "    exec: {command: sysbench-mariadb, params: {threads: 32, time: 3600, tables: 100, "
	  "rows: 10000000, fresh: \"no\"}}\n" },
	{ "vdi-boot",
	  "VDI boot storm, synthesized: 64 desktops booting linked clones of one image "
	  "over a minute, replayed in their own timing, then as fast as QD 32 allows",
	  "synthesized (the reviews replay vdbench VDI traces that are not public; "
	  "docs/replay.md)",
	  "defaults: {direct: true, interval: 1s, iodepth: 32, runtime: 5m}\n"
	  "phases:\n"
	  "  - name: boot-storm\n"
	  "    workload: {rw: replay, replay: \"synth:vdi-boot\"}\n"
	  "    matrix: {replay_speed: [1, 0]}\n" },
	{ "vdi-login",
	  "VDI login storm, synthesized: 64 users logging on over two minutes, mostly "
	  "small writes, in their own timing, then as fast as QD 32 allows",
	  "synthesized (the reviews replay vdbench VDI traces that are not public; "
	  "docs/replay.md)",
	  "defaults: {direct: true, interval: 1s, iodepth: 32, runtime: 5m}\n"
	  "phases:\n"
	  "  - name: login-storm\n"
	  "    workload: {rw: replay, replay: \"synth:vdi-login\"}\n"
	  "    matrix: {replay_speed: [1, 0]}\n" },
};

const struct rb_preset *rb_presets(size_t *n)
{
	*n = sizeof(presets) / sizeof(presets[0]);
	return presets;
}

const struct rb_preset *rb_preset_find(const char *name)
{
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++)
		if (!strcmp(presets[i].name, name))
			return &presets[i];
	return NULL;
}
