#!/bin/bash
# A Slurm job array in which every task renders its own share of the photos:
#   sbatch --array=0-15 slurm-array.sh RECIPE PHOTOS OUTDIR
# --shard auto reads SLURM_ARRAY_TASK_ID, _MIN, _MAX, _STEP and _COUNT, so the array may be 0-15,
# 1-16 or 5-20 alike. Run it again to finish what a failed or cancelled task left undone: the
# tasks that are done find their outputs up to date.
#SBATCH --job-name=recipe-apply
#SBATCH --array=0-15
#SBATCH --cpus-per-task=4
#SBATCH --output=recipe-%A_%a.log
set -euo pipefail
recipe=$1 photos=$2 outdir=$3
exec "${RECIPE_BIN:-recipe}" apply "$recipe" "$photos" -o "$outdir" \
  --shard auto --jobs "${SLURM_CPUS_PER_TASK:-1}" --progress lines
