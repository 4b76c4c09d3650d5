"""Kernel info of stc.conv's GPU kernel (stc-compile --kernel-info) for the
convolution benchmark: validation against the program's geometry and the
kernel's argument list, built generically from the kernel info's `params`
and `param_types` through the two name maps below (a renamed or added
parameter of the ABI needs only an entry there).

The kernel info (passes/GpuKernelInfo.h) of a convolution lists pointers
values, meta, the NHWC input (named `dense`, the implicit GEMM's dense
operand; `input` accepted too), [bias], [acc], out, then i32 R (output
channels per group), P (= N*OH*OW), K (= KH*KW*Cp), value_cols, meta_cols,
N, H, W, OH, OW, and a `conv` object with the geometry (KH, KW, stride_h/w,
dilation_h/w, pad_top/left/bottom/right, C and Cp per group, groups, N, H,
W, OH, OW).

An sm_90a kernel (stc-compile --target=sm_90a, `variant` "wgmma": one group,
C a multiple of 64) has, as the GEMM's, `cluster`, the Hopper metadata
geometry, a dynamic `shared_bytes` and `tensor_maps`, whose parameters end
the list (values_map: the compressed filter F x K/2, 2-D; dense_map: the
NHWC input, 4-D, dims C, W, H, N innermost first, box [64, TW*stride_w,
TH*stride_h, 1], element strides [1, stride_w, stride_h, 1]), and
`pixel_tile` [TH, TW]: the grid's x is N * ceil(OH/TH) * ceil(OW/TW).

Pure Python (no torch): the build step and the self test use it here, the
run step on the GPU machine.
"""

import kernel_info

#: Pointer parameter name -> the buffer it must point to.
BUFFER_PARAMS = {
    "values": "values", "meta": "meta", "metadata": "meta",
    "dense": "input", "input": "input", "x": "input",
    "bias": "bias", "acc": "acc", "residual": "acc",
    "out": "out", "output": "out", "result": "out",
}
#: Integer parameter name -> the size it carries (keys of `sizes` in
#: arg_values): R = output channels per group, P = N*OH*OW, K = KH*KW*Cp,
#: VC / MC = the values' / metadata's columns (row strides).
SIZE_PARAMS = {
    "R": "R", "P": "P", "K": "K", "value_cols": "VC", "meta_cols": "MC",
    "N": "N", "H": "H", "W": "W", "OH": "OH", "OW": "OW",
    "C": "C", "Cp": "Cp", "groups": "G", "G": "G",
}
#: The conv object's keys the benchmark needs.
CONV_KEYS = ("KH", "KW", "stride_h", "stride_w", "dilation_h", "dilation_w",
             "pad_top", "pad_left", "pad_bottom", "pad_right", "C", "Cp", "groups",
             "N", "H", "W", "OH", "OW")


def is_dense(kinfo):
    """Whether the kernel is STC's dense convolution (a filter without 2:4
    pruning: the whole F x KH*KW*C matrix as values, no metadata), which
    stc-compile makes of a convolution that stays dense."""
    return kinfo.get("meta_layout") == "none"


