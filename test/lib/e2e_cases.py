"""Case registry for run_e2e.py (STC end-to-end tests).

A *case* says what the entry function of an MLIR program takes and returns,
and how to compute the expected result in float64 with stc_ref.  The runner
(run_e2e.py) draws seeded random inputs for `args`, runs `stc-run`, and
compares every output with `ref(*inputs)`.

Two ways to add cases
---------------------
1. A fixed case:

       register(Case(
           name="linear_relu_example",
           args=[Arg((8, 16)), Arg((16, 4), tie_free=(0, 4)), Arg((4,))],
           outputs=[Arg((8, 4))],
           ref=lambda x, w, b: stc_ref.spmm_ref(x, w, bias=b, act="relu",
                                                prune_b=(2, 4)),
           stc_args=["--sparsity=force"]))

2. A family whose parameters are parsed from the case name:

       @family(r"relu_(f32|f16)_(\\d+)")
       def _relu(dtype, n):
           n = int(n)
           return Case(name=None, args=[Arg((n,), dtype)],
                       outputs=[Arg((n,), dtype)],
                       ref=lambda x: np.maximum(x, 0))

   `name=None` is filled in with the requested name.  The regex must match
   the whole name; its groups are passed as strings.

Element types ("dtype" of an Arg)
---------------------------------
  f32  -> written/read as '<f4'
  f16  -> '<f2'
  bf16 -> '<f4' holding bf16-representable values (numpy has no bf16; stc-run
          converts).  Reference inputs are rounded to bf16 first.
  f64  -> '<f8';  i8 / i32 / i64 -> '<i1' / '<i4' / '<i8' (small integers).
Reference functions receive float64 arrays holding exactly the values that
were written to the .npy files, and return one array or a list/tuple of
arrays (one per output).
"""

import re
from dataclasses import dataclass, field
from typing import Callable, List, Optional, Tuple

import numpy as np

import stc_ref

#: dtype name -> (numpy dtype of the .npy file, default relative tolerance).
#: Tolerances follow docs/DESIGN.md §7 (fp32 < 1e-5, fp16/bf16 < 1e-2).
DTYPES = {
    "f32": ("<f4", 1e-5),
    "tf32": ("<f4", 2e-3),
    "f16": ("<f2", 1e-2),
    "bf16": ("<f4", 1e-2),
    "f64": ("<f8", 1e-12),
    "i8": ("|i1", 0.0),
    "i32": ("<i4", 0.0),
    "i64": ("<i8", 0.0),
}


@dataclass
class Arg:
    """One entry argument or result of the program.

    shape:    tuple of ints ( () for a 0-d tensor ).
    dtype:    a key of DTYPES.
    scale:    standard deviation of the random normal values (floats) or the
              half-range of the random integers (ints).  For floats it may
              also be an array of the argument's shape, applied element-wise:
              a 0/1 mask draws data that is already N:M sparse (see
              two_four_mask and the enc_lhs family).
    tie_free: None, or (axis, m): redraw values until no two elements of a
              group of m consecutive elements along `axis` have the same
              magnitude after rounding, so that magnitude pruning has a
              unique answer (important for f16/bf16 weights).
    """
    shape: Tuple[int, ...]
    dtype: str = "f32"
    scale: float = 1.0
    tie_free: Optional[Tuple[int, int]] = None

    def __post_init__(self):
        self.shape = tuple(int(d) for d in self.shape)
        if self.dtype not in DTYPES:
            raise ValueError("unknown dtype %r (known: %s)"
                             % (self.dtype, " ".join(DTYPES)))

    @property
    def npy_dtype(self):
        return np.dtype(DTYPES[self.dtype][0])


@dataclass
class Case:
    """An end-to-end case.

    name:      the name used with --case.
    args:      the entry function's arguments, in order (--input files).
    outputs:   the entry function's results, in order (--output files).
    ref:       ref(*inputs) -> array or list of arrays (float64 reference).
    tol:       relative-error tolerance; None = the loosest default of the
               dtypes of args and outputs.
    stc_args:  extra stc-run options the case needs (e.g. --sparsity=force);
               an option given again after `--` on the runner's command line
               overrides the case's.
    wrong:     list of (label, fn) plausible *wrong* answers (e.g. the
               unpruned product for a --sparsity=force case).  The runner
               checks that each differs from `ref` by more than the tolerance,
               so that the case can actually tell them apart.
    doc:       one-line description.
    """
    name: Optional[str]
    args: List[Arg]
    outputs: List[Arg]
    ref: Callable
    tol: Optional[float] = None
    stc_args: List[str] = field(default_factory=list)
    wrong: List[Tuple[str, Callable]] = field(default_factory=list)
    doc: str = ""

    def tolerance(self):
        if self.tol is not None:
            return self.tol
        return max(DTYPES[a.dtype][1] for a in list(self.args) + self.outputs)


CASES = {}
FAMILIES = []


def register(case):
    """Adds a fixed case to the registry (the name must be unique)."""
    if case.name in CASES:
        raise ValueError("duplicate case %r" % case.name)
    CASES[case.name] = case
    return case


def family(pattern):
    """Decorator registering a factory for every name matching `pattern`."""
    regex = re.compile(pattern + r"\Z")

    def wrap(factory):
        FAMILIES.append((regex, factory))
        return factory
    return wrap


def get_case(name):
    """Returns the Case called `name` (fixed cases first, then families).
    Raises KeyError with a helpful message if there is none."""
    if name in CASES:
        return CASES[name]
    for regex, factory in FAMILIES:
        m = regex.match(name)
        if m:
            case = factory(*m.groups())
            if case.name is None:
                case.name = name
            return case
    raise KeyError("unknown case %r; fixed cases: %s; families: %s"
                   % (name, ", ".join(sorted(CASES)) or "none",
                      ", ".join(r.pattern for r, _ in FAMILIES)))


def list_cases():
    """Lines describing the fixed cases and the family patterns."""
    lines = ["%s  %s" % (n, CASES[n].doc) for n in sorted(CASES)]
    lines += ["/%s/  %s" % (r.pattern, (f.__doc__ or "").strip().split("\n")[0])
              for r, f in FAMILIES]
    return lines


# ---------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------

@family(r"matmul((?:_bias)?)((?:_relu|_gelu_tanh|_gelu_erf|_gelu)?)"
        r"((?:_force)?)_(f32|f16|bf16)_(\d+)_(\d+)_(\d+)")
def _matmul(bias, act, force, dtype, m, k, n):
    """matmul[_bias][_relu|_gelu|_gelu_tanh|_gelu_erf][_force]_DT_M_K_N:
    @main(%x: MxK, %w: KxN[, %b: N]) -> MxN = act(x @ W [+ b]), where W =
    prune_2:4(w, axis=0) for _force (and stc-run gets --sparsity=force);
    _gelu is the tanh form."""
    m, k, n = int(m), int(k), int(n)
    act = act[1:] if act else "none"
    if act == "gelu":
        act = "gelu_tanh"
    prune = (2, 4) if force else None
    args = [Arg((m, k), dtype),
            Arg((k, n), dtype, tie_free=(0, 4) if force else None)]
    if bias:
        args.append(Arg((n,), dtype))

    def ref(x, w, b=None):
        return stc_ref.spmm_ref(x, w, bias=b, act=act, prune_b=prune)

    wrong = []
    if force:
        wrong.append(("unpruned weight",
                      lambda x, w, b=None: stc_ref.spmm_ref(x, w, bias=b,
                                                            act=act)))
    return Case(name=None, args=args, outputs=[Arg((m, n), dtype)], ref=ref,
                stc_args=["--sparsity=force"] if force else [], wrong=wrong,
                doc="matmul %s%s%s" % ("+bias " if bias else "",
                                       act, " force" if force else ""))


