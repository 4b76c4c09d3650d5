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
kernel where stc-compile made one) loads the PTX through stc_runtime's C API (stcrt.py,
launch.py) and launches it as its kernel info says (tensor maps, cluster, dynamic shared
memory); poisons the output with NaN, runs once and compares with float64
torch (relative Frobenius error < 1e-2, NaN fails); then times it. Where the
build made one (f16, bf16), STC's dense tensor-core kernel of the same
product ("stc_dense": a plain linalg.matmul that stc-compile keeps dense)
goes the same way on the unpruned A, the operands cuBLAS gets, checked
against float64 A @ B. "stc_auto" (where the build made it) is the form
and kernel configuration --sparsity=auto chose for the product (the 2:4
kernel on the pruned A, or the dense one on A, checked as those). Then it
times the
baselines (dense cuBLAS torch.mm on the unpruned A, PyTorch semi-structured
2:4 with CUTLASS and with cuSPARSELt, and "cutlass2": CUTLASS 2.x's Ampere
SparseGemm built for sm_90, bench/gpu/cutlass2.py, the fastest of its tile
configurations) with CUDA events, median of many runs, rotating over input
copies larger than twice the L2 cache.

An i8 program: A and B are integers in [-127, 127] (INT8_RANGE), B drawn
and given to STC transposed (N x K); the int32 output is poisoned with
benchcommon.INT_POISON and must equal the float64 product (exact for these
integers) exactly; the baselines are torch._int_mm (cuBLAS int8), PyTorch's
CUTLASS 2:4 and cuSPARSELt called directly with int32 outputs, each either
exact or "unavailable" with the reason (report: TOPS).

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
import cutlass2  # noqa: E402
import kernel_info  # noqa: E402
import report  # noqa: E402
import shapes  # noqa: E402

METHODS = report.METHODS


# ===========================================================================
# Worker (imports torch; all GPU work happens here)
# ===========================================================================

#: The i8 programs' operands: uniform integers in [-INT8_RANGE, INT8_RANGE].
#: Symmetric, so the magnitude prune never meets -128 (whose int8 |x| wraps
#: in torch and NumPy, while STC counts it as 128: docs/INT8.md). Every
#: product fits in int32 without overflow: |C| <= 127 * 127 * K < 2^31 for
#: K <= 2^17 (the table's largest K is 16384: |C| < 2^28), and every partial
#: sum is an integer below 2^53, so the float64 reference is exact.
INT8_RANGE = 127

#: Element type names of the manifest -> torch dtype attribute names.
TORCH_DTYPES = {"f16": "float16", "bf16": "bfloat16", "f32": "float32", "i8": "int8",
                "i32": "int32"}


class _SimLaunch:
    """--simulate: a "kernel" that computes the product with torch from the
    packed parameters (pointers resolved through `tensors`, sizes from the
    integer parameters), so that the parameter mapping is exercised; B read
    as N x K where the kernel info says dense_transposed. `bug` plants a
    fault to test the harness: nan (a row left unwritten), wrong (first and
    second kept index swapped), crash (the process dies), hang (never
    returns), error (a launch error)."""

    def __init__(self, worker, args, tensors, bug, ki):
        self.w, self.args, self.tensors, self.bug = worker, args, tensors, bug
        self.transposed = bool(ki.get("dense_transposed"))
        self.ki = ki

    def __call__(self, stream):
        buf, sizes, a = bc.sim_operands(self.w, self.args, self.tensors, self.bug,
                                        kernel_info, self.ki)
        assert tuple(a.shape) == (sizes["M"], sizes["K"]), (a.shape, sizes)
        b = buf["dense"].t() if self.transposed else buf["dense"]
        # float64: exact for the i8 programs' integer products.
        buf["out"].copy_((a.double() @ b.double()).to(buf["out"].dtype))
        if self.bug == "nan":
            self.w.poison(buf["out"][-1])


