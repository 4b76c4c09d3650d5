#!/usr/bin/env python3
"""Run step of the GPU GEMM benchmark (on the GPU machine). See
bench/README.md, "GPU GEMM (bench/run_gpu_bench.sh)".

    gemm_bench.py run --manifest bench/work/gpu/manifest.json
                      [--results-dir bench/results] [--copy-to DIR]
                      [--time-budget 400] [--only REGEX]

Two processes. The parent (this command; needs no torch) reads the manifest
that `run_gpu_bench.sh build` wrote, starts a worker process
(`gemm_bench.py worker ...`, which imports torch and does all GPU work),
forwards its progress, and restarts it after the program that was running
when it died (a kernel fault that poisons the CUDA context, a hang: the
watchdog kills a worker that prints nothing for --stall seconds). Every
program ends with a record, and the parent writes
bench/results/gpu-gemm-<UTC time>-<short commit>.json and .md (generated
from the JSON by report.py).

For each program (shape x dtype) the worker: draws random A (M x K) and B
(K x N), prunes A 2:4 along K by magnitude and compresses it into the
canonical format (format24.py, checked against NumPy and by round trip);
for each of STC's two kernels (method "stc": --target=sm_90, mma.sp;
"stc_sm90a": --target=sm_90a, the warp-specialised TMA + wgmma.mma_async.sp
kernel where stc-compile made one) loads the PTX with the driver API and
launches it as its kernel info says (tensor maps, cluster, dynamic shared
memory); poisons the output with NaN, runs once and compares with float64
torch (relative Frobenius error < 1e-2, NaN fails); then times it and the
baselines (dense cuBLAS torch.mm on the unpruned A, PyTorch semi-structured
2:4 with CUTLASS and with cuSPARSELt) with CUDA events, median of many runs,
rotating over input copies larger than twice the L2 cache.

The worker's and the parent's machinery (timing, hang and crash handling,
STC's kernel loading and checking, the restart loop) is in benchcommon.py,
shared with conv_bench.py; this file holds what is particular to the GEMMs.
"""

import math
import os
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import benchcommon as bc  # noqa: E402
import report  # noqa: E402

TOLERANCE = bc.TOLERANCE
METHODS = report.METHODS


# ===========================================================================
# Worker (imports torch; all GPU work happens here)
# ===========================================================================

class _SimLaunch:
    """--simulate: a "kernel" that computes the product with torch from the
    packed parameters (pointers resolved through `tensors`, sizes from the
    integer parameters), so that the parameter mapping is exercised. `bug`
    plants a fault to test the harness: nan (a row left unwritten), wrong
    (first and second kept index swapped), crash (the process dies), hang
    (never returns), error (a launch error)."""

    def __init__(self, worker, args, tensors, bug):
        self.w, self.args, self.tensors, self.bug = worker, args, tensors, bug

    def __call__(self, stream):
        buf, sizes, a = bc.sim_operands(self.w, self.args, self.tensors, self.bug,
                                        self.w.cudrv)
        assert tuple(a.shape) == (sizes["M"], sizes["K"]), (a.shape, sizes)
        out = (a.float() @ buf["dense"].float()).to(buf["out"].dtype)
        buf["out"].copy_(out)
        if self.bug == "nan":
            buf["out"][-1].fill_(float("nan"))


