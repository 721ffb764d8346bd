"""What every compute-sanitizer target script prints first: the GPU it runs on, so that each log says where it was checked."""
GPU_LINE = "@@gpu "                # tests/test_chapter_records.py reads it back from every committed log


def name_the_gpu():
    """Print '@@gpu <name>|<major>.<minor>' of the current device (the first line of the log)."""
    from numba import cuda
    dev = cuda.get_current_device()
    name = getattr(dev, "name", "simulator")
    name = name.decode() if isinstance(name, bytes) else name
    cc = getattr(dev, "compute_capability", None) or (0, 0)
    print(f"{GPU_LINE}{name}|{cc[0]}.{cc[1]}", flush=True)
