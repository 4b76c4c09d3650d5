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
              half-range of the random integers (ints).
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
