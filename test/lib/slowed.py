"""Runs a command slowed down: the process is stopped (SIGSTOP) for
STOP_MS out of every STOP_MS + RUN_MS milliseconds of wall-clock time and
resumed (SIGCONT) in between, so that it takes several times longer than
it would alone, as on a slow or loaded machine. Exits with the command's
status; its stdout and stderr pass through. Only the process itself is
stopped (STC's tools spawn nothing on these paths).

usage: slowed.py [--stop-ms N] [--run-ms N] -- COMMAND..."""
import argparse
import signal
import subprocess
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--stop-ms", type=float, default=20.0)
parser.add_argument("--run-ms", type=float, default=10.0)
parser.add_argument("command", nargs=argparse.REMAINDER)
args = parser.parse_args()
command = args.command[1:] if args.command[:1] == ["--"] else args.command
if not command:
    sys.exit("slowed.py: no command")

start = time.monotonic()
proc = subprocess.Popen(command)
stopped_for = 0.0
while proc.poll() is None:
    time.sleep(args.run_ms / 1000.0)
    try:
        proc.send_signal(signal.SIGSTOP)
    except ProcessLookupError:
        break
    time.sleep(args.stop_ms / 1000.0)
    stopped_for += args.stop_ms / 1000.0
    try:
        proc.send_signal(signal.SIGCONT)
    except ProcessLookupError:
        break
proc.wait()
sys.stderr.write("slowed.py: %.1f s, of which %.1f s stopped\n"
                 % (time.monotonic() - start, stopped_for))
sys.exit(proc.returncode)
