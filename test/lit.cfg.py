# -*- Python -*-
# lit configuration for the accel regression tests.

import os
import sys

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "ACCEL"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.accel_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "README.txt", "lit.cfg.py",
                   "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%accel_src_root", config.accel_src_root))
config.substitutions.append(("%accel_obj_root", config.accel_obj_root))
# The interpreter lit runs under; test helpers use the standard library only.
config.substitutions.append(("%python", sys.executable))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.accel_tools_dir, append_path=True)

tool_dirs = [config.accel_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("accel-opt", unresolved="fatal"),
    ToolSubst("mlir-opt", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="fatal"),
    ToolSubst("accel-run", unresolved="fatal"),
    ToolSubst("accel-systolic-translate", unresolved="fatal"),
    ToolSubst("accel-sim", unresolved="fatal"),
    ToolSubst("accel-compile", unresolved="fatal"),
    ToolSubst("mlir-translate", unresolved="fatal"),
    ToolSubst("llc", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Runtime support libraries for tests executed with mlir-runner.
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(
    ("%mlir_runner_utils", os.path.join(llvm_lib_dir, "libmlir_runner_utils.so")))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.join(llvm_lib_dir, "libmlir_c_runner_utils.so")))
