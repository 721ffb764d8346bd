"""Chapter 08's GPU record: its kernels (course/chapters.py) at 1024/2048/4096 beside cuBLAS in the same run.

A thin command line over the course's one benchmark engine (course.bench.run, course.bench.save_run):
    python -m course.ch08_double_buffering.record --out $OUT/ch08.json [--sizes ...] [--rounds N] [--only KERNEL ...]
It supersedes the benchmark part of benchmarks/record_levels34.py for notebook 08 (that script stays
for the rest of its record: resources, loaded SASS, occupancy API, stall reasons).
"""
from course import bench


def main(argv=None):
    bench.record_chapter("08", argv)


if __name__ == "__main__":
    main()
