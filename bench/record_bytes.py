#!/usr/bin/env python3
"""Where a recording's bytes go, by record type: raw (decompressed) bytes of each type, and
the size zstd -3 gives the records of one type alone (what they would cost in a chunk of
their own). Reads the chunks by their headers (docs/format.md, Layout), decompresses with the
zstd command. Usage: bench/record_bytes.py FILE.ssr"""
import struct
import subprocess
import sys
from collections import defaultdict

NAMES = {1: "info", 2: "string", 3: "method", 4: "stack", 5: "thread", 6: "annotation",
         7: "stack_branch", 16: "sample", 17: "thread_start", 18: "thread_end", 19: "status",
         20: "lost", 21: "end", 22: "marker", 23: "annotation_change", 24: "agent_warning",
         25: "kind_sample", 26: "gc", 27: "exception", 28: "alloc", 29: "object_free", 30: "lock",
         31: "class_histogram", 32: "thread_parent", 33: "sample_run"}


def varint(data, pos):
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, pos


def main(path):
    data = open(path, "rb").read()
    by_type = defaultdict(bytearray)
    pos = 16
    while pos + 44 <= len(data) and data[pos:pos + 4] == b"SCHK":
        payload_size = struct.unpack_from("<I", data, pos + 8)[0]
        payload = data[pos + 44:pos + 44 + payload_size]
        raw = subprocess.run(["zstd", "-dcq"], input=payload, stdout=subprocess.PIPE, check=True).stdout
        at = 0
        while at < len(raw):
            start = at
            kind, at = varint(raw, at)
            length, at = varint(raw, at)
            at += length
            by_type[kind] += raw[start:at]
        pos += 44 + payload_size
    total = len(data)
    print(f"{path}: {total} bytes")
    print(f"{'record':>14} {'raw bytes':>10} {'zstd alone':>10} {'of file':>8}")
    for kind in sorted(by_type):
        records = bytes(by_type[kind])
        alone = len(subprocess.run(["zstd", "-3", "-cq"], input=records, stdout=subprocess.PIPE, check=True).stdout)
        print(f"{NAMES.get(kind, kind):>14} {len(records):>10} {alone:>10} {100.0 * alone / total:>7.1f}%")


if __name__ == "__main__":
    main(sys.argv[1])
