#!/usr/bin/env python3
"""Runner vs fio on the same jobs, alternating, several rounds.

For each job: BENCH_ROUNDS rounds (default 3), in each round our runner then
fio (the order alternates every round), each on the same pre-laid-out file
with the same options and ioengine=io_uring. Prints per job the median IOPS,
bandwidth and p99 completion latency of each tool, the ratio ours/fio, and
the CPU time per I/O of the whole process (every thread, io_uring's io-wq
workers included: fio's own usr/sys leave them out, so we take the rusage
of the process from wait4).

Environment: BENCH_ROUNDS (3), BENCH_RUNTIME seconds per run (5),
BENCH_DIR (a directory under /tmp), BENCH_SHM (a directory under /dev/shm),
BENCH_JOBS (comma-separated job names to run, default all).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, "bin/storagebench-runner")
FIO = shutil.which("fio")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
RUNTIME = int(os.environ.get("BENCH_RUNTIME", "5"))

# name, options, where ("disk" = file under /tmp, "shm" = under /dev/shm)
JOBS = [
    ("4k-randread-qd32", ["--rw=randread", "--bs=4k", "--iodepth=32", "--direct=1"], "disk"),
    ("4k-randwrite-qd32", ["--rw=randwrite", "--bs=4k", "--iodepth=32", "--direct=1"], "disk"),
    ("1m-read", ["--rw=read", "--bs=1m", "--iodepth=16", "--direct=1"], "disk"),
    ("1m-write", ["--rw=write", "--bs=1m", "--iodepth=16", "--direct=1"], "disk"),
    ("4k-randwrite-qd1-fsync1", ["--rw=randwrite", "--bs=4k", "--iodepth=1", "--fsync=1"],
     "disk"),
    ("4k-randread-buffered-shm", ["--rw=randread", "--bs=4k", "--iodepth=32", "--direct=0"],
     "shm"),
]


def measure(tool, opts, path):
    cmd = [tool, "--name=bench", f"--filename={path}", "--size=1g", "--ioengine=io_uring",
           f"--runtime={RUNTIME}", "--ramp_time=1", "--time_based", "--output-format=json",
           *opts]
    pid = os.fork()
    if pid == 0:
        fd = os.open(path + ".out", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(fd, 1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)
        os.execv(tool, cmd)
    _, status, ru = os.wait4(pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with status {status}")
    with open(path + ".out") as f:
        text = f.read()
    doc = json.loads(text[text.index("{"):])  # fio may print notes first
    ios = iops = bw = 0.0
    p99 = []
    for j in doc["jobs"]:
        for d in ("read", "write"):
            x = j[d]
            if x["total_ios"]:
                ios += x["total_ios"]
                iops += x["iops"]
                bw += x["bw_bytes"]
                p99.append(x["clat_ns"].get("percentile", {}).get("99.000000", 0))
    cpu = ru.ru_utime + ru.ru_stime
    return {"iops": iops, "bw": bw, "p99": max(p99) if p99 else 0, "ios": ios,
            "cpu_us_per_io": cpu * 1e6 / ios if ios else 0, "iops_per_cpu_s": ios / cpu if cpu else 0,
            "cmd": " ".join(cmd)}


def lay_out(path):
    # one full sequential write so neither tool lays out inside a measured run
    subprocess.run([OURS, "--name=layout", f"--filename={path}", "--size=1g", "--rw=read",
                    "--bs=1m", "--io_size=1m", "--log-level=warn"], check=True,
                   stdout=subprocess.DEVNULL)


def fmt_rate(b):
    for unit in ("B/s", "KiB/s", "MiB/s", "GiB/s"):
        if b < 1024 or unit == "GiB/s":
            return f"{b:.0f} {unit}" if b >= 100 else f"{b:.1f} {unit}"
        b /= 1024


def main():
    if not FIO:
        print("bench runner: fio is not installed (scripts/install-deps.sh installs it)")
        return 1
    if not os.access(OURS, os.X_OK):
        print("bench runner: build first (make all)")
        return 1
    only = set(filter(None, os.environ.get("BENCH_JOBS", "").split(",")))
    disk = os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="sb-bench-", dir="/tmp")
    shm = os.environ.get("BENCH_SHM") or tempfile.mkdtemp(prefix="sb-bench-", dir="/dev/shm")
    files = {"disk": os.path.join(disk, "bench.file"), "shm": os.path.join(shm, "bench.file")}
    print(f"fio: {subprocess.run([FIO, '--version'], capture_output=True, text=True).stdout.strip()}"
          f"; ours: {OURS}; rounds={ROUNDS}, runtime={RUNTIME}s + 1s ramp, size=1g, io_uring")
    print(f"command: BENCH_ROUNDS={ROUNDS} BENCH_RUNTIME={RUNTIME} make bench")
    try:
        for f in files.values():
            lay_out(f)
        rows = []
        for name, opts, where in JOBS:
            if only and name not in only:
                continue
            res = {"ours": [], "fio": []}
            for rnd in range(ROUNDS):
                order = ("ours", "fio") if rnd % 2 == 0 else ("fio", "ours")
                for who in order:
                    res[who].append(measure(OURS if who == "ours" else FIO, opts, files[where]))
            med = {w: {k: statistics.median(r[k] for r in res[w])
                       for k in ("iops", "bw", "p99", "cpu_us_per_io", "iops_per_cpu_s")}
                   for w in res}
            rows.append((name, med, res["ours"][0]["cmd"]))
            o, f = med["ours"], med["fio"]
            print(f"\n{name}: {' '.join(opts)}")
            print(f"  IOPS      ours {o['iops']:>10.0f}   fio {f['iops']:>10.0f}   ratio {o['iops'] / f['iops']:.3f}")
            print(f"  bandwidth ours {fmt_rate(o['bw']):>10}   fio {fmt_rate(f['bw']):>10}   ratio {o['bw'] / f['bw']:.3f}")
            print(f"  p99 clat  ours {o['p99'] / 1000:>8.1f}us   fio {f['p99'] / 1000:>8.1f}us   ratio {o['p99'] / f['p99'] if f['p99'] else 0:.3f}")
            print(f"  CPU/IO    ours {o['cpu_us_per_io']:>8.2f}us   fio {f['cpu_us_per_io']:>8.2f}us   "
                  f"IOPS per CPU-second ratio {o['iops_per_cpu_s'] / f['iops_per_cpu_s']:.3f}")
            print("  per round IOPS: ours " + ", ".join(f"{r['iops']:.0f}" for r in res["ours"]) +
                  "; fio " + ", ".join(f"{r['iops']:.0f}" for r in res["fio"]))
        print("\n| job | IOPS ours/fio | BW ours/fio | p99 ours/fio | CPU us/IO ours | CPU us/IO fio | IOPS per CPU-s ours/fio |")
        print("|---|---|---|---|---|---|---|")
        for name, m, _ in rows:
            o, f = m["ours"], m["fio"]
            print(f"| {name} | {o['iops'] / f['iops']:.3f} | {o['bw'] / f['bw']:.3f} | "
                  f"{(o['p99'] / f['p99']) if f['p99'] else 0:.3f} | {o['cpu_us_per_io']:.2f} | "
                  f"{f['cpu_us_per_io']:.2f} | {o['iops_per_cpu_s'] / f['iops_per_cpu_s']:.3f} |")
    finally:
        if not os.environ.get("BENCH_DIR"):
            shutil.rmtree(disk, ignore_errors=True)
        if not os.environ.get("BENCH_SHM"):
            shutil.rmtree(shm, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
