"""What the tuning flow's scripts share (docs/TUNING.md; bench/README.md,
"GPU tuning"): tune_build.py (build machine), tune_bench.py (the GPU
machine, and its synthetic mode on the build machine) and
build_programs.py (the stc_auto method of the GEMM benchmark).

- stc-tune's side: shape lists (`matmul M N K DTYPE [OUT]`, `conv N H W
  C F KH KW STRIDE PAD DTYPE [OUT]`), running
  stc-tune, reading and checking its manifest.json;
- `#stc_gpu.kernel_config<...>` texts: parsing them, and comparing a
  built kernel's kernel info with the configuration it was built for;
- the tuning database (tuning/stc-tuning-db.json): loading and checking a
  file (one error naming the file, the entry and what is wrong), the
  entries of a run's results, merging them (an entry with the same key is
  replaced; entries sorted by key) and writing the file atomically;
- the synthetic timing formula of `run-tune --synthetic`.

Pure Python 3 standard library (no NumPy, no torch): every step imports it.
"""

import json
import math
import os
import re
import subprocess
import tempfile
import time

#: stc-tune's manifest (docs/TUNING.md, "manifest.json").
MANIFEST_FORMAT = "stc-tune-manifest"
MANIFEST_VERSION = 1
#: The members of a key as stc-tune writes it (without device and cc,
#: which the GPU machine adds), and of a database key; op "conv" also has
#: CONV_MEMBER (the convolution's geometry).
KEY_MEMBERS = ("arch", "op", "m", "n", "k", "batch", "dtype", "out", "epilogue")
DB_KEY_MEMBERS = ("device", "cc") + KEY_MEMBERS
INT_MEMBERS = ("m", "n", "k", "batch")
OPS = ("matmul", "conv")
CONV_MEMBER = "conv"
#: A convolution key's "conv" object: sizes, then [h, w] / [top, left,
#: bottom, right] lists with their minimum (passes/Tuning/TuningDb.cpp).
CONV_SIZES = ("n", "h", "w", "c", "f", "kh", "kw", "groups")
CONV_LISTS = (("stride", 2, 1), ("dilation", 2, 1), ("pad", 4, 0))
#: What a key's sizes may be (the compiler's bound).
MAX_SIZE = 1 << 31
#: The database's format number (its "stc_tuning_db" member).
DB_VERSION = 1
#: What a database candidate's status may be.
DB_STATUSES = ("ok", "wrong", "failed")
#: The synthetic mode's device name (its compute capability is a real one,
#: so that the compiler uses its entries: tune_bench.py --synthetic-cc).
SYNTHETIC_DEVICE = "SYNTHETIC"


class TuneError(ValueError):
    """A manifest, configuration or database that cannot be used; the
    message names the file and what is wrong."""


# ===========================================================================
# stc-tune: shape lists, running it, its manifest
# ===========================================================================

def shape_list_text(rows, what, conv_rows=()):
    """A shape list for stc-tune --shapes: one `matmul M N K DTYPE OUT`
    line per (name, m, n, k, dtype, out) of `rows`, then the `conv N H W C
    F KH KW STRIDE PAD DTYPE OUT` line of each (name, line) of
    `conv_rows`, each after a comment naming it; `what`: the header
    comment (who wrote it)."""
    out = ["# %s" % what, "# matmul M N K DTYPE OUT (docs/TUNING.md, stc-tune --shapes)"]
    if conv_rows:
        out.append("# conv N H W C F KH KW STRIDE PAD DTYPE OUT (NHWC, one group)")
    for name, m, n, k, dt, o in rows:
        out.append("# %s" % name)
        out.append("matmul %d %d %d %s %s" % (m, n, k, dt, o))
    for name, line in conv_rows:
        out.append("# %s" % name)
        out.append(line)
    return "\n".join(out) + "\n"


