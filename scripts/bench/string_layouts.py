#!/usr/bin/env python3
"""How fast zstd compresses one CSV column's strings in Parquet's two
byte-array layouts, page by page.

    python3 scripts/bench/string_layouts.py CSV COLUMN [PAGE_KIB] [LEVEL]

Takes the values of COLUMN (1-based) of CSV (RFC 4180, no header) and
writes them twice beside the CSV: PLAIN (each value after its 4-byte
little-endian length) and as DELTA_LENGTH_BYTE_ARRAY keeps them (the
values back to back; the lengths, bit-packed apart, are left out). Then
runs `zstd -b LEVEL -B PAGE` on each, which compresses the file in
independent blocks of PAGE_KIB KiB (default 1024) at LEVEL (default 3),
as a writer compresses each page of a column chunk on its own, and prints
zstd's ratio and speed. (The bench-partition-parquet script's data has
free text in column 5.)
"""

import csv
import os
import struct
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    path, column = sys.argv[1], int(sys.argv[2]) - 1
    page_kib = int(sys.argv[3]) if len(sys.argv) > 3 else 1024
    level = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    plain_path, together_path = path + ".plain", path + ".together"
    with open(path, newline="", encoding="utf-8") as src, open(
        plain_path, "wb"
    ) as plain, open(together_path, "wb") as together:
        for record in csv.reader(src):
            value = record[column].encode()
            plain.write(struct.pack("<I", len(value)))
            plain.write(value)
            together.write(value)
    try:
        for name, layout in (("PLAIN", plain_path), ("values back to back", together_path)):
            print(f"{name} ({os.path.getsize(layout):,} bytes):", flush=True)
            subprocess.run(
                ["zstd", f"-b{level}", f"-B{page_kib * 1024}", "-i3", layout], check=True
            )
    finally:
        os.remove(plain_path)
        os.remove(together_path)


if __name__ == "__main__":
    main()
