"""Checks that every kernel metadata file in a folder records the sha256 of
each artifact it names, and that the hash is that of the file's bytes.
Prints one line per (metadata, artifact) and exits 1 on any mismatch."""
import glob
import hashlib
import json
import os
import sys

folder = sys.argv[1]
bad = 0
for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
    meta = json.load(open(path))
    if "kernel" not in meta:
        continue
    hashes = meta.get("sha256", {})
    for key in ("ptx", "cubin", "hsaco"):
        name = meta.get(key)
        if not name:
            continue
        digest = hashlib.sha256(open(os.path.join(folder, name), "rb").read()).hexdigest()
        ok = hashes.get(key) == digest
        bad += not ok
        print(f"{os.path.basename(path)} {key}: {'OK' if ok else 'MISMATCH'}")
sys.exit(1 if bad else 0)