def parse(text, where="kernel-info"):
    """Parses the kernel-info JSON; returns the list of kernel dicts. The
    generic checks (kernel name, block, grid, shared_bytes, param lists and
    types) are kernel_info's; the parameter names are checked against this
    module's maps."""
    import json
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise kernel_info.KernelInfoError("%s: not valid JSON: %s" % (where, e))
    if not isinstance(doc, list):
        raise kernel_info.KernelInfoError("%s: expected a JSON array of kernel objects, got %s"
                                    % (where, type(doc).__name__))
    out = []
    for n, k in enumerate(doc):
        w = "%s: kernel #%d" % (where, n)
        if not isinstance(k, dict):
            raise kernel_info.KernelInfoError("%s: expected an object, got %r" % (w, k))
        name = k.get("kernel")
        if not isinstance(name, str) or not name:
            raise kernel_info.KernelInfoError("%s: \"kernel\" (the PTX .entry name) is missing "
                                        "or not a string: %r" % (w, name))
        w = "%s (%s)" % (w, name)
        kernel_info._int_triple(k, "block", w)
        kernel_info._int_triple(k, "grid", w)
        threads = k["block"][0] * k["block"][1] * k["block"][2]
        if threads > 1024:
            raise kernel_info.KernelInfoError("%s: block %r has %d threads (> 1024)"
                                        % (w, k["block"], threads))
        sb = k.get("shared_bytes")
        if not isinstance(sb, int) or isinstance(sb, bool) or sb < 0:
            raise kernel_info.KernelInfoError("%s: \"shared_bytes\" must be a non-negative "
                                        "integer, got %r" % (w, sb))
        kernel_info._check_cluster(k, w)
        kernel_info._check_meta_geometry(k, w)
        params, types = k.get("params"), k.get("param_types")
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise kernel_info.KernelInfoError("%s: \"params\" must be a list of names, got %r"
                                        % (w, params))
        if not isinstance(types, list) or len(types) != len(params):
            raise kernel_info.KernelInfoError(
                "%s: \"param_types\" must be a list of %d types (one per param %r), "
                "got %r" % (w, len(params), params, types))
        maps = kernel_info._check_tensor_maps(k, w)
        missing = sorted(set(maps) - set(params))
        if missing:
            raise kernel_info.KernelInfoError(
                "%s: \"tensor_maps\" names parameter(s) %s, which \"params\" %r does not "
                "have" % (w, missing, params))
        for p, t in zip(params, types):
            if t not in kernel_info.PARAM_TYPES:
                raise kernel_info.KernelInfoError("%s: parameter %r has type %r; the launcher "
                                            "knows %s" % (w, p, t, sorted(kernel_info.PARAM_TYPES)))
            if p in maps:
                if t != "ptr":
                    raise kernel_info.KernelInfoError(
                        "%s: tensor-map parameter %r has type %r; a tensor map is passed as "
                        "a pointer (\"ptr\") to its device copy" % (w, p, t))
                continue
            if t == "ptr" and p.endswith("_map"):
                raise kernel_info.KernelInfoError(
                    "%s: pointer parameter %r looks like a tensor map but has no entry in "
                    "\"tensor_maps\" (which lists %s)" % (w, p, sorted(maps) or "none"))
            if t == "ptr" and p not in BUFFER_PARAMS:
                raise kernel_info.KernelInfoError(
                    "%s: unknown pointer parameter %r; the convolution launcher knows %s "
                    "(bench/gpu/conv_kernel.py BUFFER_PARAMS)" % (w, p, sorted(BUFFER_PARAMS)))
            if t != "ptr" and p not in SIZE_PARAMS:
                raise kernel_info.KernelInfoError(
                    "%s: unknown integer parameter %r; the convolution launcher knows %s "
                    "(bench/gpu/conv_kernel.py SIZE_PARAMS)" % (w, p, sorted(SIZE_PARAMS)))
        roles = [BUFFER_PARAMS[p] for p, t in zip(params, types)
                 if t == "ptr" and p not in maps]
        # STC's dense convolution (meta_layout "none") takes the whole
        # filter as its values and no metadata.
        needs = ("values", "input", "out") if is_dense(k) else ("values", "meta", "input",
                                                                  "out")
        if is_dense(k) and "meta" in roles:
            raise kernel_info.KernelInfoError(
                "%s: a dense kernel (meta_layout \"none\") with a metadata pointer in %r"
                % (w, params))
        for need in needs:
            if roles.count(need) != 1:
                raise kernel_info.KernelInfoError(
                    "%s: expected exactly one pointer parameter for %r, found %d in %r"
                    % (w, need, roles.count(need), params))
        for opt in ("bias", "acc"):
            if roles.count(opt) > 1:
                raise kernel_info.KernelInfoError("%s: more than one %r pointer in %r"
                                            % (w, opt, params))
        out.append(k)
    return out


