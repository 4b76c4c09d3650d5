"""The GEMM benchmark's checks without torch: format24 against the
independent reference test/lib/stc_ref.py; kernel-info and PTX validation
(kernel_info.py) with every error message, for the 2:4 kernels and STC's
dense one; the report from synthetic records (f16/bf16 and i8, the
stc_dense method and its target); the program text (2:4 and dense) through
stc-opt and stc-run (CPU, and the emulator); `build --quick` (stc-compile +
ptxas) and `build --quick --mock` (nvcc)."""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from benchcheck import *  # noqa: E402,F401,F403 (the shared helpers and modules)


def t_format_vs_ref():
    ops = format24.numpy_ops()
    n = 0
    for a in matrices():
        p = format24.prune24(a, ops)
        ref_p = stc_ref.prune_nm(a, 2, 4, axis=1)
        assert p.dtype == a.dtype and np.array_equal(p, ref_p), "prune24 != stc_ref.prune_nm"
        v, m = format24.compress24(p, ops)
        ref_v, ref_m = stc_ref.compress(p, 2, 4, axis=1)
        assert v.dtype == a.dtype and m.dtype == np.uint16, (v.dtype, m.dtype)
        assert np.array_equal(v, ref_v), "values != stc_ref.compress"
        assert np.array_equal(m, ref_m), "metadata != stc_ref.compress"
        back = format24.decompress24(v, m, ops)
        assert np.array_equal(back, p), "decompress24(compress24(p)) != p"
        assert np.array_equal(back, stc_ref.decompress(ref_v, ref_m, a.shape[1], axis=1))
        # int16 metadata (what torch stores) decodes the same.
        assert np.array_equal(format24.decompress24(v, m.view(np.int16), ops), p)
        nib = (m.astype(np.uint32)[..., None] >> (4 * np.arange(4, dtype=np.uint32))) & 0xF
        assert set(np.unique(nib)) <= set(format24.LEGAL_NIBBLES), "illegal nibble"
        n += 1
    return "%d matrices: prune, values, metadata, decompress identical" % n


def t_format_errors():
    ops = format24.numpy_ops()
    try:
        format24.compress24(np.ones((2, 16), np.float32), ops)
        raise AssertionError("a dense operand was compressed")
    except format24.FormatError as e:
        assert "row 0, group 0" in str(e), e
    try:
        format24.prune24(np.ones((2, 20), np.float32), ops)
        raise AssertionError("K=20 accepted")
    except format24.FormatError as e:
        assert "multiple of 16" in str(e), e
    v = np.ones((1, 8), np.float32)
    m = np.array([[0x4444]], np.uint16)
    m[0, 0] = 0x4414                      # nibble 0x1: indices (1, 0), illegal
    try:
        format24.decompress24(v, m, ops)
        raise AssertionError("illegal nibble accepted")
    except format24.FormatError as e:
        assert "illegal nibble at row 0, group 1" in str(e), e
    return "dense operand, K not a multiple of 16, illegal nibble rejected"


def t_kernel_info():
    e = kernel_info.ptx_entries(SAMPLE_PTX)
    assert [s for _, s, _ in e["spmm_kernel"]] == [8, 8, 8, 8, 4, 4, 4], e
    assert [s for _, s, _ in e["other"]] == [16, 8], e
    assert kernel_info.ptx_header(SAMPLE_PTX) == ("8.5", "sm_90"), kernel_info.ptx_header(SAMPLE_PTX)
    ki = kernel_info.parse_kernel_info(json.dumps(GOOD_INFO))[0]
    kernel_info.check_ptx_against_info(SAMPLE_PTX, ki)
    assert kernel_info.check_problem(ki, 256, 128, 512) == []
    assert kernel_info.check_problem(ki, 256, 64, 512) != []
    args = kernel_info.kernel_arg_values(ki, {"values": 1, "meta": 2, "dense": 3, "out": 4},
                                   {"M": 256, "N": 128, "K": 512})
    assert [v for _, _, v in args] == [1, 2, 3, 4, 256, 128, 512], args

    def bad(**kw):
        k = dict(GOOD_INFO[0])
        k.update(kw)
        return json.dumps([k])
    expect_error(lambda: kernel_info.parse_kernel_info("{}"), "expected a JSON array")
    expect_error(lambda: kernel_info.parse_kernel_info("[1"), "not valid JSON")
    expect_error(lambda: kernel_info.parse_kernel_info(bad(grid=None)), "no static grid")
    expect_error(lambda: kernel_info.parse_kernel_info(bad(block=[64, 32, 1])), "> 1024")
    expect_error(lambda: kernel_info.parse_kernel_info(bad(param_types=["ptr"] * 7)),
                 "unknown pointer parameter 'R'")
    expect_error(lambda: kernel_info.parse_kernel_info(
        bad(params=["values", "meta", "dense", "out", "R", "P", "lda"])),
        "unknown integer parameter 'lda'")
    expect_error(lambda: kernel_info.parse_kernel_info(
        bad(param_types=["ptr", "ptr", "ptr", "ptr", "i32", "i32", "f32"])),
        "has type 'f32'")
    expect_error(lambda: kernel_info.parse_kernel_info(bad(param_types=None)),
                 "\"param_types\" must be a list of 7 types")
    expect_error(lambda: kernel_info.parse_kernel_info(
        bad(params=["values", "values", "dense", "out", "R", "P", "K"])),
        "exactly one pointer parameter for 'values', found 2")
    # The form stc-compile writes (docs/DESIGN.md §10).
    stc_like = {"kernel": "k", "block": [128, 1, 1], "tile": [64, 64], "grid": [2, 4, 1],
                "shared_bytes": 0, "params": ["values", "meta", "dense", "out", "R", "P",
                                              "K", "value_cols", "meta_cols"],
                "param_types": ["ptr"] * 4 + ["i32"] * 5, "num_pointers": 4,
                "R": 256, "P": 128, "K": 512, "sparse": "lhs", "dense_transposed": False,
                "input_type": "f16", "output_type": "f16", "mma": "m16n8k32",
                "ordered_metadata": True}
    ks = kernel_info.parse_kernel_info(json.dumps([stc_like]))[0]
    args = kernel_info.kernel_arg_values(ks, {"values": 1, "meta": 2, "dense": 3, "out": 4},
                                   {"M": 256, "N": 128, "K": 512, "VC": 256, "MC": 32})
    assert [v for _, _, v in args] == [1, 2, 3, 4, 256, 128, 512, 256, 32], args
    assert kernel_info.check_problem(ks, 256, 128, 512, "f16", "f16") == []
    assert len(kernel_info.check_problem(ks, 256, 128, 256, "bf16", "f16")) == 2
    assert kernel_info.check_problem(dict(ks, R=-1, P=-1, K=-1), 1, 2, 16) == []
    assert "sparse lhs" in kernel_info.check_problem(dict(ks, sparse="rhs"), 256, 128, 512)[0]
    # The i8 programs give B transposed (N x K): the kernel info must agree.
    kt = dict(ks, dense_transposed=True, input_type="i8", output_type="i32")
    assert kernel_info.check_problem(kt, 256, 128, 512, "i8", "i32", dense_transposed=True) == []
    assert "B is K x N row-major" in kernel_info.check_problem(kt, 256, 128, 512)[0]
    assert "B is N x K row-major" in kernel_info.check_problem(ks, 256, 128, 512,
                                                         dense_transposed=True)[0]
    expect_error(lambda: kernel_info.parse_kernel_info(json.dumps([dict(ks, grid=[-1, -1, 1])])),
                 "no static grid")
    k2 = dict(GOOD_INFO[0], kernel="nope")
    expect_error(lambda: kernel_info.check_ptx_against_info(SAMPLE_PTX, k2), "has no .entry 'nope'")
    k3 = dict(GOOD_INFO[0], params=GOOD_INFO[0]["params"][:6],
              param_types=GOOD_INFO[0]["param_types"][:6])
    expect_error(lambda: kernel_info.check_ptx_against_info(SAMPLE_PTX, k3),
                 "has 7 parameters")
    k4 = dict(GOOD_INFO[0], param_types=["ptr", "ptr", "ptr", "ptr", "i32", "i32", "i64"])
    expect_error(lambda: kernel_info.check_ptx_against_info(SAMPLE_PTX, k4), "does not match")
    return "parsing, validation and error messages"