# ---------------------------------------------------------------------------
# Fixed example cases (also exercised offline with fake_stc_run.py)
# ---------------------------------------------------------------------------

for _name in ["matmul_force_f32_64_128_32",
              "matmul_bias_relu_force_f32_32_64_16",
              "matmul_force_f16_32_64_48",
              "matmul_bias_relu_force_bf16_16_32_8"]:
    register(get_case(_name))

register(Case(
    name="linear_relu_force_f32_example",
    args=[Arg((8, 16)), Arg((16, 4), tie_free=(0, 4)), Arg((4,))],
    outputs=[Arg((8, 4))],
    ref=lambda x, w, b: stc_ref.spmm_ref(x, w, bias=b, act="relu",
                                         prune_b=(2, 4)),
    stc_args=["--sparsity=force"],
    wrong=[("unpruned weight",
            lambda x, w, b: stc_ref.spmm_ref(x, w, bias=b, act="relu"))],
    doc="hand-written template: same program as matmul_bias_relu_force_f32"))


# ---------------------------------------------------------------------------
# More families: sparse side, stored layout, epilogue, element types, N:M
# ---------------------------------------------------------------------------

def _unpruned(fn):
    """A `wrong` entry: the same computation without pruning."""
    return ("unpruned operand", fn)


@family(r"sp_(lhs|rhs)((?:_at|_bt)?)((?:_bias)?)((?:_relu)?)((?:_p12)?)"
        r"_(f32|f16|bf16)(?:to(f32|f16|bf16))?((?:_force)?)"
        r"_(\d+)_(\d+)_(\d+)")
def _sp(side, layout, bias, relu, p12, dtype, out_dtype, force, m, k, n):
    """sp_{lhs|rhs}[_at|_bt][_bias][_relu][_p12]_DT[toDT2][_force]_M_K_N:
    @main(%a, %b[, %bias: N]) -> M x N = relu?(A . B + bias) where the
    `side` operand is pruned N:M along K (2:4, or 1:2 with _p12, and then
    stc-run gets --pattern=1:2).  A is M x K, or stored K x M with _at; B is
    K x N, or stored N x K with _bt (nn.Linear's weight).  The result has
    type DT2 (default DT).  _force adds --sparsity=force (the program has no
    stc.prune); without it the program prunes with an explicit stc.prune."""
    m, k, n = int(m), int(k), int(n)
    out_dtype = out_dtype or dtype
    nm = (1, 2) if p12 else (2, 4)
    a_shape = (k, m) if layout == "_at" else (m, k)
    b_shape = (n, k) if layout == "_bt" else (k, n)
    # The K axis of each operand as stored (for tie-free drawing).
    a_kaxis = 0 if layout == "_at" else 1
    b_kaxis = 1 if layout == "_bt" else 0
    args = [Arg(a_shape, dtype,
                tie_free=(a_kaxis, nm[1]) if side == "lhs" else None),
            Arg(b_shape, dtype,
                tie_free=(b_kaxis, nm[1]) if side == "rhs" else None)]
    if bias:
        args.append(Arg((n,), dtype))
    act = "relu" if relu else "none"

    def logical(a, b):
        return (a.T if layout == "_at" else a), (b.T if layout == "_bt" else b)

    def ref_with(prune_nm):
        def ref(a, b, c=None):
            la, lb = logical(a, b)
            return stc_ref.spmm_ref(
                la, lb, bias=c, act=act,
                prune_a=prune_nm if side == "lhs" else None,
                prune_b=prune_nm if side == "rhs" else None)
        return ref

    wrong = [_unpruned(ref_with(None))]
    if p12:
        wrong.append(("pruned 2:4 instead of 1:2", ref_with((2, 4))))
    else:
        # Pruning the other operand instead (or along the wrong axis).
        def other(a, b, c=None):
            la, lb = logical(a, b)
            return stc_ref.spmm_ref(
                la, lb, bias=c, act=act,
                prune_a=nm if side == "rhs" else None,
                prune_b=nm if side == "lhs" else None)
        wrong.append(("pruned the other operand", other))
    stc_args = []
    if force:
        stc_args.append("--sparsity=force")
    if p12:
        stc_args.append("--pattern=1:2")
    # f16/bf16 products are exact in f32 and accumulate in f32: an f32
    # result is held to a tolerance far below f16/bf16 rounding.
    tol = 1e-4 if out_dtype == "f32" and dtype != "f32" else None
    return Case(name=None, args=args, outputs=[Arg((m, n), out_dtype)],
                ref=ref_with(nm), stc_args=stc_args, wrong=wrong, tol=tol,
                doc="%s sparse%s%s%s %s->%s" % (side, layout, bias, relu,
                                                dtype, out_dtype))


# ---------------------------------------------------------------------------
# Direct stc.spmm (test/E2E/spmm-direct-epilogue.mlir)
# ---------------------------------------------------------------------------

#: entry -> (sparse side, has bias, has acc, activation, alpha, beta).  These
#: must match the attributes written in spmm-direct-epilogue.mlir.
DIRECT_SPMM = {
    "gelu_tanh": ("rhs", True, False, "gelu_tanh", 1.0, 0.0),
    "gelu_erf": ("rhs", True, False, "gelu_erf", 1.0, 0.0),
    "acc": ("rhs", False, True, "none", 2.0, 0.5),
    "all": ("rhs", True, True, "relu", 0.5, -1.5),
    "lhs_gelu_tanh": ("lhs", True, False, "gelu_tanh", 1.0, 0.0),
}