def check(kinfo, g, dtype="f16", out_dtype="f16"):
    """Compares the kernel info with the benchmark program's geometry `g`
    (conv_shapes.geometry). Returns (problems, layout): problems is a list
    of messages (empty: usable); layout says how the input reaches the
    kernel: {"prepadded": False} when the kernel pads (the tensor.pad was
    folded into stc.conv, the expected case), {"prepadded": True} when it
    takes the padded image (the pad stayed a separate op: the benchmark
    then passes a pre-padded input, outside the timing)."""
    bad = []
    conv = kinfo.get("conv")
    if not isinstance(conv, dict):
        return (["kernel info of %s has no \"conv\" object: not stc.conv's implicit GEMM "
                 "(the convolution was not sparsified, or stc-compile is older than the "
                 "GPU convolution lowering)" % kinfo.get("kernel")], None)
    miss = [k for k in CONV_KEYS if k not in conv]
    if miss:
        bad.append("kernel info conv object lacks %s" % ", ".join(miss))
        return bad, None
    pads = (g["pad_top"], g["pad_left"], g["pad_bottom"], g["pad_right"])
    kpads = tuple(conv[k] for k in ("pad_top", "pad_left", "pad_bottom", "pad_right"))
    hp = g["H"] + g["pad_top"] + g["pad_bottom"]
    wp = g["W"] + g["pad_left"] + g["pad_right"]
    layout = {"prepadded": False}
    if kpads == pads and (conv["H"], conv["W"]) in ((g["H"], g["W"]), (-1, -1)):
        pass
    elif any(pads) and kpads == (0, 0, 0, 0) and (conv["H"], conv["W"]) in ((hp, wp), (-1, -1)):
        layout = {"prepadded": True,
                  "note": "the kernel takes the zero-padded %dx%d image (tensor.pad was not "
                          "folded into stc.conv): the benchmark pads the input once, "
                          "outside the timing" % (hp, wp)}
    else:
        bad.append("kernel info pads %s with input %sx%s do not match the program's pads %s "
                   "on %dx%d" % (kpads, conv["H"], conv["W"], pads, g["H"], g["W"]))
    want = {"KH": g["KH"], "KW": g["KW"], "stride_h": g["stride"], "stride_w": g["stride"],
            "dilation_h": g["dilation"], "dilation_w": g["dilation"], "C": g["Cg"],
            "Cp": g["Cp"], "groups": g["groups"], "N": g["N"], "OH": g["OH"], "OW": g["OW"]}
    for k, v in want.items():
        if conv[k] != v and conv[k] != -1:
            bad.append("kernel info conv.%s=%r but the program's is %r" % (k, conv[k], v))
    for k, v in (("R", g["R"]), ("P", g["P"])):
        if k in kinfo and kinfo[k] not in (v, -1):
            bad.append("kernel info %s=%r but the program's is %r" % (k, kinfo[k], v))
    if "K" in kinfo and kinfo["K"] not in (g["K"], g["Kpad"], -1):
        bad.append("kernel info K=%r but the program's KH*KW*Cp is %d (padded to 16: %d)"
                   % (kinfo["K"], g["K"], g["Kpad"]))
    for key, expect in (("input_type", dtype), ("output_type", out_dtype)):
        if key in kinfo and kinfo[key] != expect:
            bad.append("kernel info %s=%r but the program's is %r" % (key, kinfo[key], expect))
    if kinfo.get("groups", g["groups"]) != g["groups"]:
        bad.append("kernel info groups=%r but the program's is %d"
                   % (kinfo.get("groups"), g["groups"]))
    maps = kernel_info.tensor_map_params(kinfo)
    roles = [BUFFER_PARAMS[p] for p, t in zip(kinfo["params"], kinfo["param_types"])
             if t == "ptr" and p not in maps]
    for opt in ("bias", "acc"):
        if opt in roles:
            bad.append("the kernel takes a %r pointer but the benchmark's program has none"
                       % opt)
    if maps:
        bad += check_sm90a(kinfo, g, layout, dtype, out_dtype)
    return bad, layout