def t_kernel_info_sm90a():
    """The sm_90a kernel info: cluster, tensor maps, Hopper metadata
    geometry; their validation and error messages."""
    ki = kernel_info.parse_kernel_info(json.dumps([WGMMA_INFO]))[0]
    assert kernel_info.cluster_of(ki) == [1, 2, 1] and kernel_info.cluster_of(GOOD_INFO[0]) == [1, 1, 1]
    kernel_info.check_ptx_against_info(fake_ptx_for(ki), ki)
    assert kernel_info.check_problem(ki, 4096, 4096, 4096, "f16", "f16") == []
    # Arguments: the map parameters take the maps' device addresses.
    bufs = {"values": 1, "meta": 2, "dense": 3, "out": 4, "values_map": 0x100,
            "dense_map": 0x180}
    sizes = {"M": 4096, "N": 4096, "K": 4096, "VC": 2048, "MC": 256}
    args = kernel_info.kernel_arg_values(ki, bufs, sizes)
    assert [v for _, _, v in args] == [1, 2, 3, 4, 4096, 4096, 4096, 2048, 256, 0x100, 0x180]
    expect_error(lambda: kernel_info.kernel_arg_values(ki, {"values": 1, "meta": 2, "dense": 3,
                                                      "out": 4}, sizes),
                 "tensor-map parameter 'values_map' has no encoded map")
    # Metadata geometry: docs/HOPPER-LAYOUT.md (b), rowTiles * V * 512 words,
    # V = ceil(ceil(K / 64) / 4); mma.sp's without the keys.
    lay = kernel_info.metadata_layout(ki)
    assert (lay["row_blocks"], lay["vectors"], lay["total"]) == (64, 16, 64 * 16 * 512), lay
    odd = kernel_info.metadata_layout(dict(ki, R=100, K=320))  # 2 row tiles, 5 blocks -> V 2
    assert (odd["row_blocks"], odd["vectors"], odd["total"]) == (2, 2, 2 * 2 * 512), odd
    old = kernel_info.metadata_layout(dict(GOOD_INFO[0], R=256, K=512, mma="m16n8k32"))
    assert (old["rows_per_block"], old["k_per_word"], old["threads"], old["total"]) == \
        (32, 32, 32, 8 * 4 * 128), old
    assert kernel_info.metadata_words(dict(GOOD_INFO[0], R=96, K=256, mma="m16n8k16")) == \
        3 * 4 * 128
    # Tensor-map requests: the operand as a row-major 2-D array, innermost
    # first; the driver's enums.
    ops = {"values": (0x7F0000001000, (4096, 2048), "f16"),
           "dense": (0x7F0000100000, (4096, 4096), "f16"), "out": (0x10, (4096, 4096), "f16")}
    reqs = dict(kernel_info.tensor_map_requests(ki, ops))
    assert list(reqs) == ["values_map", "dense_map"], reqs
    v, d = reqs["values_map"], reqs["dense_map"]
    assert (v["address"], v["dims"], v["strides"], v["box"], v["swizzle"]) == \
        (0x7F0000001000, [2048, 4096], [4096], [32, 128], 2), v
    assert (d["dims"], d["strides"], d["box"], d["swizzle"], d["data_type"]) == \
        ([4096, 4096], [8192], [64, 64], 3, 6), d
    assert all((r["rank"], r["element_strides"], r["interleave"], r["l2_promotion"],
                r["oob_fill"]) == (2, [1, 1], 0, 2, 0) for r in reqs.values())
    # A map over the kernel-ready metadata (--gpu-meta-tma): the converted
    # words as [256, 2, vectors, row tiles], UINT32, at the words' address.
    meta_map = {"param": "meta_map", "operand": "meta", "data_type": 2,
                "box": [256, 2, 1, 2], "swizzle": 0}
    mki = dict(ki, tensor_maps=ki["tensor_maps"] + [meta_map])
    mreq = dict(kernel_info.tensor_map_requests(mki, dict(ops, meta=(0x7F0000200000, None,
                                                                     None))))["meta_map"]
    assert (mreq["address"], mreq["dims"], mreq["strides"], mreq["box"], mreq["swizzle"],
            mreq["rank"], mreq["data_type"]) == \
        (0x7F0000200000, [256, 2, 16, 64], [1024, 2048, 16 * 2048], [256, 2, 1, 2], 0, 4, 2), mreq
    expect_error(lambda: kernel_info.tensor_map_requests(
        dict(ki, tensor_maps=[dict(meta_map, data_type=6)]), ops),
        "does not view the kernel-ready metadata")
    expect_error(lambda: kernel_info.tensor_map_requests(
        dict(ki, tensor_maps=[dict(meta_map, box=[96, 2, 1, 2])]), ops),
        "does not view the kernel-ready metadata")
    expect_error(lambda: kernel_info.tensor_map_requests(ki, dict(ops, values=(0x1008, (4096, 2048),
                                                                         "f16"))),
                 "not 16-byte aligned")
    expect_error(lambda: kernel_info.tensor_map_requests(ki, dict(ops, dense=(0, (4096, 12), "f16"))),
                 "row stride is 24 bytes")
    expect_error(lambda: kernel_info.tensor_map_requests(ki, dict(ops, values=(0, (4096, 2048),
                                                                         "bf16"))),
                 "data_type 6 does not describe bf16 elements (9)")
    expect_error(lambda: kernel_info.tensor_map_requests(ki, {"values": ops["values"]}),
                 "no such operand buffer")
    assert kernel_info.check_tensor_maps(ki, {"values": (4096, 2048), "dense": (4096, 4096),
                                        "out": (4096, 4096)},
                                   {"values": "f16", "dense": "f16", "out": "f16"}) == []
    assert "row stride" in kernel_info.check_tensor_maps(
        ki, {"values": (16, 2048), "dense": (4096, 4), "out": (16, 4)}, {})[0]
    # What the launcher rejects before the driver would.
    def bad_map(i, **kw):
        k = wgmma_info()
        k["tensor_maps"][i].update(kw)
        return json.dumps([k])
    parse = kernel_info.parse_kernel_info
    expect_error(lambda: parse(bad_map(0, swizzle=16)), "must be 0, 32, 64 or 128")
    expect_error(lambda: parse(bad_map(0, box=[32, 300])), "each 1 to 256")
    expect_error(lambda: parse(bad_map(0, box=[36, 128])), "72 bytes, not a multiple of 16")
    expect_error(lambda: parse(bad_map(0, box=[64, 128])), "more than the 64-byte swizzle")
    expect_error(lambda: parse(bad_map(1, operand="bias")), "makes tensor maps of values")
    expect_error(lambda: parse(bad_map(1, data_type=13)), "not a CUtensorMapDataType")
    expect_error(lambda: parse(bad_map(1, param="values_map")), "has two tensor maps")
    expect_error(lambda: parse(bad_map(1, param="b_map")),
                 "pointer parameter 'dense_map' looks like a tensor map")
    k = wgmma_info()
    k["tensor_maps"].append({"param": "out_map", "operand": "out", "data_type": 6,
                             "box": [64, 64], "swizzle": 128})
    expect_error(lambda: parse(json.dumps([k])), "names parameter(s) ['out_map']")
    expect_error(lambda: parse(json.dumps([wgmma_info(
        param_types=["ptr"] * 4 + ["i32"] * 6 + ["ptr"])])),
        "tensor-map parameter 'values_map' has type 'i32'")
    expect_error(lambda: parse(json.dumps([wgmma_info(grid=[16, 31, 1])])),
                 "grid [16, 31, 1] is not a whole number of clusters [1, 2, 1]")
    expect_error(lambda: parse(json.dumps([wgmma_info(cluster=[2, 0, 1])])),
                 "\"cluster\" must be a list of three positive integers")
    expect_error(lambda: parse(json.dumps([wgmma_info(cluster=[4, 8, 1], grid=[16, 32, 1])])),
                 "cluster [4, 8, 1] has 32 blocks")
    k = wgmma_info()
    del k["meta_threads"]
    expect_error(lambda: parse(json.dumps([k])), "meta_threads missing")
    expect_error(lambda: parse(json.dumps([wgmma_info(meta_k_per_word=0)])),
                 "\"meta_k_per_word\" must be a positive integer")
    return ("cluster, tensor maps (requests, alignment, strides, types), Hopper metadata "
            "geometry, %d error messages" % 19)