def run_stc_tune(stc_tune, shapes_path, target, out_dir, tuning_db=None, candidates=None,
                 timeout=1800):
    """stc-tune --shapes=SHAPES --target=TARGET -o OUT_DIR [--tuning-db=FILE]
    [--candidates=N]: (exit status, its output, the command as text, seconds).
    A missing or unrunnable stc-tune is exit status 127 with the reason."""
    cmd = [stc_tune, "--shapes=" + shapes_path, "--target=" + target, "-o", out_dir]
    if tuning_db:
        cmd.append("--tuning-db=" + tuning_db)
    if candidates:
        cmd.append("--candidates=%d" % candidates)
    text = " ".join(["stc-tune"] + cmd[1:])
    t0 = time.time()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), text, time.time() - t0
    except subprocess.TimeoutExpired:
        return 124, "stc-tune timed out after %d s" % timeout, text, time.time() - t0
    except OSError as e:
        return 127, "cannot run %s: %s" % (stc_tune, e), text, time.time() - t0


def _want(cond, where, what):
    if not cond:
        raise TuneError("%s: %s" % (where, what))


def _is_int(v, lo):
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= MAX_SIZE


def check_key(key, where, members=KEY_MEMBERS):
    """Raises TuneError unless `key` is an object with every member of
    `members`, the sizes integers in 1..2^31, the others strings, op one of
    OPS, and a convolution's "conv" geometry complete (its channels
    multiples of its groups), as passes/Tuning/TuningDb.cpp reads keys."""
    _want(isinstance(key, dict), where, "the key is not an object")
    missing = [m for m in members if m not in key]
    _want(not missing, where, "the key lacks %s" % ", ".join(missing))
    for m in members:
        v = key[m]
        if m in INT_MEMBERS:
            _want(_is_int(v, 1), where, "key member %s is %r, not an integer in 1..2^31"
                  % (m, v))
        else:
            _want(isinstance(v, str) and v, where, "key member %s is %r, not a string"
                  % (m, v))
    _want(key["op"] in OPS, where, "key op %r is not tuned (expected %s)"
          % (key["op"], " or ".join(OPS)))
    if key["op"] != "conv":
        return
    c = key.get(CONV_MEMBER)
    _want(isinstance(c, dict), where, "key op conv has no \"conv\" object")
    for m in CONV_SIZES:
        _want(_is_int(c.get(m), 1), where, "conv member %s is %r, not an integer in 1..2^31"
              % (m, c.get(m)))
    for m, n, lo in CONV_LISTS:
        v = c.get(m)
        _want(isinstance(v, list) and len(v) == n and all(_is_int(x, lo) for x in v), where,
              "conv member %s is %r, not %d integers >= %d" % (m, v, n, lo))
    _want(c["c"] % c["groups"] == 0 and c["f"] % c["groups"] == 0, where,
          "conv's channels are not a multiple of its groups")


