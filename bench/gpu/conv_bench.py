#!/usr/bin/env python3
"""Run step of the GPU convolution benchmark (on the GPU machine). See
bench/README.md, "GPU convolutions".

    conv_bench.py run --manifest bench/work/gpu-conv/manifest.json
                      [--results-dir bench/results] [--copy-to DIR]
                      [--time-budget 420] [--only REGEX]

The same two-process structure as gemm_bench.py, with the same machinery
(benchcommon.py: driver setup, timing with CUDA events behind a sleep
kernel, STC's kernel loading and checking, hang and crash handling): the
parent (no torch) starts a worker that does the GPU work and restarts it
after a program that killed it.

For every program (a ResNet-50 convolution at one batch size, f16, NHWC)
the worker draws a random input (N x H x W x C) and filter (F x KH x KW x
C), prunes the filter 2:4 along C per (f, kh, kw) and compresses it into
stc.conv's sparse matrix (conv_shapes.filter_matrix + format24); for each
of STC's two kernels (method "stc": --target=sm_90, mma.sp; "stc_sm90a":
--target=sm_90a, TMA with a 4-D map of the NHWC input + wgmma.sp where
stc-compile made one) runs it (JIT-loaded PTX, parameters from its kernel
info through conv_kernel.py; tensor maps, cluster, dynamic shared memory)
once on a NaN-poisoned output and compares it with float64
torch conv2d with the pruned filter (relative Frobenius error < 1e-2; a
wrong result is not timed); STC's dense convolution ("stc_dense": the
program compiled with --sparsity=explicit, the implicit GEMM with the whole
filter, wgmma or mma.sync) likewise with the unpruned filter, against the
reference with that filter; then times STC, cuDNN
(torch.nn.functional.conv2d on channels_last f16, cudnn.benchmark = True)
with the dense filter and cuDNN with the pruned filter (the same numbers:
it shows that cuDNN gets nothing from the zeros), with CUDA events, median
of many runs, rotating over input copies of at least twice the L2 size.
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
METHODS = report.CONV_METHODS


# ===========================================================================
# Worker
# ===========================================================================

class _SimConvLaunch:
    """--simulate: a stand-in for STC's kernel that computes the convolution
    with torch on the CPU from the packed parameters (pointers resolved
    through `tensors`, sizes from the integer parameters, the static
    geometry from the kernel info's conv object), so that the parameter
    mapping is exercised. `bug` plants a fault, as gemm_bench's _SimLaunch:
    nan, wrong (swapped metadata indices), crash, hang, error."""

    def __init__(self, worker, args, tensors, bug, kinfo):
        self.w, self.args, self.tensors, self.bug, self.kinfo = worker, args, tensors, bug, kinfo

    def __call__(self, stream):
        w = self.w
        F = w.F
        buf, s, a = bc.sim_operands(w, self.args, self.tensors, self.bug, w.ck, self.kinfo)
        cv = self.kinfo["conv"]
        groups = cv["groups"]
        if w.ck.is_dense(self.kinfo):
            # STC's dense kernel: the whole filter matrix, no metadata.
            assert tuple(a.shape) == (s["R"] * groups, s["VC"]), (a.shape, s)
            assert s["MC"] == 0, s
        else:
            assert tuple(a.shape) == (s["R"] * groups, 2 * s["VC"]), (a.shape, s)
            assert s["K"] <= a.shape[1] and s["MC"] * 16 == a.shape[1], s
        kh, kw, cp, c = cv["KH"], cv["KW"], cv["Cp"], cv["C"]
        assert s["K"] in (kh * kw * cp, -(-kh * kw * cp // 16) * 16), s
        filt = a[:, :kh * kw * cp].reshape(a.shape[0], kh, kw, cp)[..., :c]
        n, h, wd = s["N"], s["H"], s["W"]
        x = buf["input"].reshape(n, h, wd, c * groups).permute(0, 3, 1, 2).float()
        x = F.pad(x, (cv["pad_left"], cv["pad_right"], cv["pad_top"], cv["pad_bottom"]))
        y = F.conv2d(x, filt.permute(0, 3, 1, 2).float(), None,
                     (cv["stride_h"], cv["stride_w"]), 0,
                     (cv["dilation_h"], cv["dilation_w"]), groups)
        assert tuple(y.shape[2:]) == (s["OH"], s["OW"]), (y.shape, s)
        assert s["P"] == n * s["OH"] * s["OW"], s
        out = buf["out"]
        out.copy_(y.permute(0, 2, 3, 1).reshape(out.shape).to(out.dtype))
        if self.bug == "nan":
            out.reshape(-1)[-s["R"] * groups:].fill_(float("nan"))


class ConvWorker(bc.Worker):
    """The convolution worker: NHWC input and FHWC filter (2:4 along C,
    compressed), STC's stc.conv kernel, cuDNN dense and with the pruned
    filter."""

    KERNEL_KEYS = ("tile", "mma", "ordered_metadata", "input_type", "output_type",
                   "variant", "stages", "static_shared_bytes", "groups", "conv",
                   "accumulator", "meta_layout", "cluster", "tensor_maps", "pixel_tile")
    # The kernel info has a static_shared_bytes of its own (KERNEL_KEYS):
    # the driver's figure is recorded beside it.
    FUNC_ATTRS = tuple((key + "_driver" if key == "static_shared_bytes" else key, attr)
                       for key, attr in bc.Worker.FUNC_ATTRS)
    # One share of a program's timing budget per timed method: STC sm_90,
    # sm_90a and dense, cuDNN with the dense filter, cuDNN with the pruned
    # one.
    BUDGET_SHARES = len(METHODS)
    # The "dense" tensor map of an sm_90a kernel is the NHWC input (4-D).
    TENSOR_MAP_ROLES = {"values": "values", "dense": "input", "out": "out"}
    REFERENCE_WHAT = "float64 torch conv2d with the pruned filter"
    TIME_WRONG_RESULTS = False  # a wrong STC result is not timed

    def __init__(self, args):
        bc.Worker.__init__(self, args)
        import torch.nn.functional as F
        import conv_kernel
        import conv_shapes
        self.F, self.ck, self.cs = F, conv_kernel, conv_shapes

    def setup(self):
        torch = self.torch
        torch.backends.cudnn.benchmark = True
        bc.Worker.setup(self)
        rec = {"type": "env_conv"}
        try:
            rec["cudnn_version"] = torch.backends.cudnn.version()
        except Exception as e:  # noqa: BLE001
            rec["cudnn_version"] = "unknown (%s)" % e
        rec["torch_settings"] = {
            "torch.backends.cudnn.enabled": bool(torch.backends.cudnn.enabled),
            "torch.backends.cudnn.benchmark": bool(torch.backends.cudnn.benchmark),
            "torch.backends.cudnn.deterministic": bool(torch.backends.cudnn.deterministic),
            "torch.backends.cudnn.allow_tf32": bool(getattr(torch.backends.cudnn,
                                                            "allow_tf32", False)),
        }
        self.emit(rec)

    # -- torch convolutions -------------------------------------------------
    def tconv(self, x, w, g, dtype=None):
        """torch conv2d of the NHWC input x with the FHWC filter w (both as
        channels_last NCHW views, the layout cuDNN's NHWC kernels take);
        returns N x F x OH x OW (channels_last memory). dtype: compute in
        it (the reference); on the CPU (--simulate) f16 is computed in f32."""
        F = self.F
        xn, wn = x.permute(0, 3, 1, 2), w.permute(0, 3, 1, 2)
        if dtype is not None:
            xn, wn = xn.to(dtype), wn.to(dtype)
        elif self.sim:
            xn, wn = xn.float(), wn.float()
        pt, pb, pl, pr = g["pad_top"], g["pad_bottom"], g["pad_left"], g["pad_right"]
        if pt == pb and pl == pr:
            pad = (pt, pl)
        else:
            xn, pad = F.pad(xn, (pl, pr, pt, pb)), (0, 0)
        y = F.conv2d(xn, wn, None, g["stride"], pad, g["dilation"], g["groups"])
        if self.sim and dtype is None:
            y = y.to(x.dtype)
        return y

    def reference(self, x, w, g):
        """float64 NHWC reference (float32 without TF32 when float64
        convolution is unavailable); returns (tensor, what)."""
        torch = self.torch
        bench = torch.backends.cudnn.benchmark
        torch.backends.cudnn.benchmark = False  # no algorithm search for a one-off call
        try:
            try:
                y = self.tconv(x, w, g, torch.float64)
                what = "float64"
            except Exception as e:  # noqa: BLE001
                old = torch.backends.cudnn.allow_tf32
                torch.backends.cudnn.allow_tf32 = False
                try:
                    y = self.tconv(x, w, g, torch.float32).to(torch.float64)
                finally:
                    torch.backends.cudnn.allow_tf32 = old
                what = "float32 without TF32 (float64 conv2d failed: %s)" % bc.first_line(e)
        finally:
            torch.backends.cudnn.benchmark = bench
        return y.permute(0, 2, 3, 1).contiguous(), what

    def diagnose(self, out, ref, ctx):
        """Hints for a wrong NHWC result (which interpretation would fit)."""
        return self.diagnose_output(
            out, ref, "_nhwc",
            (("pixels_with_nonfinite", lambda bad: bad.any(dim=3)),
             ("channels_with_nonfinite", lambda bad: bad.reshape(-1, bad.shape[3]).any(dim=0))),
            # written NCHW instead of NHWC?
            ("rel_error_if_written_nchw",
             lambda o: o.reshape(o.shape[0], o.shape[3], o.shape[1], o.shape[2])
             .permute(0, 2, 3, 1)))

    # -- inputs -----------------------------------------------------------------
    def make_inputs(self, p, res, seed, t_start, layout):
        """Program p's inputs (run_program's, and tune_bench.py's for every
        candidate of one convolution): `copies` input sets, enough for a
        working set of twice the L2 (within the free memory), each a random
        NHWC input X (and XIN, it zero-padded, where `layout` says the
        kernel takes a pre-padded image; else XIN is X), a random FHWC filter
        W, pruned 2:4 along C (WP) and compressed into stc.conv's matrix (V
        values, MT metadata; conv_shapes.filter_matrix + format24), and
        STC's output OUT (of p's out_dtype); ref: the float64 reference of
        copy 0 (conv2d with the pruned filter; ref_what says how it was
        computed). Records copies, the working set, the format checks of
        copy 0 (round trip, 2:4 along C, torch == NumPy on 64 rows), the
        reference and the preparation time in res. Returns a dict of those
        names."""
        torch, f24, cs, F = self.torch, self.f24, self.cs, self.F
        g = p["conv"]
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
        odt = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32}[
            p.get("out_dtype", p["dtype"])]
        n, h, w, c, f = g["N"], g["H"], g["W"], g["C"], g["F"]
        hp = h + g["pad_top"] + g["pad_bottom"]
        wp_ = w + g["pad_left"] + g["pad_right"]
        x_bytes = n * h * w * c * 2
        xin_bytes = n * hp * wp_ * c * 2 if layout.get("prepadded") else x_bytes
        out_bytes = g["P"] * f * torch.empty(0, dtype=odt).element_size()
        v_bytes = f * g["Kpad"] // 2 * 2 + f * g["Kpad"] // 16 * 2
        stc_bytes = xin_bytes + out_bytes + v_bytes
        held = stc_bytes + (x_bytes if layout.get("prepadded") else 0) + 2 * f * g["K"] * 2
        free = (8 << 30) if self.sim else torch.cuda.mem_get_info()[0]
        # The float64 reference and cuDNN's outputs and workspace need room too.
        room = max(1, int((0.5 * free - 12 * out_bytes - 8 * x_bytes) // held))
        copies = max(1, math.ceil(2 * self.l2 / stc_bytes))
        copies = min(copies, self.args.max_copies, room)
        res.update(copies=copies, working_set_bytes_stc=copies * stc_bytes,
                   rotation_target_bytes=2 * self.l2)
        gen = torch.Generator(device=self.dev).manual_seed(seed)
        scale = 1.0 / math.sqrt(g["KH"] * g["KW"] * g["Cg"])
        X, XIN, W, WP, V, MT, OUT, PM, WD = [], [], [], [], [], [], [], [], []
        for i in range(copies):
            x = torch.randn((n, h, w, c), generator=gen, device=self.dev,
                            dtype=torch.float32).to(tdt)
            wt = (torch.randn((f, g["KH"], g["KW"], g["Cg"]), generator=gen, device=self.dev,
                              dtype=torch.float32) * scale).to(tdt)
            pm = f24.prune24(cs.filter_matrix(wt, g), self.tops)
            v, mt = f24.compress24(pm, self.tops)
            X.append(x)
            XIN.append(F.pad(x, (0, 0, g["pad_left"], g["pad_right"], g["pad_top"],
                                 g["pad_bottom"])).contiguous()
                       if layout.get("prepadded") else x)
            W.append(wt)
            # STC's dense kernel's values: the unpruned FHWC filter as the
            # F x (KH*KW*C) matrix of its rows.
            WD.append(wt.reshape(f, -1).contiguous())
            WP.append(cs.filter_from_matrix(pm, g).contiguous())
            V.append(v.contiguous())
            MT.append(mt.contiguous())
            OUT.append(torch.empty((n, g["OH"], g["OW"], f), device=self.dev, dtype=odt))
            if i == 0:
                PM.append(pm)
        # The format on copy 0: round trip; torch == NumPy on 64 rows; the
        # pruned filter is 2:4 along C for every (f, kh, kw).
        fmt = {"roundtrip": bool(torch.equal(f24.decompress24(V[0], MT[0], self.tops), PM[0]))}
        wpad = cs.filter_matrix(WP[0], g)[:, :g["K"]].reshape(f, -1, 4)
        fmt["filter_is_2to4_along_c"] = bool(((wpad != 0).sum(dim=2) <= 2).all().item())
        rows = min(64, f)
        self.check_numpy_rows(fmt, rows, cs.filter_matrix(W[0][:rows].float().cpu().numpy(), g),
                              PM, V, MT)
        res["format"] = fmt
        if (not fmt["roundtrip"] or not fmt["filter_is_2to4_along_c"]
                or fmt.get("torch_equals_numpy") is False):
            res["format_error"] = ("the benchmark's own pruning/compression is inconsistent "
                                   "(%s): results are not trustworthy" % fmt)
        del PM[:]
        ref, ref_what = self.reference(X[0], WP[0], g)
        res["reference"] = ref_what
        self.sync()
        res["prep_seconds"] = round(time.time() - t_start, 3)
        self.say("  inputs: %d cop%s (%.0f MiB for STC), prep %.1f s, reference %s"
                 % (copies, "y" if copies == 1 else "ies", copies * stc_bytes / 2**20,
                    res["prep_seconds"], ref_what))
        return {"X": X, "XIN": XIN, "W": W, "WP": WP, "V": V, "MT": MT, "OUT": OUT,
                "WD": WD, "copies": copies, "ref": ref, "ref_what": ref_what}

    def stc_context(self, p, inp, layout):
        """run_stc's context of one of program p's STC kernels (inp:
        make_inputs'; layout: the kernel's input layout, pre-padded or not)."""
        g = p["conv"]
        return {"g": g, "layout": layout, "V": inp["V"], "MT": inp["MT"], "WD": inp["WD"],
                "XIN": inp["XIN"] if layout.get("prepadded") else inp["X"],
                "out": inp["OUT"], "ref": inp["ref"], "flop": g["flop"]}

    # -- one program ----------------------------------------------------------
    def run_program(self, idx, p, budget_s):
        torch = self.torch
        t_start = time.time()
        g = p["conv"]
        # The input layout of each built STC kernel (pre-padded when its
        # tensor.pad was not folded into stc.conv).
        layouts = {}
        for method in report.CONV_STC_METHODS:
            status, _, kp = report.stc_build(p, method)
            if status == "ok":
                layouts[method] = kp.get("layout") or {"prepadded": False}
        layout = {"prepadded": any(v.get("prepadded") for v in layouts.values())}
        n = g["N"]
        res = {"type": "result", "index": idx, "name": p["name"], "shape": p["shape"],
               "group": p.get("group"), "batch": n, "dtype": p["dtype"],
               "out_dtype": p["out_dtype"], "flop": g["flop"], "methods": {}}
        meths = res["methods"]
        seed = zlib.crc32(p["name"].encode()) & 0x7FFFFFFF
        res["seed"] = seed

        # ---- inputs ------------------------------------------------------------
        inp = self.make_inputs(p, res, seed, t_start, layout)
        X, XIN, W, WP, V, MT, OUT = (inp[k] for k in ("X", "XIN", "W", "WP", "V", "MT", "OUT"))
        copies, ref, ref_what = inp["copies"], inp["ref"], inp["ref_what"]
        stream = self.stream.cuda_stream

        # ---- STC: the sm_90 kernel, the sm_90a one, the dense one -----------------
        for method in report.CONV_STC_METHODS:
            status, error, kp = report.stc_build(p, method)
            if status != "ok":
                # Not built (a build failure, the mock, an older manifest).
                meths[method] = {"status": status, "error": error}
                self.say("  %s: %s" % (report.CONV_NAMES[method],
                                       self.line(meths[method], g["flop"])))
                continue
            lay = layouts[method]
            ent = {"kernel_source": self.manifest.get("kernel_source"),
                   "target": kp.get("target")}
            if lay.get("prepadded"):
                ent["note"] = lay.get("note")
            ctx = self.stc_context(p, inp, lay)
            if method == "stc_dense":
                # The dense kernel computes with the unpruned filter.
                ctx["ref"], ent["reference"] = self.reference(X[0], W[0], g)
            meths[method] = self.run_stc(kp, ent, ctx, stream, budget_s, method=method)
            ctx["ref"] = None
            if meths[method].get("context_lost") or meths[method].get("hang"):
                return res
        del XIN[:], V[:], MT[:], OUT[:], inp["WD"][:]

        # ---- cuDNN: dense filter, then the pruned one ----------------------------
        for name, filt, what in (("cudnn", W, "the unpruned random filter (the dense layer "
                                              "the 2:4 one replaces)"),
                                 ("cudnn_pruned", WP, "the 2:4-pruned filter, dense (the same "
                                                      "numbers as STC's)")):
            ent = {"api": "torch.nn.functional.conv2d, channels_last %s, cudnn.benchmark"
                          % p["dtype"], "operand": what}
            try:
                if name == "cudnn":
                    r, ent["reference"] = self.reference(X[0], W[0], g)
                else:
                    r, ent["reference"] = ref, ref_what
                y = self.tconv(X[0], filt[0], g)
                ent["out_dtype"] = str(y.dtype).replace("torch.", "")
                ent["out_memory_format"] = ("channels_last" if y.is_contiguous(
                    memory_format=torch.channels_last) else "other")
                ent["rel_error"], ent["nan_outputs"], _ = self.rel_error(
                    y.permute(0, 2, 3, 1), r)
                del y, r
                ent["status"] = "ok" if ent["rel_error"] < TOLERANCE else "wrong"
                ent.update(self.time_method(
                    lambda i: self.tconv(X[i % copies], filt[i % copies], g), budget_s))
            except Exception as e:  # noqa: BLE001
                self.baseline_failed(ent, e)
            meths[name] = ent
            self.say("  %s: %s" % ("cuDNN dense" if name == "cudnn" else "cuDNN pruned filter",
                                   self.line(ent, g["flop"])))
            if self.lost_context(ent, res):
                return res
        return self.finish_result(res, g["flop"], t_start)

    # -- hooks of bc.Worker.run_stc ---------------------------------------------
    def parse_kernel_info(self, text, where):
        return self.ck.parse(text, where=where)

    def check_kernel(self, ki, p, ctx):
        """conv_kernel's checks of the geometry, and the input layout the
        kernel expects (kept in ctx["lay"]) against the manifest's."""
        bad, lay = self.ck.check(ki, ctx["g"], p["dtype"], p["out_dtype"])
        ctx["lay"] = lay
        if not bad and bool(lay.get("prepadded")) != bool(ctx["layout"].get("prepadded")):
            bad = ["the kernel info's input layout %s differs from the manifest's %s"
                   % (lay, ctx["layout"])]
        return bad

    def stc_operands(self, c, ki, ctx):
        if self.ck.is_dense(ki):
            # STC's dense kernel: the unpruned filter matrix, no metadata.
            WD = ctx["WD"]
            sizes = self.ck.sizes_for(ki, ctx["g"], ctx["lay"], WD[c].shape[1], 0)
            return sizes, {"values": WD[c], "input": ctx["XIN"][c], "out": ctx["out"][c]}
        V, MT = ctx["V"], ctx["MT"]
        sizes = self.ck.sizes_for(ki, ctx["g"], ctx["lay"], V[c].shape[1], MT[c].shape[1])
        return sizes, {"values": V[c], "meta": MT[c], "input": ctx["XIN"][c],
                       "out": ctx["out"][c]}

    def kernel_args(self, ki, bufs, sizes):
        return self.ck.arg_values(ki, bufs, sizes)

    def sim_launch(self, args, tensors, bug, ki):
        return _SimConvLaunch(self, args, tensors, bug, ki)


SPEC = bc.RunSpec(
    script=__file__, step="run-conv", build_step="build-conv", work="bench/work/gpu-conv",
    run_dir="gpu-conv-run", prefix="gpu-conv", mock_source="bench/gpu/conv_mock.cu",
    time_budget=420.0, assemble=report.assemble_conv, markdown=report.markdown_conv,
    compact=report.compact_conv, runnable=report.gemm_runnable,
    schema="stc-gpu-conv-build/1",
    schema_hint=" (a GEMM manifest? use `run`)")


if __name__ == "__main__":
    sys.exit(bc.main(SPEC, ConvWorker, max_copies=16))