def t_kernel_info_dense():
    """STC's dense kernel (meta_layout "none"): its kernel info accepted,
    its arguments (values = A whole, no meta, value_cols = K, meta_cols =
    0), the program check telling a dense kernel from a 2:4 one, and what
    a kernel info without metadata must not have."""
    ki = kernel_info.parse_kernel_info(json.dumps([DENSE_INFO]))[0]
    kernel_info.check_ptx_against_info(fake_ptx_for(ki), ki)
    assert not kernel_info.has_metadata(ki) and kernel_info.has_metadata(GOOD_INFO[0])
    assert kernel_info.check_problem(ki, 4096, 4096, 4096, "f16", "f16", sparse=False) == []
    bad = kernel_info.check_problem(ki, 4096, 4096, 4096, "f16", "f16")
    assert bad == ["kernel info meta_layout='none', but the program's A is 2:4 sparse, given "
                   "compressed with its metadata"], bad
    bad = kernel_info.check_problem(dict(GOOD_INFO[0], meta_layout="canonical"), 256, 128, 512,
                                    sparse=False)
    assert bad == ["kernel info meta_layout='canonical', but the program's A is dense (no "
                   "metadata): not STC's dense kernel (meta_layout \"none\")"], bad
    # A 2:4 kernel info without meta_layout (older ones) has metadata.
    assert "not STC's dense kernel" in kernel_info.check_problem(GOOD_INFO[0], 256, 128, 512,
                                                                 sparse=False)[0]
    args = kernel_info.kernel_arg_values(ki, {"values": 1, "dense": 3, "out": 4},
                                         {"M": 4096, "N": 4096, "K": 4096, "VC": 4096, "MC": 0})
    assert args == [("values", "ptr", 1), ("dense", "ptr", 3), ("out", "ptr", 4),
                    ("R", "i32", 4096), ("P", "i32", 4096), ("K", "i32", 4096),
                    ("value_cols", "i32", 4096), ("meta_cols", "i32", 0)], args
    assert kernel_info.check_tensor_maps(ki, {"values": (4096, 4096), "dense": (4096, 4096),
                                              "out": (4096, 4096)}, {}) == []
    assert kernel_info.kernel_to_launch(ki, 4096, 4096) == "stc_gemm_0"
    parse = kernel_info.parse_kernel_info
    with_meta = dense_info(params=["values", "meta", "dense", "out", "R", "P", "K",
                                   "value_cols", "meta_cols"],
                           param_types=["ptr"] * 4 + ["i32"] * 5, num_pointers=4)
    expect_error(lambda: parse(json.dumps([with_meta])),
                 "a kernel without metadata (meta_layout \"none\") has no pointer parameter "
                 "for 'meta', found 1")
    expect_error(lambda: parse(json.dumps([dense_info(meta_threads=32)])),
                 "has no metadata geometry, but meta_threads=32")
    expect_error(lambda: parse(json.dumps([dense_info(meta_layout="canonical",
                                                      meta_kernel="k_meta")])),
                 "\"meta_rows_per_block\" must be a positive integer, got 0")
    expect_error(lambda: parse(json.dumps([dense_info(
        meta_layout="canonical", meta_rows_per_block=32, meta_k_per_word=32, meta_threads=32)])),
        "expected exactly one pointer parameter for 'meta', found 0")
    expect_error(lambda: kernel_info.metadata_layout(ki), "has no metadata layout")
    return ("kernel info, arguments (values = A, value_cols = K, meta_cols = 0), dense vs 2:4 "
            "program check, 5 error messages")


def t_report():
    progs = fake_programs()
    progs[1]["sm90a"] = {"target": "sm_90a", "status": "failed",
                         "error": "ptxas -arch=sm_90a rejected the PTX:\nline 3"}
    progs[5]["sm90a"] = {"target": "sm_90a", "status": "not_built", "error": "--mock: none"}
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=1e-3, **kw)  # noqa: E731
    unav = {"status": "unavailable", "error": "RuntimeError: only sm_8x\nmore"}
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU", "l2_bytes": 50 << 20,
                                "memory_bytes": 80 << 30}, "software": {"torch": "x"}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": {
            "stc": ok(2.0, kernel=dict(GOOD_INFO[0], registers=96, blocks_per_sm=1)),
            "stc_sm90a": ok(0.5, kernel=dict(WGMMA_INFO, registers=168, blocks_per_sm=1)),
            "cublas": ok(1.0), "cutlass": unav, "cusparselt": ok(0.8)}, "copies": 3},
        {"type": "result", "index": 1, "methods": {
            "stc": dict(timing(3.0), status="wrong", rel_error=0.5, error="differs"),
            "stc_sm90a": {"status": "build_failed", "error": "ptxas -arch=sm_90a rejected"},
            "cublas": ok(1.0), "cutlass": unav, "cusparselt": ok(0.8)}},
        {"type": "result", "index": 2, "build_failed": "stc-compile exited with status 1"},
        {"type": "result", "index": 3, "skipped": "time budget used up"},
        {"type": "result", "index": 4, "worker_died": "killed: no output for 150 s"},
    ]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    doc = report.assemble({"mock": False, "quick": True, "commit": "abc1234def",
                           "commit_short": "abc1234", "target": "sm_90", "flags": []},
                          recs, progs, list(range(len(progs))), meta)
    json.dumps(doc)
    r0 = doc["results"][0]
    assert abs(r0["ratios"]["stc_speedup_vs_cublas"] - 0.5) < 1e-12, r0["ratios"]
    assert "stc_speedup_vs_cutlass" not in r0["ratios"]
    assert abs(r0["methods"]["stc"]["tflops_median"]
               - r0["flop"] / 2e-3 / 1e12) < 1e-9
    assert "stc_speedup_vs_cublas" not in doc["results"][1]["ratios"], "wrong result used"
    assert doc["results"][2]["methods"]["stc"]["status"] == "build_failed"
    assert doc["results"][3]["methods"]["cublas"]["status"] == "skipped"
    assert doc["results"][5]["methods"]["stc"]["status"] == "not_run"
    assert doc["summary"]["ok"] is False
    r0 = doc["results"][0]["ratios"]
    assert abs(r0["stc_sm90a_speedup_vs_cublas"] - 2.0) < 1e-12, r0
    assert abs(r0["stc_sm90a_speedup_vs_cusparselt"] - 1.6) < 1e-12, r0
    assert abs(r0["stc_sm90a_speedup_vs_stc"] - 4.0) < 1e-12, r0
    sm = [e["methods"]["stc_sm90a"]["status"] for e in doc["results"]]
    assert sm == ["ok", "build_failed", "not_run", "skipped", "not_run", "not_built"], sm
    assert "rejected the PTX" in doc["results"][1]["methods"]["stc_sm90a"]["error"]
    assert doc["results"][0]["large"] and not doc["results"][2]["large"]
    md = report.markdown(doc)
    for s in ("| square-4096 | 4096 | 4096 | 4096 | 2.0000 (1.9000) | 68.7 | 0.5000 (0.4750) "
              "| 274.9 |",
              "0.50×", "CUTLASS 2:4: unavailable: RuntimeError: only sm_8x, on 2 program(s)",
              "STC: wrong: differs (rel. error 5.00e-01)", "build_failed", "## bf16",
              "| square-4096-f16 | STC | `spmm_kernel` |",
              "| square-4096-f16 | STC sm_90a | `spmm_sm90a` | 16×32×1 | 288×1×1 | wgmma "
              "| 1×2×1 | 205904 | 168 |",
              "## STC sm_90a speedups",
              "| square-4096 | f16 | yes | `wgmma` | 274.9 | 2.00× | 1.60× | – | – | 4.00× |",
              "STC sm_90a: not_built: --mock: none, on 1 program(s)",
              "- ≥ 1.35× cuBLAS dense at square-8192-f16: not in this run.",
              "- ≥ 1.00× cuSPARSELt 2:4 on every large shape (every dimension (M, N, K) >= "
              "2048): measured on 1 of 2 large programs; 1 at or above 1.00×; lowest 1.60× "
              "(square-4096-f16); kernel variant `wgmma`."):
        assert s in md, "markdown lacks %r:\n%s" % (s, md)
    report.compact(doc)
    # docs/DESIGN.md §8's targets, on the programs they name.
    big = fake_programs([("square-8192", "square", 8192, 8192, 8192),
                         ("llm-up-11008x4096-n2048", "llm", 11008, 2048, 4096),
                         ("bert-base-attn-768x768-b8", "bert", 768, 1024, 768)])
    recs2 = recs[:2] + [
        {"type": "result", "index": i, "methods": {
            "stc": ok(2.0), "stc_sm90a": ok(sm_ms, kernel=dict(WGMMA_INFO)), "cublas": ok(1.5),
            "cutlass": unav, "cusparselt": ok(1.0)}}
        for i, sm_ms in enumerate((1.0, 1.25, 1.0, 0.8, 2.0, 0.5))]
    recs2[2]["methods"]["cusparselt"] = unav
    d2 = report.assemble({"target": "sm_90", "target_sm90a": "sm_90a"}, recs2, big,
                         list(range(len(big))), meta)
    t = d2["design_targets"]
    dn, lg = t["sm90a_vs_cublas_dense"], t["sm90a_vs_cusparselt_large"]
    assert dn["program"] == "square-8192-f16" and abs(dn["ratio"] - 1.5) < 1e-12, dn
    assert dn["at_or_above_target"] is True and dn["sm90a_variant"] == "wgmma", dn
    assert (lg["large_programs_in_run"], lg["measured"], lg["at_or_above_target"]) == (4, 3, 2), lg
    assert lg["min_ratio_program"] == "square-8192-bf16", lg
    assert abs(lg["min_ratio"] - 1.0 / 1.25) < 1e-12, lg
    assert [x["program"] for x in lg["programs"]] == [e["name"] for e in d2["results"][:4]]
    assert d2["summary"]["ok"] is True, d2["summary"]
    md2 = report.markdown(d2)
    for s in ("- ≥ 1.35× cuBLAS dense at square-8192-f16: measured 1.50× (kernel variant "
              "`wgmma`).", "measured on 3 of 4 large programs; 2 at or above 1.00×; lowest "
              "0.80× (square-8192-bf16)"):
        assert s in md2, "markdown lacks %r:\n%s" % (s, md2)
    # A manifest without sm_90a kernels (the mock, an older build): not a failure.
    old = fake_programs()
    for p in old:
        del p["sm90a"]
    recs3 = recs[:2] + [{"type": "result", "index": i, "methods": {
        "stc": ok(1.0), "cublas": ok(1.0), "cutlass": unav, "cusparselt": ok(1.0)}}
        for i in range(len(old))]
    d3 = report.assemble({"mock": True}, recs3, old, list(range(len(old))), meta)
    assert d3["summary"]["ok"] is True, d3["summary"]
    assert {e["methods"]["stc_sm90a"]["status"] for e in d3["results"]} == {"not_built"}
    assert "## STC sm_90a speedups" not in report.markdown(d3)
    return ("ratios (both STC kernels), statuses, tables, docs/DESIGN.md §8 targets, a manifest "
            "without sm_90a")