def read_manifest(path):
    """stc-tune's manifest.json at `path`, checked (docs/TUNING.md): its
    format and version, every op's name, complete key and candidates (name,
    sparse, config that parses, program). Raises TuneError naming the file,
    the op and what is wrong."""
    try:
        with open(path) as f:
            man = json.load(f)
    except OSError as e:
        raise TuneError("cannot read %s: %s" % (path, e))
    except ValueError as e:
        raise TuneError("%s is not valid JSON: %s" % (path, e))
    _want(isinstance(man, dict) and man.get("format") == MANIFEST_FORMAT, path,
          "not an stc-tune manifest (\"format\" is not %r)" % MANIFEST_FORMAT)
    _want(man.get("version") == MANIFEST_VERSION, path,
          "manifest version %r, this script reads %d" % (man.get("version"), MANIFEST_VERSION))
    _want(isinstance(man.get("target"), str), path, "no \"target\"")
    _want(isinstance(man.get("ops"), list), path, "\"ops\" is not a list")
    names = set()
    for i, op in enumerate(man["ops"]):
        where = "%s: op %d" % (path, i)
        _want(isinstance(op, dict) and isinstance(op.get("name"), str) and op["name"], where,
              "no name")
        where += " (%s)" % op["name"]
        _want(op["name"] not in names, where, "a second op of that name")
        names.add(op["name"])
        check_key(op.get("key"), where)
        _want(op["key"]["arch"] == man["target"], where, "key arch %s, manifest target %s"
              % (op["key"]["arch"], man["target"]))
        cands = op.get("candidates")
        _want(isinstance(cands, list) and cands, where, "no candidates")
        cnames = set()
        for j, c in enumerate(cands):
            cw = "%s, candidate %d" % (where, j)
            _want(isinstance(c, dict) and isinstance(c.get("name"), str) and c["name"], cw,
                  "no name")
            cw += " (%s)" % c["name"]
            _want(c["name"] not in cnames, cw, "a second candidate of that name")
            cnames.add(c["name"])
            _want(isinstance(c.get("sparse"), bool), cw, "\"sparse\" is not true or false")
            _want(isinstance(c.get("program"), str) and c["program"], cw, "no program")
            _want(not os.path.isabs(c["program"]) and ".." not in c["program"].split("/"), cw,
                  "program %r is not a path inside the manifest's directory" % c["program"])
            try:
                parse_config(c.get("config"))
            except TuneError as e:
                raise TuneError("%s: %s" % (cw, e))
    return man


# ===========================================================================
# #stc_gpu.kernel_config<...>
# ===========================================================================

_CONFIG = re.compile(r"^\s*#stc_gpu\.kernel_config<(.*)>\s*$", re.S)


def parse_config(text):
    """The members of a `#stc_gpu.kernel_config<k = v, ...>` text: a dict,
    integers as int, true/false as bool, the rest as strings; arch, family,
    block_rows and block_cols (the parameters without a default) must be
    there."""
    if not isinstance(text, str):
        raise TuneError("the configuration is %r, not a #stc_gpu.kernel_config text" % (text,))
    m = _CONFIG.match(text)
    if not m:
        raise TuneError("configuration %r is not a #stc_gpu.kernel_config<...> text" % text)
    out = {}
    body = m.group(1).strip()
    for item in (body.split(",") if body else []):
        k, eq, v = item.partition("=")
        k, v = k.strip(), v.strip()
        if not eq or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", k) or not v:
            raise TuneError("configuration %r: cannot read member %r" % (text, item.strip()))
        if re.fullmatch(r"-?\d+", v):
            out[k] = int(v)
        elif v in ("true", "false"):
            out[k] = v == "true"
        else:
            out[k] = v
    # The attribute's parameters without a default (dialects/StcGpu/StcGpuAttrs.td).
    for k in ("arch", "family", "block_rows", "block_cols"):
        if k not in out:
            raise TuneError("configuration %r has no %s" % (text, k))
    for k in ("block_rows", "block_cols"):
        if not isinstance(out[k], int) or isinstance(out[k], bool) or out[k] <= 0:
            raise TuneError("configuration %r: %s is %r, not a positive integer"
                            % (text, k, out[k]))
    return out


