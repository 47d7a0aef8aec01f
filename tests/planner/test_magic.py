"""The ``%%faketensor`` cell magic (meta_utils/planner/magic.py) in an in-process IPython shell."""
import textwrap

import numpy as np
import pytest

import faketensor as ft
from faketensor.meta_utils.planner.report import human

pytest.importorskip("IPython")
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402

# one IPython shell, on one worker
pytestmark = pytest.mark.xdist_group("magic")


@pytest.fixture(scope="module")
def shell():
    sh = InteractiveShell.instance()
    sh.run_line_magic("load_ext", "faketensor")
    return sh


def cell(shell, capsys, line, body):
    result = shell.run_cell(f"%%faketensor {line}\n" + textwrap.dedent(body))
    out = capsys.readouterr()
    return result, out.out + out.err


def test_report_peak_line_and_live(shell, capsys):
    result, out = cell(shell, capsys, "", """\
        import numpy as np
        import scipy.linalg
        x = np.ones((1000, 1000))
        y = x @ x.T
        del x
        z = y.sum()
        """)
    assert result.error_in_exec is None
    assert ft.is_fake(shell.user_ns["y"]) and ft.is_fake(shell.user_ns["z"])
    lines = out.splitlines()
    assert lines[0] == "faketensor: 4 ops planned, nothing computed"
    assert lines[1] == ("  cpu: peak 15.26 MiB (16,000,000 B) at line 4 (np.matmul); "
                        "live at end 7.63 MiB")
    assert len(lines) == 2
    assert type(np.ones(2)) is np.ndarray  # the mode is gone after the cell


def test_stop_and_placeholder(shell, capsys):
    body = """\
        import numpy as np
        x = np.ones((100, 100))
        for _ in range(3):
            if x.sum() > 3:
                x = x * 2
        """
    result, out = cell(shell, capsys, "", body)
    assert result.error_in_exec is None
    assert out.splitlines()[0].startswith("stopped at line 4: DataDependentError: bool() needs")
    result, out = cell(shell, capsys, "--data-dependent placeholder", body)
    assert result.error_in_exec is None
    assert out.splitlines() == [
        "faketensor: 7 ops planned, nothing computed",
        "  cpu: peak 78.14 KiB (80,016 B) at line 2 (np.ones); live at end 78.12 KiB",
        "  placeholder x3 at line 4: bool() of a fake array (shape=(), dtype=bool) gave the "
        "placeholder False"]


def test_device_option(shell, capsys):
    result, out = cell(shell, capsys, "--device cuda:0", """\
        import numpy as np
        w = np.empty((256, 256), np.float32)
        """)
    assert result.error_in_exec is None
    assert shell.user_ns["w"].fake_device == "cuda:0"
    assert "  cuda:0: peak 256.00 KiB (262,144 B) at line 2 (np.empty)" in out


def test_bad_options_are_usage_errors(shell, capsys):
    for line in ("--bogus", "--data-dependent maybe", "--device gpu7"):
        result, out = cell(shell, capsys, line, "1\n")
        assert type(result.error_in_exec).__name__ == "UsageError", line
        assert "ops planned" not in out


def test_other_errors_propagate_after_the_report(shell, capsys):
    result, out = cell(shell, capsys, "", "import numpy as np\nx = np.empty(4)\n1/0\n")
    assert isinstance(result.error_in_exec, ZeroDivisionError)
    assert "  cpu: peak 32 B (32 B) at line 2 (np.empty); live at end 32 B" in out


def test_files_written_are_listed(shell, capsys, tmp_path):
    path = str(tmp_path / "w")
    result, out = cell(shell, capsys, "", f"""\
        import numpy as np
        x = np.ones((100, 10))
        np.save({path!r}, x)
        np.savetxt({path!r} + ".txt", x)
        """)
    assert result.error_in_exec is None
    lines = out.splitlines()
    assert lines[-2] == f"  np.save {path}.npy at line 3: 7.94 KiB (not written)"
    assert lines[-1] == (f"  np.savetxt {path}.txt at line 4: size depends on values "
                         "(not exact) (not written)")
    assert not list(tmp_path.iterdir())


def test_bounded_sizes_give_a_range(shell, capsys):
    """A cell that makes a data-dependent length runs again at its lower bound (output
    hidden, in a copy of its namespace): the report gives the range as ``ft.plan`` does;
    the cell's variables are the upper run's."""
    body = """\
        import numpy as np
        x = np.random.rand(1000)
        sel = x[x > 0.5]
        y = sel * 2
        print("printed once")
        """
    result, out = cell(shell, capsys, "", body)
    assert result.error_in_exec is None and out.count("printed once") == 1
    lines = out.splitlines()
    i = lines.index("  data-dependent sizes: the figures above assume each at its upper bound "
                    "(or where fixed); the range, each end exact for its assumption:")
    p = ft.plan(_select_twice, 1000)  # the same ops in a function: the same range
    lo, hi = p.bounded_sizes["peak"]["cpu"]["lower"], p.bounded_sizes["peak"]["cpu"]["upper"]
    assert lines[i + 1] == f"    cpu: peak {human(lo)} ({lo:,} B) .. {human(hi)} ({hi:,} B)"
    assert lines[i + 2] == ("    k0: 0 <= k0 <= 1,000 (a boolean mask at line 3; upper run "
                            "1,000, lower run 0)")
    assert shell.user_ns["sel"].shape == (1000,) and lo < hi
    result, out = cell(shell, capsys, "--assume-size 3=0.5 --assume-size 9=1", body)
    half = ft.plan(_select_twice, 1000, assume_sizes={_SELECT_LINE: 0.5}).peak["cpu"]
    assert f"    cpu: peak {human(half)} ({half:,} B) .. {human(half)} ({half:,} B)" in out
    assert "upper run 500, fixed at 0.5 of its range)" in out
    assert "    --assume-size 9=1: no size was made at that line" in out


def _select_twice(n):
    x = np.random.rand(n)
    sel = x[x > 0.5]
    y = sel * 2
    return y


_SELECT_LINE = _select_twice.__code__.co_firstlineno + 2


def test_a_lower_run_that_fails_is_reported(shell, capsys):
    result, out = cell(shell, capsys, "", """\
        import numpy as np
        x = np.random.rand(100)
        m = x[x > 0.5].max()
        """)
    assert result.error_in_exec is None
    assert "    cpu: peak not known .. " in out
    assert "    the run at the lower bounds stopped at line 3: ValueError: zero-size array" in out


def test_unique_under_the_magic(shell, capsys):
    """np.unique's C hash call and its NaN check reach the FakeMode through the magic's own
    mode above it (modes/python_entry.py ``to_kernel``)."""
    result, out = cell(shell, capsys, "", """\
        import numpy as np
        labels = np.random.randint(0, 5, 1000)
        classes = np.unique(labels)
        values, counts = np.unique(np.random.rand(1000), return_counts=True)
        """)
    assert result.error_in_exec is None and "stopped" not in out
    assert "    k0: 1 <= k0 <= 1,000 (np.unique at line 3; upper run 1,000, lower run 1)" in out
    assert ("    k1: 1 <= k1 <= 1,000 (np.unique, assuming no NaN at line 4; upper run 1,000, "
            "lower run 1)") in out