@family(r"direct_(%s)_f32_(\d+)_(\d+)_(\d+)" % "|".join(DIRECT_SPMM))
def _direct(entry, m, k, n):
    """direct_ENTRY_f32_M_K_N: the function @ENTRY of
    spmm-direct-epilogue.mlir, which writes stc.prune + stc.compress +
    stc.spmm by hand: act(alpha * (A . B) + beta * acc + bias) with the
    sparse side pruned 2:4 along K (see DIRECT_SPMM for the attributes).
    Arguments: rhs-sparse (x: MxK, w: KxN[, bias: N][, acc: MxN]);
    lhs-sparse (a: MxK, b: KxN, bias: M, one per row)."""
    side, has_bias, has_acc, act, alpha, beta = DIRECT_SPMM[entry]
    m, k, n = int(m), int(k), int(n)
    if side == "rhs":
        args = [Arg((m, k)), Arg((k, n), tie_free=(0, 4))]
    else:
        args = [Arg((m, k), tie_free=(1, 4)), Arg((k, n))]
    if has_bias:
        args.append(Arg((n,) if side == "rhs" else (m,)))
    if has_acc:
        args.append(Arg((m, n)))

    def ref_with(prune, act_=act, alpha_=alpha, beta_=beta):
        def ref(a, b, *rest):
            rest = list(rest)
            bias = rest.pop(0) if has_bias else None
            acc = rest.pop(0) if has_acc else None
            if side == "lhs" and bias is not None:
                acc2 = bias[:, None] * np.ones((1, n))
                bias = None
            else:
                acc2 = None
            out = stc_ref.spmm_ref(
                a, b, c=acc, bias=bias, alpha=alpha_, beta=beta_, act="none",
                prune_a=prune if side == "lhs" else None,
                prune_b=prune if side == "rhs" else None)
            if acc2 is not None:
                out = out + acc2
            return stc_ref.apply_act(out, act_)
        return ref

    wrong = [_unpruned(ref_with(None))]
    if act == "gelu_tanh":
        wrong.append(("gelu erf form", ref_with((2, 4), act_="gelu_erf")))
    if act == "gelu_erf":
        wrong.append(("gelu tanh form", ref_with((2, 4), act_="gelu_tanh")))
    if has_acc:
        wrong.append(("alpha = beta = 1", ref_with((2, 4), alpha_=1.0,
                                                   beta_=1.0)))
    return Case(name=None, args=args, outputs=[Arg((m, n))],
                ref=ref_with((2, 4)), stc_args=["--entry=" + entry],
                wrong=wrong, doc="hand-written stc.spmm @" + entry)


# ---------------------------------------------------------------------------
# Quantized i8 (test/E2E/spmm-i8.mlir, test/GPU/emulate-spmm-i8.mlir)
# ---------------------------------------------------------------------------

def requantize_i8(x):
    """float64 -> the i8 values STC's epilogue produces: round half to even,
    saturate to [-128, 127]."""
    return np.clip(np.rint(x), -128, 127)


#: entry -> (sparse side, output dtype, alpha, scale?, bias?, activation).
#: Alphas put the requantized outputs partly in saturation (|x| > 127).
INT8_SPMM = {
    "acc32": ("rhs", "i32", 1.0, False, False, "none"),
    "lhs_acc32": ("lhs", "i32", 1.0, False, False, "none"),
    "requant": ("rhs", "i8", 0.002, True, True, "relu"),
    "requant_lhs": ("lhs", "i8", 0.003, True, False, "none"),
    "dequant_f16": ("rhs", "f16", 0.01, True, False, "none"),
}


@family(r"int8_(%s)_(\d+)_(\d+)_(\d+)" % "|".join(INT8_SPMM))
def _int8(entry, m, k, n):
    """int8_ENTRY_M_K_N: the function @ENTRY of spmm-i8.mlir: i8 A (M x K)
    and B (K x N), the `side` operand pruned 2:4 along K at run time, the
    exact product in i32, or the scaling epilogue act(alpha * scale * (A .
    B) + bias) requantized to i8 (round half to even, saturating) or
    rounded to f16.  scale and bias have one element per output channel
    (N for a sparse rhs, M for a sparse lhs)."""
    side, out_dtype, alpha, has_scale, has_bias, act = INT8_SPMM[entry]
    m, k, n = int(m), int(k), int(n)
    channels = n if side == "rhs" else m
    args = [Arg((m, k), "i8", 127, tie_free=(1, 4) if side == "lhs" else None),
            Arg((k, n), "i8", 127, tie_free=(0, 4) if side == "rhs" else None)]
    if has_scale:
        args.append(Arg((channels,), "f32"))
    if has_bias:
        args.append(Arg((channels,), "f32", 20.0))

    def ref_with(prune, saturate=True, use_scale=True):
        def ref(a, b, *rest):
            rest = list(rest)
            scale = rest.pop(0) if has_scale else None
            bias = rest.pop(0) if has_bias else None
            if scale is not None and not use_scale:
                scale = np.ones_like(scale)
            prod = stc_ref.spmm_ref(
                a, b, prune_a=prune if side == "lhs" else None,
                prune_b=prune if side == "rhs" else None)
            if out_dtype == "i32":
                return prod
            per_channel = (lambda v: v[None, :]) if side == "rhs" else \
                (lambda v: v[:, None])
            x = alpha * prod
            if scale is not None:
                x = x * per_channel(scale)
            if bias is not None:
                x = x + per_channel(bias)
            x = stc_ref.apply_act(x, act)
            if out_dtype == "i8":
                # The wrong answer "wrapping": what a conversion without
                # saturation gives.
                return requantize_i8(x) if saturate else \
                    (np.rint(x) + 128) % 256 - 128
            return x
        return ref

    wrong = [_unpruned(ref_with(None))]
    if out_dtype == "i8":
        wrong.append(("wrapping instead of saturating",
                      ref_with((2, 4), saturate=False)))
    if has_scale:
        wrong.append(("per-channel scale ignored",
                      ref_with((2, 4), use_scale=False)))
    # i32 is exact; i8 may differ by one where f32 and float64 round a
    # value near a half differently; f16 follows docs/DESIGN.md §7.
    tol = {"i32": 0.0, "i8": 5e-3, "f16": 1e-2}[out_dtype]
    return Case(name=None, args=args, outputs=[Arg((m, n), out_dtype)],
                ref=ref_with((2, 4)), stc_args=["--entry=" + entry],
                tol=tol, wrong=wrong, doc="quantized stc.spmm @" + entry)


@family(r"int8_matmul_force_(\d+)_(\d+)_(\d+)")
def _int8_matmul_force(m, k, n):
    """int8_matmul_force_M_K_N: @matmul_force of spmm-i8.mlir, a
    linalg.matmul of i8 X (M x K) and W (K x N) into a non-zero i32 init C
    under --sparsity=force: X . prune(W) + C, exact."""
    m, k, n = int(m), int(k), int(n)
    args = [Arg((m, k), "i8", 127), Arg((k, n), "i8", 127, tie_free=(0, 4)),
            Arg((m, n), "i32", 1000)]

    def ref_with(prune, with_init=True):
        def ref(x, w, c):
            out = stc_ref.spmm_ref(x, w, prune_b=prune)
            return out + c if with_init else out
        return ref

    return Case(name=None, args=args, outputs=[Arg((m, n), "i32")],
                ref=ref_with((2, 4)),
                stc_args=["--entry=matmul_force", "--sparsity=force"],
                tol=0.0,
                wrong=[_unpruned(ref_with(None)),
                       ("init dropped", ref_with((2, 4), with_init=False))],
                doc="linalg.matmul i8 x i8 -> i32 under --sparsity=force")


