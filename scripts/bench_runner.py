#!/usr/bin/env python3
"""Our runner against fio 3.33 on the same file, with a fio-vs-fio control.

Everything both tools read or write is one file laid out beforehand by a
full sequential write with dd (O_DIRECT, random data), which neither tool
did: a layout neither can be favoured by. On that file each job runs
BENCH_ROUNDS rounds; a round runs our runner, fio ("fio") and fio again
("fio2", the control), in an order that rotates every round so that each
tool runs first, second and last equally often. Per job it prints the
medians of each tool, the median over the rounds of the per-round ratios
ours/fio and fio2/fio (the control: how far two identical fio runs differ
here), and what the block layer itself counted (/proc/diskstats and
/sys/block/DEV/inflight, sampled every 20 ms) beside each tool's own
figures, with the load average (uptime) when each job ran.

After the table, the QD32 check: 4k random reads at queue depth 32, ours
and fio alternately with the fio-vs-fio control, BENCH_CHECK_ROUNDS rounds
(default 8). It prints the median ratio and the control's; a ratio below
the control's by more than the noise is a regression of the runner's
engine loop. Benchmarks print figures, they do not fail on speed.

Environment:
  BENCH_ROUNDS        rounds per job (3)
  BENCH_RUNTIME       measured seconds per run (3; 1 s of ramp before)
  BENCH_CHECK_ROUNDS  rounds of the QD32 check (8; 0 skips it)
  BENCH_DIR           directory for the file (default a new one under
                      /var/tmp: a real disk, unlike /tmp on some machines)
  BENCH_SIZE          file size (1g)
  BENCH_JOBS          comma-separated job names (default all); "none"
                      runs only the check
  BENCH_BASELINE      another build of the runner ("base"), run in every
                      round beside the others: a change's before and after
"""
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OURS = os.path.join(ROOT, "bin/storagebench-runner")
FIO = shutil.which("fio")
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "3"))
RUNTIME = int(os.environ.get("BENCH_RUNTIME", "3"))
CHECK_ROUNDS = int(os.environ.get("BENCH_CHECK_ROUNDS", "8"))
SIZE = os.environ.get("BENCH_SIZE", "1g")
RAMP = 1
BASE = os.environ.get("BENCH_BASELINE")
TOOLS = ("ours", "fio", "fio2") + (("base",) if BASE else ())

RAND = ["--bs=4k", "--direct=1"]
JOBS = [(f"4k-randread-qd{qd}", ["--rw=randread", f"--iodepth={qd}", *RAND], "disk")
        for qd in (1, 4, 8, 16, 32, 64, 128)]
JOBS += [(f"4k-randwrite-qd{qd}", ["--rw=randwrite", f"--iodepth={qd}", *RAND], "disk")
         for qd in (1, 4, 8, 16, 32, 64, 128)]
JOBS += [
    ("4k-randread-qd32-4jobs", ["--rw=randread", "--iodepth=32", "--numjobs=4",
                                "--group_reporting", *RAND], "disk"),
    ("4k-randwrite-qd32-4jobs", ["--rw=randwrite", "--iodepth=32", "--numjobs=4",
                                 "--group_reporting", *RAND], "disk"),
    ("1m-read-qd16", ["--rw=read", "--bs=1m", "--iodepth=16", "--direct=1"], "disk"),
    ("1m-write-qd16", ["--rw=write", "--bs=1m", "--iodepth=16", "--direct=1"], "disk"),
    # page cache in memory: no device at all, the tools' own CPU cost decides
    ("4k-randread-qd32-buffered-shm", ["--rw=randread", "--bs=4k", "--iodepth=32",
                                       "--direct=0"], "shm"),
]
CHECK = ("check-4k-randread-qd32", ["--rw=randread", "--iodepth=32", *RAND], "disk")


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


