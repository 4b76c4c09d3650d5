# -*- Python -*-
# lit configuration for the stc test suite.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "Stc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lib", "CMakeLists.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.stc_obj_root, "test")

# The benchmark scripts find the tools and runtime of this build through it.
config.environment["STC_BUILD_DIR"] = config.stc_obj_root
config.environment["FILECHECK_OPTS"] = (
    "-enable-var-scope --allow-unused-prefixes=false")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# RUN lines that start with `not` find it on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.stc_tools_dir, config.llvm_tools_dir]
# --param stc_run_prefix="compute-sanitizer --tool memcheck ...": every
# stc-run of the tests runs under that command (scripts/gpu-sanitize.sh).
stc_run_prefix = lit_config.params.get("stc_run_prefix", "")
stc_run_tool = "stc-run"
if stc_run_prefix:
    from lit.llvm.subst import ToolSubst
    stc_run_tool = ToolSubst(
        "stc-run", command=stc_run_prefix + " " +
        os.path.join(config.stc_tools_dir, "stc-run"))
llvm_config.add_tool_substitutions(
    ["stc-opt", "stc-compile", stc_run_tool, "stc-prune", "stc-import-onnx",
     "stc-tune",
     "StcUnitTests"], tool_dirs)
# %python: STC_TEST_PYTHON where set (a GPU machine whose NumPy is not in
# /usr/bin/python3, scripts/gpu-remote-tests.sh), else the system's.
config.substitutions.append(("%python", os.environ.get("STC_TEST_PYTHON") or (
    "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else config.python_executable)))
config.substitutions.append(
    ("%e2e", config.python_executable + " " +
     os.path.join(config.stc_src_root, "test", "lib", "run_e2e.py") +
     " --stc-run " + os.path.join(config.stc_tools_dir, "stc-run")))
config.substitutions.append(("%stc_src", config.stc_src_root))
config.substitutions.append(("%stc_obj_root", config.stc_obj_root))
# The example programs, generated at build time (examples/CMakeLists.txt).
config.substitutions.append(
    ("%stc_examples", os.path.join(config.stc_obj_root, "examples")))
config.substitutions.append(("%stc_version", config.stc_version))
# %gpu_target: the GPU tests' target, empty (stc-run's choice for the device)
# unless lit is run with --param gpu_target=sm_90a (or another sm_XY), so
# that one GPU machine runs the same programs for a second target
# (scripts/gpu-session.sh does: sm_80 PTX, and sm_90 on a Hopper, whose
# default is sm_90a).
gpu_target = lit_config.params.get("gpu_target", "")
config.substitutions.append(
    ("%gpu_target", "--target=" + gpu_target if gpu_target else ""))

try:
    import numpy  # noqa: F401
    config.available_features.add("numpy")
except ImportError:
    pass


# Features `onnx`, `torch`, `torchvision`: %python imports them. The ONNX
# front-end tests build models with onnx (python3-onnx) and, where
# installed, export them from torch/torchvision; the GPU benchmark's
# simulated-worker tests (test/Bench) need torch. %onnx_run runs one model
# through stc-run against the NumPy reference of ONNX semantics
# (test/lib/onnx_run.py).
test_python = os.environ.get("STC_TEST_PYTHON") or (
    "/usr/bin/python3" if os.path.exists("/usr/bin/python3")
    else config.python_executable)


def python_has(module):
    import subprocess
    try:
        return subprocess.run([test_python, "-c", "import " + module],
                              stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


for module in ("onnx", "torch", "torchvision"):
    if python_has(module):
        config.available_features.add(module)
config.substitutions.append(
    ("%onnx_run", test_python + " " +
     os.path.join(config.stc_src_root, "test", "lib", "onnx_run.py") +
     " --stc-run " + os.path.join(config.stc_tools_dir, "stc-run")))

# The fake CUDA driver of the runtime's unit tests (test/Unit/FakeCudaDriver.cpp):
# tools tests load it with STC_CUDA_DRIVER_LIBRARY=%fake_cuda and pick its
# behaviour with STC_FAKE_CUDA_SCENARIO.
config.substitutions.append(
    ("%fake_cuda", os.path.join(config.stc_obj_root, "lib", "libstc_fake_cuda.so")))

# Sanitizer builds (-DSTC_SANITIZE=address,undefined: scripts/test.sh
# --sanitize). Debian's LLVM/MLIR libraries are not instrumented, and
# LLVM's allocators poison and unpoison memory through ASan's user
# interface (BumpPtrAllocator, when built with ASan headers): mixed with
# uninstrumented code that leads to false "use-after-poison" reports at
# MLIRContext creation, which allow_user_poisoning=0 turns off. Programs
# that tests link with STC's instrumented libraries (AOT hosts, the
# consumer project) need the sanitizer runtime too: they are built by the
# compiler that built STC, with the same -fsanitize flags.
stc_sanitize = getattr(config, "stc_sanitize", "")
sanitize_flags = ""
if stc_sanitize:
    config.available_features.add("sanitize")
    sanitize_flags = " -fsanitize=" + stc_sanitize
    config.environment["ASAN_OPTIONS"] = (
        "allow_user_poisoning=0:detect_leaks=1:abort_on_error=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1"
    config.environment["TSAN_OPTIONS"] = "halt_on_error=1"
config.substitutions.append(
    ("%consumer_cmake_args",
     "-DCMAKE_C_COMPILER=%s -DCMAKE_CXX_COMPILER=%s "
     "-DCMAKE_EXE_LINKER_FLAGS=%s" % (config.host_cc, config.host_cxx,
                                       sanitize_flags.strip())
     if stc_sanitize else ""))

# A C compiler and the runtime libraries, to link AOT objects into programs.
config.substitutions.append(
    ("%host_cc", (getattr(config, "host_cc", "cc") or "cc") + sanitize_flags))
config.substitutions.append(
    ("%stc_runtime_libs", " ".join(
        [os.path.join(config.stc_obj_root, "runtime", lib)
         for lib in ("libstc_runtime.a", "libStcFormat.a")] +
        ["-lstdc++", "-ldl", "-lm", "-lpthread"])))

# The CUDA toolkit: -DSTC_CUDA_PATH=... at configure time, else $CUDA_PATH,
# $CUDA_HOME, /usr/local/cuda, as stc-compile looks for it; then ptxas on
# $PATH. Feature `ptxas` when there is one; %ptxas runs it and %cuda_path
# names its toolkit (for stc-compile --cuda-path).
def find_ptxas():
    roots = [getattr(config, "stc_cuda_path", ""), os.environ.get("CUDA_PATH", ""),
             os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"]
    for root in roots:
        candidate = os.path.join(root, "bin", "ptxas") if root else ""
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("ptxas")


ptxas = find_ptxas()
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
    config.substitutions.append(
        ("%cuda_path", os.path.dirname(os.path.dirname(os.path.realpath(ptxas)))))

# Feature `nvcc`: %cuda_path/bin/nvcc exists; %nvcc runs it (CUDA test
# programs such as test/GPU/probe/mma_sp_probe.cu). %stc_emulator_libs links
# the CPU model of mma.sp (runtime/emulator/MmaSpModel.h) into them.
config.substitutions.append(
    ("%stc_emulator_libs", " ".join(
        [os.path.join(config.stc_obj_root, "runtime", lib)
         for lib in ("libStcGpuEmulator.a", "libStcFormat.a")] +
        ["-lpthread"])))
# Not in sanitizer builds: nvcc links with the host gcc, which has no
# runtime for clang's instrumented emulator libraries (the normal build
# runs these tests).
if ptxas and not stc_sanitize:
    nvcc = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(ptxas))),
                        "bin", "nvcc")
    if os.access(nvcc, os.X_OK):
        config.available_features.add("nvcc")
        config.substitutions.append(("%nvcc", nvcc))


# Feature `cuda`: a real CUDA driver with an sm_80 or later device, as
# `stc-run --list-devices` reports it ("N: NAME sm_XY, M MiB"; exit 1
# without driver or device). GPU tests say `REQUIRES: cuda` and are
# UNSUPPORTED elsewhere. The fake driver never counts.
def cuda_device_sms():
    import re
    import subprocess
    stc_run = os.path.join(config.stc_tools_dir, "stc-run")
    if not os.access(stc_run, os.X_OK):
        return []
    env = dict(os.environ)
    env.pop("STC_CUDA_DRIVER_LIBRARY", None)
    env.pop("STC_FAKE_CUDA_SCENARIO", None)
    try:
        out = subprocess.run([stc_run, "--list-devices"], env=env, timeout=120,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True)
    except (OSError, subprocess.SubprocessError):
        return []
    if out.returncode != 0:
        return []
    sms = []
    for line in out.stdout.splitlines():
        m = re.match(r"^\d+: .* sm_(\d+)[a-z]?(,| |$)", line)
        if m and int(m.group(1)) >= 80 and "unsupported" not in line:
            sms.append(int(m.group(1)))
    return sms


# Feature `cuda-sm90a`: device 0 (the one stc-run uses) is compute
# capability 9.0 exactly, the only one sm_90a code runs on (H100/H200).
cuda_sms = cuda_device_sms()
if cuda_sms:
    config.available_features.add("cuda")
    if cuda_sms[0] == 90:
        config.available_features.add("cuda-sm90a")

# Feature `valgrind`: tests that also check a program for leaks and invalid
# accesses under valgrind where there is one (docs/RELIABILITY.md).
if shutil.which("valgrind"):
    config.available_features.add("valgrind")


# Feature `tsan`: a clang++ (the one that builds the libFuzzer driver, else
# clang++-22 or clang++) whose ThreadSanitizer runtime links; %tsan_cxx.
def find_tsan_cxx():
    import subprocess
    import tempfile
    for cxx in (getattr(config, "stc_fuzz_clang", ""),
                shutil.which("clang++-22"), shutil.which("clang++")):
        if not cxx or not os.access(cxx, os.X_OK):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            src = os.path.join(tmp, "probe.cpp")
            with open(src, "w") as f:
                f.write("int main() { return 0; }\n")
            try:
                ok = subprocess.run([cxx, "-fsanitize=thread", src, "-o",
                                     os.path.join(tmp, "probe")],
                                    stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL,
                                    timeout=60).returncode == 0
            except (OSError, subprocess.SubprocessError):
                ok = False
        if ok:
            return cxx
    return None


tsan_cxx = find_tsan_cxx()
if tsan_cxx:
    config.available_features.add("tsan")
    config.substitutions.append(("%tsan_cxx", tsan_cxx))
