"""Stand-ins for test/Tools/gpu-sanitize-standin.test, so that
scripts/gpu-sanitize.sh runs its whole control flow on a machine with no
GPU:

  compute-sanitizer --tool T --error-exitcode N --log-file PATTERN
                    [--leak-check full] COMMAND...
      writes PATTERN (with %p its pid) as the tool would, with
      "ERROR SUMMARY: E errors" (E from $STANDIN_ERRORS, default 0), runs
      COMMAND and exits N when E > 0, else with COMMAND's status;
  runner FILTER -j N --param stc_run_prefix=PREFIX
      stands for gpu-remote-tests.sh (lit over the GPU tests): runs two
      stc-run programs on the fake CUDA driver through PREFIX and prints a
      lit-like PASS/FAIL line for each; sleeps $STANDIN_SLEEP seconds first
      (a run past the budget).

usage: gpu_sanitize_standins.py compute-sanitizer|runner ARGS..."""
import os
import shlex
import subprocess
import sys
import time

role, args = sys.argv[1], sys.argv[2:]
if role == "compute-sanitizer":
    tool = args[args.index("--tool") + 1]
    code = int(args[args.index("--error-exitcode") + 1])
    pattern = args[args.index("--log-file") + 1]
    i = args.index("--log-file") + 2
    if args[i:i + 2] == ["--leak-check", "full"]:
        i += 2
    errors = int(os.environ.get("STANDIN_ERRORS", "0"))
    with open(pattern.replace("%p", str(os.getpid())), "w") as f:
        f.write("========= COMPUTE-SANITIZER (stand-in, --tool %s)\n" % tool)
        f.write("========= ERROR SUMMARY: %d errors\n" % errors)
    rc = subprocess.run(args[i:]).returncode
    sys.exit(code if errors else rc)

# runner
time.sleep(float(os.environ.get("STANDIN_SLEEP", "0")))
prefix = next(a.split("=", 1)[1] for a in args if a.startswith("stc_run_prefix="))
stc_run, program = os.environ["STANDIN_STC_RUN"], os.environ["STANDIN_PROGRAM"]
status = 0
for entry in ("main", "main"):
    cmd = shlex.split(prefix) + [stc_run, program, "--device=cuda",
                                 "--random-inputs", "--entry=" + entry]
    rc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL).returncode
    print("%s: Stc :: GPU/standin-%s" % ("PASS" if rc == 0 else "FAIL", entry))
    status |= rc != 0
sys.exit(status)
