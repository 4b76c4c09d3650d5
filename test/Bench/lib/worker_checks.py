"""The GEMM benchmark's run step without a GPU: the parent without torch
(failed builds, a worker that cannot start), and, with torch on the CPU,
format24's torch code against its NumPy code, the worker simulated on the
CPU (--simulate: a stand-in kernel computes from the packed parameters)
clean and with planted faults, and the int8 baselines' handling."""

import ctypes
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchcheck import *  # noqa: E402,F401,F403 (the shared helpers and modules)


def t_parent():
    tmp = tempfile.mkdtemp(prefix="gpu-bench-test-")
    try:
        progs = fake_programs()
        progs[0]["status"] = "failed"
        progs[0]["error"] = "stc-compile exited with status 1"
        mp = write_manifest(os.path.join(tmp, "gpu", "manifest.json"), "stc-gpu-gemm-build/1",
                            progs)
        # No torch on this machine: the worker dies at start; every program
        # must still end with a record and the parent must write results.
        rc, doc, text = bench_run("gemm_bench.py", mp, tmp, "parent", ["--time-budget", "60"])
        assert rc == 1, "exit status %d:\n%s" % (rc, text)
        got = sorted(os.listdir(os.path.join(tmp, "out-parent")))
        assert len(got) == 3 and any(g.endswith(".md") for g in got), got
        js = [g for g in got if g.endswith(".json")][0]
        st = [e["methods"]["stc"]["status"] for e in doc["results"]]
        assert st[0] == "build_failed" and all(s == "not_run" for s in st[1:]), st
        err = doc["results"][1]["methods"]["stc"]["error"]
        has_torch = subprocess.run([sys.executable, "-c", "import torch"],
                                   stderr=subprocess.DEVNULL).returncode == 0
        if not has_torch:
            assert "worker failed before running any program" in err, err
            assert "torch" in err, err
        return "worker failure and build failures end as recorded results (%s)" % js
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def t_torch_ops():
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    import torch
    t, n = format24.TorchOps(), format24.NumpyOps()
    k = 0
    for a in matrices():
        ta = torch.from_numpy(a.copy())
        p = format24.prune24(ta, t)
        v, m = format24.compress24(p, t)
        np_p = format24.prune24(a, n)
        np_v, np_m = format24.compress24(np_p, n)
        assert m.dtype == torch.int16
        assert (p.numpy() == np_p).all() and (v.numpy() == np_v).all(), "values differ"
        assert (m.numpy().view(np.uint16) == np_m).all(), "metadata differs"
        assert torch.equal(format24.decompress24(v, m, t), p)
        k += 1
    b = torch.randn(32, 128).to(torch.bfloat16)
    p = format24.prune24(b, t)
    v, m = format24.compress24(p, t)
    assert torch.equal(format24.decompress24(v, m, t), p)
    assert (p.float().numpy() == format24.prune24(b.float().numpy(), n)).all()
    # int8, as the i8 programs draw it: [-127, 127], many ties and zeros.
    c = np.random.default_rng(9).integers(-127, 128, (32, 256)).astype(np.int8)
    c[:, 1::4] = c[:, 0::4]
    p = format24.prune24(torch.from_numpy(c), t)
    v, m = format24.compress24(p, t)
    np_v, np_m = format24.compress24(format24.prune24(c, n), n)
    assert p.dtype == torch.int8 and (v.numpy() == np_v).all(), "int8 values differ"
    assert (m.numpy().view(np.uint16) == np_m).all(), "int8 metadata differs"
    assert torch.equal(format24.decompress24(v, m, t), p)
    return "%d matrices + bf16 + int8, torch %s" % (k, torch.__version__)


