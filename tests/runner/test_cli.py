"""The runner's command line: options in fio's words, clear errors, exit codes."""
import json
import os

from conftest import RUNNER, run


def test_version_and_help():
    r = run("--version")
    assert r.rc == 0 and r.out.startswith("storagebench-runner ")
    r = run("--help")
    assert r.rc == 0 and "--output-format" in r.out and "Exit status" in r.out


def test_unknown_option_is_named_exit_2(tmp):
    r = run("--name=x", "--rw=read", "--size=1m", f"--directory={tmp}", "--frobnicate=3")
    assert r.rc == 2, r
    assert "unknown option 'frobnicate'" in r.err
    assert r.out == ""


def test_bad_size_is_named(tmp):
    r = run("--name=x", "--rw=read", "--size=12q", f"--directory={tmp}")
    assert r.rc == 2, r
    assert "--size: size: '12q' is not a size" in r.err


def test_refused_option_names_reason(tmp):
    r = run("--name=x", "--rw=read", "--size=1m", f"--directory={tmp}", "--zonemode=zbd")
    assert r.rc == 2, r
    assert "option 'zonemode' is not supported" in r.err


def test_refused_engine_exit_2(tmp):
    r = run("--name=x", "--rw=read", "--size=1m", f"--directory={tmp}", "--ioengine=rdma")
    assert r.rc == 2, r
    assert "ioengine 'rdma' is not supported" in r.err


def test_noop_option_warns_and_json_stays_one_document(tmp):
    r = run("--name=x", "--rw=write", "--size=1m", f"--directory={tmp}", "--thread",
            "--iodepth_low=8", "--output-format=json")
    assert r.rc == 0, r
    doc = json.loads(r.out)  # the whole of stdout is one JSON document
    assert doc["jobs"][0]["write"]["io_bytes"] == 1 << 20
    assert "option 'thread' accepted without effect" in r.err
    assert "option 'iodepth_low' accepted without effect" in r.err


def test_iodepth_batch_submit_is_an_option_with_a_range(tmp):
    # the submission piece size of the io_uring loop (1 by default, as fio)
    for n in ("1", "8", "0"):
        r = run("--name=x", "--rw=randread", "--size=1m", f"--directory={tmp}",
                "--iodepth=16", f"--iodepth_batch_submit={n}", "--ioengine=io_uring",
                "--output-format=json")
        assert r.rc == 0, r
        assert "accepted without effect" not in r.err, r.err
        assert r.job()["read"]["io_bytes"] == 1 << 20
    r = run("--name=x", "--rw=read", "--size=1m", f"--directory={tmp}",
            "--iodepth_batch=65537")
    assert r.rc == 2 and "iodepth_batch" in r.err, r


def test_engine_mapping_reported(tmp):
    for asked, ran in (("libaio", "io_uring"), ("posixaio", "io_uring"), ("sync", "psync"),
                       ("pvsync", "psync"), ("psync", "psync"), ("null", "null"),
                       ("io_uring", "io_uring")):
        r = run("--name=x", "--rw=write", "--size=256k", f"--directory={tmp}",
                f"--ioengine={asked}", "--output-format=json")
        assert r.rc == 0, r
        eng = r.job()["engine"]
        assert eng["asked"] == asked and eng["ran"] == ran, eng
        r = run("--name=x", "--rw=write", "--size=256k", f"--directory={tmp}",
                f"--ioengine={asked}")
        assert f"engine={ran}" in r.out, r


def test_parse_only_good_and_bad(tmp):
    good = os.path.join(tmp, "good.fio")
    with open(good, "w") as f:
        f.write("[global]\nsize=1m\ndirectory=%s\n[a]\nrw=read\n[b]\nrw=write\nstonewall\n" % tmp)
    r = run("--parse-only", good)
    assert r.rc == 0, r
    assert "2 job(s) parsed" in r.err
    assert not os.path.exists(os.path.join(tmp, "a.0.0"))  # no I/O, no files
    bad = os.path.join(tmp, "bad.fio")
    with open(bad, "w") as f:
        f.write("[a]\nrw=read\nsize=1m\niodepth=lots\n")
    r = run("--parse-only", bad)
    assert r.rc == 2, r
    assert f"{bad}:4: iodepth: 'lots'" in r.err


def test_no_jobs_is_usage_error():
    r = run()
    assert r.rc == 2
    assert "no jobs defined" in r.err


def test_cmdhelp_lists_known_options():
    r = run("--cmdhelp")
    assert r.rc == 0
    lines = r.out.splitlines()
    assert any(l.startswith("bs ") and "supported" in l for l in lines)
    assert any(l.startswith("thread ") and "no-op" in l for l in lines)
    assert any(l.startswith("zonemode ") and "refused" in l for l in lines)


def test_invalid_combination_names_job_and_field(tmp):
    r = run("--name=tb", "--rw=read", "--size=1m", f"--directory={tmp}", "--time_based")
    assert r.rc == 2, r
    assert "job 'tb': time_based: needs runtime" in r.err


def test_output_file(tmp):
    out = os.path.join(tmp, "out.json")
    r = run("--name=x", "--rw=write", "--size=64k", f"--directory={tmp}",
            "--output-format=json", f"--output={out}")
    assert r.rc == 0, r
    assert r.out == ""
    with open(out) as f:
        assert json.load(f)["jobs"][0]["write"]["total_ios"] == 16


def test_single_dash_options_as_fio(tmp):
    # the wiki's script writes -direct=1 once
    r = run("--name=x", "--rw=write", "--bs=4k", "-direct=1", "--size=64k",
            f"--directory={tmp}", "--output-format=json")
    assert r.rc == 0, r
    assert r.job()["job options"]["direct"] == "1"


def test_docs_option_table_is_current():
    # docs/runner.md lists every option of lib/fiojob/opts.c with its status
    import subprocess
    import sys
    from conftest import ROOT
    p = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen-runner-docs.py"),
                        "--check"], capture_output=True, text=True,
                       env=dict(os.environ, SB_RUNNER=RUNNER))
    assert p.returncode == 0, p.stdout + p.stderr
