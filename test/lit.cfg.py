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

config.environment["FILECHECK_OPTS"] = (
    "-enable-var-scope --allow-unused-prefixes=false")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
# RUN lines that start with `not` find it on PATH.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.stc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(
    ["stc-opt", "stc-compile", "stc-run", "stc-prune", "StcUnitTests"], tool_dirs)
config.substitutions.append(("%python", "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else config.python_executable))
config.substitutions.append(
    ("%e2e", config.python_executable + " " +
     os.path.join(config.stc_src_root, "test", "lib", "run_e2e.py") +
     " --stc-run " + os.path.join(config.stc_tools_dir, "stc-run")))
config.substitutions.append(("%stc_src", config.stc_src_root))
config.substitutions.append(("%stc_obj_root", config.stc_obj_root))
config.substitutions.append(("%stc_version", config.stc_version))

try:
    import numpy  # noqa: F401
    config.available_features.add("numpy")
except ImportError:
    pass

# GPU tests say `// REQUIRES: cuda`.
if shutil.which("nvidia-smi") or os.path.exists("/dev/nvidiactl"):
    config.available_features.add("cuda")
if shutil.which("ptxas") or os.path.exists("/usr/local/cuda/bin/ptxas"):
    config.available_features.add("ptxas")