@family(r"int8_conv_force_(\d+)_(\d+)")
def _int8_conv_force(c, f):
    """int8_conv_force_C_F: @conv_force_C_F of conv-i8-force.mlir, a
    linalg.conv_2d_nhwc_hwcf (3x3, stride 1, no padding) of i8 X (2 x 7 x 6
    x C) and W (3 x 3 x C x F) into a non-zero i32 init under
    --sparsity=force: conv(X, prune(W)) + init, exact (the init is added
    after the i32 stc.conv, which has no epilogue)."""
    c, f = int(c), int(f)
    args = [Arg((2, 7, 6, c), "i8", 127), Arg((3, 3, c, f), "i8", 127,
                                              tie_free=(2, 4)),
            Arg((2, 5, 4, f), "i32", 1000)]

    def ref_with(prune, with_init=True):
        def ref(x, w, init):
            w_fhwc = np.transpose(np.asarray(w, np.float64), (3, 0, 1, 2))
            if prune:
                w_fhwc = stc_ref.prune_conv_filter_24(w_fhwc)
            out = stc_ref.conv2d_nhwc_ref(x, w_fhwc)
            return out + init if with_init else out
        return ref

    return Case(name=None, args=args, outputs=[Arg((2, 5, 4, f), "i32")],
                ref=ref_with(True),
                stc_args=["--entry=conv_force_%d_%d" % (c, f), "--sparsity=force"],
                tol=0.0,
                wrong=[_unpruned(ref_with(False)),
                       ("init dropped", ref_with(True, with_init=False))],
                doc="linalg.conv_2d_nhwc_hwcf i8 x i8 -> i32 under "
                    "--sparsity=force")


# ---------------------------------------------------------------------------
# Compile-time constant weights (test/E2E/const-weight-*.mlir)
# ---------------------------------------------------------------------------
#
# The programs embed these weights as `arith.constant dense<...>`; the
# reference regenerates them from the same seed.  To (re)write a constant
# into its program:   python3 test/lib/e2e_cases.py const NAME
# (prints the `arith.constant` line; the test fails if file and generator
# disagree, since the reference would then not match).

#: name -> (seed, shape (rows, cols), K axis, kind).  kind: "dense" (no
#: zeros, not 2:4, every group of 4 along K has distinct magnitudes) or
#: "2:4" (already 2:4 along K: the two smallest magnitudes of each group of
#: the dense draw are zeroed).
CONST_WEIGHTS = {
    "force_rhs": (101, (60, 20), 0, "dense"),   # X(?x60) . W(60x20)
    "force_lhs": (102, (24, 40), 1, "dense"),   # W(24x40) . X(40x?)
    "enable_24": (103, (36, 24), 0, "2:4"),     # X(?x36) . W(36x24)
    "enable_dense": (104, (36, 24), 0, "dense"),
    "tile_rhs": (105, (38, 22), 0, "dense"),    # X(?x38) . W(38x22), ragged
}


def const_weight(name):
    """The float64 values of the constant weight `name` (exact in f32: the
    magnitudes are multiples of 1/8 between 1/8 and 2)."""
    seed, shape, kaxis, kind = CONST_WEIGHTS[name]
    rng = np.random.default_rng(seed)
    w = np.moveaxis(np.zeros(shape), kaxis, -1)
    rows, k = w.shape
    for r in range(rows):
        for g0 in range(0, k, 4):
            width = min(4, k - g0)
            mags = rng.choice(np.arange(1, 17), size=width, replace=False) / 8
            signs = rng.choice([-1.0, 1.0], size=width)
            vals = mags * signs
            if kind == "2:4" and width > 2:
                vals[np.argsort(mags)[:width - 2]] = 0.0
            w[r, g0:g0 + width] = vals
    return np.moveaxis(w, -1, kaxis)


def mlir_constant(name):
    """`%NAME = arith.constant dense<...> : tensor<RxCxf32>` for the constant
    weight `name`."""
    w = const_weight(name)
    rows = ["[" + ", ".join(repr(float(v)) for v in row) + "]" for row in w]
    return "%%%s = arith.constant dense<[%s]> : tensor<%dx%dxf32>" % (
        name, ",\n      ".join(rows), w.shape[0], w.shape[1])


@family(r"constw_(force_rhs|enable_24|enable_dense)_f32_(\d+)")
def _constw_rhs(name, m):
    """constw_{force_rhs|enable_24|enable_dense}_f32_M: @ENTRY(%x: M x K) ->
    x . W with the constant weight W of CONST_WEIGHTS[NAME] (the entry is
    @main for force_rhs, @NAME otherwise).  force_rhs runs with
    --sparsity=force and W pruned 2:4 along K; enable_* run with
    --sparsity=enable and expect the exact dense product (enable_24 is
    already 2:4, enable_dense must be left dense, not pruned)."""
    m = int(m)
    w = const_weight(name)
    k, n = w.shape
    force = name.startswith("force")
    prune = (2, 4) if force else None

    def ref(x):
        return stc_ref.spmm_ref(x, w, prune_b=prune)

    if name == "enable_24":
        wrong = []  # pruning it changes nothing; --emit=stc checks the path
    else:
        wrong = [("pruned weight" if not force else "unpruned weight",
                  lambda x: stc_ref.spmm_ref(
                      x, w, prune_b=None if force else (2, 4)))]
    stc_args = ["--sparsity=force" if force else "--sparsity=enable"]
    if not force:
        stc_args.append("--entry=" + name)
    return Case(name=None, args=[Arg((m, k))], outputs=[Arg((m, n))],
                ref=ref, stc_args=stc_args, wrong=wrong,
                doc="constant weight %s" % name)


@family(r"constw_force_lhs_f32_(\d+)")
def _constw_lhs(n):
    """constw_force_lhs_f32_N: @const_lhs(%x: K x N) -> W . x with the
    constant lhs W = CONST_WEIGHTS['force_lhs'] (M x K) pruned 2:4 along K
    (--sparsity=force prunes the constant operand even when it is the
    lhs; pruning x instead must give a different answer)."""
    n = int(n)
    w = const_weight("force_lhs")
    m, k = w.shape
    return Case(
        name=None, args=[Arg((k, n), tie_free=(0, 4))],
        outputs=[Arg((m, n))],
        ref=lambda x: stc_ref.spmm_ref(w, x, prune_a=(2, 4)),
        stc_args=["--sparsity=force", "--entry=const_lhs"],
        wrong=[("unpruned", lambda x: stc_ref.spmm_ref(w, x)),
               ("pruned the argument",
                lambda x: stc_ref.spmm_ref(w, x, prune_b=(2, 4)))],
        doc="constant lhs weight under force")


# ---------------------------------------------------------------------------
# The upstream structured[2, 4] encoding on an argument
# ---------------------------------------------------------------------------

#: Kept positions of a group of 4 used by two_four_mask: the six legal pairs,
#: then groups with a single non-zero and an all-zero group (docs/DESIGN.md
#: §3: a group with fewer than two non-zeros still stores two entries).
_MASK_GROUPS = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3), (3,), (1,),
                ()]


