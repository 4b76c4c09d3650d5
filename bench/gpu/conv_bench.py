#!/usr/bin/env python3
"""Run step of the GPU convolution benchmark (on the GPU machine). See
bench/README.md, "GPU convolutions".

    conv_bench.py run --manifest bench/work/gpu-conv/manifest.json
                      [--results-dir bench/results] [--copy-to DIR]
                      [--time-budget 420] [--only REGEX]

The same two-process structure as gemm_bench.py (whose worker machinery
this reuses: driver setup, timing with CUDA events behind a sleep kernel,
hang and crash handling): the parent (no torch) starts a worker that does
the GPU work and restarts it after a program that killed it.

For every program (a ResNet-50 convolution at one batch size, f16, NHWC)
the worker draws a random input (N x H x W x C) and filter (F x KH x KW x
C), prunes the filter 2:4 along C per (f, kh, kw) and compresses it into
stc.conv's sparse matrix (conv_shapes.filter_matrix + format24); runs STC's
kernel (JIT-loaded PTX, parameters from its kernel info through
conv_kernel.py) once on a NaN-poisoned output and compares it with float64
torch conv2d with the pruned filter (relative Frobenius error < 1e-2; a
wrong result is not timed); then times STC, cuDNN
(torch.nn.functional.conv2d on channels_last f16, cudnn.benchmark = True)
with the dense filter and cuDNN with the pruned filter (the same numbers:
it shows that cuDNN gets nothing from the zeros), with CUDA events, median
of many runs, rotating over input copies of at least twice the L2 size.
"""

import argparse
import json
import math
import os
import re
import shutil
import sys
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import gemm_bench as gb  # noqa: E402

