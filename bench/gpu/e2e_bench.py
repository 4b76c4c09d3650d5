#!/usr/bin/env python3
"""Run step of the GPU end-to-end benchmark (bench/README.md, "GPU
end-to-end blocks"; `bench/run_gpu_bench.sh run-e2e` on the GPU machine,
with bench/work/gpu-e2e carried from the build machine).

    e2e_bench.py run --manifest WORK/manifest.json --results-dir DIR
        [--method-budget S] [--max-repeats N] [--only REGEX] [--no-compile]
        [--copy-to DIR] [--simulate]

Whole blocks, timed per forward call with CUDA events, inputs and weights
already on the device. Per block and size:

- the weights: seeded, f16, in PyTorch's Linear layout (out x in), pruned
  2:4 by magnitude along K (format24.prune24 on the GPU) and compressed
  to STC's canonical format (format24.compress24; checked by decompressing);
  every method uses these same pruned weights;
- torch_dense: the block in torch.nn.functional, f16, dense pruned weights
  (cuBLAS); its output is the reference every other method is checked
  against before it is timed (relative Frobenius error, tolerance 1e-2);
- torch_sparse: the same with every weight as
  torch.sparse.to_sparse_semi_structured (cuSPARSELt; CUTLASS when
  cuSPARSELt fails, labelled), where it works;
- torch_compile: torch.compile of the dense block, where it works;
- stc, stc_sm90a: STC's compiled programs (libstc_e2e.so, e2e_call.py),
  called through their --gpu-device-entry C interface with the tensors'
  device pointers on PyTorch's current stream (stc_cuda_set_stream); each
  call's result (a buffer of the runtime's pool) is freed with mgpuMemFree
  on that stream, inside the timed call.

Timing: benchcommon.Worker.time_method (warm-up to 50 ms, per-call CUDA
events, medians). PyTorch's calls are queued behind a sleep kernel (GPU
time, as in the GEMM benchmark); STC's generated code waits for its own
work before it returns, so its calls run without the prefill and their time
includes the host's work between STC's kernels. A method that fails is
recorded with its reason; when the CUDA context is lost the remaining
methods are recorded as not run and the results are still written.

--simulate (the self test, no GPU): torch on the CPU, the programs built
for the CPU (WORK/libstc_e2e_cpu.so, from e2e_build.py --cpu-call-check:
host pointers, malloc'ed results), host-clock events.
"""

import argparse
import ctypes
import json
import math
import os
import shutil
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import benchcommon as bc  # noqa: E402
import e2e_blocks  # noqa: E402
import e2e_call  # noqa: E402
import e2e_report  # noqa: E402

CPU_LIBRARY = "libstc_e2e_cpu.so"
#: torch.compile is not started with less time left (a compile of a block
#: takes tens of seconds).
COMPILE_RESERVE_S = 90.0
NOTES = [
    "STC's time includes, every call, the conversion of the canonical 2:4 metadata of each "
    "weight into its kernel's layout (one small kernel per sparse product: 3 per MLP call), "
    "the result's buffer from the runtime's pool (freed with mgpuMemFree in the timed call), "
    "and the host's work between its kernels. STC runs on PyTorch's stream without waiting "
    "for its kernels (stc_cuda_set_stream_nowait, where the library has it; else "
    "stc_cuda_set_stream, which waits at the end of each launch function); no queue prefill, "
    "so host work that outlasts the GPU's shows in the time.",
    "PyTorch's methods are timed with the queue pre-filled by a sleep kernel (GPU time).",
    "Weights: one seeded set per block, pruned 2:4 by magnitude along K; every method uses "
    "the same pruned weights. They exceed L2, so no input copies are rotated.",
]