class Device:
    """The block device holding a file, read from diskstats and sysfs."""

    def __init__(self, path):
        st = os.stat(path)
        self.name = None
        sysdir = f"/sys/dev/block/{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
        if os.path.isdir(sysdir):
            real = os.path.realpath(sysdir)
            # a partition counts in its disk's inflight file too, but its
            # own line of diskstats is what we want
            self.name = os.path.basename(real)
            self.inflight = os.path.join(real, "inflight")

    def counts(self):
        """(completed I/Os, ms the device was busy, ms the I/Os spent in
        the block layer and device, summed over I/Os) of the device, or
        None."""
        if not self.name:
            return None
        with open("/proc/diskstats") as f:
            for line in f:
                x = line.split()
                if x[2] == self.name:
                    return int(x[3]) + int(x[7]), int(x[12]), int(x[6]) + int(x[10])
        return None

    def in_flight(self):
        try:
            with open(self.inflight) as f:
                a = f.read().split()
            return int(a[0]) + int(a[1])
        except OSError:
            return None


class Sampler(threading.Thread):
    """Samples the device every 20 ms while a tool runs."""

    def __init__(self, dev):
        super().__init__(daemon=True)
        self.dev, self.stop, self.samples = dev, threading.Event(), []

    def run(self):
        while not self.stop.is_set():
            c = self.dev.counts()
            if c:
                self.samples.append((time.monotonic(), *c, self.dev.in_flight()))
            self.stop.wait(0.02)

    def steady(self, t0, t1):
        """Device IOPS, busy share, block-layer time per I/O (from the
        request's start to its completion: scheduler queue and device) and
        mean in-flight count (requests the driver holds) in the part of
        the run both tools measure: from RAMP + 0.5 s after the start (fio's
        startup and the ramp are over) to 0.3 s before the process ended."""
        s = [x for x in self.samples if x[0] - t0 >= RAMP + 0.5 and x[0] <= t1 - 0.3]
        if len(s) < 2 or s[-1][0] <= s[0][0]:
            return None
        dt = s[-1][0] - s[0][0]
        fl = [x[4] for x in s if x[4] is not None]
        n = s[-1][1] - s[0][1]
        return {"dev_iops": n / dt,
                "dev_util": (s[-1][2] - s[0][2]) / 1000 / dt,
                "dev_lat_us": (s[-1][3] - s[0][3]) * 1000 / n if n else 0.0,
                "dev_inflight": statistics.mean(fl) if fl else 0.0}


def measure(who, opts, path, dev):
    tool = {"ours": OURS, "base": BASE}.get(who, FIO)
    out = path + ".out"
    cmd = [tool, "--name=bench", f"--filename={path}", f"--size={SIZE}",
           "--ioengine=io_uring", f"--runtime={RUNTIME}", f"--ramp_time={RAMP}",
           "--time_based", "--output-format=json", *opts]
    sampler = Sampler(dev) if dev and dev.name else None
    la = load()
    t0 = time.monotonic()
    if sampler:
        sampler.start()
    with open(out, "w") as fo, open(os.devnull, "w") as fe:
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
        # wait4 for the rusage of every thread (io_uring's io-wq workers too)
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
    t1 = time.monotonic()
    wall = t1 - t0
    if sampler:
        sampler.stop.set()
        sampler.join()
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed with status {p.returncode}")
    with open(out) as f:
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
    # CPU of the whole process over every I/O it did (ramp included)
    all_ios = iops * (RUNTIME + RAMP)
    r = {"iops": iops, "bw": bw, "p99": max(p99) if p99 else 0, "ios": ios,
         "cpu_us_per_io": cpu * 1e6 / all_ios if all_ios else 0, "load": la, "wall": wall,
         "dev_iops": 0.0, "dev_util": 0.0, "dev_lat_us": 0.0, "dev_inflight": 0.0}
    st = sampler.steady(t0, t1) if sampler else None
    if st:
        r.update(st)
    return r


def lay_out(path):
    """A full sequential O_DIRECT write of random data by dd: neither tool's."""
    count = parse_size(SIZE) // (1 << 20)
    subprocess.run(["dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={count}",
                    "iflag=fullblock", "oflag=direct", "conv=fsync", "status=none"],
                   check=True)


