#!/usr/bin/env bash
# The contact sheet of docs/raw.md ("The default look"): each camera raw of CORPUS/raw that LibRaw
# opens (what `recipe info` reads) and Recipes/photos/kodim03-bayer.dng, one row each, in three
# columns: recipe without a recipe (the default look), recipe with Recipes/raw-neutral.recipe.yaml
# (the scene as measured), and darktable-cli's default (a fresh, empty configuration), or a grey
# tile saying darktable cannot open the file. Prints the mean L* of each render (CIE L*a*b* from
# sRGB, D65, Tests/Tools/image_compare.py's formula) and the versions of the tools that made it.
#
# Usage: Tests/Tools/raw_default_sheet.sh CORPUS OUT.png [RECIPE]
#   CORPUS  the shared test corpus folder (its raw/ is read; raw/broken/ is not)
#   OUT     the sheet, a PNG of 256 colours
#   RECIPE  the recipe binary (default: .build/release/recipe of this checkout)
# Needs: ImageMagick 6 (montage, convert), python3 with numpy and pypng; darktable-cli for the
# third column (without it every tile of that column says so).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { sed -n '9,12p' "$0" >&2; exit 2; }
CORPUS=$1 OUT=$2 RECIPE=${3:-$ROOT/.build/release/recipe}
TILE=232
[ -x "$RECIPE" ] || { echo "raw_default_sheet: $RECIPE: no recipe binary (swift build -c release)" >&2; exit 1; }
[ -d "$CORPUS/raw" ] || { echo "raw_default_sheet: $CORPUS/raw: no such folder" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

raws=()
for f in "$CORPUS"/raw/*; do
  [ -f "$f" ] && "$RECIPE" info "$f" 2>/dev/null | grep -q "format: camera raw" && raws+=("$f")
done
raws+=("$ROOT/Recipes/photos/kodim03-bayer.dng")

tiles=()
for raw in "${raws[@]}"; do
  name=$(basename "$raw")
  "$RECIPE" render "$raw" --size "$TILE" -o "$WORK/$name.default.png" 2>/dev/null
  "$RECIPE" render "$raw" --recipe "$ROOT/Recipes/raw-neutral.recipe.yaml" --size "$TILE" -o "$WORK/$name.neutral.png" 2>/dev/null
  if command -v darktable-cli >/dev/null && darktable-cli "$raw" "$WORK/$name.dt.jpg" --core --configdir "$WORK/dtconf-$name" \
       --cachedir "$WORK/dtconf-$name/cache" >"$WORK/$name.dt.log" 2>&1 && [ -f "$WORK/$name.dt.jpg" ]; then
    convert "$WORK/$name.dt.jpg" -resize "${TILE}x${TILE}" "$WORK/$name.dt.png"
  else
    read -r w h < <(identify -format '%w %h\n' "$WORK/$name.default.png")
    convert -size "${w}x${h}" xc:'#d0d0d0' -gravity center -pointsize 14 -annotate 0 "darktable-cli\ncannot open it" "$WORK/$name.dt.png"
  fi
  tiles+=(-label "$name\nrecipe: the default look" "$WORK/$name.default.png"
          -label "$name\nrecipe: raw-neutral" "$WORK/$name.neutral.png"
          -label "$name\ndarktable-cli: its default" "$WORK/$name.dt.png")
done

montage "${tiles[@]}" -tile 3x -geometry "${TILE}x$((TILE * 3 / 4))+4+4" -pointsize 12 -background white "$WORK/sheet.png"
convert "$WORK/sheet.png" -depth 8 -colors 256 "PNG8:$OUT"

PYTHONPATH="$ROOT/Tests/Tools" python3 - "$WORK" "${raws[@]}" <<'EOF'
import os, sys
from image_compare import read_image, srgb_to_lab
work = sys.argv[1]
print("mean L* at the sheet's size:   default   raw-neutral   darktable")
for raw in sys.argv[2:]:
    name = os.path.basename(raw)
    row = []
    for col in ("default", "neutral", "dt"):
        path = f"{work}/{name}.{col}.png"
        ok = col != "dt" or os.path.exists(f"{work}/{name}.dt.jpg")
        row.append(f"{srgb_to_lab(read_image(path))[..., 0].mean():9.1f}" if ok else "        -")
    print(f"  {name:32s}" + "   ".join(row))
EOF
echo "made with: $("$RECIPE" --version | head -1), $(darktable-cli --version 2>/dev/null | head -1 || echo 'no darktable-cli'), $(montage -version | head -1 | cut -d' ' -f2-3)"
echo "wrote $OUT ($(du -k "$OUT" | cut -f1) KiB)"
