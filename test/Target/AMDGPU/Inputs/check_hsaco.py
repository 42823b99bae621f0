"""Checks accel-compile's AMDGPU resource report against the code objects,
read by LLVM's own tools rather than by accel's reader (lib/Runtime/
AmdgpuCodeObject.cpp). Standard library only (lit runs it with %python).

  check_hsaco.py check --readobj R --objdump O --chip CHIP
                       [--no-scratch] [--max-lds BYTES] DIR REPORT
      For every kernel JSON in DIR (accel-compile --target=amdgpu -o DIR)
      and the line accel-compile printed for it (REPORT, its stdout):
      - the JSON's resources.amdgpu vgprs / agprs / sgprs / wavefront_size /
        scratch_bytes equal the NT_AMDGPU_METADATA note's .vgpr_count /
        .agpr_count / .sgpr_count / .wavefront_size /
        .private_segment_fixed_size (`llvm-readobj --notes`);
      - allocated_vgprs equals the .amdhsa_next_free_vgpr that
        `llvm-objdump -D --disassemble-symbols=<kernel>.kd` decodes from the
        kernel descriptor (the granulated VGPR count times the granule), and
        that is the note's .vgpr_count rounded up to the granule of 8;
      - the descriptor's group and private segment sizes equal the note's,
        the JSON's static_shared_bytes the group segment, and the block the
        note's .reqd_workgroup_size;
      - the report line says the same numbers as the JSON and the note;
      - with --max-lds, static + dynamic LDS is at most BYTES; with
        --no-scratch, no scratch and no spills.
      Prints one line per kernel and a summary; exits 1 on any mismatch.

  check_hsaco.py exit CODE CMD...
      Runs CMD (its output passes through) and succeeds only if it exits
      with CODE.
"""

import argparse
import glob
import json
import os
import re
import subprocess
import sys

REPORT = re.compile(
    r"^(?P<kernel>\S+) \((?P<chip>\S+), wave(?P<wave>\d+)\): "
    r"(?P<vgprs>\d+) VGPRs \((?P<allocated>\d+) allocated, "
    r"(?P<agprs>\d+) of them AGPRs\), (?P<sgprs>\d+) SGPRs, "
    r"(?P<lds>\d+) bytes LDS \((?P<static>\d+) static \+ "
    r"(?P<dynamic>\d+) dynamic\), (?P<scratch>\d+) bytes scratch, "
    r"(?P<spills>\d+) spilled VGPRs, occupancy (?P<waves>\d+) waves/SIMD$")

# The VGPR encoding granule of the descriptor's
# GRANULATED_WORKITEM_VGPR_COUNT on the chips accel compiles for: 8 on
# gfx90a/gfx942 (VGPRs and AGPRs together) and on gfx11 in wave32.
GRANULE = 8


def run(cmd):
    result = subprocess.run(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True)
    if result.returncode != 0:
        raise SystemExit("check_hsaco.py: %s failed:\n%s" %
                         (" ".join(cmd), result.stderr))
    return result.stdout


def scalar(text):
    text = text.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    return text


def parse_notes(text):
    """The kernels of the AMDGPU metadata in `llvm-readobj --notes` output:
    {name: {key: value}}, keys of the kernel map only (its own lines, four
    spaces in), lists as lists of scalars; and amdhsa.target."""
    kernels, target = [], None
    current, list_key = None, None
    in_metadata = False
    for line in text.splitlines():
        if "AMDGPU Metadata: ---" in line:
            in_metadata = True
            continue
        if not in_metadata:
            continue
        if line.startswith("..."):
            in_metadata = False
            continue
        m = re.match(r"^(amdhsa\.\w+):\s*(.*)$", line)
        if m:
            current, list_key = None, None
            if m.group(1) == "amdhsa.target":
                target = m.group(2).strip()
            continue
        m = re.match(r"^  - (\.\w+):\s*(.*)$", line)
        if m:  # a new kernel map
            current, list_key = {}, None
            kernels.append(current)
        else:
            m = re.match(r"^    (\.\w+):\s*(.*)$", line)
            if not m:
                # A list item of the last key (".reqd_workgroup_size:" then
                # "      - 256"); nested maps (.args) are skipped.
                item = re.match(r"^      - (\S+)$", line)
                if current is not None and list_key and item:
                    current[list_key].append(scalar(item.group(1)))
                continue
        if current is None:
            continue
        key, value = m.group(1), m.group(2)
        if value.strip():
            current[key] = scalar(value)
            list_key = None
        else:
            current[key] = []
            list_key = key
    return {k.get(".name"): k for k in kernels}, target