def two_four_mask(rows, k):
    """A deterministic rows x k 0/1 mask that is 2:4 along axis 1 and uses
    every legal nibble, single-non-zero groups and empty groups."""
    mask = np.zeros((rows, k))
    for r in range(rows):
        for g in range(-(-k // 4)):
            for j in _MASK_GROUPS[(5 * r + 7 * g + r * g) % len(_MASK_GROUPS)]:
                if 4 * g + j < k:
                    mask[r, 4 * g + j] = 1.0
    return mask


@family(r"enc_lhs((?:_acc)?)_(f32|f16|bf16)_(\d+)_(\d+)_(\d+)")
def _enc_lhs(acc, dtype, m, k, n):
    """enc_lhs[_acc]_DT_M_K_N: @main(%a: M x K with the upstream
    #sparse_tensor.encoding structured[2, 4] along K, %b: K x N[, %c: M x N
    f32]) -> a . b (+ c with _acc: the matmul accumulates into its init).
    The lhs values are drawn already 2:4 (a fixed mask, see two_four_mask,
    given through Arg.scale); the result is the exact f32 product."""
    m, k, n = int(m), int(k), int(n)
    mask = two_four_mask(m, k)
    args = [Arg((m, k), dtype, scale=mask), Arg((k, n), dtype)]
    if acc:
        args.append(Arg((m, n)))
    tol = 1e-4 if dtype != "f32" else None

    def ref(a, b, c=None):
        return stc_ref.spmm_ref(a, b, c=c)
    wrong = [("without the init", lambda a, b, c: stc_ref.spmm_ref(a, b))] \
        if acc else []
    return Case(name=None, args=args, outputs=[Arg((m, n))], ref=ref,
                tol=tol, wrong=wrong,
                doc="structured[2, 4] encoded lhs argument")


# ---------------------------------------------------------------------------
# Tile pruning (test/E2E/prune-tile.mlir)
# ---------------------------------------------------------------------------

#: entry of prune-tile.mlir -> (element type, weight stored N x K, prunes
#: with an explicit `stc.prune ... method tile` instead of --sparsity=force
#: --prune-method=tile).
TILE_ENTRIES = {
    "arg_f32": ("f32", False, False),
    "arg_f16": ("f16", False, False),
    "arg_bf16": ("bf16", False, False),
    "bt_f32": ("f32", True, False),
    "explicit_f32": ("f32", False, True),
    "explicit_bt_bf16": ("bf16", True, True),
}


@family(r"tile_(%s)_(\d+)_(\d+)_(\d+)" % "|".join(TILE_ENTRIES))
def _tile(entry, m, k, n):
    """tile_ENTRY_M_K_N: @ENTRY of prune-tile.mlir, X (M x K) . W with W
    (K x N, or N x K for *_bt_*) a function argument pruned at run time by
    the transposable 4x4 tile method along K (stc_ref.prune_tile): through
    --sparsity=force --prune-method=tile, or an explicit stc.prune ...
    method tile.  Plain strip pruning must give a different answer."""
    dtype, bt, explicit = TILE_ENTRIES[entry]
    m, k, n = int(m), int(k), int(n)
    w_shape = (n, k) if bt else (k, n)
    args = [Arg((m, k), dtype), Arg(w_shape, dtype)]

    def logical(w):
        return w.T if bt else w

    def ref(x, w):
        return stc_ref.spmm_ref(x, stc_ref.prune_tile(logical(w), axis=0))

    def strip(x, w):
        return stc_ref.spmm_ref(x, logical(w), prune_b=(2, 4))

    stc_args = ["--entry=" + entry]
    if not explicit:
        stc_args += ["--sparsity=force", "--prune-method=tile"]
    # f16/bf16 products are exact in f32 and accumulate in f32.
    tol = 1e-4 if dtype != "f32" else None
    return Case(name=None, args=args, outputs=[Arg((m, n))], ref=ref,
                stc_args=stc_args, tol=tol,
                wrong=[("strip pruning", strip),
                       ("unpruned", lambda x, w: stc_ref.spmm_ref(
                           x, logical(w)))],
                doc="tile pruning @" + entry)


@family(r"tile_const_f32_(\d+)")
def _tile_const(m):
    """tile_const_f32_M: @const_f32 of prune-tile.mlir, X (M x 38) . W with
    the constant W = CONST_WEIGHTS['tile_rhs'] (38 x 22, both sizes ragged)
    tile-pruned at compile time under --sparsity=force --prune-method=tile.
    Its magnitudes come from a small set, so tiles tie and the first mask
    must win, as in stc_ref.prune_tile."""
    m = int(m)
    w = const_weight("tile_rhs")
    return Case(
        name=None, args=[Arg((m, w.shape[0]))], outputs=[Arg((m, w.shape[1]))],
        ref=lambda x: stc_ref.spmm_ref(x, stc_ref.prune_tile(w, axis=0)),
        stc_args=["--entry=const_f32", "--sparsity=force",
                  "--prune-method=tile"],
        wrong=[("strip pruning",
                lambda x: stc_ref.spmm_ref(x, w, prune_b=(2, 4)))],
        doc="constant weight, tile pruning")


# ---------------------------------------------------------------------------
# Channel permutations (test/E2E/permute-channels.mlir)
# ---------------------------------------------------------------------------
#
# A 3-layer MLP in torch-mlir's form (nn.Linear weights out x in behind a
# transposing linalg.generic): y = L3(relu(L2(gelu(L1(x))))), L(h) = h W^T
# + b, GELU in its tanh form.  `python3 test/lib/e2e_cases.py mlp` prints
# the program's function.  The weights are multiples of 1/64 in [-2, 2]
# (exact in f32, never 0).  stc-permute-channels' remarks (print-permutation)
# give the permutations the references need: run_e2e.py reads the file named
# by STC_E2E_PERMUTATIONS, one permutation per remark line, in order.

MLP_SEED = 201
MLP_SHAPES = [("w1", (32, 16)), ("b1", (32,)), ("w2", (32, 32)),
              ("b2", (32,)), ("w3", (8, 32)), ("b3", (8,))]


def mlp_weights():
    rng = np.random.default_rng(MLP_SEED)
    out = {}
    for name, shape in MLP_SHAPES:
        mags = rng.integers(1, 129, size=shape) / 64.0
        out[name] = mags * rng.choice([-1.0, 1.0], size=shape)
    return out


def mlp_forward(x, w, w1=None, w2=None, w3=None):
    """The MLP in float64 with the weights of `w` (w1/w2/w3 override)."""
    w1 = w["w1"] if w1 is None else w1
    w2 = w["w2"] if w2 is None else w2
    w3 = w["w3"] if w3 is None else w3
    h1 = stc_ref.gelu(x @ w1.T + w["b1"], "tanh")
    h2 = np.maximum(h1 @ w2.T + w["b2"], 0.0)
    return h2 @ w3.T + w["b3"]


def read_permutations():
    """The permutations printed by stc-permute-channels{print-permutation}
    into the file named by $STC_E2E_PERMUTATIONS, in order."""
    import os
    path = os.environ.get("STC_E2E_PERMUTATIONS")
    if not path:
        raise ValueError("this case needs STC_E2E_PERMUTATIONS (a file with "
                         "stc-permute-channels' permutation remarks)")
    perms = []
    with open(path) as f:
        for line in f:
            marker = "remark: stc: permutation: "
            if marker in line:
                perms.append([int(t) for t in
                              line.split(marker, 1)[1].split()])
    return perms


def _permuted_mask(w, perm):
    """The strip 2:4 mask chosen on w's columns (K) in the order `perm`,
    in w's own column order: mask[:, perm[i]] = strip(w[:, perm])[:, i]."""
    chosen = stc_ref.strip_mask(stc_ref.permute_axis(w, perm, 1), 2, 4, 1)
    mask = np.zeros_like(chosen)
    mask[:, np.asarray(perm)] = chosen
    return mask


@family(r"permute_mlp_(dense|pruned|force)_f32_(\d+)")
def _permute_mlp(kind, m):
    """permute_mlp_{dense|pruned|force}_f32_M: the MLP of
    permute-channels.mlir (x: M x 16) after stc-permute-channels, whose
    remarks ($STC_E2E_PERMUTATIONS) hold the permutations P2, P3 of the
    reduction channels of layers 2 and 3.
      dense:  with test-skip-prune (no pruning at all): exactly the original
              dense MLP, although every weight and bias was permuted;
      pruned: sparsified as written (layers 2 and 3 pruned 2:4): the
              original MLP with each of W2, W3 masked by strip pruning of
              its permuted copy, the mask put back in the original order;
      force:  as `pruned`, under sparsity=force (W1 strip-pruned too: its
              input channels are the arguments, so it is not permuted)."""
    m = int(m)
    w = mlp_weights()

    def perms():
        p = read_permutations()
        if len(p) != 2:
            raise ValueError("expected 2 permutations, found %d" % len(p))
        return p

    def masked(x, use_perm=True, unpermute=True):
        p2, p3 = perms()
        w1 = stc_ref.prune_nm(w["w1"], 2, 4, 1) if kind == "force" else None
        if use_perm and unpermute:
            m2, m3 = _permuted_mask(w["w2"], p2), _permuted_mask(w["w3"], p3)
        elif use_perm:
            # The permuted mask laid on the weights in the original order.
            m2 = stc_ref.strip_mask(stc_ref.permute_axis(w["w2"], p2, 1),
                                    2, 4, 1)
            m3 = stc_ref.strip_mask(stc_ref.permute_axis(w["w3"], p3, 1),
                                    2, 4, 1)
        else:
            m2 = stc_ref.strip_mask(w["w2"], 2, 4, 1)
            m3 = stc_ref.strip_mask(w["w3"], 2, 4, 1)
        return mlp_forward(x, w, w1=w1, w2=w["w2"] * m2, w3=w["w3"] * m3)

    if kind == "dense":
        def weights_only(x):
            # Only the consumers' weights permuted: the producers were not.
            p2, p3 = perms()
            return mlp_forward(x, w, w2=stc_ref.permute_axis(w["w2"], p2, 1),
                               w3=stc_ref.permute_axis(w["w3"], p3, 1))
        return Case(name=None, args=[Arg((m, 16))], outputs=[Arg((m, 8))],
                    ref=lambda x: mlp_forward(x, w),
                    wrong=[("weights permuted, producers not", weights_only),
                           ("pruned", lambda x: masked(x, use_perm=False))],
                    doc="MLP with folded permutations, not pruned")
    return Case(name=None, args=[Arg((m, 16))], outputs=[Arg((m, 8))],
                ref=masked,
                wrong=[("strip masks without the permutation",
                        lambda x: masked(x, use_perm=False)),
                       ("permuted masks not put back in order",
                        lambda x: masked(x, unpermute=False)),
                       ("unpruned", lambda x: mlp_forward(x, w))],
                doc="MLP pruned with permuted masks (%s)" % kind)


def _example_constants(name):
    """The dense_resource constants of the generated example NAME (in
    $STC_BUILD_DIR/examples, which lit sets) in program order, as float64
    arrays (each blob: 4 alignment bytes, then little-endian f32)."""
    import os
    path = os.path.join(os.environ["STC_BUILD_DIR"], "examples", name)
    with open(path) as f:
        text = f.read()
    blobs = {k: np.frombuffer(bytes.fromhex(h)[4:], "<f4").astype(np.float64)
             for k, h in re.findall(r'^\s*([\w.]+): "0x([0-9A-Fa-f]+)"',
                                    text, re.M)}
    return [blobs[k].reshape(tuple(int(d) for d in shape.split("x")))
            for k, shape in re.findall(
                r"dense_resource<([\w.]+)> : tensor<([0-9x]+)xf32>", text)]


#: stc-run options of permute_example_mlp: the same rounds as the stc-opt
#: run that prints the permutations, so that both find the same.
PERMUTE_EXAMPLE_ARGS = ["--sparsity=force", "--permute-channels",
                        "--permute-max-rounds=20"]


@family(r"permute_example_mlp")
def _permute_example_mlp():
    """permute_example_mlp: examples/mlp.mlir (3 layers, ReLU, weights as
    dense_resource blobs, batch 32) under --sparsity=force
    --permute-channels: layer 1 strip-pruned, layers 2 and 3 masked by strip
    pruning of their copies permuted by the two permutations in
    $STC_E2E_PERMUTATIONS, the masks put back in the original order."""
    w1, b1, w2, b2, w3, b3 = _example_constants("mlp.mlir")

    def forward(x, use_perm=True):
        if use_perm:
            p = read_permutations()
            if len(p) != 2:
                raise ValueError("expected 2 permutations, found %d" % len(p))
            m2, m3 = _permuted_mask(w2, p[0]), _permuted_mask(w3, p[1])
        else:
            m2 = stc_ref.strip_mask(w2, 2, 4, 1)
            m3 = stc_ref.strip_mask(w3, 2, 4, 1)
        h = np.maximum(x @ stc_ref.prune_nm(w1, 2, 4, 1).T + b1, 0.0)
        h = np.maximum(h @ (w2 * m2).T + b2, 0.0)
        return h @ (w3 * m3).T + b3

    return Case(name=None, args=[Arg((32, w1.shape[1]))],
                outputs=[Arg((32, w3.shape[0]))], ref=forward,
                stc_args=list(PERMUTE_EXAMPLE_ARGS),
                wrong=[("strip masks without the permutation",
                        lambda x: forward(x, use_perm=False))],
                doc="examples/mlp.mlir with channel permutations")


def _fmt(v):
    return repr(float(v))


def mlp_program():
    """The function @main of permute-channels.mlir (see above)."""
    w = mlp_weights()

    def const(name):
        a = w[name]
        if a.ndim == 1:
            body = "[" + ", ".join(_fmt(v) for v in a) + "]"
        else:
            body = "[" + ",\n      ".join(
                "[" + ", ".join(_fmt(v) for v in row) + "]" for row in a) + "]"
        shape = "x".join(str(d) for d in a.shape)
        return "  %%%s = arith.constant dense<%s> : tensor<%sxf32>" % (
            name, body, shape)

    def linear(i, inp, k, n, prune):
        lines = [const("w%d" % i), const("b%d" % i)]
        src = "%%w%d" % i
        if prune:
            lines.append("  %%p%d = stc.prune %%w%d by #stc.nm<2:4> along 1 "
                         "permute_channels : tensor<%dx%dxf32>" % (i, i, n, k))
            src = "%%p%d" % i
        lines += [
            "  %%te%d = tensor.empty() : tensor<%dx%dxf32>" % (i, k, n),
            "  %%wt%d = linalg.generic {indexing_maps = [#tr, #id], "
            "iterator_types = [\"parallel\", \"parallel\"]}" % i,
            "      ins(%s : tensor<%dx%dxf32>) outs(%%te%d : tensor<%dx%dxf32>) {"
            % (src, n, k, i, k, n),
            "  ^bb0(%in: f32, %out: f32):",
            "    linalg.yield %in : f32",
            "  } -> tensor<%dx%dxf32>" % (k, n),
            "  %%e%d = tensor.empty(%%m) : tensor<?x%dxf32>" % (i, n),
            "  %%z%d = linalg.fill ins(%%zero : f32) outs(%%e%d : tensor<?x%dxf32>)"
            " -> tensor<?x%dxf32>" % (i, i, n, n),
            "  %%mm%d = linalg.matmul ins(%s, %%wt%d : tensor<?x%dxf32>, "
            "tensor<%dx%dxf32>) outs(%%z%d : tensor<?x%dxf32>) -> "
            "tensor<?x%dxf32>" % (i, inp, i, k, k, n, i, n, n),
            "  %%l%d = linalg.generic {indexing_maps = [#id, #col, #id], "
            "iterator_types = [\"parallel\", \"parallel\"]}" % i,
            "      ins(%%mm%d, %%b%d : tensor<?x%dxf32>, tensor<%dxf32>) "
            "outs(%%e%d : tensor<?x%dxf32>) {" % (i, i, n, n, i, n),
            "  ^bb0(%a: f32, %b: f32, %out: f32):",
            "    %s = arith.addf %a, %b : f32",
            "    linalg.yield %s : f32",
            "  } -> tensor<?x%dxf32>" % n]
        return lines

    def act(name, inp, n, body):
        return ["  %%%s = linalg.generic {indexing_maps = [#id, #id], "
                "iterator_types = [\"parallel\", \"parallel\"]}" % name,
                "      ins(%s : tensor<?x%dxf32>) outs(%%e%s : "
                "tensor<?x%dxf32>) {" % (inp, n, name, n),
                "  ^bb0(%in: f32, %out: f32):"] + body + [
                "  } -> tensor<?x%dxf32>" % n]

    gelu = ["    %half = arith.constant 5.000000e-01 : f32",
            "    %one = arith.constant 1.000000e+00 : f32",
            "    %k = arith.constant 0.797884583 : f32",
            "    %c = arith.constant 4.471500e-02 : f32",
            "    %x2 = arith.mulf %in, %in : f32",
            "    %x3 = arith.mulf %x2, %in : f32",
            "    %cx3 = arith.mulf %x3, %c : f32",
            "    %inner = arith.addf %in, %cx3 : f32",
            "    %arg = arith.mulf %inner, %k : f32",
            "    %th = math.tanh %arg : f32",
            "    %onep = arith.addf %th, %one : f32",
            "    %hx = arith.mulf %in, %half : f32",
            "    %r = arith.mulf %hx, %onep : f32",
            "    linalg.yield %r : f32"]
    relu = ["    %r = arith.maximumf %in, %zero : f32",
            "    linalg.yield %r : f32"]
    lines = ["func.func @main(%x: tensor<?x16xf32>) -> tensor<?x8xf32> {",
             "  %c0 = arith.constant 0 : index",
             "  %m = tensor.dim %x, %c0 : tensor<?x16xf32>",
             "  %zero = arith.constant 0.000000e+00 : f32"]
    lines += linear(1, "%x", 16, 32, False)
    lines += ["  %eg1 = tensor.empty(%m) : tensor<?x32xf32>"]
    lines += act("g1", "%l1", 32, gelu)
    lines += linear(2, "%g1", 32, 32, True)
    lines += ["  %er2 = tensor.empty(%m) : tensor<?x32xf32>"]
    lines += act("r2", "%l2", 32, relu)
    lines += linear(3, "%r2", 32, 8, True)
    lines += ["  return %l3 : tensor<?x8xf32>", "}"]
    return "\n".join(lines)


def check_kept_grows(path, expected):
    """Checks that the log at `path` has `expected` remarks of applied
    channel permutations and that in each the magnitude kept with the
    permutation exceeds the magnitude kept without it.  Returns 0 or 1."""
    import re
    pat = re.compile(r"stc: reduction channels permuted: strip pruning keeps "
                     r"([0-9.]+) of the weight's magnitude without the "
                     r"permutation, ([0-9.]+) with it")
    found = []
    with open(path) as f:
        for line in f:
            mm = pat.search(line)
            if mm:
                found.append((float(mm.group(1)), float(mm.group(2))))
    bad = [(a, b) for a, b in found if not b > a]
    for a, b in found:
        print("kept %.4f -> %.4f%s" % (a, b, "" if b > a else "  NOT MORE"))
    if len(found) != expected or bad:
        print("FAIL: %d permutation remarks (expected %d), %d without gain"
              % (len(found), expected, len(bad)))
        return 1
    print("PASS")
    return 0


def _main(argv):
    if len(argv) == 2 and argv[0] == "const" and argv[1] in CONST_WEIGHTS:
        print(mlir_constant(argv[1]))
        return 0
    if argv == ["mlp"]:
        print(mlp_program())
        return 0
    if len(argv) == 3 and argv[0] == "kept-grows":
        return check_kept_grows(argv[1], int(argv[2]))
    print("usage: e2e_cases.py const {%s}\n"
          "       e2e_cases.py mlp\n"
          "       e2e_cases.py kept-grows LOG COUNT" % "|".join(CONST_WEIGHTS))
    return 2


if __name__ == "__main__":
    import sys
    sys.exit(_main(sys.argv[1:]))


# ---------------------------------------------------------------------------
# stc.conv on the CPU (test/E2E/conv-cpu-lowering.mlir)
# ---------------------------------------------------------------------------

#: entry -> (dtype, x shape (NHWC), filter shape (G*F, KH, KW, C), stride,
#: dilation, pad_low, pad_high, groups, bias, act, acc, alpha, beta).
#: The entries prune the filter 2:4 along C (zero-padded to a multiple of
#: 4) and compress it at run time.
CONV_CPU = {
    "conv_3x3_bias_relu_f32": ("f32", (2, 13, 13, 8), (16, 3, 3, 8), 1, 1,
                               1, 1, 1, True, "relu", False, 1.0, 0.0),
    "conv_3x3_c3_f16": ("f16", (1, 9, 9, 3), (8, 3, 3, 3), 1, 1, 1, 1, 1,
                        False, None, False, 1.0, 0.0),
    "conv_1x1_residual_f32": ("f32", (2, 7, 7, 32), (64, 1, 1, 32), 1, 1, 0,
                              0, 1, True, "relu", True, 1.0, 1.0),
    "conv_1x1_residual_f16": ("f16", (2, 7, 7, 32), (64, 1, 1, 32), 1, 1, 0,
                              0, 1, True, "relu", True, 1.0, 1.0),
    "conv_7x7_s2_f32": ("f32", (1, 35, 35, 3), (16, 7, 7, 3), 2, 1, 3, 3, 1,
                        True, "relu", False, 1.0, 0.0),
    "conv_dil2_f32": ("f32", (1, 12, 11, 8), (8, 3, 3, 8), 1, 2, (2, 1),
                      (1, 2), 1, False, None, False, 0.5, 0.0),
    "conv_groups2_f32": ("f32", (2, 10, 10, 16), (16, 3, 3, 8), 2, 1, 1, 1,
                         2, True, None, False, 1.0, 0.0),
    "conv_groups16_f16": ("f16", (1, 8, 8, 64), (64, 3, 3, 4), 1, 1, 1, 1,
                          16, True, "relu", False, 1.0, 0.0),
    "conv_dynamic_f32": ("f32", (2, 11, 9, 8), (16, 3, 3, 8), 2, 1, 1, 1, 1,
                         False, None, True, 2.0, -0.5),
}


def _conv_cpu_case(entry):
    (dtype, xs, ws, stride, dilation, pl, ph, groups, has_bias, act,
     has_acc, alpha, beta) = CONV_CPU[entry]
    f = ws[0]
    geometry = dict(stride=stride, dilation=dilation, pad_low=pl,
                    pad_high=ph, groups=groups)
    probe = stc_ref.conv2d_nhwc_ref(np.zeros(xs), np.zeros(ws), **geometry)
    out_shape = probe.shape
    args = [Arg(xs, dtype), Arg(ws, dtype, tie_free=(3, 4))]
    if has_bias:
        args.append(Arg((f,), dtype))
    if has_acc:
        args.append(Arg(out_shape, dtype))

    def ref_with(prune, alpha_=alpha, beta_=beta, act_=act):
        def ref(x, w, *rest):
            rest = list(rest)
            bias = rest.pop(0) if has_bias else None
            acc = rest.pop(0) if has_acc else None
            if prune:
                w = stc_ref.prune_conv_filter_24(w)
            return stc_ref.conv2d_nhwc_ref(x, w, bias=bias, act=act_,
                                           acc=acc, alpha=alpha_,
                                           beta=beta_, **geometry)
        return ref

    wrong = [_unpruned(ref_with(False))]
    if has_acc:
        wrong.append(("without acc", ref_with(True, beta_=0.0)))
    return Case(name=entry, args=args, outputs=[Arg(out_shape, dtype)],
                ref=ref_with(True), stc_args=["--entry=" + entry],
                wrong=wrong, doc="hand-written stc.conv @" + entry)


for _entry in CONV_CPU:
    register(_conv_cpu_case(_entry))


# ---------------------------------------------------------------------------
# linalg convolutions in every supported layout under --sparsity=force
# (test/E2E/conv-layouts-force.mlir): stc-sparsify-convolutions prunes the
# filter (a function argument, so at run time) 2:4 along the input channels
# and rewrites to stc.conv; the reference converts everything to NHWC/FHWC
# itself and convolves in float64.
# entry -> (dtype, layout, x shape, w shape, stride, dilation, pad (low,
#           high) on H/W as the tensor.pad in front, groups, bias along
#           the channel dim + ReLU)
# ---------------------------------------------------------------------------

CONV_LINALG = {
    "nhwc_fhwc_pad": ("f32", "nhwc_fhwc", (2, 9, 9, 12), (16, 3, 3, 12), 1,
                      1, ((1, 1), (1, 1)), 1, True),
    "nhwc_fhwc_c3_f16": ("f16", "nhwc_fhwc", (1, 15, 15, 3), (16, 7, 7, 3),
                         2, 1, ((3, 3), (3, 3)), 1, True),
    "nhwc_hwcf_s2_d2": ("f32", "nhwc_hwcf", (2, 13, 12, 8), (3, 3, 8, 12),
                        2, 2, ((0, 0), (0, 0)), 1, False),
    "nchw_fchw_bias_relu": ("f32", "nchw_fchw", (2, 8, 10, 9), (12, 8, 3, 3),
                            1, 1, ((1, 0), (2, 1)), 1, True),
    "ngchw_fgchw": ("f32", "ngchw_fgchw", (1, 2, 8, 7, 7), (6, 2, 8, 3, 3),
                    1, 1, ((1, 1), (1, 1)), 2, False),
    "nhwc_fhwc_f16_1x1": ("f16", "nhwc_fhwc", (1, 6, 6, 64), (40, 1, 1, 64),
                          1, 1, ((0, 0), (0, 0)), 1, True),
    # f16 forms of the other layouts, for the GPU kernels (emulator).
    "nhwc_hwcf_s2_d2_f16": ("f16", "nhwc_hwcf", (2, 13, 12, 16),
                            (3, 3, 16, 24), 2, 2, ((0, 0), (0, 0)), 1, False),
    "nchw_fchw_bias_relu_f16": ("f16", "nchw_fchw", (2, 8, 10, 9),
                                (12, 8, 3, 3), 1, 1, ((1, 0), (2, 1)), 1,
                                True),
    "ngchw_fgchw_f16": ("f16", "ngchw_fgchw", (1, 2, 8, 7, 7),
                        (6, 2, 8, 3, 3), 1, 1, ((1, 1), (1, 1)), 2, False),
}


def _to_nhwc(layout, x):
    if layout.startswith("nchw"):
        return x.transpose(0, 2, 3, 1)
    if layout.startswith("ngchw"):
        n, g, c, h, w = x.shape
        return x.transpose(0, 3, 4, 1, 2).reshape(n, h, w, g * c)
    return x


def _to_fhwc(layout, w):
    if layout == "nhwc_hwcf":
        return w.transpose(3, 0, 1, 2)
    if layout == "nchw_fchw":
        return w.transpose(0, 2, 3, 1)
    if layout == "ngchw_fgchw":
        f, g, c, kh, kw = w.shape
        return w.transpose(1, 0, 3, 4, 2).reshape(g * f, kh, kw, c)
    return w


def _from_nhwc(layout, y, groups):
    if layout.startswith("nchw"):
        return y.transpose(0, 3, 1, 2)
    if layout.startswith("ngchw"):
        n, oh, ow, gf = y.shape
        return y.reshape(n, oh, ow, groups, gf // groups).transpose(
            0, 3, 4, 1, 2)
    return y


@family(r"convl_([a-z0-9_]+?)(_emulate)?")
def _conv_linalg(entry, emulate):
    (dtype, layout, xs, ws, stride, dilation, pad, groups,
     bias_relu) = CONV_LINALG[entry]
    (pt, pb), (pl, pr) = pad
    geometry = dict(stride=stride, dilation=dilation, pad_low=(pt, pl),
                    pad_high=(pb, pr), groups=groups)
    probe = _from_nhwc(layout, stc_ref.conv2d_nhwc_ref(
        _to_nhwc(layout, np.zeros(xs)), _to_fhwc(layout, np.zeros(ws)),
        **geometry), groups)
    fhwc = _to_fhwc(layout, np.zeros(ws)).shape
    channel_axis = {"nhwc_fhwc": 3, "nhwc_hwcf": 2, "nchw_fchw": 1,
                    "ngchw_fgchw": 2}[layout]
    args = [Arg(xs, dtype), Arg(ws, dtype, tie_free=(channel_axis, 4))]
    if bias_relu:
        args.append(Arg((fhwc[0],), dtype))

    def ref_with(prune):
        def ref(x, w, *rest):
            w = _to_fhwc(layout, w)
            if prune:
                w = stc_ref.prune_conv_filter_24(w)
            y = stc_ref.conv2d_nhwc_ref(
                _to_nhwc(layout, x), w, bias=rest[0] if rest else None,
                act="relu" if bias_relu else None, **geometry)
            return _from_nhwc(layout, y, groups)
        return ref

    stc_args = ["--entry=" + entry, "--sparsity=force"]
    if emulate:
        stc_args.append("--device=emulate")
    return Case(name=None, args=args, outputs=[Arg(probe.shape, dtype)],
                ref=ref_with(True), stc_args=stc_args,
                wrong=[_unpruned(ref_with(False))],
                doc="linalg %s @%s under --sparsity=force" % (layout, entry))
