"""PyTorch's host <-> GPU copy rates on this machine, the anchor for `transferbench`.

Prints, per size, the median GB/s (10^9 bytes per second) of `copy_` between a CUDA tensor and
host memory that is pinned (`pin_memory=True`, `non_blocking=True`) or ordinary (pageable),
both directions. Run it in the same job as `transferbench` so the rates compare side by side:

    python3 src/bin/transferbench/pytorch_transfer.py [--sizes 4k,1m,64m,256m,1g]
"""

import argparse
import statistics
import time

import torch


def parse_size(text):
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    text = text.lower().rstrip("ib")
    if text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)


def name(size):
    for shift, unit in ((30, "GiB"), (20, "MiB"), (10, "KiB")):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size} B"


def rate(size, copy, iters):
    copy()  # warm-up
    torch.cuda.synchronize()
    times = []
    for _ in range(iters):
        start = time.perf_counter()
        copy()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return size / statistics.median(times) / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="4k,1m,64m,256m,1g")
    args = parser.parse_args()
    device = torch.device("cuda")
    print(f"pytorch {torch.__version__}, {torch.cuda.get_device_name(device)}")
    print("| PyTorch | size | H2D GB/s | D2H GB/s |")
    print("|---|---:|---:|---:|")
    for size in map(parse_size, args.sizes.split(",")):
        iters = max(3, min(40, (2 << 30) // size))
        gpu = torch.empty(size, dtype=torch.uint8, device=device)
        for kind in ("pinned", "pageable"):
            host = torch.randint(0, 255, (size,), dtype=torch.uint8)
            if kind == "pinned":
                host = host.pin_memory()
            blocking = kind == "pageable"
            up = rate(size, lambda: gpu.copy_(host, non_blocking=not blocking), iters)
            down = rate(size, lambda: host.copy_(gpu, non_blocking=not blocking), iters)
            print(f"| {kind} | {name(size)} | {up:.2f} | {down:.2f} |")
        del gpu


if __name__ == "__main__":
    main()
