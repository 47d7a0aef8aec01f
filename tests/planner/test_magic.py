"""The ``%%faketensor`` cell magic (meta_utils/planner/magic.py) in an in-process IPython shell."""
import textwrap

import numpy as np
import pytest

import faketensor as ft

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
