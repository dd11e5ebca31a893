# SPDX-License-Identifier: MIT
"""GPU buffers (`memory: gpu`) against the fake CUDA runtime and cuFile the tests build
(tests/fixtures/fake_cudart.c, fake_cufile.c: host memory behind NVIDIA's symbols, every
call counted, a pointer outside "device" memory counted bad):

- with GPUDirect Storage (the fake's driver opens) every read and write goes through
  cuFileRead/cuFileWrite into device memory: their bytes are the run's, no per-IO copy;
- without it (FAKE_CUFILE_GDS=0) the IO goes through host buffers and each read is
  copied to device memory, each write's data from it: the copies' bytes are the run's;
- no CUDA runtime, or one that sees no GPU: the run is refused, saying which.
"""
import json
import os

from rbtest import AGENT, Tmp, check, run, skip

FAKE = os.environ.get("RB_FAKECUDA", "build/tests/fakecuda")
if not os.path.exists(os.path.join(FAKE, "libcudart.so.12")):
    skip(f"the fake CUDA libraries were not built ({FAKE})")

with Tmp() as tmp:
    state = os.path.join(tmp, "state")
    os.mkdir(state, 0o700)
    target = os.path.join(state, "d.dat")
    log = os.path.join(tmp, "cuda.log")
    DEPTH, BS = 4, 65536

    def gpu_run(rw, gds, env_extra=None):
        if os.path.exists(log):
            os.unlink(log)
        env = dict(os.environ, FAKE_CUDA_LOG=log, FAKE_CUFILE_GDS="1" if gds else "0",
                   RB_CUDART=os.path.join(FAKE, "libcudart.so.12"),
                   RB_CUFILE=os.path.join(FAKE, "libcufile.so.0"))
        env.update(env_extra or {})
        r = run([AGENT, "run", "--state-dir", state, "--target", target, "--size", "16m",
                 "--rw", rw, "--bs", "64k", "--iodepth", str(DEPTH), "--runtime", "1s",
                 "--memory", "gpu", "--destructive", "--json"], env=env)
        counts = {}
        if os.path.exists(log):
            for line in open(log):
                lib, *kv = line.split()
                counts[lib] = {k: int(v) for k, v in (x.split("=") for x in kv)}
        return r, counts

    for gds in (True, False):
        for rw, d in (("write", "write"), ("randread", "read")):
            r, c = gpu_run(rw, gds)
            print(rw, "gds" if gds else "copy", r.returncode, c, r.stderr[-300:])
            check(r.returncode == 0, f"{rw}: exit {r.returncode} {r.stderr}")
            moved = json.loads(r.stdout)[d]["bytes"]
            cu, cf = c["cudart"], c["cufile"]
            check(moved > 0 and cu["bad"] == 0 and cf["bad"] == 0,
                  f"{rw}: {moved} B; a pointer outside device memory: {c}")
            # the buffers' random data goes to the device once, at the start
            setup = DEPTH * BS
            if gds:
                check(cf[d] == moved and cf["handles"] == 1 and cf["bufs"] == 1,
                      f"{rw} over GDS: cuFile moved {cf[d]} of {moved}")
                check(cu["h2d"] == setup and cu["d2h"] == 0, f"{rw} over GDS copied: {cu}")
            else:
                copied = cu["h2d"] - setup if d == "read" else cu["d2h"]
                check(cf["read"] == cf["write"] == 0 and copied == moved,
                      f"{rw} by copies: {copied} B copied of {moved}: {c}")

    # no CUDA runtime; a runtime without a GPU: refused, saying which
    r, _ = gpu_run("randread", True, {"RB_CUDART": os.path.join(tmp, "libcudart.so")})
    check(r.returncode != 0 and "no CUDA runtime on this host" in r.stderr and
          "memory gpu needs NVIDIA's driver and CUDA" in r.stderr, f"no runtime: {r.stderr}")
    r, _ = gpu_run("randread", True, {"FAKE_CUDA_DEVICES": "0"})
    check(r.returncode != 0 and "the CUDA runtime sees no GPU on this host" in r.stderr,
          f"no GPU: {r.stderr}")
    # the engine and the options it does not go with
    r = run([AGENT, "run", "--state-dir", state, "--target", target, "--size", "16m",
             "--memory", "gpu", "--verify", "true"])
    check(r.returncode == 2 and "memory gpu runs on the uring engine, without verify" in
          r.stderr, f"gpu with verify: {r.returncode} {r.stderr}")
print("ok")
