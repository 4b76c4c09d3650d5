"""Shape table of the GPU GEMM benchmark (docs/DESIGN.md §8).

Every entry is C = A . B with A the sparse M x K operand (2:4 along K, the
reduction dimension; a weight in out_features x in_features layout) and B the
dense K x N operand (N = tokens, batch x sequence or the square size). This is
the orientation of PyTorch's `torch.mm(A_sparse, B)` with A a
SparseSemiStructuredTensor. An i8 program gives B transposed (N x K, K
contiguous; DTYPE_INFO) and has the exact i32 accumulator as its output.
Pure Python: imported by the build step (no GPU, no torch) and by the run
step.
"""

#: The element types of the programs, in build order: every shape is built
#: with each (bench/README.md, "GPU GEMM", says why i8 is on all of them).
DTYPES = ("f16", "bf16", "i8")

#: What each element type means for a program. `out`: its output type
#: (None: the input type, or f32 with STC_GPU_OUT=f32); `dense_transposed`:
#: whether B is given as N x K (K contiguous), which the i8 sm_90a kernel
#: (TMA + wgmma s8) needs, instead of K x N; `integer`: exact results, rates
#: in TOPS; `k_multiple`: what K must be a multiple of for STC (a value row,
#: K/2 elements, must be a multiple of 16 bytes for the i8 kernels);
#: `stc_dense`: whether STC's dense tensor-core kernel (method stc_dense,
#: mma.sync m16n8k16) is built for it: f16 and bf16 products only.
DTYPE_INFO = {
    "f16": {"out": None, "dense_transposed": False, "integer": False, "k_multiple": 16,
            "stc_dense": True},
    "bf16": {"out": None, "dense_transposed": False, "integer": False, "k_multiple": 16,
             "stc_dense": True},
    "i8": {"out": "i32", "dense_transposed": True, "integer": True, "k_multiple": 32,
           "stc_dense": False},
}


def out_dtype(dtype, requested="same"):
    """The output element type of a `dtype` program: an integer program's
    is its accumulator (i32) whatever `requested` (STC_GPU_OUT: same or
    f32) says; a float one's is its input type or f32."""
    fixed = DTYPE_INFO[dtype]["out"]
    if fixed:
        return fixed
    return dtype if requested == "same" else requested


def dense_transposed(dtype):
    """Whether a `dtype` program's B is given transposed (N x K)."""
    return DTYPE_INFO.get(dtype, {}).get("dense_transposed", False)


def is_integer(dtype):
    """Whether `dtype` programs are integer (exact results; rates in TOPS)."""
    return DTYPE_INFO.get(dtype, {}).get("integer", False)


def has_stc_dense(dtype):
    """Whether `dtype` programs also get STC's dense kernel (stc_dense)."""
    return DTYPE_INFO.get(dtype, {}).get("stc_dense", False)


def rate_unit(dtype):
    """The unit of a `dtype` program's rates (dense-equivalent 2*M*N*K
    operations per second, 1e12): TOPS for integer programs, else TFLOP/s."""
    return "TOPS" if is_integer(dtype) else "TFLOP/s"


#: The three shapes of `build --quick`: one square, one LLM decode (small N),
#: one BERT layer.
QUICK = (
    ("square-4096", "square", 4096, 4096, 4096),
    ("llm-up-11008x4096-n16", "llm", 11008, 16, 4096),
    ("bert-base-ffn-in-3072x768-b8", "bert", 3072, 1024, 768),
)


def full_table():
    """Returns [(name, group, M, N, K)] for the whole table, in run order."""
    rows = []
    for s in (4096, 8192, 16384):
        rows.append(("square-%d" % s, "square", s, s, s))
    # LLM linear layers (LLaMA-7B sizes): the weight is M x K
    # (out_features x in_features); N tokens.
    llm = (("llm-attn-4096x4096", 4096, 4096),
           ("llm-up-11008x4096", 11008, 4096),
           ("llm-down-4096x11008", 4096, 11008))
    for name, m, k in llm:
        for n in (16, 128, 512, 2048, 4096):
            rows.append(("%s-n%d" % (name, n), "llm", m, n, k))
    # BERT linear layers, sequence length 128, batch 8 and 32.
    bert = (("bert-base-attn-768x768", 768, 768),
            ("bert-base-ffn-in-3072x768", 3072, 768),
            ("bert-base-ffn-out-768x3072", 768, 3072),
            ("bert-large-attn-1024x1024", 1024, 1024),
            ("bert-large-ffn-in-4096x1024", 4096, 1024),
            ("bert-large-ffn-out-1024x4096", 1024, 4096))
    for name, m, k in bert:
        for batch in (8, 32):
            rows.append(("%s-b%d" % (name, batch), "bert", m, 128 * batch, k))
    return rows


def table(quick=False):
    """The shapes of a `build [--quick]`: [(name, group, M, N, K)]."""
    return list(QUICK) if quick else full_table()


def check_shape(m, n, k, dtype="f16"):
    """Returns a list of reasons why (M, N, K) does not suit the benchmark
    (empty when it does): the canonical format needs K % 16 == 0 (i8: 32,
    DTYPE_INFO's k_multiple), and PyTorch's semi-structured tensors need
    M % 32 == 0 and K % 64 == 0 (the CUTLASS backend's minimum sparse block
    for f16/bf16) and N % 8 == 0 (also torch._int_mm's, for i8)."""
    why = []
    km = DTYPE_INFO[dtype]["k_multiple"]
    if k % km:
        why.append("K=%d is not a multiple of %d (%s)" % (
            k, km, "one metadata word" if km == 16 else
            "16-byte %s value rows" % dtype))
    if m % 32 or k % 64:
        why.append("A=%dx%d is not a multiple of 32x64 (PyTorch CUTLASS "
                   "semi-structured minimum)" % (m, k))
    if n % 8:
        why.append("N=%d is not a multiple of 8 (PyTorch dense minimum)" % n)
    return why


#: "Large" shapes (docs/DESIGN.md §8's "every large shape" target of the
#: sm_90a kernel against cuSPARSELt): every dimension at least this. In the
#: table: the three squares and the LLaMA layers with N = 2048 and 4096.
LARGE_MIN_DIM = 2048


def is_large(m, n, k):
    """Whether (M, N, K) is a large shape (every dimension >= LARGE_MIN_DIM)."""
    return min(m, n, k) >= LARGE_MIN_DIM
