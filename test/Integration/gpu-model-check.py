# REQUIRES: ptxas
# RUN: %python %s %stencil_src %t
# The performance model against the kernels an H100 measured
# (bench/gpu_model_check.py; docs/performance.md, "The model against the
# leases' measurements"):
#  * --remodel of the stored profiles (docs/data/h100-2026-11-28/
#    model-check-f32.json: the emulation's counts extrapolated to the
#    measured sizes, and the PTX of today's kernels) puts every row within
#    0.4-2.1x of the H100, the untiled 1D and 2D kernels within 25%, the
#    fitted row within 5%, the geometric mean within 0.9-1.2, and the
#    modeled kernels launch as often as the measured ones;
#  * the model orders the headline command against the untiled kernels as
#    the H100 did on every 2D time-loop example (slower; the model without
#    its latency term put them 2-2.4x faster);
#  * a fresh run of one row (emulation at reduced sizes, extrapolated) gives
#    the stored model within 5%.
import json
import math
import subprocess
import sys
from pathlib import Path

ROOT, TMP = Path(sys.argv[1]), Path(sys.argv[2])
TMP.mkdir(parents=True, exist_ok=True)
CHECK = ROOT / "bench/gpu_model_check.py"
STORED = ROOT / "docs/data/h100-2026-11-28/model-check-f32.json"


def check(*args):
    out = TMP / "rows.json"
    run = subprocess.run([sys.executable, str(CHECK), *args, "--json", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    print(run.stdout)
    return {(r["example"], r["variant"]): r for r in json.loads(out.read_text())}


rows = check("--remodel", str(STORED), "--variants", "defaults,untiled,split")
assert len(rows) == 36, sorted(rows)
for (name, variant), r in rows.items():
    ratio = r["model_over_measured"]
    assert 0.4 <= ratio <= 2.1, (name, variant, ratio)
    assert r["launches"] == r["measured_launches"], (name, variant, r["launches"])
    if variant == "untiled" and len(r["shape"]) < 3:
        assert 0.85 <= ratio <= 1.25, (name, ratio)
fitted = rows[("jacobi2d", "defaults")]["model_over_measured"]
assert 0.95 <= fitted <= 1.05, fitted
ratios = [r["model_over_measured"] for r in rows.values()]
mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
assert 0.9 <= mean <= 1.2, mean
for name in ("laplace2d", "heat2d", "gradient2d", "jacobi2d", "poisson2d", "fdtd2d"):
    hex_, untiled = rows[(name, "defaults")], rows[(name, "untiled")]
    assert hex_["measured_gstencils_per_s"] < untiled["measured_gstencils_per_s"], name
    assert hex_["model_gstencils_per_s"] < untiled["model_gstencils_per_s"], (
        name, hex_["model_gstencils_per_s"], untiled["model_gstencils_per_s"])
print(f"ok remodel: 36 rows, geometric mean model / measured {mean:.2f}")

# One row again from the emulation.
fresh = check("jacobi1d_3pt", "--variants", "untiled")[("jacobi1d_3pt", "untiled")]
stored = rows[("jacobi1d_3pt", "untiled")]
assert abs(fresh["model_gstencils_per_s"] / stored["model_gstencils_per_s"] - 1) < 0.05, (
    fresh["model_gstencils_per_s"], stored["model_gstencils_per_s"])
print("ok jacobi1d_3pt untiled from the emulation")