def t_report_dense():
    """STC's dense kernel (method stc_dense) in the report: built for f16
    and bf16 only (i8: not_built with the reason, which is not a failure),
    stc_dense_speedup_vs_cublas = cuBLAS's median / its median and no ratio
    against the 2:4 baselines, a wrong or failed result left out of the
    ratios and failing the run, its columns (none in the i8 table), its
    kernel rows, and the issue's target (>= 0.8x cuBLAS at square-4096-f16)
    measured, missed, not measured and not in the run."""
    table = [("square-4096", "square", 4096, 4096, 4096),
             ("bert-base-attn-768x768-b8", "bert", 768, 1024, 768)]
    progs = fake_programs(table, dtypes=("f16", "bf16", "i8"), dense=True)
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=1e-3, **kw)  # noqa: E731
    unav = {"status": "unavailable", "error": "RuntimeError: only sm_8x"}
    base = lambda **kw: dict({"stc": ok(2.0), "stc_sm90a": ok(0.5), "cublas": ok(1.0),  # noqa: E731
                              "cutlass": unav, "cusparselt": ok(0.8)}, **kw)
    dk = dict(DENSE_INFO, registers=238, blocks_per_sm=1)
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU"}, "software": {"torch": "x"}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": base(stc_dense=ok(1.25, kernel=dk))},
        {"type": "result", "index": 1, "methods": base(stc_dense=dict(
            timing(3.0), status="wrong", rel_error=0.5, error="differs"))},
        {"type": "result", "index": 2, "unit": "TOPS", "methods": base()},
        {"type": "result", "index": 3, "methods": base(stc_dense=ok(0.1),
                                                        cublas=ok(0.05))},
        {"type": "result", "index": 4, "methods": base(stc_dense={
            "status": "failed", "error": "CudaError: cuLaunchKernel failed"})},
        {"type": "result", "index": 5, "unit": "TOPS", "methods": base()},
    ]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    man = {"target": "sm_90", "target_sm90a": "sm_90a", "target_dense": "sm_90",
           "flags_dense": []}
    doc = report.assemble(man, recs, progs, list(range(len(progs))), meta)
    json.dumps(doc)
    by = {e["name"]: e for e in doc["results"]}
    r = by["square-4096-f16"]["ratios"]
    assert abs(r["stc_dense_speedup_vs_cublas"] - 0.8) < 1e-12, r
    assert not [k for k in r if k.startswith("stc_dense_") and k != "stc_dense_speedup_vs_cublas"]
    assert abs(by["bert-base-attn-768x768-b8-f16"]["ratios"]["stc_dense_speedup_vs_cublas"]
               - 0.5) < 1e-12
    assert "stc_dense_speedup_vs_cublas" not in by["square-4096-bf16"]["ratios"]
    i8 = by["square-4096-i8"]["methods"]["stc_dense"]
    assert i8["status"] == "not_built" and "f16 and bf16 only" in i8["error"], i8
    assert doc["summary"]["status_counts"]["stc_dense"] == {
        "ok": 2, "wrong": 1, "failed": 1, "not_built": 2}, doc["summary"]
    assert doc["summary"]["ok"] is False
    assert "mma.sync m16n8k16" in doc["settings"]["stc_methods"]["stc_dense"]
    t = doc["design_targets"]["stc_dense_vs_cublas_dense"]
    assert (t["program"], t["baseline"], t["target_ratio"], t["stc_dense_status"],
            t["stc_dense_variant"], t["at_or_above_target"]) == (
        "square-4096-f16", "cublas", 0.8, "ok", "staged", True), t
    assert abs(t["ratio"] - 0.8) < 1e-12, t
    md = report.markdown(doc)
    flop = 2 * 4096 ** 3
    for x in ("## Target of STC's dense kernel",
              "- ≥ 0.80× cuBLAS dense at square-4096-f16: measured 0.80× (kernel variant "
              "`staged`).",
              "target sm_90 (and sm_90a) (dense kernel sm_90), built",
              "- STC dense: stc-compile's dense tensor-core kernel (`mma.sync` m16n8k16",
              "| STC sm_90a TFLOP/s | STC dense TFLOP/s | cuBLAS TFLOP/s |",
              "| STC vs CUTLASS 2.x | STC dense vs cuBLAS |\n",
              "| 274.9 | %.1f | %.1f |" % (flop / 1.25e-3 / 1e12, flop / 1e-3 / 1e12),
              "| – | 0.80× |\n", "| 45.8 (wrong) | 137.4 |",
              "| square-4096-f16 | STC dense | `stc_gemm_0` | 32×32×1 | 128×1×1 | staged "
              "| 1×1×1 | 0 | 238 |",
              "- STC dense: wrong: differs, on 1 program(s): square-4096-bf16 (rel. error "
              "5.00e-01)",
              "- STC dense: not_built: i8: STC's dense tensor-core kernel (mma.sync m16n8k16) "
              "multiplies f16 and bf16 only, on 2 program(s)"):
        assert x in md, "markdown lacks %r:\n%s" % (x, md)
    # The i8 table has no STC dense column: no i8 program has the kernel.
    i8_part = md.split("## i8")[1].split("## STC sm_90a speedups")[0]
    assert "STC dense" not in i8_part and "| STC sm_90a TOPS | cuBLAS TOPS |" in i8_part, i8_part
    cp = report.compact(doc)
    assert "dense vs cuBLAS / sm_90a vs cuBLAS" in cp and "0.80× / 2.00×" in cp, cp
    # The target missed, not measured (a wrong result), not in the run.
    recs[2]["methods"]["stc_dense"] = ok(2.0)
    t = report.assemble(man, recs, progs, list(range(len(progs))),
                        meta)["design_targets"]["stc_dense_vs_cublas_dense"]
    assert t["ratio"] == 0.5 and t["at_or_above_target"] is False, t
    recs[2]["methods"]["stc_dense"] = dict(timing(1.0), status="wrong", rel_error=0.3)
    d2 = report.assemble(man, recs, progs, list(range(len(progs))), meta)
    assert "- ≥ 0.80× cuBLAS dense at square-4096-f16: not measured (STC dense wrong, cuBLAS "\
        "dense ok)." in report.markdown(d2)
    d3 = report.assemble(man, recs, progs, [3, 4, 5], meta)
    assert "at square-4096-f16: not in this run." in report.markdown(d3)
    # No program with the kernel (an i8-only run, a mock or older build): no
    # dense column and no description; the target still says why.
    d4 = report.assemble(man, recs, progs, [2, 5], meta)
    md4 = report.markdown(d4)
    assert "STC dense TOPS" not in md4 and "- STC dense: stc-compile" not in md4, md4
    return ("stc_dense_speedup_vs_cublas, statuses (i8 not_built), columns beside cuBLAS, "
            "kernel rows, the 0.8x target at square-4096-f16 met/missed/not measured/not run")


