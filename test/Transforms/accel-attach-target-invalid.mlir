// RUN: accel-opt %s --accel-attach-target=name=h1000 -verify-diagnostics

// An unknown name lists the catalogue, so a typo is one look away from its fix.

// expected-error @+1 {{unknown target 'h1000'; known targets: x86-64-avx512, x86-64-sapphirerapids, x86-64-avx2, aarch64-neoverse-v2, a100, a40, rtx4090, h100, h200, b200, mi250x, mi300x, rx7900xtx, tpu-v5p, gaudi3, wse-3, groq-lpu, apple-m2-ultra, systolic-16x16}}
module {
}
