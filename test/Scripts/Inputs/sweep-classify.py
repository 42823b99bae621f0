"""Prints the verdict scripts/differential-sweep.py gives a run of accel-run
on a target that ended with exit code 1 and `error: MESSAGE`:

    sweep-classify.py SCRIPT TARGET MESSAGE [REJECTIONS]
"""
import importlib.util
import sys

script, target, message = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("sweep", script)
sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep)
rules = sweep.load_rejections(*sys.argv[4:5])
err = f"case.mlir:3:10: error: {message}\n"
print(f"{target}: {sweep.classify(target, 1, '', err, rules)}: {message}")
