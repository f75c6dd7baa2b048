#!/usr/bin/env bash
# The diffusion part of "The DCR Delusion" on a lent GPU machine, in one prepared run (issue 38 items 5 and 7).
#
# Steps, each with its own time limit so that one stopped at its limit loses only itself; every file lands in
# $OUT (the device tool brings it back):
#   1. environment.txt: the GPU, lscpu, the package versions.
#   2. tabddpm_gpu.json and tabddpm_cpu.json: one TabDDPM fit with its default settings on 1,000 Adult rows,
#      on the GPU and on the CPU (bench/bench_tabddpm.py), run one after the other on an otherwise idle machine.
#   3. dcr_tabddpm.json (+ .html): bench/reproduce_dcr_delusion.py on fresh_sample (the control) and then tabddpm
#      (merged into the same file), 200 members and 200 non-members per model, the DCR test on DCR_TABLES tables.
#
# Usage (on the device, from the repository root; wheels installed first where the image lacks them):
#   OUT=DIR bash bench/gpu_tabddpm.sh            # the sizes below; SMOKE=1 for a tiny CPU run that checks the script
#   OUT=DIR TRAIN_ROWS=1000 MODELS=32 bash bench/gpu_tabddpm.sh   # the paper's "passes, yet attacked" size
set -u
OUT=${OUT:?set OUT}
export PYTHONUNBUFFERED=1
PY=${PY:-python3}
MODELS=${MODELS:-32}
TRAIN_ROWS=${TRAIN_ROWS:-200}  # 1000 for tables that pass the DCR test (80 % of them did on an H200)
WORKERS=${WORKERS:-16}
DCR_TABLES=${DCR_TABLES:-10}
FIT_LIMIT=${FIT_LIMIT:-150}
AUDIT_LIMIT=${AUDIT_LIMIT:-330}
GPU_FLAG=--gpu
TABDDPM=""
if [ "${SMOKE:-0}" = 1 ]; then  # the script's plumbing on a CPU machine: tiny settings, no GPU
  MODELS=8; WORKERS=2; DCR_TABLES=2; GPU_FLAG=""; TABDDPM="--tabddpm steps=30,timesteps=10,width=32"
fi
began=$(date +%s)

{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1; lscpu | grep -E "Model name|CPU family|^CPU\(s\)"
  uptime; $PY -c "import numpy, pandas, sklearn, lightgbm, torch; print('numpy', numpy.__version__, 'pandas', pandas.__version__, 'sklearn', sklearn.__version__, 'lightgbm', lightgbm.__version__, 'torch', torch.__version__, 'cuda', torch.cuda.is_available())"
} > "$OUT/environment.txt" 2>&1
cat "$OUT/environment.txt"

if [ "${SMOKE:-0}" != 1 ]; then
  echo "== one TabDDPM fit, GPU then CPU (limit $FIT_LIMIT s)"
  timeout "$FIT_LIMIT" $PY bench/bench_tabddpm.py --gpu 1 --out "$OUT/tabddpm_gpu.json" 2>&1 | tail -3
  timeout "$FIT_LIMIT" $PY bench/bench_tabddpm.py --gpu 0 --out "$OUT/tabddpm_cpu.json" 2>&1 | tail -3
fi

echo "== the reproduction: fresh_sample (control), then tabddpm ($(( $(date +%s) - began )) s since the start)"
common=(--train-rows "$TRAIN_ROWS" --models "$MODELS" --dcr-tables "$DCR_TABLES" --workers "$WORKERS" --targets 10 --stronger
        --out "$OUT/dcr_tabddpm.json")
timeout 120 $PY bench/reproduce_dcr_delusion.py --generators fresh_sample "${common[@]}" 2>&1 | tee "$OUT/dcr_log.txt"
timeout "$AUDIT_LIMIT" $PY bench/reproduce_dcr_delusion.py --generators tabddpm --merge $GPU_FLAG $TABDDPM \
  "${common[@]}" 2>&1 | tee -a "$OUT/dcr_log.txt"
echo "== done in $(( $(date +%s) - began )) s"
