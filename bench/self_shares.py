#!/usr/bin/env python3
"""Compares the self shares of the hottest methods in two profiles of the same workload:
stackscope's methods view (report --json --top 0) and JFR's CPU-time samples (jfr print
--events jdk.CPUTimeSample --json). Prints one row per method in either top N, with both
shares and their difference in percentage points, then the largest difference.

Usage: self_shares.py STACKSCOPE.json JFR.json [N]   (N = 10)"""
import collections
import json
import sys


def stackscope_shares(path):
    report = json.load(open(path))
    total = report["samples"]
    return {m["method"]: m["self"] / total for m in report["methods"] if m["self"]}


def jfr_shares(path):
    events = json.load(open(path))["recording"]["events"]
    counts = collections.Counter()
    for event in events:
        frames = (event["values"].get("stackTrace") or {}).get("frames") or []
        if frames:  # a sample of a thread outside Java has no frame to credit
            method = frames[0]["method"]
            counts[method["type"]["name"].replace("/", ".") + "." + method["name"]] += 1
    total = sum(counts.values())
    return {name: count / total for name, count in counts.items()}


def top(shares, n):
    return [name for name, _ in sorted(shares.items(), key=lambda item: -item[1])[:n]]


def main():
    ours, jfr = stackscope_shares(sys.argv[1]), jfr_shares(sys.argv[2])
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10
    rows = sorted(set(top(ours, n)) | set(top(jfr, n)), key=lambda name: -max(ours.get(name, 0), jfr.get(name, 0)))
    print(f"{'stackscope':>10} {'JFR':>7} {'diff':>7}  method (self %, top {n} of either)")
    worst = 0.0
    for name in rows:
        a, b = 100 * ours.get(name, 0), 100 * jfr.get(name, 0)
        worst = max(worst, abs(a - b))
        print(f"{a:9.2f}% {b:6.2f}% {a - b:+6.2f}  {name}")
    within = sum(1 for name in rows if abs(ours.get(name, 0) - jfr.get(name, 0)) <= 0.05)
    print(f"largest difference {worst:.2f} pp; {within} of {len(rows)} methods within 5 pp")


if __name__ == "__main__":
    main()