def t_report_int8():
    """The report with i8 programs beside f16 ones: TOPS, tables and a
    target block of their own, ratios only between int8 methods."""
    table = [("square-8192", "square", 8192, 8192, 8192),
             ("bert-base-attn-768x768-b8", "bert", 768, 1024, 768)]
    progs = fake_programs(table, dtypes=("f16", "i8"))
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=0.0, **kw)  # noqa: E731
    unav = {"status": "unavailable", "error": "RuntimeError: only sm_8x"}
    i8k = dict(WGMMA_INFO, **I8_WGMMA)
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU"}, "software": {"torch": "x"}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": {
            "stc": ok(4.0), "stc_sm90a": ok(1.0, kernel=dict(WGMMA_INFO)), "cublas": ok(1.5),
            "cutlass": unav, "cusparselt": ok(1.2)}},
        {"type": "result", "index": 1, "unit": "TOPS", "methods": {
            "stc": ok(2.0, tolerance="exact", mismatches=0),
            "stc_sm90a": ok(0.5, tolerance="exact", mismatches=0, kernel=i8k),
            "cublas": ok(1.0, api="torch._int_mm"), "cutlass": unav,
            "cusparselt": ok(0.8, api="torch._cslt_sparse_mm")}},
        {"type": "result", "index": 2, "methods": {
            "stc": ok(0.1), "stc_sm90a": ok(0.05), "cublas": ok(0.1), "cutlass": unav,
            "cusparselt": ok(0.1)}},
        {"type": "result", "index": 3, "methods": {
            "stc": ok(0.1), "stc_sm90a": dict(timing(0.04), status="wrong", rel_error=0.3,
                                              tolerance="exact", mismatches=17,
                                              error="result differs: 17 outputs differ"),
            "cublas": ok(0.1), "cutlass": unav,
            "cusparselt": {"status": "unavailable",
                           "error": "RuntimeError: CUDA error: operation not supported"}}},
    ]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    doc = report.assemble({"target": "sm_90", "target_sm90a": "sm_90a"}, recs, progs,
                          list(range(len(progs))), meta)
    json.dumps(doc)
    r = {e["name"]: e for e in doc["results"]}
    assert [e["unit"] for e in doc["results"]] == ["TFLOP/s", "TOPS"] * 2
    assert r["square-8192-i8"]["dense_transposed"] and r["square-8192-i8"]["out_dtype"] == "i32"
    ri = r["square-8192-i8"]["ratios"]
    assert abs(ri["stc_sm90a_speedup_vs_cublas"] - 2.0) < 1e-12, ri
    assert abs(ri["stc_sm90a_speedup_vs_cusparselt"] - 1.6) < 1e-12, ri
    assert abs(r["square-8192-f16"]["ratios"]["stc_sm90a_speedup_vs_cublas"] - 1.5) < 1e-12
    assert "stc_sm90a_speedup_vs_cublas" not in r["bert-base-attn-768x768-b8-i8"]["ratios"]
    t = doc["design_targets"]
    # The f16 targets see the f16 programs only, the int8 block the i8 ones.
    assert t["sm90a_vs_cublas_dense"]["program"] == "square-8192-f16"
    assert abs(t["sm90a_vs_cublas_dense"]["ratio"] - 1.5) < 1e-12, t
    assert [x["program"] for x in t["sm90a_vs_cusparselt_large"]["programs"]] == [
        "square-8192-f16"], t
    t8 = t["int8"]
    assert t8["sm90a_vs_cublas_dense"]["program"] == "square-8192-i8"
    assert abs(t8["sm90a_vs_cublas_dense"]["ratio"] - 2.0) < 1e-12, t8
    assert [x["program"] for x in t8["sm90a_vs_cusparselt_large"]["programs"]] == [
        "square-8192-i8"], t8
    assert doc["summary"]["ok"] is False  # the wrong sm_90a result
    md = report.markdown(doc)
    tops = 2 * 8192 ** 3 / 0.5e-3 / 1e12
    for s in ("## i8 (rates in TOPS", "| shape | M | N | K | STC ms (min) | STC TOPS | "
              "STC sm_90a ms (min) | STC sm_90a TOPS | cuBLAS TOPS |",
              "| shape | M | N | K | STC ms (min) | STC TFLOP/s |",
              "## STC sm_90a speedups\n", "## STC sm_90a speedups, int8 (TOPS)",
              "| STC sm_90a TOPS | vs cuBLAS |",
              "| square-8192 | i8 | yes | `wgmma` | %.1f | 2.00× | 1.60× | – | – | 4.00× |" % tops,
              "int8 (`i8`) programs: A and B int8 in [-127, 127]",
              "- ≥ 1.35× cuBLAS dense at square-8192-f16: measured 1.50×",
              "- ≥ 1.35× cuBLAS int8 dense at square-8192-i8: measured 2.00× (kernel variant "
              "`wgmma`).", "- ≥ 1.00× cuSPARSELt int8 2:4 on every large shape",
              "STC sm_90a: wrong: result differs: 17 outputs differ, on 1 program(s): "
              "bert-base-attn-768x768-b8-i8",
              "cuSPARSELt 2:4: unavailable: RuntimeError: CUDA error: operation not supported"):
        assert s in md, "markdown lacks %r:\n%s" % (s, md)
    # The int8 speedup table holds the i8 programs only, the other none.
    f16_part, i8_part = md.split("## STC sm_90a speedups, int8 (TOPS)")
    assert "| i8 |" not in f16_part.split("## STC sm_90a speedups\n")[1]
    assert "| f16 |" not in i8_part.split("## STC kernels")[0]
    assert "program (TFLOP/s; i8: TOPS)" in report.compact(doc)
    return ("TOPS columns and units, i8 tables and targets of their own, ratios between "
            "int8 methods only, unavailable and wrong int8 rows")


