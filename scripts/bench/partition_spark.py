"""One timed Spark partitioned write, for scripts/bench-spark.sh.

    python partition_spark.py METHOD OUT INPUT...

METHOD is `spark` (Spark's own `df.write.partitionBy("_c0").csv(OUT)`
of the CSV inputs read with `multiLine`, so quoted line breaks parse) or
`spool` (the inputs spread over TASKS Spark tasks, each calling
`spool.partition` on its share with its partition id as run id and
`append=True`, by column 1). Runs in a fresh local[2] session and prints
one JSON line: the write's wall time (the session's start left out), the
peak RSS of this process and all its descendants (the JVM and the Python
workers) sampled every 100 ms from /proc, the files written, and the error
if the job failed (too many open files, out of memory: a result, not a
crash of the benchmark). With RUN_LIMIT=SECONDS set, a job still running
after that long is cancelled and reported as stopped at the limit, with
the files it had written by then.
"""
import json
import os
import sys
import threading
import time

from pyspark import TaskContext
from pyspark.sql import SparkSession

PAGE = os.sysconf("SC_PAGE_SIZE")


def tree_rss(root):
    """Resident bytes of `root` and every process below it."""
    children = {}
    rss = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/stat") as f:
                stat = f.read()
            with open(f"/proc/{pid}/statm") as f:
                rss[int(pid)] = int(f.read().split()[1]) * PAGE
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(pid))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


class PeakRss(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.peak = 0
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(0.1):
            self.peak = max(self.peak, tree_rss(os.getpid()))


def spool_tasks(spark, inputs, out, tasks):
    import spool

    def task(files):
        files = list(files)
        if files:
            ctx = TaskContext.get()
            yield spool.partition(
                files, out, by=1, delimiter="comma", threads=1,
                memory=os.environ.get("SPOOL_MEMORY", "256M"),
                run_id=f"p{ctx.partitionId()}", append=True,
            )["records"]

    os.makedirs(out)
    return sum(spark.sparkContext.parallelize(inputs, tasks).mapPartitions(task).collect())


def spark_write(spark, inputs, out):
    df = spark.read.csv(inputs, multiLine=True, escape='"')
    df.write.partitionBy("_c0").csv(out, escape='"')


def main():
    method, out, inputs = sys.argv[1], sys.argv[2], sys.argv[3:]
    tasks = int(os.environ.get("TASKS", "2"))
    spark = (
        SparkSession.builder.master("local[2]")
        .appName(f"bench-{method}")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", os.environ.get("SPARK_DRIVER_MEMORY", "2g"))
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    sampler = PeakRss()
    sampler.start()
    limit = float(os.environ.get("RUN_LIMIT", "0"))
    stopped = threading.Event()
    if limit:
        def stop():
            stopped.set()
            spark.sparkContext.cancelAllJobs()
        timer = threading.Timer(limit, stop)
        timer.daemon = True
        timer.start()
    start = time.monotonic()
    error = None
    try:
        if method == "spark":
            spark_write(spark, inputs, out)
        else:
            spool_tasks(spark, inputs, out, tasks)
    except Exception as e:  # the job's failure is the result
        text = str(e)
        error = next((line for line in text.splitlines() if "Error" in line or "Exception" in line), text)[:300]
    wall = time.monotonic() - start
    if stopped.is_set():
        error = f"stopped at the {limit:.0f} s limit"
    sampler.done.set()
    sampler.join()
    files = sum(
        1 for _, _, names in os.walk(out) for n in names if not n.startswith(("_", ".")) and not n.endswith(".crc")
    ) if os.path.isdir(out) else 0
    print(json.dumps({"method": method, "wall": round(wall, 2), "peak_rss_mb": sampler.peak >> 20,
                      "files": files, "error": error}))
    spark.stop()


if __name__ == "__main__":
    main()
