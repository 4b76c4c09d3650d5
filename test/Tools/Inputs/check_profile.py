#!/usr/bin/env python3
"""Checks an `stc-run --profile` file: its shape (every call has the seven
counters, integers where they count), and the given counters of the first
call and of every later one.

  check_profile.py PROFILE.json --device=D --calls=N
      [--first=k=v,...] [--rest=k=v,...] [--input-bytes=B]
      [--min-first-allocs=A]

Prints one line per mismatch and exits 1 if there is any.
"""
import json
import sys

KEYS = ("launches", "h2d_bytes", "d2h_bytes", "device_allocs",
        "device_frees", "kernel_ms", "wall_ms")


def pairs(text):
    out = {}
    for item in filter(None, text.split(",")):
        key, value = item.split("=")
        out[key] = int(value)
    return out


def main(argv):
    path, opts = argv[0], dict(a[2:].split("=", 1) for a in argv[1:])
    with open(path) as f:
        profile = json.load(f)
    bad = []
    if profile.get("device") != opts["device"]:
        bad.append("device %r, expected %r" % (profile.get("device"),
                                                opts["device"]))
    calls = profile.get("calls", [])
    if len(calls) != int(opts["calls"]):
        bad.append("%d calls, expected %s" % (len(calls), opts["calls"]))
    for i, call in enumerate(calls):
        for key in KEYS:
            if key not in call:
                bad.append("call %d has no %s" % (i, key))
            elif key.endswith("_ms"):
                if not isinstance(call[key], (int, float)) or call[key] < 0:
                    bad.append("call %d: %s = %r" % (i, key, call[key]))
            elif not isinstance(call[key], int) or call[key] < 0:
                bad.append("call %d: %s = %r" % (i, key, call[key]))
        want = pairs(opts.get("first" if i == 0 else "rest", ""))
        for key, value in want.items():
            if call.get(key) != value:
                bad.append("call %d: %s = %r, expected %d" %
                           (i, key, call.get(key), value))
    if "input-bytes" in opts and \
            profile.get("input_bytes") != int(opts["input-bytes"]):
        bad.append("input_bytes %r, expected %s" %
                   (profile.get("input_bytes"), opts["input-bytes"]))
    if "min-first-allocs" in opts and calls and \
            calls[0].get("device_allocs", 0) < int(opts["min-first-allocs"]):
        bad.append("call 0 made %r device allocations, expected at least %s"
                   % (calls[0].get("device_allocs"), opts["min-first-allocs"]))
    for line in bad:
        print("check_profile: " + line)
    if not bad:
        print("check_profile: %d calls OK" % len(calls))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
