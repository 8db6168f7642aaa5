#!/usr/bin/env bash
# The model zoo in one command: generates whatever model folder is missing (the generators skip
# complete ones), then runs ptq over the zoo (resumable; arguments go to run_zoo.py, e.g.
# --models resnet50 --columns quant) and prints the table.
#   scripts/zoo/zoo.sh [--ptq build/ptq] [run_zoo.py options...]
set -euo pipefail
cd "$(dirname "$0")/../.."
py=/usr/bin/python3
$py scripts/zoo/gen_torchvision.py
$py scripts/zoo/gen_transformers.py
$py scripts/zoo/gen_ppocr.py
$py scripts/zoo/run_zoo.py "$@"
$py scripts/zoo/zoo_table.py