class GemmWorker(bc.Worker):
    """The GEMM worker: inputs A (2:4 pruned, compressed) and B, STC's
    spmm kernels (sm_90 and sm_90a) and its dense kernel (on the unpruned
    A), cuBLAS and PyTorch's 2:4 backends; for
    i8 programs B given transposed, exact int32 results and the int8
    baselines (torch._int_mm, cuSPARSELt with int32 outputs)."""

    KERNEL_KEYS = ("tile", "mma", "variant", "stages", "ordered_metadata", "input_type",
                   "output_type", "accumulator", "meta_layout", "cluster", "tensor_maps",
                   "dense_transposed")
    FUNC_ATTRS = bc.Worker.FUNC_ATTRS + (("binary_version", bc.stcrt.FUNC_BINARY_VERSION),)
    BUDGET_SHARES = len(METHODS)
    # A wrong result without NaN outputs is still timed (its time is real).
    TIME_WRONG_RESULTS = True

    # -- hooks of bc.Worker.run_stc ---------------------------------------------
    # ctx["MT"] is None for STC's dense kernel (dense_context): its values are
    # A whole and it has no metadata, which its kernel info must say too.
    def parse_kernel_info(self, text, where):
        return kernel_info.parse_kernel_info(text, where=where)

    def check_kernel(self, ki, p, ctx):
        return kernel_info.check_problem(ki, ctx["m"], ctx["n"], ctx["k"], p["dtype"],
                                        p["out_dtype"], dense_transposed=transposed(p),
                                        sparse=ctx["MT"] is not None)

    def stc_operands(self, c, ki, ctx):
        V, MT = ctx["V"], ctx["MT"]
        sizes = {"M": ctx["m"], "N": ctx["n"], "K": ctx["k"], "VC": V[c].shape[1],
                 "MC": 0 if MT is None else MT[c].shape[1]}
        named = {"values": V[c], "dense": ctx["B"][c], "out": ctx["out"][c]}
        if MT is not None:
            named["meta"] = MT[c]
        return sizes, named

    def kernel_args(self, ki, bufs, sizes):
        return kernel_info.kernel_arg_values(ki, bufs, sizes)

    def sim_launch(self, args, tensors, bug, ki):
        return _SimLaunch(self, args, tensors, bug, ki)

    def diagnose(self, out, ref, ctx):
        """Hints for a wrong result (which interpretation would fit)."""
        m, n = ctx["m"], ctx["n"]
        return self.diagnose_output(
            out, ref, "", (("rows_with_nonfinite", lambda bad: bad.any(dim=1)),
                           ("cols_with_nonfinite", lambda bad: bad.any(dim=0))),
            # written transposed (column-major M x N)?
            ("rel_error_if_column_major", lambda o: o.reshape(n, m).t()))

    # -- inputs and baselines ---------------------------------------------------
    def tdtype(self, name):
        """The torch dtype of a manifest element type name (f16, i8, ...)."""
        return getattr(self.torch, TORCH_DTYPES[name])

    def random_operand(self, shape, dtype, g):
        """A seeded random operand: normal for floats (drawn in f32), uniform
        integers in [-INT8_RANGE, INT8_RANGE] for i8."""
        torch = self.torch
        if shapes.is_integer(dtype):
            return torch.randint(-INT8_RANGE, INT8_RANGE + 1, shape, generator=g,
                                 device=self.dev, dtype=self.tdtype(dtype))
        return torch.randn(shape, generator=g, device=self.dev,
                           dtype=torch.float32).to(self.tdtype(dtype))

    def dense_mm(self, integer):
        """cuBLAS dense, (A, B as K x N, out) -> out: torch.mm, or for int8
        torch._int_mm (int8 x int8 -> int32; it needs M > 16 and K, N
        multiples of 8, which the table's shapes are). Returns (its API
        text, the call)."""
        torch = self.torch
        if integer:
            return "torch._int_mm(A, B, out=C)", lambda a, b, o: torch._int_mm(a, b, out=o)
        return "torch.mm(A, B, out=C)", lambda a, b, o: torch.mm(a, b, out=o)

    def dense_layouts(self, integer, BK):
        """The layouts of B to give cuBLAS, in order of preference: [(what,
        make() -> B of every copy as K x N)], BK: every copy's B as K x N
        (for i8 a view of the N x K buffer). int8: first that view (K
        contiguous, the "TN" layout cuBLASLt's int8 kernels are built for),
        then, should it raise or be wrong (torchao makes B contiguous before
        torch._int_mm, saying some versions are silently wrong otherwise), a
        contiguous K x N copy."""
        view = lambda: list(BK)  # noqa: E731
        if not integer:
            return [("K x N row-major", view)]
        return [("K x N view of the N x K buffer (K contiguous)", view),
                ("K x N contiguous copy", lambda: [b.contiguous() for b in BK])]

    def sparse_baselines(self, integer):
        """PyTorch's 2:4 baselines for the program's dtype: [(method, API
        text, prepare(A_pruned copy) -> its sparse operand, mm(sparse
        operand, B as K x N) -> C)]."""
        torch = self.torch

        def semi_structured(force):
            def prepare(pruned):
                from torch.sparse import SparseSemiStructuredTensor, to_sparse_semi_structured
                SparseSemiStructuredTensor._FORCE_CUTLASS = force
                return to_sparse_semi_structured(pruned)
            return prepare
        api = ("torch.mm(to_sparse_semi_structured(A_pruned), B), "
               "SparseSemiStructuredTensor._FORCE_CUTLASS = %s")
        cutlass = ("cutlass", api % True, semi_structured(True), torch.mm)
        if not integer:
            return [cutlass, ("cusparselt", api % False, semi_structured(False), torch.mm)]
        # int8: torch.mm on a cuSPARSELt SparseSemiStructuredTensor gives
        # outputs of the input type (int8), not the int32 accumulator, so
        # cuSPARSELt is called directly, asking for int32, with B
        # K-contiguous as PyTorch's own int8 tests give it.
        return [(cutlass[0], cutlass[1] + ", B = Bt.t()", cutlass[2], cutlass[3]),
                ("cusparselt", "torch._cslt_sparse_mm(torch._cslt_compress(A_pruned), B, "
                               "out_dtype=torch.int32), B = Bt.t() (K contiguous)",
                 lambda pruned: torch._cslt_compress(pruned),
                 lambda sa, b: torch._cslt_sparse_mm(sa, b, out_dtype=torch.int32))]

    def run_baseline(self, ent, first, call, reference, budget_s, integer, before_timing=None):
        """One baseline: first() runs it on input copy 0 and returns the
        output, judged against reference() (exactly for integers); then
        before_timing() (the other copies' operands) and call(i) is timed
        on copy i. An exception, or an integer output that is not int32 (the
        exact accumulator), makes it unavailable, with the reason. Returns
        ent."""
        try:
            o = first()
            ent["out_dtype"] = str(o.dtype).replace("torch.", "")
            if integer and o.dtype != self.torch.int32:
                raise TypeError("its output is %s, not the exact int32 accumulator"
                                % ent["out_dtype"])
            ent["status"] = "ok" if self.judge(ent, o, reference()) else "wrong"
            if ent["status"] == "wrong":
                ent["error"] = self.wrong_text(ent)
            del o
            if before_timing:
                before_timing()
            ent.update(self.time_method(call, budget_s))
        except Exception as e:  # noqa: BLE001
            self.baseline_failed(ent, e)
        return ent

    def run_cutlass2(self, p, P, B, BK, OUT, copies, ref, budget_s, integer, tr):
        """The cutlass2 baseline (CUTLASS 2.x SparseGemm, Sm80 kernels built
        for sm_90: bench/gpu/cutlass2.py) on the pruned A of every copy (P),
        B given N x K contiguous (the i8 programs' own B; else a copy of
        B's transpose, made before timing). Every configuration is run on
        copy 0 and judged, and the correct ones timed with an equal share of
        half the budget; the fastest is then timed again with the other
        half (its reported times are a fresh measurement, not the minimum of
        noisy medians), so the method takes one method's budget like the
        others. Returns its entry (unavailable, with the reason, where the
        library is absent or lacks the dtype)."""
        torch, dt, n = self.torch, p["dtype"], p["N"]
        ent = {"api": "cutlass::gemm::device::SparseGemm<..., arch::Sm80> built for sm_90 "
                      "(bench/gpu/cutlass2), the fastest of its tile configurations",
               "operand": "the pruned A, compressed with its metadata reordered on the host by "
                          "the library (checked with CUTLASS's uncompress)",
               "b_layout": "N x K contiguous (column-major K x N)%s" % (
                   "" if tr else ": a contiguous copy of B's transpose, made before timing")}
        try:
            lib = cutlass2.load(self.manifest, self.base)
            ent["library"] = lib.info()
            names = lib.configs(dt)
            if not names:
                raise cutlass2.Unavailable("the library has no %s kernels" % dt)
            # (A stand-in library of the tests says it runs on the CPU.)
            if self.sim and not getattr(lib, "simulated", False):
                raise cutlass2.Unavailable("simulated run (CPU): its kernels need the GPU")
        except cutlass2.Unavailable as e:
            ent.update(status="unavailable", error=str(e))
            return ent
        ops, BN = [], []
        odt = self.tdtype(cutlass2.OUT_DTYPES[dt])
        outs = OUT if OUT[0].dtype == odt else [
            torch.empty((p["M"], n), device=self.dev, dtype=odt) for _ in range(copies)]
        stream = self.stream.cuda_stream
        try:
            # Outside the timing: the host-side compression, B's layout.
            for c in range(copies):
                ops.append(lib.prepare(dt, P[c].contiguous(), n))
                BN.append(B[c] if tr else BK[c].t().contiguous())
            ops[0].check(BN[0], outs[0])
            tried = []
            for i, name in enumerate(names):
                ce = {"config": name}

                def first(i=i):
                    self.poison(outs[0])
                    return ops[0].run(i, BN[0], outs[0], stream)
                self.run_baseline(
                    ce, first,
                    lambda j, i=i: ops[j % copies].run(i, BN[j % copies], outs[j % copies],
                                                       stream),
                    lambda: ref, budget_s / (2 * len(names)), integer)
                tried.append(ce)
                if ce["status"] == "unavailable" and not self.context_ok():
                    ent.update(status="unavailable", context_lost=True,
                               error="configuration %s: %s" % (name, ce.get("error")))
                    return ent
            ent["configs"] = [{k: ce[k] for k in ("config", "status", "error", "median_ms",
                                                  "min_ms", "repeats", "rel_error",
                                                  "mismatches") if k in ce} for ce in tried]
            timed = [ce for ce in tried if "median_ms" in ce]
            ok = [ce for ce in timed if ce["status"] == "ok"]
            best = min(ok or timed, key=lambda ce: ce["median_ms"]) if timed else tried[0]
            for k in ("status", "error", "out_dtype", "rel_error", "nan_outputs", "inf_outputs",
                      "tolerance", "mismatches"):
                if k in best:
                    ent[k] = best[k]
            ent["config"] = best["config"]
            if "median_ms" in best:
                i = names.index(best["config"])
                ent.update(self.time_method(
                    lambda j: ops[j % copies].run(i, BN[j % copies], outs[j % copies], stream),
                    budget_s / 2))
        except Exception as e:  # noqa: BLE001 (recorded)
            self.baseline_failed(ent, e)
        finally:
            for op in ops:
                op.free()
        return ent

    # -- inputs ---------------------------------------------------------------
    def make_inputs(self, p, res, seed, t_start):
        """Program p's inputs (run_program's, and tune_bench.py's for every
        candidate of one product): `copies` input sets, enough for a working
        set of twice the L2 (within the free memory), each a random A (M x
        K), A pruned 2:4 (P) and compressed (V values, MT metadata), B (K x
        N; i8: N x K), STC's output (OUT) and cuBLAS's (OD); BK: every B as
        K x N (i8: a view); ref: float64 P[0] @ BK[0]. Records copies, the
        working set, the format checks of copy 0 (round trip, torch ==
        NumPy on 64 rows) and the preparation time in res. Returns a dict
        of those names."""
        torch, f24 = self.torch, self.f24
        m, n, k, dt = p["M"], p["N"], p["K"], p["dtype"]
        integer, tr = shapes.is_integer(dt), transposed(p)
        tdt, odt = self.tdtype(dt), self.tdtype(p["out_dtype"])
        bdt = torch.int32 if integer else tdt  # cuBLAS's output
        es, oes, bes = (torch.empty(0, dtype=x).element_size() for x in (tdt, odt, bdt))
        stc_bytes = m * k // 2 * es + m * k // 16 * 2 + k * n * es + m * n * oes
        held = stc_bytes + 2 * m * k * es + m * n * bes + (m * k // 2 * es + m * k // 8) * 2
        free = (8 << 30) if self.sim else torch.cuda.mem_get_info()[0]
        copies = max(1, math.ceil(2 * self.l2 / stc_bytes))
        copies = min(copies, self.args.max_copies, max(1, int(0.4 * free // held)))
        res.update(copies=copies, working_set_bytes_stc=copies * stc_bytes,
                   rotation_target_bytes=2 * self.l2)
        g = torch.Generator(device=self.dev).manual_seed(seed)
        A, P, V, MT, B, OUT, OD = [], [], [], [], [], [], []
        for c in range(copies):
            a = self.random_operand((m, k), dt, g)
            # B as STC takes it: K x N, or N x K (K contiguous) for i8.
            b = self.random_operand((n, k) if tr else (k, n), dt, g)
            pr = f24.prune24(a, self.tops)
            v, mt = f24.compress24(pr, self.tops)
            A.append(a), P.append(pr), V.append(v.contiguous()), MT.append(mt.contiguous())
            B.append(b), OUT.append(torch.empty((m, n), device=self.dev, dtype=odt))
            OD.append(torch.empty((m, n), device=self.dev, dtype=bdt))
        BK = [b.t() if tr else b for b in B]  # B as K x N (i8: a view)
        # The format, on copy 0: round trip, and torch == NumPy on 64 rows.
        fmt = {"roundtrip": bool(torch.equal(f24.decompress24(V[0], MT[0], self.tops), P[0]))}
        rows = min(64, m)
        self.check_numpy_rows(fmt, rows, A[0][:rows].float().cpu().numpy(), P, V, MT)
        res["format"] = fmt
        if not fmt["roundtrip"] or fmt.get("torch_equals_numpy") is False:
            res["format_error"] = ("the benchmark's own compression is inconsistent "
                                   "(%s): results are not trustworthy" % fmt)
        ref = P[0].to(torch.float64) @ BK[0].to(torch.float64)
        self.sync()
        res["prep_seconds"] = round(time.time() - t_start, 3)
        self.say("  inputs: %d cop%s (%.0f MiB for STC), prep %.1f s"
                 % (copies, "y" if copies == 1 else "ies", copies * stc_bytes / 2**20,
                    res["prep_seconds"]))
        return {"A": A, "P": P, "V": V, "MT": MT, "B": B, "BK": BK, "OUT": OUT, "OD": OD,
                "copies": copies, "ref": ref}

    def stc_context(self, p, inp):
        """run_stc's context of program p's 2:4 kernels (inp: make_inputs'):
        every copy's compressed A and B, the outputs, the reference."""
        m, n, k = p["M"], p["N"], p["K"]
        return {"m": m, "n": n, "k": k, "V": inp["V"], "MT": inp["MT"], "B": inp["B"],
                "out": inp["OUT"], "ref": inp["ref"], "flop": 2 * m * n * k,
                "unit": shapes.rate_unit(p["dtype"])}

    # -- one program ----------------------------------------------------------
    def run_program(self, idx, p, budget_s):
        torch = self.torch
        t_start = time.time()
        m, n, k, dt = p["M"], p["N"], p["K"], p["dtype"]
        integer, tr = shapes.is_integer(dt), transposed(p)
        unit = shapes.rate_unit(dt)
        res = {"type": "result", "index": idx, "name": p["name"], "shape": p["shape"],
               "group": p["group"], "M": m, "N": n, "K": k, "dtype": dt,
               "out_dtype": p["out_dtype"], "dense_transposed": tr, "unit": unit,
               "flop": 2 * m * n * k, "methods": {}}
        meths = res["methods"]
        seed = zlib.crc32(p["name"].encode()) & 0x7FFFFFFF
        res["seed"] = seed

        # ---- inputs ----------------------------------------------------------
        inp = self.make_inputs(p, res, seed, t_start)
        A, P, B, BK, OUT, OD = (inp[x] for x in ("A", "P", "B", "BK", "OUT", "OD"))
        copies, ref = inp["copies"], inp["ref"]
        stream = self.stream.cuda_stream

        # ---- STC: the sm_90 mma.sp kernel, the sm_90a one, the dense one -------
        ctx = self.stc_context(p, inp)
        # float64 A @ B, the unpruned product: made once, for STC's dense
        # kernel and cuBLAS, which both multiply A.
        dense_ref = []

        def unpruned_ref():
            if not dense_ref:
                dense_ref.append(A[0].to(torch.float64) @ BK[0].to(torch.float64))
            return dense_ref[0]
        for method in report.GEMM_STC_METHODS:
            status, error, kp = report.stc_build(p, method)
            if status != "ok":
                # Not built (a build failure, the mock, i8 for the dense
                # kernel, an older manifest).
                meths[method] = {"status": status, "error": error}
                self.say("  %s: %s" % (report.NAMES[method],
                                       self.line(meths[method], res["flop"], unit)))
                continue
            ent = {"kernel_source": self.manifest.get("kernel_source"),
                   "target": kp.get("target")}
            # STC's dense kernel, and stc_auto where --sparsity=auto's
            # decision (the build's "sparse") keeps the product dense: the
            # unpruned A, checked against A @ B.
            dense = method == "stc_dense" or kp.get("sparse") is False
            if method == "stc_auto":
                ent.update(sparse=not dense, config=kp.get("config"))
            mctx = dense_context(ctx, A, unpruned_ref()) if dense else ctx
            meths[method] = self.run_stc(kp, ent, mctx, stream, budget_s, method=method)
            if meths[method].get("context_lost") or meths[method].get("hang"):
                return res

        # ---- dense cuBLAS (the unpruned A) -------------------------------------
        api, mm = self.dense_mm(integer)
        attempts = []
        for layout, make in self.dense_layouts(integer, BK):
            ent = {"operand": "unpruned random A (the dense layer the 2:4 one replaces)",
                   "api": api, "b_layout": layout}
            BD = []

            def dense_first():
                BD.extend(make())
                self.poison(OD[0])
                mm(A[0], BD[0], OD[0])
                return OD[0]
            attempts.append(self.run_baseline(
                ent, dense_first, lambda i: mm(A[i % copies], BD[i % copies], OD[i % copies]),
                unpruned_ref, budget_s, integer))
            BD = None
            if ent["status"] == "ok":
                break
        # The layout that worked, else the preferred one; the others' outcome.
        ent = attempts[-1] if attempts[-1]["status"] == "ok" else attempts[0]
        if len(attempts) > 1:
            ent["other_layouts"] = [{k: x.get(k) for k in ("b_layout", "status", "error",
                                                           "mismatches")}
                                    for x in attempts if x is not ent]
        meths["cublas"] = ent
        self.say("  cuBLAS dense: %s" % self.line(ent, res["flop"], unit))
        del A[:], OD[:], dense_ref[:]

        # ---- PyTorch semi-structured 2:4 ---------------------------------------
        for name, api, prepare, sparse_mm in self.sparse_baselines(integer):
            ent = {"api": api}
            SA = []

            def sparse_first():
                # Copy 0 first: a backend that cannot run here fails before
                # the other copies are converted.
                SA.append(prepare(P[0]))
                ent["class"] = type(SA[0]).__name__
                return sparse_mm(SA[0], BK[0])
            meths[name] = self.run_baseline(
                ent, sparse_first, lambda i: sparse_mm(SA[i % copies], BK[i % copies]),
                lambda: ref, budget_s, integer,
                before_timing=lambda: SA.extend(prepare(x) for x in P[1:]))
            SA = None  # frees this backend's operands
            self.say("  %s: %s" % (report.NAMES[name], self.line(ent, res["flop"], unit)))
            if self.lost_context(ent, res):
                return res

        # ---- CUTLASS 2.x SparseGemm, Sm80 kernels built for sm_90 ---------------
        ent = meths["cutlass2"] = self.run_cutlass2(p, P, B, BK, OUT, copies, ref, budget_s,
                                                    integer, tr)
        self.say("  %s%s: %s" % (report.NAMES["cutlass2"],
                                 " (%s)" % ent["config"] if ent.get("config") else "",
                                 self.line(ent, res["flop"], unit)))
        if ent.get("context_lost") or self.lost_context(ent, res):
            res["context_lost"] = True
            return res
        return self.finish_result(res, res["flop"], t_start)


def dense_context(ctx, A, ref):
    """The run_stc context of STC's dense kernel (stc_dense) from the 2:4
    kernels' ctx: the same B, outputs and rotation over input copies, but
    A whole as the values (every copy's unpruned M x K A, the operand
    cuBLAS multiplies; value_cols = K), no metadata (MT None: meta_cols = 0,
    no conversion), and `ref`, float64 A @ B, to check against."""
    return dict(ctx, V=A, MT=None, ref=ref)


def transposed(p):
    """Whether manifest program p gives B transposed (N x K): its
    "dense_transposed", else what its dtype implies."""
    return bool(p.get("dense_transposed", shapes.dense_transposed(p["dtype"])))


SPEC = bc.RunSpec(
    script=__file__, step="run", build_step="build", work="bench/work/gpu",
    run_dir="gpu-run", prefix="gpu-gemm", mock_source="bench/gpu/mock_spmm.cu",
    time_budget=400.0, assemble=report.assemble, markdown=report.markdown,
    compact=report.compact, runnable=report.gemm_runnable)


if __name__ == "__main__":
    sys.exit(bc.main(SPEC, GemmWorker, max_copies=64))
