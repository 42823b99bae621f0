"""Compares accel-run's SCALE-Sim-mode statistics with SCALE-Sim's golden
COMPUTE_REPORT figures: compute cycles, mapping efficiency and compute
utilisation must be within --tolerance (relative). Standard library only."""
import argparse
import csv
import re
import sys

p = argparse.ArgumentParser()
p.add_argument("--golden", required=True)
p.add_argument("--dataflow", required=True)
p.add_argument("--tolerance", type=float, default=0.05)
args = p.parse_args()

rows = [l for l in open(args.golden) if not l.startswith("#")]
golden = {r["dataflow"]: r for r in csv.DictReader(rows)}[args.dataflow]
want_cycles = int(golden["total_cycles"]) - int(golden["stall_cycles"])
want_map = float(golden["mapping_eff_pct"])
want_util = float(golden["compute_util_pct"])

out = sys.stdin.read()
m = re.search(r"gemm: (\d+) cycles \(SCALE-Sim", out)
u = re.search(r"mapping efficiency ([\d.]+)% and compute utilization ([\d.]+)%",
              out)
if not m or not u or "1 of 1 functions passed" not in out:
    sys.exit("no passing SCALE-Sim-mode run in the input:\n" + out)
got_cycles, got_map, got_util = int(m.group(1)), float(u.group(1)), float(u.group(2))
ok = True
for what, got, want in (("compute cycles", got_cycles, want_cycles),
                        ("mapping efficiency %", got_map, want_map),
                        ("compute utilisation %", got_util, want_util)):
    ratio = got / want
    good = abs(ratio - 1) <= args.tolerance
    ok &= good
    print(f"{args.dataflow} {what}: ours {got} SCALE-Sim {want} "
          f"ratio {ratio:.4f} {'OK' if good else 'OUT OF TOLERANCE'}")
sys.exit(0 if ok else 1)
