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
#: Tolerances follow DESIGN section 7 (fp32 < 1e-5, fp16/bf16 < 1e-2).
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
#: then groups with a single non-zero and an all-zero group (DESIGN section
#: 3: a group with fewer than two non-zeros still stores two entries).
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


def _main(argv):
    if len(argv) == 2 and argv[0] == "const" and argv[1] in CONST_WEIGHTS:
        print(mlir_constant(argv[1]))
        return 0
    print("usage: e2e_cases.py const {%s}" % "|".join(CONST_WEIGHTS))
    return 2


if __name__ == "__main__":
    import sys
    sys.exit(_main(sys.argv[1:]))
