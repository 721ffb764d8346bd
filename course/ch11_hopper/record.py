"""Chapter 11's GPU record: its kernels (course/chapters.py) at 1024/2048/4096 beside cuBLAS in the same run.

A thin command line over the course's one benchmark engine (course.bench.run, course.bench.save_run):
    python -m course.ch11_hopper.record --out $OUT/ch11.json [--sizes ...] [--rounds N] [--only KERNEL ...]
It supersedes benchmarks/bench_level7.py's timing of the level-7 kernels and mma_fast (bench_level7.py
stays for its Hopper-specific options).
"""
from course import bench


def main(argv=None):
    bench.record_chapter("11", argv)


if __name__ == "__main__":
    main()
