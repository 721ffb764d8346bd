"""Chapter 09's GPU record: its kernels (course/chapters.py) at 1024/2048/4096 beside cuBLAS in the same run.

A thin command line over the course's one benchmark engine (course.bench.run, course.bench.save_run):
    python -m course.ch09_cp_async.record --out $OUT/ch09.json [--sizes ...] [--rounds N] [--only KERNEL ...]
It supersedes the benchmark part of benchmarks/record_level5.py at the registered configurations (that
script stays for its correctness sweep, its NUM_STAGES x variant sweep and the loaded SASS).
"""
from course import bench


def main(argv=None):
    bench.record_chapter("09", argv)


if __name__ == "__main__":
    main()