def t_report_cutlass2():
    """The cutlass2 baseline (CUTLASS 2.x SparseGemm, Sm80 kernels for
    sm_90) in the report: its column in the dtype tables and the sm_90a
    speedups, stc_speedup_vs_cutlass2 (and sm_90a's) = its median / STC's,
    the winning configuration table, a wrong cutlass2 result left out of the
    ratios (and failing the summary, as any wrong baseline), and a document
    without the method (written before it existed) rendering without it."""
    progs = fake_programs(dtypes=("f16", "i8"))
    ok = lambda ms, **kw: dict(timing(ms), status="ok", rel_error=1e-3, **kw)  # noqa: E731
    unav = {"status": "unavailable", "error": "RuntimeError: only sm_8x"}
    cfgs = [{"config": "128x256x64_64x64x64_s3", "status": "ok", "median_ms": 0.9},
            {"config": "128x128x64_64x64x64_s4", "status": "ok", "median_ms": 0.8},
            {"config": "128x64x64_64x32x64_s6", "status": "wrong", "median_ms": 0.7}]
    c2 = ok(0.8, config="128x128x64_64x64x64_s4", configs=cfgs)
    recs = [
        {"type": "env", "gpu": {"name": "Fake GPU"}, "software": {"torch": "x"}},
        {"type": "format_check", "ok": True},
        {"type": "result", "index": 0, "methods": {
            "stc": ok(2.0), "stc_sm90a": ok(0.5, kernel=dict(WGMMA_INFO)), "cublas": ok(1.0),
            "cutlass": unav, "cusparselt": ok(0.8), "cutlass2": c2}},
        {"type": "result", "index": 1, "unit": "TOPS", "methods": {
            "stc": ok(1.0), "stc_sm90a": ok(0.5), "cublas": ok(1.0), "cutlass": unav,
            "cusparselt": ok(0.8), "cutlass2": ok(1.5, config="x", tolerance="exact",
                                                  mismatches=0)}},
        {"type": "result", "index": 2, "methods": {
            "stc": ok(1.0), "stc_sm90a": ok(1.0), "cublas": ok(1.0), "cutlass": unav,
            "cusparselt": ok(1.0), "cutlass2": dict(timing(0.5), status="wrong", rel_error=0.4,
                                                    error="result differs")}},
        {"type": "result", "index": 3, "methods": {
            "stc": ok(1.0), "stc_sm90a": ok(1.0), "cublas": ok(1.0), "cutlass": unav,
            "cusparselt": ok(1.0), "cutlass2": {
                "status": "unavailable", "error": "not built: no nvcc in /usr/local/cuda/bin"}}},
    ]
    meta = {"utc": "20260101T000000Z", "time_budget_s": 400, "stall_s": 150,
            "max_method_s": 0.5, "max_repeats": 200, "tolerance": 1e-2}
    doc = report.assemble({"target": "sm_90", "target_sm90a": "sm_90a"}, recs, progs,
                          list(range(len(progs))), meta)
    json.dumps(doc)
    r = [e["ratios"] for e in doc["results"]]
    assert abs(r[0]["stc_speedup_vs_cutlass2"] - 0.4) < 1e-12, r[0]
    assert abs(r[0]["stc_sm90a_speedup_vs_cutlass2"] - 1.6) < 1e-12, r[0]
    assert abs(r[0]["cutlass2_speedup_vs_cublas"] - 1.25) < 1e-12, r[0]
    assert abs(r[1]["stc_speedup_vs_cutlass2"] - 1.5) < 1e-12, r[1]
    assert "stc_speedup_vs_cutlass2" not in r[2], "a wrong cutlass2 result was used"
    assert "stc_speedup_vs_cutlass2" not in r[3]
    assert doc["results"][4]["methods"]["cutlass2"]["status"] == "not_run"
    assert doc["summary"]["status_counts"]["cutlass2"] == {
        "ok": 2, "wrong": 1, "unavailable": 1, "not_run": 2}, doc["summary"]
    assert doc["summary"]["ok"] is False  # the wrong cutlass2 result
    e0 = doc["results"][0]["methods"]["cutlass2"]
    assert e0["config"] == "128x128x64_64x64x64_s4" and len(e0["configs"]) == 3, e0
    tf = doc["results"][0]["flop"] / 0.8e-3 / 1e12
    md = report.markdown(doc)
    for s in ("| shape | M | N | K | STC ms (min) | STC TFLOP/s | STC sm_90a ms (min) | "
              "STC sm_90a TFLOP/s | cuBLAS TFLOP/s | CUTLASS 2:4 TFLOP/s | cuSPARSELt 2:4 "
              "TFLOP/s | CUTLASS 2.x 2:4 (sm80 kernel) TFLOP/s | STC vs cuBLAS | STC vs CUTLASS "
              "| STC vs cuSPARSELt | STC vs CUTLASS 2.x |",
              "| %.1f | 0.50× | – | 0.40× | 0.40× |" % tf,
              "CUTLASS 2.x 2:4 (sm80 kernel) TOPS |",
              "| square-4096 | f16 | yes | `wgmma` | %.1f | 2.00× | 1.60× | – | 1.60× | 4.00× |"
              % (doc["results"][0]["flop"] / 0.5e-3 / 1e12),
              "vs CUTLASS | vs CUTLASS 2.x | vs STC sm_90 |",
              "## CUTLASS 2.x configurations",
              "| square-4096-f16 | `128x128x64_64x64x64_s4` | 128x256x64_64x64x64_s3 %.1f, "
              "128x128x64_64x64x64_s4 %.1f, 128x64x64_64x32x64_s6 wrong |"
              % (doc["results"][0]["flop"] / 0.9e-3 / 1e12, tf),
              "- CUTLASS 2.x 2:4 (sm80 kernel): wrong: result differs, on 1 program(s): "
              "llm-up-11008x4096-n16-f16 (rel. error 4.00e-01)",
              "- CUTLASS 2.x 2:4 (sm80 kernel): unavailable: not built: no nvcc",
              "`cutlass::arch::Sm80` kernels"):
        assert s in md, "markdown lacks %r:\n%s" % (s, md)
    cp = report.compact(doc)
    assert "CUTLASS 2.x" in cp and "0.40× / 1.60×" in cp, cp
    # The same document without the method (as one written before it
    # existed): no cutlass2 column, line or status, and no KeyError.
    old = json.loads(json.dumps(doc))
    for e in old["results"]:
        del e["methods"]["cutlass2"]
        e["ratios"] = {k: v for k, v in e["ratios"].items() if "cutlass2" not in k}
    del old["summary"]["status_counts"]["cutlass2"]
    md_old = report.markdown(old)
    assert "CUTLASS 2.x" not in md_old and "| STC vs cuSPARSELt |\n" in md_old, md_old
    assert "CUTLASS 2.x" not in report.compact(old)
    return ("stc_speedup_vs_cutlass2 = its median / STC's (and sm_90a's), its columns, the "
            "configuration table, wrong/unavailable/not_run rows; a document without it "
            "renders without it")


def t_cutlass2_library():
    """bench/gpu/cutlass2.py without a GPU or torch: why the baseline is
    unavailable (no manifest entry, a build that recorded its reason, a
    recorded library that is missing)."""
    import cutlass2
    tmp = tempfile.mkdtemp(prefix="gpu-bench-c2-")
    try:
        def reason(man):
            try:
                cutlass2.library_path(man, tmp)
            except cutlass2.Unavailable as e:
                return str(e)
            raise AssertionError("no reason for %r" % man)
        r = reason({"programs": []})
        assert "no cutlass2 entry" in r and "libcutlass2_spmm.so" in r, r
        r = reason({"cutlass2": {"status": "unavailable", "error": "no nvcc in /x/bin"}})
        assert r == "not built: no nvcc in /x/bin", r
        r = reason({"cutlass2": {"status": "ok", "library": "cutlass2/libcutlass2_spmm.so"}})
        assert "the build recorded it" in r, r
        os.makedirs(os.path.join(tmp, "cutlass2"))
        open(os.path.join(tmp, "cutlass2", "libcutlass2_spmm.so"), "w").close()
        assert cutlass2.library_path({}, tmp) == os.path.join(tmp, "cutlass2",
                                                              "libcutlass2_spmm.so")
        try:
            cutlass2.Library(os.path.join(tmp, "cutlass2", "libcutlass2_spmm.so"))
            raise AssertionError("an empty file loaded")
        except cutlass2.Unavailable as e:
            assert "cannot load" in str(e), e
        return "no entry, the build's reason, a missing or unloadable library: unavailable"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_cutlass2_build(work):
    """The build's cutlass2 entry: built where nvcc and the CUTLASS archive
    are (the library exports the C API, loads without a GPU, lists its
    configurations and reports errors as text), else unavailable with the
    reason. Returns a summary."""
    import cutlass2
    with open(os.path.join(work, "manifest.json")) as f:
        ent = json.load(f).get("cutlass2")
    assert isinstance(ent, dict), "the manifest has no cutlass2 entry"
    if ent["status"] != "ok":
        assert ent["status"] == "unavailable" and ent.get("error"), ent
        have = (os.path.isfile(os.environ.get("CUTLASS_TARBALL") or build_programs.CUTLASS_TARBALL)
                and shutil.which("nvcc", path=os.path.join(CUDA, "bin")))
        assert not have, ("nvcc and the CUTLASS archive are here, but cutlass2 did not build: %s"
                          % ent["error"])
        return "cutlass2 unavailable: %s" % ent["error"].splitlines()[0]
    lib = os.path.join(work, ent["library"])
    size = os.path.getsize(lib)
    assert size == ent["bytes"] and size < 8 << 20, (size, ent)
    assert not ent["spill_warnings"], ent["spill_warnings"]
    syms = subprocess.run(["nm", "-D", "--defined-only", lib], stdout=subprocess.PIPE,
                          universal_newlines=True).stdout
    api = ("cutlass2_info", "cutlass2_configs", "cutlass2_config_name", "cutlass2_prepare",
           "cutlass2_run", "cutlass2_free")
    missing = [a for a in api if not re.search(r" T %s$" % a, syms, re.M)]
    assert not missing, "%s does not export %s" % (lib, missing)
    L = cutlass2.load({"cutlass2": ent}, work)
    names = {dt: L.configs(dt) for dt in cutlass2.DTYPES}
    assert all(len(v) >= 2 for v in names.values()) and L.configs("f32") == [], names
    assert names["f16"][0] == "128x256x64_64x64x64_s3", names
    assert len(ent["registers"]) == sum(len(v) for v in names.values()), ent["registers"]
    import ctypes
    h, err = ctypes.c_void_p(), ctypes.create_string_buffer(512)
    assert L.lib.cutlass2_prepare(0, 60, 64, 64, 0x1000, ctypes.byref(h), err, 512) == 1
    assert b"M % 32 == 0" in err.value, err.value
    assert L.lib.cutlass2_prepare(9, 64, 64, 64, 0x1000, ctypes.byref(h), err, 512) == 1
    assert b"unsupported dtype code 9" in err.value, err.value
    assert L.lib.cutlass2_run(None, 0, 0, 0, None, err, 512) == 1 and b"null" in err.value
    return ("cutlass2 %.1f MiB, %d kernels, compiled in %s s, C API exported, configurations "
            "%s" % (size / 2**20, len(ent["registers"]), ent["compile_seconds"],
                    "/".join("%s %d" % (k, len(v)) for k, v in names.items())))


