"""Chapter 06's GPU record: its kernels (course/chapters.py) at 1024/2048/4096 beside cuBLAS in the same run.

A thin command line over the course's one benchmark engine (course.bench.run, course.bench.save_run):
    python -m course.ch06_shared_tiling.record --out $OUT/ch06.json [--sizes ...] [--rounds N] [--only KERNEL ...]
It supersedes the timing of chapter 06's kernels that benchmarks/bench_gpu.py recorded into
course/recorded/gpu_h200_2026-11-21.json (bench_gpu.py stays: any kernels, any level).
"""
from course import bench


def main(argv=None):
    bench.record_chapter("06", argv)


if __name__ == "__main__":
    main()