def sim_manifest(tmp):
    """Programs a, b, c in f16, bf16 and i8 (both STC 2:4 kernels built:
    the sm_90 one, and an sm_90a one with tensor maps, a cluster and 201
    KiB of shared memory; i8: B given N x K, byte tensor maps, i32 outputs;
    f16/bf16 also STC's dense kernel, no metadata, A whole; stc_auto the
    sm_90a kernel (f16, i8) or the dense one (bf16)), d-f16 (the
    sm_90 build failed, the sm_90a and dense ones not), d-bf16 (the sm_90a
    and dense builds failed) and e-f16 (no sm_90a or dense kernel built,
    as the mock)."""
    progs = []
    ptx = SAMPLE_PTX
    for name, m, n, k in (("a", 64, 32, 128), ("b", 96, 16, 256), ("c", 128, 64, 64),
                          ("d", 64, 16, 64), ("e", 32, 8, 32)):
        for dt in shapes.DTYPES:
            pn = "%s-%s" % (name, dt)
            if pn in ("e-bf16", "d-i8", "e-i8"):
                continue
            out, tr = shapes.out_dtype(dt), shapes.dense_transposed(dt)
            rel = os.path.join("programs", pn)
            os.makedirs(os.path.join(tmp, "gpu", rel))
            ki = dict(GOOD_INFO[0], dense_transposed=tr)
            del ki["problem"]
            with open(os.path.join(tmp, "gpu", rel, "k.ptx"), "w") as f:
                f.write(ptx)
            with open(os.path.join(tmp, "gpu", rel, "k.json"), "w") as f:
                json.dump([ki], f)
            ka = wgmma_info(R=m, P=n, K=k, grid=[1, 2, 1],
                            **(I8_WGMMA if dt == "i8" else {}))
            ka.update(input_type=dt, output_type=out, cluster=[1, 2, 1])
            for tm in ka["tensor_maps"]:
                tm["data_type"] = kernel_info.TENSOR_MAP_DATA_TYPES[dt][0]
            with open(os.path.join(tmp, "gpu", rel, "k_sm90a.ptx"), "w") as f:
                f.write(fake_ptx_for(ka))
            with open(os.path.join(tmp, "gpu", rel, "k_sm90a.json"), "w") as f:
                json.dump([ka], f)
            kd = dense_info(R=m, P=n, K=k, grid=[1, 1, 1], input_type=dt, output_type=out)
            with open(os.path.join(tmp, "gpu", rel, "k_dense.ptx"), "w") as f:
                f.write(fake_ptx_for(kd))
            with open(os.path.join(tmp, "gpu", rel, "k_dense.json"), "w") as f:
                json.dump([kd], f)
            p = {"name": pn, "shape": name, "group": "t", "M": m, "N": n, "K": k,
                 "dtype": dt, "out_dtype": out, "dense_transposed": tr, "status": "ok",
                 "kernel": ki,
                 "ptx": os.path.join(rel, "k.ptx"), "kernel_info": os.path.join(rel, "k.json"),
                 "sm90a": {"target": "sm_90a", "status": "ok", "kernel": ka,
                           "ptx": os.path.join(rel, "k_sm90a.ptx"),
                           "kernel_info": os.path.join(rel, "k_sm90a.json")},
                 "dense": {"target": "sm_90", "status": "ok", "kernel": kd,
                           "ptx": os.path.join(rel, "k_dense.ptx"),
                           "kernel_info": os.path.join(rel, "k_dense.json")}}
            why = build_programs.dense_not_built(False, "sm_90", dt)
            if why:
                p["dense"] = {"target": "sm_90", "status": "not_built", "error": why}
            if pn == "d-f16":
                p.update(status="failed", error="stc-compile exited with status 1: planted")
            if pn == "d-bf16":
                p["sm90a"].update(status="failed", error="ptxas -arch=sm_90a rejected: planted")
                p["dense"].update(status="failed", error="stc-compile exited with status 1: "
                                                         "planted (dense)")
            # stc_auto: --sparsity=auto's choice, the sm_90a 2:4 kernel (f16,
            # i8) or the dense one (bf16), with its configuration.
            cfg = "#stc_gpu.kernel_config<arch = sm_90a, family = wgmma>"
            p["auto"] = (dict(p["dense"], target="sm_90a", sparse=False, config=cfg)
                         if dt == "bf16" else
                         dict(p["sm90a"], sparse=True, config=cfg))
            if pn == "e-f16":
                p["sm90a"] = {"target": None, "status": "not_built", "error": "planted"}
                p["dense"] = {"target": None, "status": "not_built", "error": "planted"}
                p["auto"] = {"target": None, "status": "not_built", "error": "planted"}
            progs.append(p)
    return write_manifest(os.path.join(tmp, "gpu", "manifest.json"), "stc-gpu-gemm-build/1",
                          progs, kernel_source="simulated", target_sm90a="sm_90a",
                          target_dense="sm_90")