def operand_shapes(g, layout, dense=False):
    """The shapes (outermost first) of the buffers a convolution kernel's
    tensor maps may describe: values (F x Kpad/2, the compressed filter;
    F x K, the whole filter, for the `dense` kernel), dense (the NHWC input,
    pre-padded when `layout` says so), out (N*OH*OW x F)."""
    pre = bool(layout and layout.get("prepadded"))
    h = g["H"] + (g["pad_top"] + g["pad_bottom"] if pre else 0)
    w = g["W"] + (g["pad_left"] + g["pad_right"] if pre else 0)
    values = (g["F"], g["K"]) if dense else (g["F"], g["Kpad"] // 2)
    return {"values": values, "dense": (g["N"], h, w, g["C"]), "out": (g["P"], g["F"])}


def check_sm90a(kinfo, g, layout, dtype="f16", out_dtype="f16"):
    """The checks of a kernel with tensor maps (sm_90a): every map
    encodable for the program's buffers (operand_shapes), the input's map
    4-D with the box and element strides of `pixel_tile` and the strides,
    and the grid's x equal to N * ceil(OH/TH) * ceil(OW/TW). A list of
    problems."""
    bad = kernel_info.check_tensor_maps(kinfo, operand_shapes(g, layout, is_dense(kinfo)),
                                  {"values": dtype, "dense": dtype, "out": out_dtype})
    conv = kinfo.get("conv") or {}
    sh, sw = conv.get("stride_h", g["stride"]), conv.get("stride_w", g["stride"])
    tile = kinfo.get("pixel_tile")
    inputs = [m for m in kinfo.get("tensor_maps") or [] if m["operand"] == "dense"]
    if tile is None and inputs and all(len(m["box"]) == 2 for m in inputs):
        return bad + _check_flat_pixels(kinfo, g, inputs)
    if (not isinstance(tile, list) or len(tile) != 2
            or not all(kernel_info._pos_int(x) for x in tile)):
        return bad + ["kernel info with tensor maps has no \"pixel_tile\" [TH, TW] (got %r)"
                      % (tile,)]
    th, tw = tile
    for m in kinfo.get("tensor_maps") or []:
        if m["operand"] != "dense":
            continue
        if len(m["box"]) != 4:
            bad.append("tensor map %r of the input has a rank-%d box %r; the NHWC input's "
                       "map is 4-D" % (m["param"], len(m["box"]), m["box"]))
            continue
        want_box = [m["box"][0], tw * sw, th * sh, 1]
        if m["box"][1:] != want_box[1:]:
            bad.append("tensor map %r box %r does not match pixel_tile %r with strides %dx%d "
                       "(expected [C, %d, %d, 1])" % (m["param"], m["box"], tile, sh, sw,
                                                      tw * sw, th * sh))
        es = m.get("element_strides") or [1, 1, 1, 1]
        if es != [1, sw, sh, 1]:
            bad.append("tensor map %r element_strides %r; the strides %dx%d need [1, %d, %d, 1]"
                       % (m["param"], es, sh, sw, sw, sh))
    gx = g["N"] * -(-g["OH"] // th) * -(-g["OW"] // tw)
    if kinfo["grid"][0] not in (gx, -1):
        bad.append("kernel info grid %r: x should be N*ceil(OH/TH)*ceil(OW/TW) = %d*%d*%d = %d "
                   "for pixel_tile %r" % (kinfo["grid"], g["N"], -(-g["OH"] // th),
                                          -(-g["OW"] // tw), gx, tile))
    return bad


def _check_flat_pixels(kinfo, g, inputs):
    """check_sm90a for a kernel without pixel tiles: a pointwise
    convolution (1x1, stride 1, no padding) whose blocks take BN
    consecutive pixels of N*OH*OW from the input viewed as [N*H*W, C]
    (2-D boxes [channels, BN]); grid x = ceil(P / BN)."""
    bad = []
    if (g["KH"], g["KW"], g["stride"], g["pad_top"], g["pad_left"], g["pad_bottom"],
            g["pad_right"]) != (1, 1, 1, 0, 0, 0, 0):
        bad.append("kernel info without \"pixel_tile\" (pixels tiled flat) for a %dx%d "
                   "convolution of stride %d and padding %d,%d,%d,%d; only a 1x1, stride-1, "
                   "unpadded one is a matrix product" % (g["KH"], g["KW"], g["stride"],
                                                        g["pad_top"], g["pad_left"],
                                                        g["pad_bottom"], g["pad_right"]))
    bn = inputs[0]["box"][1]
    gx = -(-g["P"] // bn)
    if kinfo["grid"][0] not in (gx, -1):
        bad.append("kernel info grid %r: x should be ceil(P/BN) = ceil(%d/%d) = %d for pixels "
                   "tiled flat" % (kinfo["grid"], g["P"], bn, gx))
    return bad


def sizes_for(kinfo, g, layout, value_cols, meta_cols):
    """The integer arguments (SIZE_PARAMS' values) of one launch."""
    pre = bool(layout and layout.get("prepadded"))
    h = g["H"] + (g["pad_top"] + g["pad_bottom"] if pre else 0)
    w = g["W"] + (g["pad_left"] + g["pad_right"] if pre else 0)
    k = kinfo.get("K", -1)
    return {"R": g["R"], "P": g["P"], "K": k if isinstance(k, int) and k > 0 else g["K"],
            "VC": value_cols, "MC": meta_cols, "N": g["N"], "H": h, "W": w,
            "OH": g["OH"], "OW": g["OW"], "C": g["Cg"], "Cp": g["Cp"], "G": g["groups"]}


def arg_values(kinfo, buffers, sizes):
    """[(name, type, value)] in parameter order: `buffers` maps a role
    (values, meta, input, bias, acc, out) to a device address and each
    tensor-map parameter (values_map, dense_map) to its map's device
    address, `sizes` maps
    SIZE_PARAMS' values to integers. A missing buffer or size is an error
    naming the parameter."""
    args = []
    maps = kernel_info.tensor_map_params(kinfo)
    for p, t in zip(kinfo["params"], kinfo["param_types"]):
        if t == "ptr" and p in maps:
            # A tensor map: the device address of its encoded copy
            # (launch.DeviceTensorMaps.pointers, by parameter name).
            if p not in buffers:
                raise kernel_info.KernelInfoError("tensor-map parameter %r has no encoded map"
                                            % p)
            v = buffers[p]
        elif t == "ptr":
            role = BUFFER_PARAMS[p]
            if role not in buffers:
                raise kernel_info.KernelInfoError("kernel parameter %r needs a %r buffer, which "
                                            "the benchmark does not have" % (p, role))
            v = buffers[role]
        else:
            v = sizes[SIZE_PARAMS[p]]
            lim = 2 ** 31 - 1 if t == "i32" else 2 ** 63 - 1
            if not 0 <= v <= lim:
                raise kernel_info.KernelInfoError("parameter %s=%d does not fit %s" % (p, v, t))
        args.append((p, t, v))
    return args
