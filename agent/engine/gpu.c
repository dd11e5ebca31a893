// SPDX-License-Identifier: MIT
#include "gpu.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

static struct rb_gpu gpu;
static char why[512];
static bool ok;

/* The library env names (a path), else the first of names dlopen finds; NULL: none. */
static void *open_first(const char *env, const char *const *names)
{
	const char *path = getenv(env);
	void *h = NULL;

	if (path && *path)
		return dlopen(path, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; names[i] && !h; i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	return h;
}

/* A symbol of the CUDA runtime into field; false (said) when it lacks it. */
static bool sym(void **field, const char *name)
{
	if (!(*field = dlsym(gpu.cudart, name)))
		snprintf(why, sizeof(why), "libcudart has no %s", name);
	return *field != NULL;
}

static void load_cufile(void)
{
	static const char *const names[] = { "libcufile.so.0", "libcufile.so", NULL };

	if (!(gpu.cufile = open_first("RB_CUFILE", names)))
		return;
	/* cuFile without what IO needs is no GDS: the copy path stands */
	const char *const syms[] = { "cuFileDriverOpen",     "cuFileDriverClose",
				     "cuFileHandleRegister", "cuFileHandleDeregister",
				     "cuFileBufRegister",    "cuFileBufDeregister",
				     "cuFileRead",	     "cuFileWrite" };
	void **fields[] = { (void **)&gpu.driver_open,
			    (void **)&gpu.driver_close,
			    (void **)&gpu.handle_register,
			    (void **)&gpu.handle_deregister,
			    (void **)&gpu.buf_register,
			    (void **)&gpu.buf_deregister,
			    (void **)&gpu.read,
			    (void **)&gpu.write };

	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!(*fields[i] = dlsym(gpu.cufile, syms[i])))
			return;
	gpu.gds = gpu.driver_open().err == 0;
}

static void load(void)
{
	static const char *const names[] = { "libcudart.so.13", "libcudart.so.12",
					     "libcudart.so.11.0", "libcudart.so", NULL };
	int n = 0;

	if (!(gpu.cudart = open_first("RB_CUDART", names))) {
		snprintf(why, sizeof(why),
			 "no CUDA runtime on this host (libcudart.so: %s): memory gpu needs "
			 "NVIDIA's driver and CUDA",
			 dlerror());
		return;
	}
	if (!sym((void **)&gpu.malloc_, "cudaMalloc") || !sym((void **)&gpu.free_, "cudaFree") ||
	    !sym((void **)&gpu.memcpy_, "cudaMemcpy") ||
	    !sym((void **)&gpu.device_count, "cudaGetDeviceCount"))
		return;
	if (gpu.device_count(&n) != 0 || n < 1) {
		snprintf(why, sizeof(why), "the CUDA runtime sees no GPU on this host");
		return;
	}
	load_cufile();
	ok = true;
}

const struct rb_gpu *rb_gpu_get(char *err, size_t errlen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, load);
	if (!ok)
		snprintf(err, errlen, "%s", why);
	return ok ? &gpu : NULL;
}
