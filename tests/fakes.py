"""Stand-ins the lesson tests share: a live benchmark run (course.records.Run) as measure.benchmark returns it."""
from course import bench, records


def live_run(rows, gpu="Tesla T4", cc=(7, 5), date="2026-11-25"):
    """A records.Run of rows given as dicts {kernel, n, tflops, ratio[, correct]} (ms follows from tflops)."""
    return records.Run(id="live", gpu=gpu, cc=cc, date=date, baseline=bench.SGEMM, method="test stand-in",
                       rows=tuple(records.Row(kernel=r["kernel"], n=r["n"], ms=2 * r["n"] ** 3 / r["tflops"] / 1e9,
                                              tflops=r["tflops"], ratio=r["ratio"], correct=r.get("correct", True),
                                              host_us=r.get("host_us", 30.0))
                                  for r in rows))