def lay_out_buffered(path):
    count = parse_size(SIZE) // (1 << 20)
    subprocess.run(["dd", "if=/dev/urandom", f"of={path}", "bs=1M", f"count={count}",
                    "iflag=fullblock", "status=none"], check=True)


def parse_size(s):
    mult = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    s = s.strip().lower()
    if s and s[-1] in mult:
        return int(s[:-1]) * mult[s[-1]]
    return int(s)


def orders():
    """Every order of the tools in turn: each runs first, second and last
    equally often over six rounds (three tools; with a baseline, rotations
    forwards and backwards: each place equally often over eight)."""
    if len(TOOLS) == 3:
        return itertools.cycle(list(itertools.permutations(TOOLS)))
    n = len(TOOLS)
    rot = [TOOLS[i:] + TOOLS[:i] for i in range(n)]
    return itertools.cycle([o for r in rot for o in (r, r[::-1])])


def run_job(name, opts, path, dev, rounds):
    res = {t: [] for t in TOOLS}
    order = orders()
    for _ in range(rounds):
        for who in next(order):
            res[who].append(measure(who, opts, path, dev))
    keys = ("iops", "bw", "p99", "cpu_us_per_io", "dev_iops", "dev_util", "dev_lat_us",
            "dev_inflight", "load")
    med = {t: {k: statistics.median(r[k] for r in res[t]) for k in keys} for t in TOOLS}
    ratio = [o["iops"] / f["iops"] for o, f in zip(res["ours"], res["fio"]) if f["iops"]]
    ctl = [g["iops"] / f["iops"] for g, f in zip(res["fio2"], res["fio"]) if f["iops"]]
    base = [b["iops"] / f["iops"] for b, f in zip(res.get("base", []), res["fio"]) if f["iops"]]
    vs_base = [o["iops"] / b["iops"] for o, b in zip(res["ours"], res.get("base", []))
               if b["iops"]]
    return {"name": name, "opts": opts, "res": res, "med": med,
            "base": statistics.median(base) if base else 0, "bases": base,
            "vs_base": statistics.median(vs_base) if vs_base else 0, "vs_bases": vs_base,
            "ratio": statistics.median(ratio) if ratio else 0,
            "control": statistics.median(ctl) if ctl else 0,
            "ratios": ratio, "controls": ctl}


def print_job(j):
    m = j["med"]
    print(f"\n{j['name']}: {' '.join(j['opts'])}")
    for t in TOOLS:
        x = m[t]
        print(f"  {t:<5} IOPS {x['iops']:>9.0f}  device {x['dev_iops']:>9.0f}/s "
              f"busy {x['dev_util']:>4.0%} {x['dev_lat_us']:>6.0f}us/IO in flight "
              f"{x['dev_inflight']:>5.1f}  "
              f"p99 {x['p99'] / 1000:>8.1f}us  CPU {x['cpu_us_per_io']:>6.2f}us/IO  "
              f"load {x['load']:.1f}")
    print(f"  IOPS ours/fio per round: {' '.join(f'{r:.2f}' for r in j['ratios'])}"
          f"  (median {j['ratio']:.3f})")
    print(f"  control fio2/fio:        {' '.join(f'{r:.2f}' for r in j['controls'])}"
          f"  (median {j['control']:.3f})")
    if j["bases"]:
        print(f"  baseline base/fio:       {' '.join(f'{r:.2f}' for r in j['bases'])}"
              f"  (median {j['base']:.3f}; base: {BASE})")
        print(f"  ours/base:               {' '.join(f'{r:.2f}' for r in j['vs_bases'])}"
              f"  (median {j['vs_base']:.3f})")
    for t in TOOLS:
        print(f"  {t} IOPS per round: " + ", ".join(f"{r['iops']:.0f}" for r in j["res"][t]))
    sys.stdout.flush()