def program_inputs(dt, tmp):
    """A 64x48x128 program's inputs as the benchmark makes them (A pruned
    and compressed by format24; i8: integers in [-127, 127], B given
    48 x 128), saved as .npy in tmp: (their paths, the float64 reference)."""
    rng = np.random.default_rng(5)
    if shapes.is_integer(dt):
        a = rng.integers(-127, 128, (64, 128)).astype(np.int8)
        b = rng.integers(-127, 128, (48, 128)).astype(np.int8)
    else:
        a = rng.standard_normal((64, 128)).astype(np.float16)
        b = rng.standard_normal((128, 48)).astype(np.float16)
    pr = format24.prune24(a)
    v, m = format24.compress24(pr)
    kn = b.T if shapes.dense_transposed(dt) else b
    paths = []
    for nm, arr in (("v", v), ("m", m.view(np.int16)), ("b", b)):
        paths.append(os.path.join(tmp, "%s_%s.npy" % (nm, dt)))
        np.save(paths[-1], arr)
    return paths, pr.astype(np.float64) @ kn.astype(np.float64)


def dense_program_inputs(dt, tmp):
    """The dense program's inputs (method stc_dense) for a 64x48x128 product:
    A and B seeded normal, A not pruned, saved as .npy in tmp: (their
    paths, the float64 reference A @ B)."""
    rng = np.random.default_rng(6)
    a = rng.standard_normal((64, 128)).astype(np.float16)
    b = rng.standard_normal((128, 48)).astype(np.float16)
    paths = []
    for nm, arr in (("a", a), ("b", b)):
        paths.append(os.path.join(tmp, "dense_%s_%s.npy" % (nm, dt)))
        np.save(paths[-1], arr)
    return paths, a.astype(np.float64) @ b.astype(np.float64)