def git_commit():
    try:
        import subprocess
        p = subprocess.run(["git", "-C", bc.ROOT, "rev-parse", "--short=7", "HEAD"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        return p.stdout.decode().strip() or None if p.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        return None


class E2EWorker(bc.Worker):
    REFERENCE_WHAT = "PyTorch's dense result of the same pruned weights"

    def __init__(self, args):
        bc.Worker.__init__(self, args)
        self.records = []
        self.context_lost = None
        self._weights = {}
        self._sparse = {}
        self._compiled = {}
        self.method_notes = {}

    def emit(self, rec):
        self.records.append(rec)
        bc.Worker.emit(self, rec)

    # -- the library ----------------------------------------------------------
    def open_runtime(self, path=None, device=0):
        """The runtime is the one in the benchmark's library (its C API is
        exported there), so stcrt and the programs share one copy."""
        lib = self.manifest.get("library")
        if not lib:
            raise RuntimeError("the build made no library: %s"
                               % self.manifest.get("library_error", "see the build log"))
        bc.Worker.open_runtime(self, os.path.join(self.base, lib), device)
        self.lib = self.rt.lib

    def setup(self):
        bc.Worker.setup(self)
        L = self.lib if not self.sim else None
        if self.sim:
            self.lib = ctypes.CDLL(os.path.join(self.base, CPU_LIBRARY))
            libc = ctypes.CDLL(None)
            libc.free.argtypes = [ctypes.c_void_p]
            self._free = lambda ptr: libc.free(ptr)
            self._stream = None
        else:
            # The no-wait form where this library has it (libraries built
            # before it lack the symbol): what a PyTorch operator does.
            # STC_E2E_STREAM=wait: the waiting form, for an A/B of the two
            # in one device call (the mode is in the results' env).
            nowait = getattr(L, "stc_cuda_set_stream_nowait", None)
            if os.environ.get("STC_E2E_STREAM", "nowait") == "wait":
                nowait = None
            set_stream = nowait or L.stc_cuda_set_stream
            self.stream_mode = "nowait" if nowait else "wait"
            set_stream.argtypes = [ctypes.c_void_p]
            set_stream.restype = None
            L.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
            L.mgpuMemFree.restype = None
            L.stc_cuda_memcpy_dtoh.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
            L.stc_cuda_memcpy_dtoh.restype = ctypes.c_int
            L.stc_cuda_memset_d8.argtypes = [ctypes.c_uint64, ctypes.c_ubyte, ctypes.c_size_t]
            L.stc_cuda_memset_d8.restype = ctypes.c_int
            self._stream = self.stream.cuda_stream
            set_stream(self._stream)
            self._free = lambda ptr: L.mgpuMemFree(ptr, self._stream)
            # The kernels' modules were loaded (PTX JIT) when the library was.
            err = e2e_call.runtime_errors(L)
            if err:
                raise RuntimeError("loading %s: %s" % (self.manifest["library"], err))
            try:
                self.env_extra = {"nvidia_smi": bc.nvidia_smi()}
            except Exception as e:  # noqa: BLE001
                self.env_extra = {"nvidia_smi": "failed: %s" % e}
            self.env_extra["stc_stream"] = self.stream_mode

    # -- tensors ----------------------------------------------------------------
    def linear(self, x, w, bias=None):
        F = self.torch.nn.functional
        if self.sim:   # no f16 matmul on the CPU (torch 1.x): f32, rounded
            return F.linear(x.float(), w.float(),
                            None if bias is None else bias.float()).to(x.dtype)
        return F.linear(x, w, bias)

    def mlp(self, x, wg, wu, wd, linear=None):
        F = self.torch.nn.functional
        lin = linear or self.linear
        g = lin(x, wg)
        if self.sim:
            h = (F.silu(g.float()) * lin(x, wu).float()).to(x.dtype)
        else:
            h = F.silu(g) * lin(x, wu)
        return lin(h, wd)

    def bert(self, x, W, V, q, linear=None):
        """One BERT encoder layer (post-LayerNorm, no mask) in
        torch.nn.functional; W: {name: weight}, V: {name: f16 vector}."""
        torch, F = self.torch, self.torch.nn.functional
        lin = linear or self.linear
        b, s, d, h = q["batch"], q["seq"], q["hidden"], q["heads"]
        dh = d // h
        f16 = x.dtype
        up = (lambda t: t.float()) if self.sim else (lambda t: t)  # noqa: E731

        def heads(t):
            return t.view(b, s, h, dh).transpose(1, 2)
        qh, kh, vh = (heads(lin(x, W[n], V[n + ".bias"])) for n in ("q", "k", "v"))
        if hasattr(F, "scaled_dot_product_attention") and not self.sim:
            ctx = F.scaled_dot_product_attention(qh, kh, vh)
        else:
            sc = torch.matmul(up(qh), up(kh).transpose(-1, -2)) / math.sqrt(dh)
            ctx = torch.matmul(torch.softmax(sc.float(), -1).to(f16).to(sc.dtype),
                               up(vh)).to(f16)
        ctx = ctx.transpose(1, 2).reshape(b * s, d)

        def ln(r, n):
            return F.layer_norm(up(r), (d,), up(V[n + ".weight"]), up(V[n + ".bias"]),
                                e2e_blocks.LN_EPS).to(f16)
        h1 = ln(x + lin(ctx, W["o"], V["o.bias"]), "ln1")
        f1 = F.gelu(up(lin(h1, W["ff1"], V["ff1.bias"]))).to(f16)
        return ln(h1 + lin(f1, W["ff2"], V["ff2.bias"]), "ln2")

    def resnet(self, x, W, V, q):
        """The bottleneck in torch.nn.functional: x NHWC (a channels_last
        NCHW view for conv2d), W: {name: pruned F x C x KH x KW filter,
        channels_last}; returns NHWC."""
        F = self.torch.nn.functional
        up = (lambda t: t.float()) if self.sim else (lambda t: t)  # noqa: E731
        f16 = x.dtype
        xc = x.permute(0, 3, 1, 2)
        h = xc
        for name, _, _, _, pad in e2e_blocks.resnet_convs(q["channels"], q["mid"]):
            h = F.conv2d(up(h), up(W[name]), up(V[name + ".bias"]), padding=pad).to(f16)
            if name == "conv3":
                h = (up(h) + up(xc)).to(f16)
            h = F.relu(up(h)).to(f16)
        return h.permute(0, 2, 3, 1)

    def weights(self, p):
        """The block's pruned weights and their compression: ({name: (pruned,
        values, meta)}, {name: (f16 vector, f32 copy)}), one set per block
        and dimensions (the sizes share it)."""
        q = p["params"]
        if p["block"] == "resnet_bottleneck":
            convs = e2e_blocks.resnet_convs(q["channels"], q["mid"])
            layers = [(name, f, k * k * c) for name, f, c, k, _ in convs]
            vectors = [(name + ".bias", f) for name, f, _, _, _ in convs]
        elif p["block"] == "bert_layer":
            layers = e2e_blocks.bert_weights(q["hidden"], q["ffn"])
            vectors = e2e_blocks.bert_vectors(q["hidden"], q["ffn"])
        else:
            layers = e2e_blocks.mlp_weights(q["hidden"], q["intermediate"])
            vectors = []
        key = (p["block"], tuple(layers))
        if key not in self._weights:
            torch = self.torch
            self._weights, self._sparse = {}, {}   # one block's weights at a time
            if not self.sim:
                torch.cuda.empty_cache()
            gen = torch.Generator(device=self.dev)
            gen.manual_seed(2026)
            out = {}
            for name, n, k in layers:
                w = (torch.randn((n, k), generator=gen, device=self.dev, dtype=torch.float32)
                     / math.sqrt(k)).to(torch.float16)
                pr = self.f24.prune24(w, self.tops)
                v, m = self.f24.compress24(pr, self.tops)
                back = self.f24.decompress24(v, m, self.tops)
                if not torch.equal(back, pr):
                    raise RuntimeError("format24: %s's compression does not decompress to "
                                       "the pruned weight" % name)
                if p["block"] == "resnet_bottleneck":
                    # STC's filter matrix is F x (KH*KW*C), (kh, kw, c) order,
                    # the pattern along C: PyTorch's F x C x KH x KW filter.
                    f, c, kk = next((f, c, kk) for nm, f, c, kk, _ in convs if nm == name)
                    pr = pr.reshape(f, kk, kk, c).permute(0, 3, 1, 2).contiguous(
                        memory_format=torch.channels_last)
                out[name] = (pr if p["block"] == "resnet_bottleneck" else pr.contiguous(),
                             v.contiguous(), m.contiguous())
            vec = {}
            for name, n in vectors:
                base = 1.0 if name.endswith(".weight") else 0.0
                t = (base + 0.1 * torch.randn((n,), generator=gen, device=self.dev,
                                              dtype=torch.float32)).to(torch.float16)
                vec[name] = (t, t.float().contiguous())
            self._weights[key] = (out, vec)
        return key, self._weights[key]

    def sparse_weights(self, key, W):
        """The pruned weights as SparseSemiStructuredTensor: cuSPARSELt, or
        CUTLASS where cuSPARSELt fails; (backend, {name: tensor})."""
        if key in self._sparse:
            return self._sparse[key]
        try:
            from torch.sparse import SparseSemiStructuredTensor, to_sparse_semi_structured
        except ImportError as e:
            raise RuntimeError("torch %s has no torch.sparse.to_sparse_semi_structured (%s)"
                               % (self.torch.__version__, e))
        errors = []
        first = next(iter(W))
        for backend, force in (("cusparselt", False), ("cutlass", True)):
            try:
                SparseSemiStructuredTensor._FORCE_CUTLASS = force
                s = {n: to_sparse_semi_structured(W[n][0]) for n in W}
                x = self.torch.zeros((16, W[first][0].shape[1]), device=self.dev,
                                     dtype=self.torch.float16)
                self.torch.nn.functional.linear(x, s[first])
                self._sparse[key] = (backend, s)
                return self._sparse[key]
            except Exception as e:  # noqa: BLE001
                errors.append("%s: %s: %s" % (backend, type(e).__name__, bc.first_line(e)))
        raise RuntimeError("; ".join(errors))

    # -- methods ------------------------------------------------------------------
    def method(self, ent, first, call, ref, budget_s, prefill=True):
        """first() -> output (judged against ref), then call(i) timed."""
        if self.context_lost:
            ent.update(status="not_run", error="CUDA context lost earlier: %s"
                       % self.context_lost)
            return ent
        try:
            t0 = time.time()
            out = first()
            ent["first_call_s"] = round(time.time() - t0, 3)
            ent["status"] = "ok" if self.judge(ent, out, ref) else "wrong"
            if ent["status"] == "wrong":
                ent["error"] = self.wrong_text(ent)
                return ent
            del out
            saved = self.cycles_per_ms
            if not prefill:
                self.cycles_per_ms = None
            try:
                ent.update(self.time_method(call, budget_s))
            finally:
                self.cycles_per_ms = saved
        except Exception as e:  # noqa: BLE001 (recorded)
            ent.update(status=ent.get("unavailable_status", "failed"),
                       error="%s: %s" % (type(e).__name__, bc.first_lines(e, 4)))
            ent["traceback"] = bc.first_lines(traceback.format_exc(), 12)
            if not self.context_ok():
                self.context_lost = "%s (%s)" % (bc.first_line(e), ent.get("api", "?"))
                ent["context_lost"] = True
        ent.pop("unavailable_status", None)
        return ent

    def stc_method(self, p, method, tensors, ref, budget_s):
        m = p["methods"].get(method)
        ent = {"api": "_mlir_ciface_%s(device pointers), libstc_e2e.so" % (m or {}).get("func"),
               "target": (m or {}).get("target")}
        if not m or m.get("status") != "ok":
            ent.update(status="build_failed", error=(m or {}).get("error", "not built"))
            return ent
        if self.sim:
            ent["api"] = "_mlir_ciface_%s (CPU build, host pointers: simulated)" % m["func"]
            func = m["func"].rsplit("_" + method, 1)[0] + "_cpu"
        else:
            func = m["func"]
        for t, a in zip(tensors, p["args"]):
            if list(t.shape) != a["shape"] or not t.is_contiguous():
                raise RuntimeError("%s: argument %s is %s, the program takes %s"
                                   % (p["name"], a["name"], list(t.shape), a["shape"]))
        prog = e2e_call.Program(self.lib, func, [a["shape"] for a in p["args"]],
                                p["result"]["shape"])
        prog.bind([t.data_ptr() for t in tensors])
        lib, free = self.lib, self._free

        nbytes = 2
        for d in prog.result_shape:
            nbytes *= d

        def checked_call():
            res = prog.call()
            err = e2e_call.runtime_errors(lib)
            if err:
                raise RuntimeError(err)
            prog.check_result(res)
            return res

        def first():
            # The result comes from the runtime's pool, where a buffer of the
            # same size may still hold an earlier method's right answer: a
            # first call's result is poisoned (0xFF bytes: f16 NaN) and
            # freed, so that the checked call most likely gets it back.
            res = checked_call()
            poisoned = res.aligned
            self.poison_buffer(res.aligned, nbytes)
            free(res.allocated)
            res = checked_call()
            ent["result_buffer_was_poisoned"] = res.aligned == poisoned
            out = self.fetch(res, prog.result_shape)
            free(res.allocated)
            return out

        def call(i):
            free(prog.call().allocated)

        self.method(ent, first, call, ref, budget_s, prefill=False)
        err = e2e_call.runtime_errors(lib)
        if err and ent.get("status") == "ok":
            ent.update(status="failed", error="during timing: " + err)
        return ent

    def poison_buffer(self, ptr, nbytes):
        if self.sim:
            ctypes.memset(ptr, 0xFF, nbytes)
            return
        if self.lib.stc_cuda_memset_d8(ptr, 0xFF, nbytes):
            raise RuntimeError("stc_cuda_memset_d8: %s" % e2e_call.runtime_errors(self.lib))

    def fetch(self, res, shape):
        """The f16 result at res.aligned as a tensor on self.dev."""
        torch = self.torch
        n = 1
        for s in shape:
            n *= s
        if self.sim:
            raw = bytearray(ctypes.string_at(res.aligned, 2 * n))
            return torch.frombuffer(raw, dtype=torch.float16).reshape(shape).clone()
        host = torch.empty(shape, dtype=torch.float16)
        st = self.lib.stc_cuda_memcpy_dtoh(host.data_ptr(), res.aligned, 2 * n)
        if st:
            raise RuntimeError("stc_cuda_memcpy_dtoh: %s" % e2e_call.runtime_errors(self.lib))
        return host.to(self.dev)

    def run_block(self, p, budget_s):
        torch = self.torch
        q = p["params"]
        key, (W, V) = self.weights(p)
        gen = torch.Generator(device=self.dev)
        shape = (p["result"]["shape"] if p["block"] == "resnet_bottleneck"
                 else (p["tokens"], q["hidden"]))
        gen.manual_seed(p["tokens"] or p["batch"])
        x = torch.randn(shape, generator=gen, device=self.dev,
                        dtype=torch.float32).to(torch.float16)
        V16 = {n: t[0] for n, t in V.items()}
        if p["block"] == "resnet_bottleneck":
            fwd = lambda ws, lin=None: self.resnet(x, ws, V16, q)  # noqa: E731
            api = ("F.conv2d (channels_last, cuDNN) + bias, ReLU, the residual, f16")
        elif p["block"] == "bert_layer":
            fwd = lambda ws, lin=None: self.bert(x, ws, V16, q, linear=lin)  # noqa: E731
            api = ("BERT layer in torch.nn.functional (F.linear, F.scaled_dot_product_attention "
                   "where torch has it, F.layer_norm, F.gelu), f16")
        else:
            fwd = lambda ws, lin=None: self.mlp(x, ws["gate"], ws["up"], ws["down"],  # noqa: E731
                                                linear=lin)
            api = "F.linear(F.silu(F.linear(x, Wg)) * F.linear(x, Wu), Wd), f16"
        P = {n: W[n][0] for n in W}
        ref = fwd(P).to(torch.float64)
        self.sync()
        methods = {}
        methods["torch_dense"] = self.method(
            {"api": api + ", pruned weights dense"},
            lambda: fwd(P), lambda i: fwd(P), ref, budget_s)

        ent = {"api": "the same with every W = to_sparse_semi_structured(W_pruned)"}
        if p["block"] == "resnet_bottleneck":
            ent.update(status="unavailable",
                       error="PyTorch has no 2:4 convolution (to_sparse_semi_structured "
                             "serves linear/mm only)")
        else:
          try:
            backend, S = self.sparse_weights(key, W)
            ent["backend"] = backend
            F = torch.nn.functional
            self.method(ent, lambda: fwd(S, F.linear), lambda i: fwd(S, F.linear), ref,
                        budget_s)
          except Exception as e:  # noqa: BLE001
            ent.update(status="unavailable", error="%s: %s" % (type(e).__name__,
                                                               bc.first_lines(e, 3)))
        methods["torch_sparse"] = ent

        ent = {"api": "torch.compile(the dense block) (default mode, dynamic=False)"}
        left = self.deadline - time.time()
        if self.args.no_compile:
            ent.update(status="unavailable", error="--no-compile")
        elif left < COMPILE_RESERVE_S:
            ent.update(status="skipped", error="%.0f s of the time budget left (torch.compile "
                       "needs %.0f s)" % (left, COMPILE_RESERVE_S))
        elif not hasattr(torch, "compile"):
            ent.update(status="unavailable",
                       error="torch %s has no torch.compile" % torch.__version__)
        else:
            c = self._compiled.get(p["block"])
            if c is None:
                if p["block"] == "resnet_bottleneck":
                    c = torch.compile(lambda x, ws, vs, q: self.resnet(x, ws, vs, q),
                                      dynamic=False)
                elif p["block"] == "bert_layer":
                    c = torch.compile(lambda x, ws, vs, q: self.bert(x, ws, vs, q),
                                      dynamic=False)
                else:
                    c = torch.compile(lambda x, ws: self.mlp(x, ws["gate"], ws["up"],
                                                             ws["down"]), dynamic=False)
                self._compiled[p["block"]] = c
            call = ((lambda: c(x, P)) if p["block"] == "llama_mlp"
                    else (lambda: c(x, P, V16, q)))
            ent["unavailable_status"] = "unavailable"
            self.method(ent, call, lambda i: call(), ref, budget_s)
        methods["torch_compile"] = ent

        tensors = [x]
        for a in p["args"][1:]:
            name, _, part = a["name"].rpartition(".")
            if part == "values":
                tensors.append(W[name][1])
            elif part == "meta":
                tensors.append(W[name][2])
            else:
                tensors.append(V[a["name"]][1])
        for method in e2e_report.STC_METHODS:
            if method in p["methods"] or method == "stc":
                methods[method] = self.stc_method(p, method, tensors, ref, budget_s)
        return methods

    def run_all(self):
        results = []
        for p in self.manifest["programs"]:
            if self.args.only and not __import__("re").search(self.args.only, p["name"]):
                continue
            res = {"name": p["name"], "block": p["block"], "dtype": p["dtype"],
                   "tokens": p.get("tokens"), "params": p["params"], "flop": p["flop"]}
            for k in ("batch", "seq"):
                if k in p["params"]:
                    res[k] = p["params"][k]
            self.say("%s (%s)" % (p["name"], ", ".join("%s %s" % kv
                                                        for kv in p["params"].items())))
            if time.time() > self.deadline:
                res.update(methods={}, skipped="time budget (--time-budget %.0f s) used up "
                           "before this block started" % self.args.time_budget)
                self.say("  skipped: " + res["skipped"])
                results.append(res)
                continue
            try:
                res["methods"] = self.run_block(p, self.args.method_budget)
            except Exception as e:  # noqa: BLE001
                res["methods"] = {}
                res["error"] = "%s: %s" % (type(e).__name__, bc.first_lines(e, 4))
                self.say("  FAILED: " + res["error"])
                if not self.context_ok():
                    self.context_lost = bc.first_line(e)
            for m, e in res["methods"].items():
                e.pop("times_ms", None) if self.args.drop_times else None
                if e.get("status") == "ok":
                    e["tflops"] = p["flop"] / e["median_ms"] / 1e9
                self.say("  %-14s %s" % (m, ("%.3f ms" % e["median_ms"]) if e.get("status") == "ok"
                                         else "%s: %s" % (e.get("status"),
                                                          bc.first_line(e.get("error", "")))))
            self.emit(dict(res, type="result"))
            results.append(res)
            if not self.sim:
                self.torch.cuda.empty_cache()
        return results


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("cmd", choices=["run"])
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--results-dir", required=True)
    ap.add_argument("--method-budget", type=float, default=0.5,
                    help="seconds of timed calls per method and size")
    ap.add_argument("--time-budget", type=float, default=480.0,
                    help="seconds for the whole run: a block not started by then is "
                         "recorded as skipped, and torch.compile (tens of seconds a size) "
                         "is skipped with under COMPILE_RESERVE_S left")
    ap.add_argument("--max-repeats", type=int, default=200)
    ap.add_argument("--only", default=None)
    ap.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    ap.add_argument("--drop-times", action="store_true", help="no per-call times in the JSON")
    ap.add_argument("--copy-to", default=None)
    ap.add_argument("--simulate", action="store_true")
    args = ap.parse_args(argv)
    args.simulate_bug = []
    args.deadline = time.time() + args.time_budget
    stamp = bc.utc_now()
    commit = git_commit()
    with open(args.manifest) as f:
        manifest = json.load(f)
    commit = commit or manifest.get("commit_short") or "unknown"
    os.makedirs(args.results_dir, exist_ok=True)
    args.jsonl = os.path.join(os.path.dirname(os.path.abspath(args.manifest)),
                              "run-%s.jsonl" % stamp)
    w = E2EWorker(args)
    try:
        w.setup()
    except Exception as e:  # noqa: BLE001
        print("e2e_bench: setup failed: %s: %s" % (type(e).__name__, e), file=sys.stderr)
        return 2
    results = w.run_all()
    env = next((r for r in w.records if r.get("type") == "env"), {})
    env = dict(env, tolerance=e2e_blocks.TOLERANCE, **getattr(w, "env_extra", {}))
    doc = e2e_report.document(results, env, manifest,
                              {"utc": stamp, "commit": commit, "notes": NOTES
                               + (["SIMULATED on the CPU (self test): no GPU numbers"]
                                  if args.simulate else [])})
    stem = os.path.join(args.results_dir, "gpu-e2e-%s%s-%s" % (
        "sim-" if args.simulate else "", stamp, commit))
    e2e_report.write(doc, stem)
    print(e2e_report.markdown(doc))
    print("e2e_bench: wrote %s.json and %s.md" % (stem, stem))
    if args.copy_to:
        os.makedirs(args.copy_to, exist_ok=True)
        for f in (stem + ".json", stem + ".md", args.jsonl):
            shutil.copy(f, args.copy_to)
    bad = [(r["name"], m) for r in results for m, e in r.get("methods", {}).items()
           if e.get("status") not in ("ok", "unavailable", "skipped")] + [
               (r["name"], "-") for r in results if r.get("error")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