def main():
    if not FIO:
        print("bench runner: fio is not installed (scripts/install-deps.sh installs it)")
        return 1
    if not os.access(OURS, os.X_OK):
        print("bench runner: build first (make all)")
        return 1
    only = set(filter(None, os.environ.get("BENCH_JOBS", "").split(",")))
    disk = os.environ.get("BENCH_DIR") or tempfile.mkdtemp(prefix="sb-bench-", dir="/var/tmp")
    shm = tempfile.mkdtemp(prefix="sb-bench-", dir="/dev/shm")
    files = {"disk": os.path.join(disk, "bench.file"), "shm": os.path.join(shm, "bench.file")}
    fio_v = subprocess.run([FIO, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"fio: {fio_v}; ours: {OURS}; rounds={ROUNDS}, runtime={RUNTIME}s + {RAMP}s ramp, "
          f"size={SIZE}, ioengine=io_uring; kernel {os.uname().release}; "
          f"{os.cpu_count()} CPUs; load {load():.1f} at start")
    print(f"command: BENCH_ROUNDS={ROUNDS} BENCH_RUNTIME={RUNTIME} "
          f"BENCH_CHECK_ROUNDS={CHECK_ROUNDS} make bench")
    try:
        lay_out(files["disk"])
        dev = Device(files["disk"])
        print(f"file: {files['disk']} on {dev.name or 'an unknown device'}, laid out by dd "
              f"(full O_DIRECT write of random data)")
        rows = []
        jobs = [] if only == {"none"} else [j for j in JOBS if not only or j[0] in only]
        if any(w == "shm" for _, _, w in jobs):
            lay_out_buffered(files["shm"])
        for name, opts, where in jobs:
            j = run_job(name, opts, files[where], dev if where == "disk" else None, ROUNDS)
            print_job(j)
            rows.append(j)
        if rows:
            print("\n| job | IOPS ours | IOPS fio | ours/fio | fio/fio control | device IOPS ours"
                  " / fio | block-layer µs/IO ours / fio | device in flight ours / fio "
                  "| CPU µs/IO ours / fio | load |")
            print("|---|---|---|---|---|---|---|---|---|---|")
            for j in rows:
                o, f = j["med"]["ours"], j["med"]["fio"]
                dev_cols = (f"{o['dev_iops']:.0f} / {f['dev_iops']:.0f} | "
                            f"{o['dev_lat_us']:.0f} / {f['dev_lat_us']:.0f} | "
                            f"{o['dev_inflight']:.1f} / {f['dev_inflight']:.1f}"
                            if o["dev_iops"] else "– | – | –")
                print(f"| {j['name']} | {o['iops']:.0f} | {f['iops']:.0f} | {j['ratio']:.3f} | "
                      f"{j['control']:.3f} | {dev_cols} | {o['cpu_us_per_io']:.2f} / "
                      f"{f['cpu_us_per_io']:.2f} | {o['load']:.1f} |")
        if CHECK_ROUNDS > 0:
            name, opts, where = CHECK
            j = run_job(name, opts, files[where], dev, CHECK_ROUNDS)
            print_job(j)
            # parity: 0.97-1.03, widened by how far the control itself is from 1
            slack = max(0.03, abs(j["control"] - 1))
            if j["ratio"] < 1 - slack:
                verdict = "BELOW fio: the runner drives the device more slowly than fio here"
            elif j["ratio"] > 1 + slack:
                verdict = ("above fio: compare the CPU per I/O, fio is short of CPU here "
                           "when its is the higher")
            else:
                verdict = "at parity with fio"
            o, f = j["med"]["ours"], j["med"]["fio"]
            print(f"\nQD32 check: ours/fio median {j['ratio']:.3f} over {CHECK_ROUNDS} rounds, "
                  f"fio/fio control {j['control']:.3f}: {verdict}; block-layer time per I/O "
                  f"ours {o['dev_lat_us']:.0f} us, fio {f['dev_lat_us']:.0f} us; CPU per I/O "
                  f"ours {o['cpu_us_per_io']:.2f} us, fio {f['cpu_us_per_io']:.2f} us; "
                  f"load {o['load']:.1f}")
    finally:
        if not os.environ.get("BENCH_DIR"):
            shutil.rmtree(disk, ignore_errors=True)
        else:
            for suffix in ("", ".out"):
                try:
                    os.unlink(files["disk"] + suffix)
                except FileNotFoundError:
                    pass
        shutil.rmtree(shm, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
