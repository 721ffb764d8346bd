"""Chapter 10's GPU record: its kernels (course/chapters.py) at 1024/2048/4096 beside cuBLAS in the same run.

A thin command line over the course's one benchmark engine (course.bench.run, course.bench.save_run):
    python -m course.ch10_tensor_core.record --out $OUT/ch10.json [--sizes ...] [--rounds N] [--only KERNEL ...]
It supersedes the benchmark of the registered level-6 kernels in benchmarks/record_level6.py (that
script stays for the layout record, error vs K, loaded resources and the tc.build_tiled configurations;
benchmarks/record_level6_fast.py stays for mma_fast's ablation sweep).
"""
from course import bench


def main(argv=None):
    bench.record_chapter("10", argv)


if __name__ == "__main__":
    main()