TOLERANCE = gb.TOLERANCE
CHECK_TIMEOUT_S = gb.CHECK_TIMEOUT_S
METHODS = ("stc", "cudnn", "cudnn_pruned")


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
        F, ck = w.F, w.ck
        if self.bug == "crash":
            os._exit(9)
        if self.bug == "hang":
            while True:
                time.sleep(1)
        if self.bug == "error":
            raise w.cudrv.CudaError("cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE "
                                    "(simulated)", 1)
        buf, s = {}, {}
        for name, t, v in self.args:
            if t == "ptr":
                buf[ck.BUFFER_PARAMS[name]] = self.tensors[v]
            else:
                s[ck.SIZE_PARAMS[name]] = v
        cv = self.kinfo["conv"]
        if self.bug == "wrong":
            word = w.tops.meta_in(buf["meta"])
            nib = [(word // (16 ** j)) % 16 for j in range(4)]
            sw = [(x % 4) * 4 + x // 4 for x in nib]
            a = gb._SimLaunch._decode_any(self, buf["values"],
                                          sw[0] + 16 * sw[1] + 256 * sw[2] + 4096 * sw[3])
        else:
            a = w.f24.decompress24(buf["values"], buf["meta"], w.tops)
        groups = cv["groups"]
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


class ConvWorker(gb.Worker):
    def __init__(self, args):
        gb.Worker.__init__(self, args)
        import torch.nn.functional as F
        import conv_kernel
        import conv_shapes
        self.F, self.ck, self.cs = F, conv_kernel, conv_shapes

    def setup(self):
        torch = self.torch
        torch.backends.cudnn.benchmark = True
        gb.Worker.setup(self)
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
                what = "float32 without TF32 (float64 conv2d failed: %s)" % first_line(e)
        finally:
            torch.backends.cudnn.benchmark = bench
        return y.permute(0, 2, 3, 1).contiguous(), what

    def diagnose(self, out, ref, g):
        torch = self.torch
        hints = {}
        o = out.to(torch.float64)
        finite = torch.isfinite(o)
        if not bool(finite.all()):
            bad = ~finite
            first = int(torch.argmax(bad.reshape(-1).to(torch.int8)).item())
            hints["first_nonfinite_nhwc"] = list(unravel(first, tuple(o.shape)))
            hints["pixels_with_nonfinite"] = int(bad.any(dim=3).sum().item())
            hints["channels_with_nonfinite"] = int(bad.reshape(-1, o.shape[3]).any(dim=0)
                                                   .sum().item())
        o = torch.where(finite, o, torch.zeros_like(o))
        d = (o - ref).abs()
        idx = int(torch.argmax(d).item())
        hints["max_abs_error_at_nhwc"] = list(unravel(idx, tuple(o.shape)))
        hints["max_abs_error"] = float(d.max().item())
        hints["ref_abs_max"] = float(ref.abs().max().item())
        den = torch.linalg.vector_norm(ref)
        try:  # written NCHW instead of NHWC?
            n, oh, ow, f = o.shape
            t = o.reshape(n, f, oh, ow).permute(0, 2, 3, 1)
            hints["rel_error_if_written_nchw"] = float(
                (torch.linalg.vector_norm(t - ref) / den).item())
        except Exception:  # noqa: BLE001
            pass
        return hints

    # -- one program ----------------------------------------------------------
    def run_program(self, idx, p, budget_s):
        torch, f24, cs, F = self.torch, self.f24, self.cs, self.F
        t_start = time.time()
        g = p["conv"]
        layout = p.get("layout") or {"prepadded": False}
        tdt = {"f16": torch.float16, "bf16": torch.bfloat16}[p["dtype"]]
        n, h, w, c, f = g["N"], g["H"], g["W"], g["C"], g["F"]
        res = {"type": "result", "index": idx, "name": p["name"], "shape": p["shape"],
               "group": p.get("group"), "batch": n, "dtype": p["dtype"],
               "out_dtype": p["out_dtype"], "flop": g["flop"], "methods": {}}
        meths = res["methods"]
        seed = zlib.crc32(p["name"].encode()) & 0x7FFFFFFF
        res["seed"] = seed

        # ---- inputs ------------------------------------------------------------
        hp = h + g["pad_top"] + g["pad_bottom"]
        wp_ = w + g["pad_left"] + g["pad_right"]
        x_bytes = n * h * w * c * 2
        xin_bytes = n * hp * wp_ * c * 2 if layout.get("prepadded") else x_bytes
        out_bytes = g["P"] * f * 2
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
        X, XIN, W, WP, V, MT, OUT, PM = [], [], [], [], [], [], [], []
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
            WP.append(cs.filter_from_matrix(pm, g).contiguous())
            V.append(v.contiguous())
            MT.append(mt.contiguous())
            OUT.append(torch.empty((n, g["OH"], g["OW"], f), device=self.dev, dtype=tdt))
            if i == 0:
                PM.append(pm)
        # The format on copy 0: round trip; torch == NumPy on 64 rows; the
        # pruned filter is 2:4 along C for every (f, kh, kw).
        fmt = {"roundtrip": bool(torch.equal(f24.decompress24(V[0], MT[0], self.tops), PM[0]))}
        wpad = cs.filter_matrix(WP[0], g)[:, :g["K"]].reshape(f, -1, 4)
        fmt["filter_is_2to4_along_c"] = bool(((wpad != 0).sum(dim=2) <= 2).all().item())
        if self.nops is not None:
            rows = min(64, f)
            na = cs.filter_matrix(W[0][:rows].float().cpu().numpy(), g)
            np_p = f24.prune24(na, self.nops)
            np_v, np_m = f24.compress24(np_p, self.nops)
            fmt["numpy_rows_checked"] = rows
            fmt["torch_equals_numpy"] = bool(
                (PM[0][:rows].float().cpu().numpy() == np_p).all()
                and (V[0][:rows].float().cpu().numpy() == np_v).all()
                and (MT[0][:rows].cpu().numpy().view("uint16") == np_m).all())
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
        stream = self.stream.cuda_stream

        # ---- STC ---------------------------------------------------------------
        meths["stc"] = self.run_stc_conv(p, g, layout, V, MT, XIN, OUT, ref, stream, budget_s)
        if meths["stc"].get("context_lost") or meths["stc"].get("hang"):
            return res
        del XIN[:], V[:], MT[:], OUT[:]

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
                ent.update(status="unavailable",
                           error="%s: %s" % (type(e).__name__, gb.first_lines(e)))
            meths[name] = ent
            self.say("  %s: %s" % ("cuDNN dense" if name == "cudnn" else "cuDNN pruned filter",
                                   self.line(ent, g["flop"])))
            if ent["status"] == "unavailable" and not self.context_ok():
                ent["context_lost"] = True
                res["context_lost"] = True
                return res
        for ent in meths.values():
            if "median_ms" in ent:
                ent["tflops_median"] = g["flop"] / (ent["median_ms"] * 1e-3) / 1e12
                ent["tflops_best"] = g["flop"] / (ent["min_ms"] * 1e-3) / 1e12
        res["wall_seconds"] = round(time.time() - t_start, 2)
        return res

    def run_stc_conv(self, p, g, layout, V, MT, XIN, OUT, ref, stream, budget_s):
        torch, cudrv, ck = self.torch, self.cudrv, self.ck
        ent = {"kernel_source": self.manifest.get("kernel_source")}
        if layout.get("prepadded"):
            ent["note"] = layout.get("note")
        module = None
        try:
            with open(os.path.join(self.base, p["kernel_info"])) as f:
                kinfos = ck.parse(f.read(), where=p["kernel_info"])
            if len(kinfos) != 1:
                raise cudrv.KernelInfoError("%s lists %d kernels; the benchmark launches "
                                            "exactly one" % (p["kernel_info"], len(kinfos)))
            ki = kinfos[0]
            with open(os.path.join(self.base, p["ptx"])) as f:
                ptx = f.read()
            cudrv.check_ptx_against_info(ptx, ki, where=p["ptx"])
            bad, lay = ck.check(ki, g, p["dtype"], p["out_dtype"])
            if bad:
                raise cudrv.KernelInfoError("; ".join(bad))
            if bool(lay.get("prepadded")) != bool(layout.get("prepadded")):
                raise cudrv.KernelInfoError("the kernel info's input layout %s differs from "
                                            "the manifest's %s" % (lay, layout))
            kent = {k: ki[k] for k in ("kernel", "grid", "block", "shared_bytes", "params",
                                       "param_types")}
            for key in ("tile", "mma", "ordered_metadata", "input_type", "output_type",
                        "variant", "stages", "static_shared_bytes", "groups", "conv"):
                if key in ki:
                    kent[key] = ki[key]
            ent["kernel"] = kent
            t0 = time.time()
            module, jitlog = self.drv.load_ptx(ptx, where=p["ptx"])
            ent["jit_seconds"] = round(time.time() - t0, 3)
            ent["jit_log"] = gb.first_lines(jitlog, 8) if jitlog else ""
            fn = self.drv.get_function(module, ki["kernel"])
            kent["registers"] = self.drv.func_attribute(fn, cudrv.CU_FUNC_ATTRIBUTE_NUM_REGS)
            kent["local_bytes"] = self.drv.func_attribute(
                fn, cudrv.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
            kent["static_shared_bytes_driver"] = self.drv.func_attribute(
                fn, cudrv.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
            kent["max_threads_per_block"] = self.drv.func_attribute(
                fn, cudrv.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
            threads = ki["block"][0] * ki["block"][1] * ki["block"][2]
            if threads > kent["max_threads_per_block"]:
                raise RuntimeError("block %s has %d threads but the kernel allows at most %d "
                                   "per block (it uses %d registers per thread)"
                                   % (ki["block"], threads, kent["max_threads_per_block"],
                                      kent["registers"]))
            shared = ki["shared_bytes"]
            if shared + kent["static_shared_bytes_driver"] > 48 * 1024:
                optin = self.drv.device_attribute(
                    cudrv.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
                if shared + kent["static_shared_bytes_driver"] > optin:
                    raise RuntimeError("the kernel needs %d B of dynamic + %d B of static "
                                       "shared memory; the device allows %d B per block"
                                       % (shared, kent["static_shared_bytes_driver"], optin))
                self.drv.set_max_dynamic_shared(fn, shared)
            kent["blocks_per_sm"] = self.drv.occupancy(fn, threads, shared)
            if kent["blocks_per_sm"] == 0:
                raise RuntimeError("cuOccupancyMaxActiveBlocksPerMultiprocessor says no block "
                                   "of %d threads with %d B dynamic shared memory fits on a "
                                   "multiprocessor" % (threads, shared))
            launches = []
            self._meta_words = []
            bug = next((kind for kind, pat in self.sim_bug.items() if pat.search(p["name"])),
                       None)
            for c in range(len(V)):
                sizes = ck.sizes_for(ki, g, lay, V[c].shape[1], MT[c].shape[1])
                bufs = {"values": V[c].data_ptr(), "meta": MT[c].data_ptr(),
                        "input": XIN[c].data_ptr(), "out": OUT[c].data_ptr()}
                if not self.sim and ki.get("meta_layout", "canonical") == "canonical":
                    # The kernel reads kernel-ready metadata: convert the
                    # canonical copy once with the kernel's own conversion
                    # kernel (stc's host code does the same), outside timing.
                    # (The CPU simulation reads canonical metadata itself.)
                    words = torch.empty(max(cudrv.metadata_words(ki), 128),
                                        dtype=torch.int32, device="cuda")
                    self._meta_words.append(words)
                    cudrv.metadata_conversion(self.drv, module, ki, MT[c].data_ptr(),
                                              words.data_ptr(),
                                              MT[c].shape[1])(stream)
                    bufs["meta"] = words.data_ptr()
                args = ck.arg_values(ki, bufs, sizes)
                if self.sim:
                    tensors = {V[c].data_ptr(): V[c], MT[c].data_ptr(): MT[c],
                               XIN[c].data_ptr(): XIN[c], OUT[c].data_ptr(): OUT[c]}
                    launches.append(_SimConvLaunch(self, args, tensors, bug, ki))
                else:
                    launches.append(cudrv.Launch(self.drv, fn, ki, args))
            kent["args_copy0"] = [(nm, t, v if t != "ptr" else hex(v))
                                  for nm, t, v in launches[0].args]
            # ---- check: poison, run once, compare with float64 -------------------
            OUT[0].fill_(float("nan"))
            self.sync()
            e0, e1 = self.event(), self.event()
            e0.record()
            launches[0](stream)
            e1.record()
            if not self.wait("check launch"):
                ent.update(status="failed", hang=True,
                           error="the first launch did not finish within %d s (hang?); the "
                                 "worker exits and the parent goes on with the next program"
                                 % CHECK_TIMEOUT_S)
                return ent
            self.drv.synchronize("kernel execution (cuCtxSynchronize after the first launch)")
            t_first = e0.elapsed_time(e1)
            ent["first_launch_ms"] = t_first
            ent["rel_error"], ent["nan_outputs"], ent["inf_outputs"] = self.rel_error(OUT[0], ref)
            ent["tolerance"] = TOLERANCE
            ok = ent["rel_error"] < TOLERANCE
            if not ok:
                ent["diagnosis"] = self.diagnose(OUT[0], ref, g)
            first = OUT[0].clone()
            OUT[0].fill_(float("nan"))
            launches[0](stream)
            if not self.wait("second launch"):
                ent.update(status="failed", hang=True,
                           error="the second launch did not finish within %d s"
                                 % CHECK_TIMEOUT_S)
                return ent
            self.drv.synchronize("kernel execution (second launch)")
            ent["deterministic"] = bool(torch.equal(first, OUT[0]))
            del first
            if ok and not ent["deterministic"]:
                ok = False
                ent["error"] = "two runs on the same inputs gave different results (a race?)"
            ent["status"] = "ok" if ok else "wrong"
            if not ok and "error" not in ent:
                ent["error"] = ("result differs from float64 torch conv2d with the pruned "
                                "filter: rel. error %s (tolerance %.0e), %d NaN outputs"
                                % ("%.3e" % ent["rel_error"], TOLERANCE, ent["nan_outputs"]))
            self.say("  STC check: %s (first launch %.3f ms, jit %.2f s, %d regs, %d blocks/SM)"
                     % ("ok" if ok else "WRONG: " + ent["error"], t_first,
                        ent["jit_seconds"], kent["registers"], kent["blocks_per_sm"]))
            # ---- timing: only a right result ---------------------------------------
            if ok:
                copies = len(launches)
                ent.update(self.time_method(lambda i: launches[i % copies](stream), budget_s,
                                            t_first_ms=t_first))
                self.drv.synchronize("kernel execution (timed runs)")
            self.say("  STC: %s" % self.line(ent, g["flop"]))
        except Exception as e:  # noqa: BLE001
            ent.update(status="failed", error="%s: %s" % (type(e).__name__, e))
            self.say("  STC: FAILED: %s" % gb.first_lines(ent["error"], 8))
            if not self.context_ok():
                ent["context_lost"] = True
                ent["error"] += ("\n(the CUDA context is unusable after this error: the worker "
                                 "exits and the parent restarts it with the next program)")
        finally:
            if module is not None and not ent.get("context_lost") and not ent.get("hang"):
                try:
                    self.drv.unload(module)
                except Exception:  # noqa: BLE001
                    pass
        return ent


def first_line(e):
    return (str(e).strip().splitlines() or [""])[0]


def unravel(i, shape):
    out = []
    for d in reversed(shape):
        out.append(i % d)
        i //= d
    return tuple(reversed(out))


def worker_main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--jsonl", required=True)
    ap.add_argument("--indices", required=True)
    ap.add_argument("--deadline", type=float, required=True)
    ap.add_argument("--max-method-s", type=float, default=0.5)
    ap.add_argument("--max-repeats", type=int, default=200)
    ap.add_argument("--max-copies", type=int, default=16)
    ap.add_argument("--format-check", action="store_true")
    ap.add_argument("--position0", type=int, default=0)
    ap.add_argument("--total", type=int, default=0)
    ap.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--simulate-bug", action="append", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    return ConvWorker(args).main()


# ===========================================================================
# Parent (no torch)
# ===========================================================================

def parent_main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--results-dir", default=os.path.join(ROOT, "bench", "results"))
    ap.add_argument("--copy-to", default=None)
    ap.add_argument("--time-budget", type=float, default=420.0,
                    help="seconds for the whole run; programs not started by then are skipped")
    ap.add_argument("--stall", type=float, default=150.0)
    ap.add_argument("--max-method-s", type=float, default=0.5)
    ap.add_argument("--max-repeats", type=int, default=200)
    ap.add_argument("--max-restarts", type=int, default=6)
    ap.add_argument("--only", default=None)
    ap.add_argument("--simulate", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--simulate-bug", action="append", default=[], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    import report
    t_start = time.time()
    stamp = gb.utc_now()

    def say(msg):
        print("[run_gpu_bench run-conv] " + msg, flush=True)

    if not os.path.isfile(args.manifest):
        say("no %s: run `bench/run_gpu_bench.sh build-conv` on the build machine and carry "
            "bench/work/gpu-conv to this one (run tool: carry=[\"bench/work/gpu-conv\"])"
            % args.manifest)
        return 2
    try:
        with open(args.manifest) as f:
            manifest = json.load(f)
        programs = manifest["programs"]
        if manifest.get("schema") != "stc-gpu-conv-build/1":
            raise KeyError("schema is %r, not stc-gpu-conv-build/1 (a GEMM manifest? use "
                           "`run`)" % manifest.get("schema"))
    except (ValueError, KeyError, OSError) as e:
        say("cannot read %s: %s" % (args.manifest, e))
        return 2
    if args.copy_to:
        os.makedirs(args.copy_to, exist_ok=True)
    os.makedirs(args.results_dir, exist_ok=True)
    base = "gpu-conv-%s%s-%s" % ("mock-" if manifest.get("mock") else "", stamp,
                                 manifest.get("commit_short", "unknown"))
    jsonl = os.path.join(args.copy_to or os.path.join(os.path.dirname(args.manifest), "..",
                                                      "gpu-conv-run"), base + ".jsonl")
    os.makedirs(os.path.dirname(jsonl), exist_ok=True)
    open(jsonl, "a").close()
    selected = [i for i, p in enumerate(programs)
                if not args.only or re.search(args.only, p["name"])]
    if not selected:
        say("no program matches --only %r" % args.only)
        return 2
    if manifest.get("mock"):
        say("MOCK kernels (bench/gpu/conv_mock.cu, plain CUDA C): this run tests the harness; "
            "its 'STC' rows are not STC")
    smi_start = gb.nvidia_smi()
    say("%d programs from %s (built %s at %s%s); time budget %.0f s"
        % (len(selected), args.manifest, manifest.get("utc"), manifest.get("commit_short"),
           ", dirty tree" if manifest.get("dirty") else "", args.time_budget))
    pre, todo = [], []
    for i in selected:
        p = programs[i]
        if p.get("status") != "ok":
            pre.append({"type": "result", "index": i, "name": p["name"],
                        "build_failed": p.get("error") or "not built"})
        else:
            todo.append(i)
    deadline = t_start + args.time_budget
    hard = deadline + 60.0
    restarts = []
    first = True
    total = len(todo)
    while todo:
        n_before = len(gb.read_jsonl(jsonl))
        cmd = [sys.executable, "-u", os.path.abspath(__file__), "worker",
               "--manifest", args.manifest, "--jsonl", jsonl,
               "--indices", ",".join(map(str, todo)), "--deadline", repr(deadline),
               "--max-method-s", str(args.max_method_s),
               "--max-repeats", str(args.max_repeats),
               "--position0", str(total - len(todo)), "--total", str(total)]
        if first:
            cmd.append("--format-check")
        if args.simulate:
            cmd.append("--simulate")
            for b in args.simulate_bug:
                cmd += ["--simulate-bug", b]
        rc, killed, lines = gb.run_worker(cmd, args.stall, hard)
        first = False
        recs = gb.read_jsonl(jsonl)
        new = recs[n_before:]
        done = {r["index"] for r in recs if r.get("type") == "result"}
        started = [r["index"] for r in new if r.get("type") == "start"]
        fatal = [r for r in new if r.get("type") == "fatal"]
        remaining = [i for i in todo if i not in done]
        if not remaining:
            break
        crashed = started[-1] if started and started[-1] in remaining else None
        why = (killed or "exit status %s" % rc)
        say("worker ended (%s) with %d program(s) left" % (why, len(remaining)))
        if crashed is None and started:
            restarts.append({"after": programs[started[-1]]["name"], "why": why})
            todo = remaining
            if time.time() > hard or len(restarts) > args.max_restarts:
                for i in todo:
                    pre.append({"type": "result", "index": i, "name": programs[i]["name"],
                                "not_run": "too many worker restarts or past the deadline"})
                break
            continue
        last = next((ln.strip() for ln in reversed(lines) if ln.strip()), "no output")
        if crashed is None:
            msg = ("worker failed before running any program (%s): %s\n%s"
                   % (why, fatal[-1]["error"] if fatal else last, "\n".join(lines[-15:])))
            say(msg)
            for i in remaining:
                pre.append({"type": "result", "index": i, "name": programs[i]["name"],
                            "not_run": msg})
            break
        pre.append({"type": "result", "index": crashed, "name": programs[crashed]["name"],
                    "worker_died": "the worker died while running this program (%s); last "
                                   "output line: %s\nlast output:\n%s"
                                   % (why, last, "\n".join(lines[-15:]))})
        restarts.append({"after": programs[crashed]["name"], "why": why})
        todo = [i for i in remaining if i != crashed]
        if time.time() > hard or len(restarts) > args.max_restarts:
            for i in todo:
                pre.append({"type": "result", "index": i, "name": programs[i]["name"],
                            "not_run": "too many worker restarts or past the deadline"})
            break
    smi_end = gb.nvidia_smi()
    recs = gb.read_jsonl(jsonl) + pre
    doc = report.assemble_conv(manifest, recs, programs, selected, {
        "utc": stamp, "time_budget_s": args.time_budget, "stall_s": args.stall,
        "max_method_s": args.max_method_s, "max_repeats": args.max_repeats,
        "tolerance": TOLERANCE, "wall_seconds": round(time.time() - t_start, 1),
        "nvidia_smi_start": smi_start, "nvidia_smi_end": smi_end,
        "worker_restarts": restarts, "only": args.only})
    doc = report.finite_json(doc)
    md = report.markdown_conv(doc)
    out_base = os.path.join(args.results_dir, base)
    with open(out_base + ".json", "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")
    with open(out_base + ".md", "w") as f:
        f.write(md)
    if args.copy_to:
        for ext in (".json", ".md"):
            shutil.copy(out_base + ext, os.path.join(args.copy_to, base + ext))
    print(md)
    print(report.compact_conv(doc))
    say("wrote %s.json and .md%s" % (out_base, (" (copies in %s)" % args.copy_to)
                                      if args.copy_to else ""))
    st = doc["summary"]
    if st["ok"]:
        return 0
    say("NOT all ok: %s" % json.dumps({k: v for k, v in st.items() if k != "ok"}))
    return 1


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        sys.exit(worker_main(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        sys.exit(parent_main(sys.argv[2:]))
    print("usage: conv_bench.py run --manifest FILE [...] (see the module docstring)",
          file=sys.stderr)
    sys.exit(2)
