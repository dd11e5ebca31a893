/* SPDX-License-Identifier: MIT */
/*
 * GPU memory for the engine's buffers (workload 'memory: gpu'): NVIDIA's CUDA runtime and
 * cuFile (GPUDirect Storage) loaded at run time with dlopen, so rackbench builds and runs
 * without them and needs no CUDA headers: the few calls it makes are declared here, as
 * NVIDIA's headers declare them. With cuFile's driver open (GDS available) IO goes between
 * the drive and device memory directly; else through host buffers, copied to and from
 * device memory (cudaMemcpy) -- gdsio's "GPU direct" and "CPU to GPU" transfer types.
 * RB_CUDART and RB_CUFILE, where set, are the libraries' paths (off the loader's path).
 */
#ifndef RB_GPU_H
#define RB_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* cuFile's types, as cufile.h has them */
typedef struct {
	int err;    /* CUfileOpError: 0 success */
	int cu_err; /* CUresult */
} rb_cufile_error;
typedef struct {
	int type; /* CU_FILE_HANDLE_TYPE_OPAQUE_FD: 1 */
	union {
		int fd;
		void *handle;
	} handle;
	const void *fs_ops;
} rb_cufile_descr;
typedef void *rb_cufile_handle;

struct rb_gpu {
	void *cudart, *cufile;
	bool gds; /* cuFile's driver opened: IO to device memory directly */
	int (*malloc_)(void **p, size_t n);
	int (*free_)(void *p);
	int (*memcpy_)(void *dst, const void *src, size_t n, int kind); /* 1 H2D, 2 D2H */
	int (*device_count)(int *n);
	rb_cufile_error (*driver_open)(void);
	rb_cufile_error (*driver_close)(void);
	rb_cufile_error (*handle_register)(rb_cufile_handle *fh, rb_cufile_descr *d);
	void (*handle_deregister)(rb_cufile_handle fh);
	rb_cufile_error (*buf_register)(const void *p, size_t n, int flags);
	rb_cufile_error (*buf_deregister)(const void *p);
	ssize_t (*read)(rb_cufile_handle fh, void *base, size_t n, off_t file_off, off_t base_off);
	ssize_t (*write)(rb_cufile_handle fh, const void *base, size_t n, off_t file_off,
			 off_t base_off);
};

#define RB_CUDA_H2D 1
#define RB_CUDA_D2H 2

/*
 * The process's GPU libraries, loaded once (thread-safe): the CUDA runtime and a device,
 * and cuFile's driver where it opens. NULL with err naming what is missing.
 */
const struct rb_gpu *rb_gpu_get(char *err, size_t errlen);

#endif