class GemmWorker(bc.Worker):
    """The GEMM worker: inputs A (2:4 pruned, compressed) and B, STC's
    spmm kernels (sm_90 and sm_90a), cuBLAS and PyTorch's 2:4 backends."""

    KERNEL_KEYS = ("tile", "mma", "variant", "stages", "ordered_metadata", "input_type",
                   "output_type", "accumulator", "meta_layout", "cluster", "tensor_maps")
    FUNC_ATTRS = bc.Worker.FUNC_ATTRS + (
        ("binary_version", "CU_FUNC_ATTRIBUTE_BINARY_VERSION"),)
    BUDGET_SHARES = len(METHODS)
    # A wrong result without NaN outputs is still timed (its time is real).
    TIME_WRONG_RESULTS = True

    # -- hooks of bc.Worker.run_stc ---------------------------------------------
    def parse_kernel_info(self, text, where):
        return self.cudrv.parse_kernel_info(text, where=where)

    def check_kernel(self, ki, p, ctx):
        return self.cudrv.check_problem(ki, ctx["m"], ctx["n"], ctx["k"], p["dtype"],
                                        p["out_dtype"])

    def stc_operands(self, c, ki, ctx):
        V, MT = ctx["V"], ctx["MT"]
        sizes = {"M": ctx["m"], "N": ctx["n"], "K": ctx["k"], "VC": V[c].shape[1],
                 "MC": MT[c].shape[1]}
        return sizes, {"values": V[c], "meta": MT[c], "dense": ctx["B"][c],
                       "out": ctx["out"][c]}

    def kernel_args(self, ki, bufs, sizes):
        return self.cudrv.kernel_arg_values(ki, bufs, sizes)

    def sim_launch(self, args, tensors, bug, ki):
        return _SimLaunch(self, args, tensors, bug)

    def diagnose(self, out, ref, ctx):
        """Hints for a wrong result (which interpretation would fit)."""
        m, n = ctx["m"], ctx["n"]
        return self.diagnose_output(
            out, ref, "", (("rows_with_nonfinite", lambda bad: bad.any(dim=1)),
                           ("cols_with_nonfinite", lambda bad: bad.any(dim=0))),
            # written transposed (column-major M x N)?
            ("rel_error_if_column_major", lambda o: o.reshape(n, m).t()))

    # -- one program ----------------------------------------------------------
    def run_program(self, idx, p, budget_s):
        torch, f24 = self.torch, self.f24
        t_start = time.time()
        m, n, k = p["M"], p["N"], p["K"]
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
        odt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[p["out_dtype"]]
        es, oes = 2, (4 if odt == torch.float32 else 2)
        res = {"type": "result", "index": idx, "name": p["name"], "shape": p["shape"],
               "group": p["group"], "M": m, "N": n, "K": k, "dtype": p["dtype"],
               "out_dtype": p["out_dtype"], "flop": 2 * m * n * k, "methods": {}}
        meths = res["methods"]
        seed = zlib.crc32(p["name"].encode()) & 0x7FFFFFFF
        res["seed"] = seed

        # ---- inputs ----------------------------------------------------------
        stc_bytes = m * k // 2 * es + m * k // 16 * 2 + k * n * es + m * n * oes
        held = stc_bytes + 2 * m * k * es + m * n * es + (m * k // 2 * es + m * k // 8) * 2
        free = (8 << 30) if self.sim else torch.cuda.mem_get_info()[0]
        copies = max(1, math.ceil(2 * self.l2 / stc_bytes))
        copies = min(copies, self.args.max_copies, max(1, int(0.4 * free // held)))
        res.update(copies=copies, working_set_bytes_stc=copies * stc_bytes,
                   rotation_target_bytes=2 * self.l2)
        g = torch.Generator(device=self.dev).manual_seed(seed)
        A, P, V, MT, B, OUT, OD = [], [], [], [], [], [], []
        for c in range(copies):
            a = torch.randn((m, k), generator=g, device=self.dev, dtype=torch.float32).to(tdt)
            b = torch.randn((k, n), generator=g, device=self.dev, dtype=torch.float32).to(tdt)
            pr = f24.prune24(a, self.tops)
            v, mt = f24.compress24(pr, self.tops)
            A.append(a), P.append(pr), V.append(v.contiguous()), MT.append(mt.contiguous())
            B.append(b), OUT.append(torch.empty((m, n), device=self.dev, dtype=odt))
            OD.append(torch.empty((m, n), device=self.dev, dtype=tdt))
        # The format, on copy 0: round trip, and torch == NumPy on 64 rows.
        fmt = {"roundtrip": bool(torch.equal(f24.decompress24(V[0], MT[0], self.tops), P[0]))}
        rows = min(64, m)
        self.check_numpy_rows(fmt, rows, A[0][:rows].float().cpu().numpy(), P, V, MT)
        res["format"] = fmt
        if not fmt["roundtrip"] or fmt.get("torch_equals_numpy") is False:
            res["format_error"] = ("the benchmark's own compression is inconsistent "
                                   "(%s): results are not trustworthy" % fmt)
        ref = P[0].to(torch.float64) @ B[0].to(torch.float64)
        self.sync()
        res["prep_seconds"] = round(time.time() - t_start, 3)
        self.say("  inputs: %d cop%s (%.0f MiB for STC), prep %.1f s"
                 % (copies, "y" if copies == 1 else "ies", copies * stc_bytes / 2**20,
                    res["prep_seconds"]))
        stream = self.stream.cuda_stream

        # ---- STC: the sm_90 mma.sp kernel, then the sm_90a one ----------------
        ctx = {"m": m, "n": n, "k": k, "V": V, "MT": MT, "B": B, "out": OUT, "ref": ref,
               "flop": res["flop"]}
        for method in report.STC_METHODS:
            status, error, kp = report.stc_build(p, method)
            if status != "ok":
                # Not built (a build failure, the mock, an older manifest).
                meths[method] = {"status": status, "error": error}
                self.say("  %s: %s" % (report.NAMES[method], self.line(meths[method],
                                                                       res["flop"])))
                continue
            ent = {"kernel_source": self.manifest.get("kernel_source"),
                   "target": kp.get("target")}
            meths[method] = self.run_stc(kp, ent, ctx, stream, budget_s, method=method)
            if meths[method].get("context_lost") or meths[method].get("hang"):
                return res

        # ---- dense cuBLAS (the unpruned A) -------------------------------------
        ent = {"operand": "unpruned random A (the dense layer the 2:4 one replaces)"}
        try:
            OD[0].fill_(float("nan"))
            torch.mm(A[0], B[0], out=OD[0])
            ref_d = A[0].to(torch.float64) @ B[0].to(torch.float64)
            ent["rel_error"], ent["nan_outputs"], _ = self.rel_error(OD[0], ref_d)
            del ref_d
            ent["status"] = "ok" if ent["rel_error"] < TOLERANCE else "wrong"
            ent.update(self.time_method(
                lambda i: torch.mm(A[i % copies], B[i % copies], out=OD[i % copies]), budget_s))
        except Exception as e:  # noqa: BLE001
            self.baseline_failed(ent, e)
        meths["cublas"] = ent
        self.say("  cuBLAS dense: %s" % self.line(ent, res["flop"]))
        del A[:], OD[:]

        # ---- PyTorch semi-structured 2:4 ---------------------------------------
        for name, force in (("cutlass", True), ("cusparselt", False)):
            ent = {"api": "torch.mm(to_sparse_semi_structured(A_pruned), B), "
                          "SparseSemiStructuredTensor._FORCE_CUTLASS = %s" % force}
            SA = []
            try:
                from torch.sparse import SparseSemiStructuredTensor, to_sparse_semi_structured
                SparseSemiStructuredTensor._FORCE_CUTLASS = force
                # Copy 0 first: a backend that cannot run here fails before
                # the other copies are converted.
                SA = [to_sparse_semi_structured(P[0])]
                ent["class"] = type(SA[0]).__name__
                o = torch.mm(SA[0], B[0])
                ent["out_dtype"] = str(o.dtype).replace("torch.", "")
                ent["rel_error"], ent["nan_outputs"], _ = self.rel_error(o, ref)
                del o
                ent["status"] = "ok" if ent["rel_error"] < TOLERANCE else "wrong"
                SA += [to_sparse_semi_structured(x) for x in P[1:]]
                ent.update(self.time_method(lambda i: torch.mm(SA[i % copies], B[i % copies]),
                                            budget_s))
            except Exception as e:  # noqa: BLE001
                self.baseline_failed(ent, e)
            SA = None  # frees this backend's operands
            meths[name] = ent
            self.say("  %s 2:4: %s" % ("CUTLASS" if force else "cuSPARSELt",
                                       self.line(ent, res["flop"])))
            if self.lost_context(ent, res):
                return res
        return self.finish_result(res, res["flop"], t_start)


SPEC = bc.RunSpec(
    script=__file__, step="run", build_step="build", work="bench/work/gpu",
    run_dir="gpu-run", prefix="gpu-gemm", mock_source="bench/gpu/mock_spmm.cu",
    time_budget=400.0, assemble=report.assemble, markdown=report.markdown,
    compact=report.compact, runnable=report.gemm_runnable)


if __name__ == "__main__":
    sys.exit(bc.main(SPEC, GemmWorker, max_copies=64))