def check_int8_baselines(e):
    """An i8 program's baselines in a simulated run: each ran (ok, exact)
    or is unavailable with its reason (torch without torch._int_mm or
    cuSPARSELt, as on this CPU), never wrong or crashed; their APIs are the
    int8 ones."""
    for m in report.BASELINES:
        b = e["methods"][m]
        assert b["status"] in ("ok", "unavailable"), (e["name"], m, b)
        if b["status"] == "unavailable":
            assert b.get("error"), (m, b)
        else:
            assert b["tolerance"] == "exact" and b["mismatches"] == 0, (m, b)
            assert b["out_dtype"] == "int32", (m, b)
    cb = e["methods"]["cublas"]
    assert "torch._int_mm" in cb["api"] and "K contiguous" in cb["b_layout"], cb
    if cb["status"] != "ok":
        # The contiguous B was tried too, and said why it did not run.
        assert [x["b_layout"] for x in cb["other_layouts"]] == ["K x N contiguous copy"], cb
        assert cb["other_layouts"][0]["status"] == "unavailable", cb
    assert "out_dtype=torch.int32" in e["methods"]["cusparselt"]["api"]


def t_worker_sim():
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-sim-")
    try:
        # The stand-in kernel's reading of a tensor-map parameter, and the
        # mistakes it must catch (a map of another buffer, a wrong stride).
        import torch
        import benchcommon
        w = type("W", (), {})()
        v, dn = torch.zeros(64, 64, dtype=torch.float16), torch.zeros(128, 32,
                                                                       dtype=torch.float16)
        other = torch.zeros(64, 64, dtype=torch.float16)
        ki = wgmma_info(R=64, P=32, K=128)

        def decoded(values):
            reqs = kernel_info.tensor_map_requests(ki, {
                "values": (values.data_ptr(), tuple(values.shape), "f16"),
                "dense": (dn.data_ptr(), tuple(dn.shape), "f16")})
            out = {}
            for param, req in reqs:
                raw = ctypes.create_string_buffer(benchcommon.sim_encode_tensor_map(req), 128)
                out[param] = benchcommon.sim_decode_tensor_map(ctypes.addressof(raw))
            return out
        benchcommon.sim_check_tensor_maps(w, decoded(v), {"values": v, "dense": dn})
        for maps, text in ((decoded(other), "none of this launch's buffers"),
                           (dict(decoded(v), dense_map=dict(decoded(v)["dense_map"],
                                                            strides=[32])), "expected")):
            try:
                benchcommon.sim_check_tensor_maps(w, maps, {"values": v, "dense": dn})
                raise AssertionError("a bad tensor map was accepted")
            except benchcommon.stcrt.CudaError as e:
                assert text in str(e), e
        mp = sim_manifest(tmp)
        rc, doc, text = sim_run("gemm_bench.py", mp, tmp, "clean", ["--only", "^[ace]-"])
        for method in report.GEMM_STC_METHODS:
            st = {e["name"]: e["methods"][method] for e in doc["results"]
                  if (e["name"] != "e-f16" or method == "stc")
                  and (method != "stc_dense" or shapes.has_stc_dense(e["dtype"]))}
            assert all(e["status"] == "ok" and e["rel_error"] < 1e-2 and e["deterministic"]
                       for e in st.values()), {k: (e["status"], e.get("error"))
                                               for k, e in st.items()}
            assert all(e["repeats"] >= 10 and len(e["times_ms"]) == e["repeats"]
                       for e in st.values())
            # The i8 programs' results are exact (their kernel read B as N x K).
            assert all(e["tolerance"] == "exact" and e["mismatches"] == 0
                       for k, e in st.items() if k.endswith("-i8")), st
        assert rc == 0, "clean simulated run exited %d:\n%s" % (rc, text[-3000:])
        by = {e["name"]: e for e in doc["results"]}
        check_int8_baselines(by["a-i8"])
        assert by["a-i8"]["unit"] == "TOPS" and by["a-i8"]["out_dtype"] == "i32"
        assert by["e-f16"]["methods"]["stc_sm90a"]["status"] == "not_built"
        # STC's dense kernel: A whole as its values (value_cols K, meta_cols
        # 0, no meta argument), right against A @ B; not built for i8.
        sd = by["a-f16"]["methods"]["stc_dense"]
        args = dict((nm, v) for nm, _, v in sd["kernel"]["args_copy0"])
        assert "meta" not in args and (args["value_cols"], args["meta_cols"]) == (128, 0), args
        assert sd["kernel"]["meta_layout"] == "none", sd["kernel"]
        # (cuBLAS's ratio where torch.mm runs f16 on this CPU.)
        assert ("stc_dense_speedup_vs_cublas" in by["a-f16"]["ratios"]) == (
            by["a-f16"]["methods"]["cublas"]["status"] == "ok"), by["a-f16"]
        assert by["e-f16"]["methods"]["stc_dense"]["status"] == "not_built"
        assert by["a-i8"]["methods"]["stc_dense"]["status"] == "not_built"
        # cutlass2: the simulated manifest has no library: unavailable with
        # the reason, in every program, never a crash or "not_run".
        for e in doc["results"]:
            c2 = e["methods"]["cutlass2"]
            assert c2["status"] == "unavailable" and "no cutlass2 entry" in c2["error"], (
                e["name"], c2)
            assert "N x K contiguous" in c2["b_layout"], c2
        sa = by["a-f16"]["methods"]["stc_sm90a"]
        assert sa["kernel"]["cluster"] == [1, 2, 1] and sa["kernel"]["variant"] == "wgmma", sa
        assert sa["kernel"]["max_active_clusters"] == 1 and "tensor_maps" in sa["kernel"]
        args = dict((nm, v) for nm, _, v in sa["kernel"]["args_copy0"])
        assert {"values_map", "dense_map"} <= set(args) and args["value_cols"] == 64, args
        assert "stc_sm90a_speedup_vs_stc" in by["a-f16"]["ratios"]
        # stc_auto: the 2:4 choice (f16) and the dense one (bf16: A whole,
        # checked against A @ B), with their ratios.
        au = by["a-bf16"]["methods"]["stc_auto"]
        assert au["sparse"] is False and au["kernel"]["meta_layout"] == "none", au
        assert by["a-f16"]["methods"]["stc_auto"]["sparse"] is True
        assert "stc_auto_speedup_vs_cusparselt" in by["a-f16"]["ratios"] or \
            by["a-f16"]["methods"]["cusparselt"]["status"] != "ok", by["a-f16"]["ratios"]
        bugs = ["nan@^a-f16$", "wrong@^a-bf16$", "error@^b-f16$", "crash:stc_sm90a@^b-bf16$",
                "hang@^c-f16$", "wrong:stc_sm90a@^c-bf16$", "nan@^a-i8$",
                "wrong:stc_sm90a@^c-i8$", "wrong:stc_dense@^c-bf16$", "nan:stc_dense@^d-f16$",
                "wrong:stc_auto@^b-i8$"]
        extra = ["--stall", "8"]
        for b in bugs:
            extra += ["--simulate-bug", b]
        rc, doc, text = sim_run("gemm_bench.py", mp, tmp, "faults", extra)
        st = {e["name"]: e["methods"]["stc"] for e in doc["results"]}
        want = {"a-f16": "wrong", "a-bf16": "wrong", "b-f16": "failed", "b-bf16": "not_run",
                "c-f16": "failed", "c-bf16": "ok", "d-f16": "build_failed", "d-bf16": "ok",
                "e-f16": "ok", "a-i8": "wrong", "b-i8": "ok", "c-i8": "ok"}
        got = {k: e["status"] for k, e in st.items()}
        assert got == want, "statuses %s, expected %s\n%s" % (got, want, text[-3000:])
        # The sm_90a kernel: the same planted faults (a bug without a method
        # names both kernels), one of its own, and its build statuses.
        sm = {e["name"]: e["methods"]["stc_sm90a"] for e in doc["results"]}
        want = {"a-f16": "wrong", "a-bf16": "wrong", "b-f16": "failed", "b-bf16": "failed",
                "c-f16": "not_run", "c-bf16": "wrong", "d-f16": "ok", "d-bf16": "build_failed",
                "e-f16": "not_built", "a-i8": "wrong", "b-i8": "ok", "c-i8": "wrong"}
        got = {k: e["status"] for k, e in sm.items()}
        assert got == want, "sm_90a statuses %s, expected %s\n%s" % (got, want, text[-3000:])
        # The dense kernel: the faults planted in every kernel, two of its
        # own (its A's columns swapped, a row unwritten), its build statuses;
        # after the crash in b-bf16's sm_90a kernel and the hang in c-f16's
        # sm_90 one it did not run.
        sd = {e["name"]: e["methods"]["stc_dense"] for e in doc["results"]}
        want = {"a-f16": "wrong", "a-bf16": "wrong", "b-f16": "failed", "b-bf16": "not_run",
                "c-f16": "not_run", "c-bf16": "wrong", "d-f16": "wrong",
                "d-bf16": "build_failed", "e-f16": "not_built", "a-i8": "not_built",
                "b-i8": "not_built", "c-i8": "not_built"}
        got = {k: e["status"] for k, e in sd.items()}
        assert got == want, "dense statuses %s, expected %s\n%s" % (got, want, text[-3000:])
        assert sd["c-bf16"]["rel_error"] > 0.1 and "median_ms" in sd["c-bf16"], sd["c-bf16"]
        assert sd["d-f16"]["nan_outputs"] > 0 and "planted (dense)" in sd["d-bf16"]["error"]
        assert sm["c-bf16"]["rel_error"] > 0.1 and "median_ms" in sm["c-bf16"], sm["c-bf16"]
        assert "planted" in sm["d-bf16"]["error"] and "planted" in st["d-f16"]["error"]
        # d-f16 ran (its sm_90a kernel and the baselines) although its sm_90
        # build failed.
        d = {e["name"]: e for e in doc["results"]}["d-f16"]
        assert d["methods"]["cublas"]["status"] != "not_run", d["methods"]["cublas"]
        assert rc == 1
        assert st["a-f16"]["nan_outputs"] > 0 and "NaN" in st["a-f16"]["error"]
        assert "diagnosis" in st["a-bf16"] and st["a-bf16"]["rel_error"] > 0.1
        assert "CUDA_ERROR_INVALID_VALUE" in st["b-f16"]["error"]
        # The crash in b-bf16's sm_90a kernel is that method's failure.
        assert "worker died" in sm["b-bf16"]["error"] and "exit status 9" in sm["b-bf16"]["error"]
        assert "in stc_sm90a" in sm["b-bf16"]["error"], sm["b-bf16"]["error"]
        assert "no output for 8 s" in st["c-f16"]["error"], st["c-f16"]["error"]
        assert len(doc["worker_restarts"]) == 2, doc["worker_restarts"]
        assert "median_ms" in st["c-bf16"], "the program after the hang was not timed"
        # i8: a row left unwritten (still INT_POISON) and swapped metadata
        # are caught by the exact comparison; the baselines still run.
        a8, c8 = st["a-i8"], sm["c-i8"]
        assert a8["nan_outputs"] == 32 and a8["mismatches"] >= 32, a8
        assert "unwritten" in a8["error"] and "exact integers" in a8["error"], a8["error"]
        assert c8["mismatches"] > 0 and c8["nan_outputs"] == 0 and "median_ms" in c8, c8
        assert "diagnosis" in c8 and st["c-i8"]["status"] == "ok"
        check_int8_baselines({e["name"]: e for e in doc["results"]}["b-i8"])
        au = {e["name"]: e["methods"]["stc_auto"]["status"] for e in doc["results"]}
        assert (au["b-i8"], au["c-i8"], au["e-f16"]) == ("wrong", "ok", "not_built"), au
        return ("clean run ok (the three STC kernels; the sm_90a one through its tensor maps "
                "and cluster; the dense one on A whole; i8 exact, B transposed); NaN, swapped "
                "metadata, launch error, crash, hang each recorded (i8: unwritten row, swapped "
                "metadata; dense: swapped columns, unwritten row); build failures of every "
                "kernel; int8 baselines %s"
                % ", ".join("%s %s" % (m, by["a-i8"]["methods"][m]["status"])
                            for m in report.BASELINES))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def t_int8_baselines():
    """The int8 baselines' handling (gemm_bench.GemmWorker.run_baseline,
    dense_layouts) with CPU stand-ins for torch._int_mm and cuSPARSELt: an
    exact int32 result is ok and timed, an int8 one (not the accumulator)
    unavailable, an off-by-one wrong with its reason, an exception
    unavailable with it."""
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    import argparse
    import torch
    import gemm_bench
    w = gemm_bench.GemmWorker.__new__(gemm_bench.GemmWorker)
    w.torch, w.sim, w.cycles_per_ms = torch, True, None
    w.args = argparse.Namespace(max_repeats=5)
    g = torch.Generator().manual_seed(3)
    a = torch.randint(-127, 128, (64, 128), generator=g, dtype=torch.int8)
    bt = torch.randint(-127, 128, (48, 128), generator=g, dtype=torch.int8)
    ref = a.double() @ bt.double().t()
    exact = lambda b: (a.long() @ b.long()).int()  # noqa: E731
    off = lambda b: exact(b).index_put_((torch.tensor([5]), torch.tensor([7])),  # noqa: E731
                                        torch.tensor([1], dtype=torch.int32), accumulate=True)

    def run(fn):
        return w.run_baseline({}, lambda: fn(bt.t()), lambda i: fn(bt.t()), lambda: ref, 0.01,
                              True)
    e = run(exact)
    assert (e["status"], e["tolerance"], e["mismatches"], e["out_dtype"]) == (
        "ok", "exact", 0, "int32") and e["repeats"] == 5, e
    e = run(lambda b: exact(b).to(torch.int8))
    assert e["status"] == "unavailable" and "not the exact int32 accumulator" in e["error"], e
    e = run(off)
    assert e["status"] == "wrong" and e["mismatches"] == 1, e
    assert "1 outputs differ, 0 unwritten" in e["error"], e["error"]
    e = run(lambda b: torch.no_such_int8_mm(a, b))
    assert e["status"] == "unavailable" and "AttributeError" in e["error"], e
    lay = w.dense_layouts(True, [bt.t(), bt.t()])
    views, copies = lay[0][1](), lay[1][1]()
    assert len(views) == len(copies) == 2 and not views[0].is_contiguous(), lay
    assert copies[0].is_contiguous() and torch.equal(copies[0], views[0]), lay
    assert [x[0] for x in w.dense_layouts(False, [bt])] == ["K x N row-major"]
    names = [x[0] for x in w.sparse_baselines(True)]
    assert names == ["cutlass", "cusparselt"], names
    return ("exact int32 ok and timed; int8 output, exception: unavailable; off by one: "
            "wrong; B layouts (K-contiguous view, then a contiguous copy)")