def stc_run_program(run, prog, inputs, dev, target, out_path, ref, what, notes, entry="spmm"):
    """stc-run of a 64x48 program's `entry` on `inputs` (--device=dev,
    --target): its rel. error against `ref` (< 1e-2), or for an integer
    output "exact" (equal to it); None, with a note, when the sm_90a kernel
    does not run on the emulator yet."""
    p = subprocess.run([run, prog, "--entry=" + entry, "--device=" + dev]
                       + ["--input=" + x for x in inputs] + ["--output=" + out_path]
                       + (["--target=" + target] if target else []),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
    if p.returncode != 0 and target == "sm_90a":
        first = next((ln for ln in p.stdout.decode().splitlines() if "error" in ln), "failed")
        notes.append("%s not run yet (%s)" % (what, first.strip()[:160]))
        return None
    assert p.returncode == 0, "stc-run (%s) failed:\n%s" % (what, p.stdout.decode())
    out = np.load(out_path)
    assert out.shape == (64, 48), (what, out.shape)
    if np.issubdtype(out.dtype, np.integer):
        bad = np.argwhere(out.astype(np.float64) != ref)
        assert out.dtype == np.int32 and not len(bad), (
            "stc-run (%s) on format24's inputs: %s output, %d of 64x48 differ from the exact "
            "product (first at %s)" % (what, out.dtype, len(bad), bad[:1].tolist()))
        return "exact"
    err = stc_ref.rel_error(out, ref)
    if err >= 1e-2:
        bad = [r for r in range(64) if stc_ref.rel_error(out[r], ref[r]) >= 1e-2]
        raise AssertionError("stc-run (%s) on format24's inputs (64x48x128): rel. error %.3g; "
                             "wrong rows (of 64): %s" % (what, err, bad))
    return "%.1e" % err


def t_program_text():
    opt, run = os.path.join(BIN, "stc-opt"), os.path.join(BIN, "stc-run")
    if not os.access(opt, os.X_OK):
        return ("SKIP", "no %s (build the project first)" % opt)
    tmp = tempfile.mkdtemp(prefix="gpu-bench-prog-")
    try:
        texts = [("p_%s" % dt, build_programs.program_text("t", dt, shapes.out_dtype(dt), 64,
                                                            48, 128)) for dt in shapes.DTYPES]
        # STC's dense kernel's programs (stc_dense), with either output type.
        texts += [("dense_%s_%s" % (dt, out), build_programs.dense_program_text(
            "t", dt, out, 64, 48, 128)) for dt in shapes.DTYPES if shapes.has_stc_dense(dt)
            for out in (dt, "f32")]
        for stem, text in texts:
            path = os.path.join(tmp, stem + ".mlir")
            with open(path, "w") as f:
                f.write(text)
            p = subprocess.run([opt, path], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            assert p.returncode == 0, "stc-opt rejected %s:\n%s" % (stem, p.stdout.decode())
        parsed = "%s (and the dense %s)" % ("/".join(shapes.DTYPES), "/".join(
            dt for dt in shapes.DTYPES if shapes.has_stc_dense(dt)))
        if not os.access(run, os.X_OK):
            return "stc-opt parses %s (no stc-run: CPU run skipped)" % parsed
        h = subprocess.run([run, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        # The CPU kernel, and where stc-run has it, the sm_90 GPU kernel run
        # on the CPU by the project's emulator; the sm_90a kernel too once the
        # emulator runs it (TMA, mbarriers: a note until then).
        devices = [("cpu", None)] + ([("emulate", "sm_90"), ("emulate", "sm_90a")]
                                     if b"emulate" in h.stdout else [])
        errs, notes = [], []
        for dt in ("f16", "i8"):
            inputs, ref = program_inputs(dt, tmp)
            for dev, target in devices:
                what = "%s %s%s" % (dt, dev, "/" + target if target else "")
                err = stc_run_program(run, os.path.join(tmp, "p_%s.mlir" % dt), inputs, dev,
                                      target, os.path.join(tmp, "o.npy"), ref, what, notes)
                if err is not None:
                    errs.append("%s %s" % (what, err))
        # The dense f16 program on the CPU and, where stc-run has it, its
        # kernel for the "stc" target (the dense tensor-core kernel) on the
        # emulator: the product of the unpruned A.
        inputs, ref = dense_program_inputs("f16", tmp)
        for dev, target in [d for d in devices if d[1] != "sm_90a"]:
            what = "dense f16 %s%s" % (dev, "/" + target if target else "")
            err = stc_run_program(run, os.path.join(tmp, "dense_f16_f16.mlir"), inputs, dev,
                                  target, os.path.join(tmp, "o.npy"), ref, what, notes,
                                  entry="gemm")
            errs.append("%s %s" % (what, err))
        return ("stc-opt parses %s; stc-run on format24's inputs (i8: exact int32): %s%s"
                % (parsed, ", ".join(errs), ("; " + "; ".join(notes)) if notes else ""))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def check_int8_kernel(p, ki):
    """A built i8 program's kernel: B transposed, i8 in, i32 out; its
    sm_90a kernel (not the mock's) the wgmma s8 one (m64nNk64, byte tensor
    maps), not an mma.sp fallback, which would mean the program's form is
    wrong for it."""
    if p["dtype"] != "i8":
        return
    assert ki["dense_transposed"] is True and p["dense_transposed"] is True, (p["name"], ki)
    assert (ki["input_type"], ki["output_type"]) == ("i8", "i32"), (p["name"], ki)
    sub = p["sm90a"]
    if sub["status"] == "ok":
        k = sub["kernel"]
        assert k["variant"] == "wgmma", "%s: sm_90a variant %r, not wgmma" % (
            p["name"], k["variant"])
        assert re.fullmatch(r"m64n\d+k64", k["mma"]), (p["name"], k["mma"])
        assert {m["data_type"] for m in k["tensor_maps"]} == {0}, (p["name"], k)


def check_dense_kernel(work, p, ki):
    """A built program's dense kernel (method stc_dense): its own
    dense.mlir in work (a linalg.matmul, no stc.spmm), and STC's dense
    tensor-core kernel of the program's product (no metadata, values = A
    whole, B K x N, the program's types): on sm_90a (the default) the
    wgmma kernel with a dense A (m64nNk16), else mma.sync m16n8k16; not a
    2:4 kernel or the naive one."""
    with open(os.path.join(work, p["dense"]["mlir"])) as f:
        text = f.read()
    assert "linalg.matmul" in text and "stc.spmm" not in text, (p["name"], text)
    assert kernel_info.check_problem(ki, p["M"], p["N"], p["K"], p["dtype"], p["out_dtype"],
                                     sparse=False) == [], (p["name"], ki)
    # sm_90a: the wgmma kernel, or the mma.sync one where the tuning
    # database measured it and the wgmma one is not predicted clearly faster.
    wgmma = p["dense"]["target"] == "sm_90a" and ki["variant"] == "wgmma"
    assert ki["meta_layout"] == "none" and (
        re.fullmatch(r"m64n\d+k16", ki["mma"]) if wgmma else
        (ki["mma"], ki["variant"]) == ("m16n8k16", "staged")), (p["name"], ki)
    assert ki["params"][:3] == ["values", "dense", "out"], (p["name"], ki["params"])


def check_build(work, expect_mock):
    def check_kernel(p, ki, key):
        if key == "dense":
            check_dense_kernel(work, p, ki)
        elif key == "auto":
            # stc_auto: the form --sparsity=auto chose, with its configuration.
            sub = p["auto"]
            assert kernel_info.check_problem(
                ki, p["M"], p["N"], p["K"], p["dtype"], p["out_dtype"],
                dense_transposed=p["dense_transposed"], sparse=sub["sparse"]) == [], (
                p["name"], ki)
            assert tunelib.config_mismatches(sub["config"], ki) == [], (p["name"], ki)
        else:
            check_int8_kernel(p, ki)
    res = check_build_dir(work, expect_mock, len(shapes.QUICK) * len(shapes.DTYPES),
                          kernel_info.parse_kernel_info, check_kernel)
    man = res[0]
    # Every program says what became of its dense kernel: built for each
    # f16/bf16 program (not --mock), for sm_90a (run_gpu_bench.sh's default).
    dense = [p["dense"]["status"] for p in man["programs"]]
    want = ["not_built" if expect_mock or not shapes.has_stc_dense(p["dtype"]) else "ok"
            for p in man["programs"]]
    assert dense == want, (dense, want)
    assert man["target_dense"] == (None if expect_mock else "sm_90a"), man["target_dense"]
    wgmma = sum(1 for p in man["programs"] if p["dense"]["status"] == "ok" and
                p["dense"]["target"] == "sm_90a")
    return "%s; %d dense kernels (%d for sm_90a); %s" % (
        res[1], dense.count("ok"), wgmma, check_cutlass2_build(work))


def t_build_mock():
    return mock_build("build", "GPU_BENCH_WORK", "gpu-build-mock", check_build)


def t_build_stc():
    sc = os.environ.get("STC_COMPILE", os.path.join(BIN, "stc-compile"))
    if not os.access(sc, os.X_OK):
        return ("SKIP", "no %s" % sc)
    h = subprocess.run([sc, "--help"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if b"--kernel-info" not in h.stdout:
        return ("SKIP", "stc-compile does not accept --kernel-info yet (GPU code generator "
                "not landed); rerun when `build/bin/stc-compile --help | grep kernel-info` "
                "prints it")
    work = work_dir("gpu-build")
    quick_build("build", "GPU_BENCH_WORK", work, [])
    return check_build(work, False)


def t_committed_results():
    """Every committed GPU result (bench/results/gpu-*.json and the
    sm90a-knobs sweep) renders with today's report.py (end-to-end results:
    e2e_report.py) to exactly its
    committed Markdown: the JSON schema and report format are unchanged."""
    import glob
    files = sorted(glob.glob(os.path.join(ROOT, "bench", "results", "gpu-*.json"))
                   + glob.glob(os.path.join(ROOT, "bench", "results", "sm90a-knobs-*",
                                            "*.json")))
    assert files, "no committed GPU results"
    for f in files:
        with open(f) as fh:
            doc = json.load(fh)
        name = os.path.basename(f)
        if "gpu-e2e" in name:
            import e2e_report  # bench/gpu, as report
            md = e2e_report.markdown(doc)
        else:
            md = (report.markdown_conv if "gpu-conv" in name else report.markdown)(doc)
        with open(f[:-len(".json")] + ".md") as fh:
            want = fh.read()
        assert md == want, "%s renders differently from its committed .md" % f
    return "%d result files render to their committed Markdown" % len(files)


def t_fallback_kernel():
    """kernel_info.kernel_to_launch: a staged kernel's fallback_kernel runs
    where the dense operand's leading dimension or the values' rows are not
    multiples of staged_align (as stc-compile's host code chooses), the
    kernel itself otherwise; a fallback without staged_align is an error."""
    good = GOOD_INFO[0]
    ki = dict(good, fallback_kernel="stc_spmm_0_direct", staged_align=8)
    assert kernel_info.kernel_to_launch(ki, 4096, 2048) == good["kernel"]
    assert kernel_info.kernel_to_launch(ki, 4092, 2048) == "stc_spmm_0_direct"
    assert kernel_info.kernel_to_launch(ki, 4096, 2044) == "stc_spmm_0_direct"
    assert kernel_info.kernel_to_launch(good, 4092, 2044) == good["kernel"]
    bad = dict(good, fallback_kernel="stc_spmm_0_direct")
    expect_error(lambda: kernel_info.kernel_to_launch(bad, 4092, 2044),
                 "fallback_kernel 'stc_spmm_0_direct' without a positive \"staged_align\" "
                 "(got None)")
    return "aligned: the staged kernel; unaligned rows or leading dimension: the fallback"


def t_run_order():
    """benchcommon.run_order: "dtype" times every f16 program first, then
    bf16, then the rest (i8), each in the manifest's order; "manifest" keeps
    the list; anything else is an error."""
    progs = [{"name": n, "dtype": d} for n, d in
             (("a-f16", "f16"), ("a-bf16", "bf16"), ("a-i8", "i8"),
              ("b-f16", "f16"), ("b-bf16", "bf16"), ("b-i8", "i8"), ("c", None))]
    idx = list(range(len(progs)))
    got = [progs[i]["name"] for i in bc.run_order(idx, progs, "dtype")]
    assert got == ["a-f16", "b-f16", "a-bf16", "b-bf16", "a-i8", "b-i8", "c"], got
    assert bc.run_order(idx, progs, "manifest") == idx
    assert bc.run_order([5, 3, 0], progs, "dtype") == [3, 0, 5]
    expect_error(lambda: bc.run_order(idx, progs, "random"),
                 "unknown run order 'random' (manifest or dtype)")
    return "dtype: f16, bf16, the rest, manifest order within; manifest: unchanged"


CHECKS = {
    "run-order": t_run_order,
    "format-vs-ref": t_format_vs_ref,
    "format-errors": t_format_errors,
    "kernel-info": t_kernel_info,
    "kernel-info-sm90a": t_kernel_info_sm90a,
    "kernel-info-dense": t_kernel_info_dense,
    "fallback-kernel": t_fallback_kernel,
    "report": t_report,
    "report-int8": t_report_int8,
    "report-dense": t_report_dense,
    "report-cutlass2": t_report_cutlass2,
    "cutlass2-library": t_cutlass2_library,
    "committed-results": t_committed_results,
    "program-text": t_program_text,
    "build-mock": t_build_mock,
    "build": t_build_stc,
}

if __name__ == "__main__":
    sys.exit(run_checks(CHECKS, sys.argv[1:]))