def config_mismatches(config_text, ki):
    """Where a built kernel (its kernel info `ki`) differs from the
    configuration it was built with: the family (the kernel's variant),
    the block tile, the stages, the cluster and (a convolution's) the
    pixel tile. Empty when it matches (members the kernel info does not
    state are not compared)."""
    c = parse_config(config_text)
    bad = []
    fam, var = c.get("family"), ki.get("variant")
    if fam in ("wgmma", "staged", "direct") and var is not None and fam != var:
        bad.append("family %s, but the kernel is a %s one" % (fam, var))
    tile = ki.get("tile")
    if tile and "block_rows" in c and "block_cols" in c and \
            list(tile) != [c["block_rows"], c["block_cols"]]:
        bad.append("block %dx%d, but the kernel's tile is %s"
                   % (c["block_rows"], c["block_cols"], "x".join(map(str, tile))))
    if "stages" in c and ki.get("stages") is not None and ki["stages"] != c["stages"]:
        bad.append("%d stages, but the kernel has %s" % (c["stages"], ki["stages"]))
    cl = ki.get("cluster")
    if cl and list(cl) != [1, c.get("cluster_rows", 1), 1]:
        bad.append("cluster_rows %d, but the kernel's cluster is %s"
                   % (c.get("cluster_rows", 1), "x".join(map(str, cl))))
    # A convolution's wgmma kernel: its output pixel tile (TH x TW).
    pt = ki.get("pixel_tile")
    if pt and ("pixel_tile_h" in c or "pixel_tile_w" in c) and \
            list(pt) != [c.get("pixel_tile_h"), c.get("pixel_tile_w")]:
        bad.append("pixel tile %sx%s, but the kernel's is %s"
                   % (c.get("pixel_tile_h"), c.get("pixel_tile_w"), "x".join(map(str, pt))))
    return bad


# ===========================================================================
# The tuning database
# ===========================================================================

def empty_db():
    return {"stc_tuning_db": DB_VERSION, "entries": []}


def _check_choice(v, where, what, timed=True):
    """A best, runner_up or candidate: an object with sparse, a config
    that parses, a known status (best and runner_up: ok) and, when ok, a
    positive median_us (what passes/Tuning/TuningDb.cpp requires)."""
    _want(isinstance(v, dict), where, "%s is not an object" % what)
    status = v.get("status", "ok")
    _want(status in DB_STATUSES + ("skipped",), where, "%s has unknown status %r"
          % (what, status))
    _want(timed is False or status == "ok", where, "%s has status %r" % (what, status))
    _want(isinstance(v.get("sparse"), bool), where, "%s has no \"sparse\" true or false" % what)
    try:
        parse_config(v.get("config"))
    except TuneError as e:
        raise TuneError("%s: %s does not parse: %s" % (where, what, e))
    if status == "ok":
        mu = v.get("median_us")
        _want(isinstance(mu, (int, float)) and not isinstance(mu, bool) and mu > 0, where,
              "%s has no positive \"median_us\"" % what)


def check_db(db, path):
    """Raises TuneError (naming `path`, the entry's index and what is
    wrong) unless `db` is a tuning database: an object with
    "stc_tuning_db": 1 and a list of entries, each with a complete key (op
    matmul), a best that parses (and a runner_up, null or one that parses)
    and candidates that do (docs/TUNING.md, "The database"; the checks of
    passes/Tuning/TuningDb.cpp, so that what is written here the compiler
    reads), no key twice."""
    _want(isinstance(db, dict), path, "not a JSON object")
    _want(db.get("stc_tuning_db") == DB_VERSION, path,
          "no \"stc_tuning_db\": %d (found %r): not a tuning database"
          % (DB_VERSION, db.get("stc_tuning_db")))
    _want(isinstance(db.get("entries"), list), path, "\"entries\" is not a list")
    seen = {}
    for i, e in enumerate(db["entries"]):
        where = "%s: entry %d" % (path, i)
        _want(isinstance(e, dict), where, "not an object")
        check_key(e.get("key"), where, DB_KEY_MEMBERS)
        _want("best" in e, where, "no \"best\"")
        _check_choice(e["best"], where, "\"best\"")
        if e.get("runner_up") is not None:
            _check_choice(e["runner_up"], where, "\"runner_up\"")
        cands = e.get("candidates", [])
        _want(isinstance(cands, list), where, "\"candidates\" is not a list")
        for j, c in enumerate(cands):
            _check_choice(c, where, "candidates[%d]" % j, timed=False)
        kt = key_tuple(e["key"])
        _want(kt not in seen, where, "the same key as entry %d" % seen.get(kt, -1))
        seen[kt] = i
    return db