def t_cutlass2_selection():
    """gemm_bench.GemmWorker.run_cutlass2 with a CPU stand-in for the
    library: every copy prepared from its pruned A, B given N x K
    contiguous, each configuration judged (a wrong one and one that raises
    are recorded, never chosen), the correct one timed again and reported
    with its name; i8 uses its own N x K B; no library: unavailable."""
    if not have_torch():
        return ("SKIP", "no torch for %s" % sys.executable)
    import argparse
    import torch
    import cutlass2
    import gemm_bench

    class FakePrepared:
        def __init__(self, a):
            self.a = a

        def check(self, b, out):
            assert b.is_contiguous() and out.shape == (self.a.shape[0], b.shape[0])

        def run(self, config, b, out, stream):
            if config == 2:
                raise cutlass2.Unavailable("cutlass2_run (c2): planted")
            assert b.is_contiguous(), "B not N x K contiguous"
            r = self.a.double() @ b.double().t()
            out.copy_((r * 2 if config == 1 else r).to(out.dtype))
            return out

        def free(self):
            FREED.append(self)

    class FakeLib:
        simulated = True
        path = "fake"

        def info(self):
            return "fake CUTLASS"

        def configs(self, dtype):
            return ["c0", "c1", "c2"]

        def prepare(self, dtype, a, n):
            PREPARED.append(a)
            return FakePrepared(a)

    PREPARED, FREED = [], []
    w = gemm_bench.GemmWorker.__new__(gemm_bench.GemmWorker)
    w.torch, w.sim, w.cycles_per_ms, w.dev = torch, True, None, torch.device("cpu")
    w.args = argparse.Namespace(max_repeats=5)
    w.manifest, w.base = {}, "/nonexistent"
    w.stream = type("S", (), {"cuda_stream": 0})()
    g = torch.Generator().manual_seed(4)
    real_load = cutlass2.load
    try:
        cutlass2.load = lambda man, base: FakeLib()
        for dt, tr in (("f16", False), ("i8", True)):
            PREPARED[:], FREED[:] = [], []
            integer = dt == "i8"
            mk = lambda *sh: (torch.randint(-5, 6, sh, generator=g).to(torch.int8) if integer  # noqa: E731
                              else torch.randn(*sh, generator=g).to(torch.float16))
            P = [mk(32, 64) for _ in range(2)]
            B = [mk(16, 64) if tr else mk(64, 16) for _ in range(2)]
            BK = [b.t() if tr else b for b in B]
            odt = torch.int32 if integer else torch.float16
            OUT = [torch.empty(32, 16, dtype=odt) for _ in range(2)]
            ref = P[0].double() @ BK[0].double()
            p = {"dtype": dt, "M": 32, "N": 16, "K": 64}
            e = w.run_cutlass2(p, P, B, BK, OUT, 2, ref, 0.01, integer, tr)
            assert e["status"] == "ok" and e["config"] == "c0", e
            assert [c["status"] for c in e["configs"]] == ["ok", "wrong", "unavailable"], e
            assert "planted" in e["configs"][2]["error"], e["configs"]
            assert e["repeats"] == 5 and "median_ms" in e, e
            assert [x is y for x, y in zip(PREPARED, P)] == [True, True], "not each copy's A"
            assert len(FREED) == 2, "handles not freed"
            assert ("copy of B's transpose" in e["b_layout"]) != tr, e["b_layout"]
            if integer:
                assert e["tolerance"] == "exact" and e["mismatches"] == 0, e
        cutlass2.load = real_load
        e = w.run_cutlass2(p, P, B, BK, OUT, 2, ref, 0.01, True, True)
        assert e["status"] == "unavailable" and "no cutlass2 entry" in e["error"], e
    finally:
        cutlass2.load = real_load
    return ("the correct configuration chosen, wrong and failing ones recorded; each copy's "
            "pruned A prepared, B N x K contiguous (f16: a copy; i8: its own), handles freed; "
            "no library: unavailable")


CHECKS = {
    "parent": t_parent,
    "torch-format": t_torch_ops,
    "worker-sim": t_worker_sim,
    "int8-baselines": t_int8_baselines,
    "cutlass2-selection": t_cutlass2_selection,
}

if __name__ == "__main__":
    sys.exit(run_checks(CHECKS, sys.argv[1:]))
