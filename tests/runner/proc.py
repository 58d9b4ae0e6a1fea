"""A runner started in the background, for tests that signal it: its stdout
and stderr are read as they come (a full pipe never blocks it), and a test
waits for a line on stderr (a progress mark) rather than sleeping."""
import os
import queue
import subprocess
import threading
import time

from conftest import RUNNER


class Proc:
    def __init__(self, args, env=None, prefix=(), binary=None):
        e = dict(os.environ)
        e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
        if env:
            e.update(env)
        cmd = list(prefix) + [binary or RUNNER] + [str(a) for a in args]
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, env=e)
        self._out = []
        self._err = []
        self._lines = queue.Queue()
        self._t_out = threading.Thread(target=self._pump_out, daemon=True)
        self._t_err = threading.Thread(target=self._pump_err, daemon=True)
        self._t_out.start()
        self._t_err.start()

    def _pump_out(self):
        self._out.append(self.p.stdout.read())

    def _pump_err(self):
        for line in self.p.stderr:
            self._err.append(line)
            self._lines.put(line)
        self._lines.put(None)

    @property
    def out(self):
        return "".join(self._out)

    @property
    def err(self):
        return "".join(self._err)

    def wait_line(self, text, timeout=120):
        """Waits for the next stderr line holding text (lines before it are passed)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise AssertionError(f"no line with {text!r} within {timeout}s:\n{self.err}")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                self.p.wait()
                raise AssertionError(f"the runner ended (rc={self.p.returncode}) before a line "
                                     f"with {text!r}:\n{self.err}\nstdout:\n{self.out[-2000:]}")
            if text in line:
                return line

    def signal_and_wait(self, sig, timeout=10):
        """Sends sig; returns (exit status, seconds it took to end). Fails past timeout."""
        t0 = time.monotonic()
        self.p.send_signal(sig)
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"still running {timeout}s after signal {sig}:\n{self.err}")
        dt = time.monotonic() - t0
        self._t_out.join(timeout=30)
        self._t_err.join(timeout=30)
        return rc, dt

    def wait(self, timeout=120):
        rc = self.p.wait(timeout=timeout)
        self._t_out.join(timeout=30)
        self._t_err.join(timeout=30)
        return rc

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def __repr__(self):
        return (f"rc={self.p.returncode}\nstdout:\n{self.out[-3000:]}\n"
                f"stderr:\n{self.err[-3000:]}")