def parse_descriptor(text):
    """The .amdhsa_* directives llvm-objdump decodes from a <kernel>.kd."""
    fields = {}
    for m in re.finditer(r"^\s*(\.amdhsa_\w+)\s+(\S+)\s*$", text, re.M):
        fields[m.group(1)] = scalar(m.group(2))
    return fields


def check(args):
    errors = []
    lines = {}
    with open(args.report) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                continue
            m = REPORT.match(line)
            if not m:
                errors.append("unexpected report line: %r" % line)
                continue
            if m.group("kernel") in lines:
                errors.append("two report lines for %s" % m.group("kernel"))
            lines[m.group("kernel")] = {
                k: (v if k in ("kernel", "chip") else int(v))
                for k, v in m.groupdict().items()}

    paths = sorted(glob.glob(os.path.join(args.dir, "*.json")))
    if not paths:
        errors.append("no kernel JSON in %s" % args.dir)
    seen = set()
    for path in paths:
        with open(path) as f:
            meta = json.load(f)
        if "functions" in meta and "library" in meta:
            continue  # <module>.json of the host library (docs/aot.md)
        kernel = meta["kernel"]
        seen.add(kernel)
        errors_before = len(errors)

        def expect(what, got, want):
            if got != want:
                errors.append("%s: %s is %r, expected %r" %
                              (kernel, what, got, want))

        expect("target", meta.get("target"), "amdgpu")
        expect("chip", meta.get("chip"), args.chip)
        res = meta["resources"]["amdgpu"]
        hsaco = os.path.join(args.dir, meta["hsaco"])

        notes, target = parse_notes(run([args.readobj, "--notes", hsaco]))
        expect("amdhsa.target", target, "amdgcn-amd-amdhsa--" + args.chip)
        note = notes.get(kernel)
        if note is None:
            errors.append("%s: no metadata for it in %s" % (kernel, hsaco))
            continue
        expect("the note's .symbol", note.get(".symbol"), kernel + ".kd")
        kd = parse_descriptor(run([
            args.objdump, "-D", "--mcpu=" + args.chip,
            "--disassemble-symbols=" + kernel + ".kd", hsaco]))
        if ".amdhsa_next_free_vgpr" not in kd:
            errors.append("%s: llvm-objdump decoded no kernel descriptor %s.kd"
                          % (kernel, kernel))
            continue

        # The JSON against the note.
        expect("vgprs (note .vgpr_count)", res["vgprs"], note[".vgpr_count"])
        # Chips without AGPRs (gfx1100) have no .agpr_count.
        expect("agprs (note .agpr_count)", res["agprs"],
               note.get(".agpr_count", 0))
        expect("sgprs (note .sgpr_count)", res["sgprs"], note[".sgpr_count"])
        expect("wavefront_size (note .wavefront_size)", res["wavefront_size"],
               note[".wavefront_size"])
        expect("scratch_bytes (note .private_segment_fixed_size)",
               res["scratch_bytes"], note[".private_segment_fixed_size"])
        expect("static_shared_bytes (note .group_segment_fixed_size)",
               meta["resources"]["static_shared_bytes"],
               note[".group_segment_fixed_size"])
        expect("block (note .reqd_workgroup_size)", meta["block"],
               note.get(".reqd_workgroup_size"))

        # The JSON against the kernel descriptor.
        expect("allocated_vgprs (descriptor .amdhsa_next_free_vgpr)",
               res["allocated_vgprs"], kd[".amdhsa_next_free_vgpr"])
        rounded = -(-max(note[".vgpr_count"], 1) // GRANULE) * GRANULE
        expect("descriptor .amdhsa_next_free_vgpr (note .vgpr_count rounded "
               "up to %d)" % GRANULE, kd[".amdhsa_next_free_vgpr"], rounded)
        expect("descriptor .amdhsa_group_segment_fixed_size",
               kd.get(".amdhsa_group_segment_fixed_size"),
               note[".group_segment_fixed_size"])
        expect("descriptor .amdhsa_private_segment_fixed_size",
               kd.get(".amdhsa_private_segment_fixed_size"),
               note[".private_segment_fixed_size"])
        # gfx10+ descriptors say wave32 or wave64; gfx9 is always wave64.
        expect("wavefront size (descriptor)",
               32 if kd.get(".amdhsa_wavefront_size32") == 1 else 64,
               res["wavefront_size"])

        lds = note[".group_segment_fixed_size"] + meta["dynamic_shared_bytes"]
        if args.max_lds is not None and lds > args.max_lds:
            errors.append("%s: %d bytes of LDS, more than %d" %
                          (kernel, lds, args.max_lds))
        if args.no_scratch:
            for key in (".private_segment_fixed_size", ".vgpr_spill_count",
                        ".sgpr_spill_count"):
                expect("note " + key, note.get(key), 0)

        # The report line against the JSON and the note.
        line = lines.get(kernel)
        if line is None:
            errors.append("%s: no report line" % kernel)
            continue
        for what, want in (
                ("chip", args.chip), ("wave", res["wavefront_size"]),
                ("vgprs", res["vgprs"]), ("allocated", res["allocated_vgprs"]),
                ("agprs", res["agprs"]), ("sgprs", res["sgprs"]),
                ("lds", lds), ("static", note[".group_segment_fixed_size"]),
                ("dynamic", meta["dynamic_shared_bytes"]),
                ("scratch", res["scratch_bytes"]),
                ("spills", note[".vgpr_spill_count"]),
                ("waves", res["waves_per_simd"])):
            expect("the report's " + what, line[what], want)
        if len(errors) > errors_before:
            continue
        print("%s: %d VGPRs (%d allocated, %d of them AGPRs), %d SGPRs, %d bytes "
              "LDS, wave%d, %d waves/SIMD: agrees" %
              (kernel, res["vgprs"], res["allocated_vgprs"], res["agprs"],
               res["sgprs"], lds, res["wavefront_size"],
               res["waves_per_simd"]))
    for kernel in sorted(set(lines) - seen):
        errors.append("%s: a report line but no JSON" % kernel)
    for e in errors:
        sys.stderr.write("check_hsaco.py: error: %s\n" % e)
    if errors:
        sys.exit(1)
    print("check_hsaco.py: %d kernels agree" % len(seen))


def main(argv):
    if len(argv) > 1 and argv[1] == "exit":
        code = subprocess.call(argv[3:])
        if code != int(argv[2]):
            sys.stderr.write("check_hsaco.py: exit code %d, expected %s\n" %
                             (code, argv[2]))
            sys.exit(1)
        return
    parser = argparse.ArgumentParser(prog="check_hsaco.py")
    sub = parser.add_subparsers(dest="command")
    c = sub.add_parser("check")
    c.add_argument("--readobj", required=True)
    c.add_argument("--objdump", required=True)
    c.add_argument("--chip", required=True)
    c.add_argument("--no-scratch", action="store_true")
    c.add_argument("--max-lds", type=int)
    c.add_argument("dir")
    c.add_argument("report")
    args = parser.parse_args(argv[1:])
    if args.command != "check":
        parser.error("give a command: check or exit")
    check(args)


if __name__ == "__main__":
    main(sys.argv)