def load_db(path, missing_ok=True):
    """The database at `path`, checked (check_db); an empty one when the
    file does not exist and missing_ok. Raises TuneError."""
    if not os.path.exists(path):
        if missing_ok:
            return empty_db()
        raise TuneError("%s: no such file" % path)
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise TuneError("cannot read %s: %s" % (path, e))
    try:
        db = json.loads(text)
    except ValueError as e:
        raise TuneError("%s is not valid JSON (%s): refusing to merge into it" % (path, e))
    return check_db(db, path)


def key_tuple(key):
    """A database key's sort and comparison order: device, cc, arch, op,
    dtype, out, epilogue, then m, n, k, batch (numerically), then a
    convolution's geometry (two convolutions with one implicit GEMM but
    another stride are different keys)."""
    c = key.get(CONV_MEMBER) if key.get("op") == "conv" else None
    conv = () if not isinstance(c, dict) else tuple(c.get(m) for m in CONV_SIZES) + tuple(
        tuple(c.get(m) or ()) for m, _, _ in CONV_LISTS)
    return tuple(key[m] for m in ("device", "cc", "arch", "op", "dtype", "out", "epilogue")) + \
        tuple(key[m] for m in ("m", "n", "k", "batch")) + conv


def choice(c):
    """A candidate as `best` / `runner_up` (sparse, median_us, config)."""
    return {"sparse": c["sparse"], "median_us": c["median_us"], "config": c["config"]}


def entry(key, candidates, measured):
    """A database entry for `key` (device and cc included) from the
    measured candidates (each: sparse, config, status ok (with median_us,
    min_us), wrong or failed (with why)), in their order; best and
    runner_up are the two fastest ok ones (None when there is no second),
    ties to the earlier candidate. None when no candidate is ok (an entry
    needs a best)."""
    ok = sorted((c for c in candidates if c["status"] == "ok"),
                key=lambda c: c["median_us"])  # stable: ties keep their order
    if not ok:
        return None
    cands = []
    for c in candidates:
        d = {"sparse": c["sparse"], "config": c["config"]}
        if c["status"] == "ok":
            d.update(median_us=c["median_us"], min_us=c["min_us"])
        d["status"] = c["status"]
        if c["status"] != "ok":
            d["why"] = c.get("why") or c["status"]
        cands.append(d)
    k = {m: key[m] for m in DB_KEY_MEMBERS}
    if key["op"] == "conv":
        k[CONV_MEMBER] = key[CONV_MEMBER]
    return {"key": k, "best": choice(ok[0]),
            "runner_up": choice(ok[1]) if len(ok) > 1 else None,
            "candidates": cands, "measured": measured}


def merge(db, entries):
    """`db` with `entries` merged in: an entry with the key of an existing
    one replaces it; every entry sorted by key_tuple. Returns (the new
    database, how many were added, how many replaced)."""
    by_key = {key_tuple(e["key"]): e for e in db["entries"]}
    added = replaced = 0
    for e in entries:
        kt = key_tuple(e["key"])
        if kt in by_key:
            replaced += 1
        else:
            added += 1
        by_key[kt] = e
    out = dict(db)
    out["entries"] = [by_key[kt] for kt in sorted(by_key)]
    return out, added, replaced


def _one_line(v):
    return json.dumps(v, allow_nan=False)


def db_text(db):
    """The database as written: JSON with one line per member of an entry
    (its key, best, runner_up, measured) and per candidate, in the order
    of the members (the same database, the same bytes), a final newline;
    short lines that diff well."""
    out = ["{"]
    top = [(k, v) for k, v in db.items() if k != "entries"]
    for k, v in top:
        out.append("  %s: %s," % (_one_line(k), _one_line(v)))
    out.append('  "entries": [' if db["entries"] else '  "entries": []')
    for i, e in enumerate(db["entries"]):
        out.append("    {")
        items = list(e.items())
        for j, (k, v) in enumerate(items):
            sep = "," if j + 1 < len(items) else ""
            if isinstance(v, list) and v:
                out.append("      %s: [" % _one_line(k))
                out.extend("        %s%s" % (_one_line(x), "," if n + 1 < len(v) else "")
                           for n, x in enumerate(v))
                out.append("      ]" + sep)
            else:
                out.append("      %s: %s%s" % (_one_line(k), _one_line(v), sep))
        out.append("    }" + ("," if i + 1 < len(db["entries"]) else ""))
    if db["entries"]:
        out.append("  ]")
    out.append("}")
    return "\n".join(out) + "\n"


def write_db(path, db):
    """Writes `db` to `path` atomically: a temporary file beside it,
    flushed to disk, renamed over it (a reader sees the old file or the new
    one, never a part); the old file's permissions are kept."""
    check_db(db, path)  # never write what cannot be read back
    text = db_text(db)
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        mode = os.stat(path).st_mode & 0o777 if os.path.exists(path) else 0o644
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:  # the rename itself durable
        dfd = os.open(d, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
    except OSError:
        pass


# ===========================================================================
# The synthetic timing formula (run-tune --synthetic)
# ===========================================================================

#: The synthetic device: an H100-like part (SMs, dense f16 tensor-core
#: rate per SM in TFLOP/s, DRAM bandwidth in TB/s, launch overhead in us).
SYNTHETIC_SMS = 132
SYNTHETIC_SM_TFLOPS = 7.5
SYNTHETIC_DRAM_TBS = 3.35
SYNTHETIC_LAUNCH_US = 3.0
#: The fraction of the peak each family reaches in the formula.
SYNTHETIC_EFFICIENCY = {"wgmma": 0.70, "staged": 0.35, "direct": 0.08}
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i8": 1, "i32": 4}


def synthetic_time_us(config_text, key, sparse):
    """A deterministic stand-in for a measured median (microseconds) of a
    candidate (its configuration text, its key, whether it is the 2:4
    kernel): NOT a measurement. A roofline of an H100-like device: the
    tile-padded product's flops over the family's share of the peak (2:4:
    twice the dense peak; i8 twice f16), scaled down for fewer pipeline
    stages and smaller tiles, per wave of blocks over the SMs, against the
    bytes of A (2:4: half the values and their metadata), B and C at the
    DRAM bandwidth, plus a launch overhead. Different configurations of one
    key get different times, so best and runner_up are decided by the
    configuration as real measurements would be."""
    c = parse_config(config_text)
    m, n, k, dt = key["m"], key["n"], key["k"], key["dtype"]
    bm, bn = c.get("block_rows", 64), c.get("block_cols", 64)
    stages = max(1, c.get("stages", 2))
    eff = SYNTHETIC_EFFICIENCY.get(c["family"], 0.2)
    eff *= 1.0 - 0.5 / (stages + 1)
    eff *= ((bm * bn) / float(128 * 256)) ** 0.15
    if c.get("cluster_rows", 1) > 1:
        eff *= 1.03
    rate = SYNTHETIC_SM_TFLOPS * 1e12 * eff * (2 if sparse else 1) * (2 if dt == "i8" else 1)
    tiles = math.ceil(m / bm) * math.ceil(n / bn)
    waves = math.ceil(tiles / SYNTHETIC_SMS)
    compute_us = waves * (2.0 * bm * bn * k / rate) * 1e6
    es, oes = ELEMENT_BYTES.get(dt, 2), ELEMENT_BYTES.get(key["out"], 2)
    a_bytes = (m * k // 2 * es + m * k // 8) if sparse else m * k * es
    bytes_us = (a_bytes + k * n * es + m * n * oes) / (SYNTHETIC_DRAM_TBS * 1e12) * 1e6
    return round(max(compute_us, bytes_us) + SYNTHETIC_LAUNCH_US, 3)
